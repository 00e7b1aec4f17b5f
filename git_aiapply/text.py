"""A file's text as lines that keep their own endings, BOM and final-newline state.

Bytes are decoded as UTF-8 with ``surrogateescape``, so a file that is not valid UTF-8
still round-trips byte for byte; lines end at ``\\r\\n``, ``\\n`` or a lone ``\\r``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

BOM = "\ufeff"
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r|$)")


def decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def is_binary(data: bytes) -> bool:
    """Git's rule: a NUL byte in the first 8,000 bytes."""
    return b"\0" in data[:8000]


@dataclass
class FileText:
    """A file's lines with their own endings, BOM and final-newline state."""

    lines: list[str]  # content without endings
    endings: list[str]  # '\r\n', '\n', '\r' or '' (only the last line may have '')
    bom: bool = False

    @classmethod
    def from_bytes(cls, data: bytes) -> "FileText":
        return cls.from_str(decode(data))

    @classmethod
    def from_str(cls, text: str) -> "FileText":
        bom = text.startswith(BOM)
        if bom:
            text = text[1:]
        lines: list[str] = []
        endings: list[str] = []
        if text and "\r" not in text:
            # the common case, fast: LF only
            lines = text.split("\n")
            if lines[-1] == "":
                lines.pop()
                endings = ["\n"] * len(lines)
            else:
                endings = ["\n"] * (len(lines) - 1) + [""]
        elif text:
            # splitlines(True) would also split on \v, \f, \x1c..., which git does not.
            for m in _LINE_RE.finditer(text):
                chunk = m.group(0)
                if not chunk:
                    break
                if chunk.endswith("\r\n"):
                    lines.append(chunk[:-2]); endings.append("\r\n")
                elif chunk.endswith(("\n", "\r")):
                    lines.append(chunk[:-1]); endings.append(chunk[-1])
                else:
                    lines.append(chunk); endings.append("")
        return cls(lines, endings, bom)

    @property
    def final_newline(self) -> bool:
        return not self.endings or self.endings[-1] != ""

    def dominant_ending(self) -> str:
        counts = {"\n": 0, "\r\n": 0, "\r": 0}
        for e in self.endings:
            if e:
                counts[e] += 1
        best = max(counts.values())
        if best == 0:
            return "\n"
        for e in ("\n", "\r\n", "\r"):  # ties go to LF
            if counts[e] == best:
                return e
        return "\n"

    def to_str(self) -> str:
        lines, endings = self.lines, self.endings
        n = len(endings)
        e = endings[0] if n else ""
        same = endings.count(e) if n else 0
        if n and len(lines) == n and (same == n or (same == n - 1 and endings[-1] != e)):
            # one ending throughout but maybe the last line's: one join, no per-line copies
            # (a 600,000-line file would otherwise hold a second copy of every line)
            body = e.join(lines) + endings[-1]
        else:
            body = "".join([s for pair in zip(lines, endings) for s in pair])
        return (BOM if self.bom else "") + body

    def to_bytes(self) -> bytes:
        return encode(self.to_str())

    def __len__(self) -> int:
        return len(self.lines)


def rebuild(lines: list[str], endings: list[str], *, bom: bool, final_newline: bool,
            default_ending: str) -> FileText:
    """Assemble new lines, giving every line but the last an ending and the last one the
    requested final-newline state."""
    endings = list(endings)
    for i in range(len(endings) - 1):
        if not endings[i]:
            endings[i] = default_ending
    if endings:
        if final_newline and not endings[-1]:
            endings[-1] = default_ending
        elif not final_newline:
            endings[-1] = ""
    return FileText(list(lines), endings, bom)
