"""``git -c key=value`` settings, which pygit2 does not read: git passes them to its
subcommands in ``GIT_CONFIG_PARAMETERS`` (and ``GIT_CONFIG_COUNT`` /
``GIT_CONFIG_KEY_<n>`` / ``GIT_CONFIG_VALUE_<n>``), and they win over every config file.
Values are parsed as git parses them (booleans, integers with k/m/g units); a bad value
is fatal, with git's message."""
from __future__ import annotations

import os
import re
from functools import lru_cache

from ..errors import ErrorKind, FatalError

_ABSENT = object()
TRUE = ("true", "yes", "on")
FALSE = ("false", "no", "off", "")


@lru_cache(maxsize=512)  # some thirty settings, asked again and again
def canonical_key(key: str) -> str:
    """section.subsection.name with the section and the name lower-cased (git's rule:
    the subsection is case-sensitive)."""
    first, _, rest = key.partition(".")
    if not rest:
        return key.lower()
    middle, _, name = rest.rpartition(".")
    if middle:
        return f"{first.lower()}.{middle}.{name.lower()}"
    return f"{first.lower()}.{name.lower()}"


def _sq_dequote(text: str, i: int) -> tuple[str, int]:
    """One single-quoted word of ``text`` from ``i`` (at its opening quote), as git's
    sq_quote writes it ('\\'' and '\\!' for a quote and a bang); returns (word, end)."""
    if i >= len(text) or text[i] != "'":
        raise ValueError("bogus format in GIT_CONFIG_PARAMETERS")
    out = []
    i += 1
    while True:
        j = text.find("'", i)
        if j < 0:
            raise ValueError("bogus format in GIT_CONFIG_PARAMETERS")
        out.append(text[i:j])
        i = j + 1
        if text.startswith("\\", i) and i + 2 < len(text) + 1 and text[i + 1:i + 2] in ("'", "!") \
                and text.startswith("'", i + 2):
            out.append(text[i + 1])
            i += 3
            continue
        return "".join(out), i


def parse_parameters(text: str) -> list[tuple[str, str | None]]:
    """(key, value or None) pairs of a GIT_CONFIG_PARAMETERS value: each entry is
    ``'key=value'`` (older git) or ``'key'='value'`` (git 2.31 and later), separated by
    whitespace; ``'key'`` alone means a boolean true (value None)."""
    out: list[tuple[str, str | None]] = []
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        word, i = _sq_dequote(text, i)
        if text.startswith("=", i):
            i += 1
            if i < len(text) and text[i] == "'":
                value, i = _sq_dequote(text, i)
            else:
                value = None  # 'key'= : an implicit boolean true, as git writes `-c key`
            out.append((word, value))
        else:
            key, sep, value = word.partition("=")
            out.append((key, value if sep else None))
        if i < len(text) and not text[i].isspace():
            raise ValueError("bogus format in GIT_CONFIG_PARAMETERS")
    return out


def command_line_settings(env=None) -> dict[str, str | None]:
    """canonical key -> value (None: the key was given without '=') of every ``git -c``
    setting; a later one wins, as in git."""
    env = os.environ if env is None else env
    out: dict[str, str | None] = {}
    count = env.get("GIT_CONFIG_COUNT")
    if count:
        try:
            n = int(count)
        except ValueError:
            raise FatalError(f"bogus count in GIT_CONFIG_COUNT: {count}", kind=ErrorKind.CONFIG) from None
        for k in range(n):
            key = env.get(f"GIT_CONFIG_KEY_{k}")
            if key is None:
                raise FatalError(f"missing config key GIT_CONFIG_KEY_{k}", kind=ErrorKind.CONFIG)
            value = env.get(f"GIT_CONFIG_VALUE_{k}")
            if value is None:
                raise FatalError(f"missing config value GIT_CONFIG_VALUE_{k}", kind=ErrorKind.CONFIG)
            out[canonical_key(key)] = value
    params = env.get("GIT_CONFIG_PARAMETERS")
    if params:
        try:
            pairs = parse_parameters(params)
        except ValueError as e:
            raise FatalError(str(e), kind=ErrorKind.CONFIG) from None
        for key, value in pairs:
            out[canonical_key(key)] = value
    return out


def parse_bool(value: str | None, key: str) -> bool:
    """A boolean as git reads it; a key without a value is true."""
    if value is None:
        return True
    v = value.strip().lower()
    if v in TRUE:
        return True
    if v in FALSE:
        return False
    try:
        return parse_int(v, key) != 0
    except FatalError:
        raise FatalError(f"bad boolean config value '{value}' for '{key}'", kind=ErrorKind.CONFIG) from None


_NUMBER = re.compile(r"([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)(.*)", re.S)
_UNITS = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
_INT64 = 2 ** 63


def parse_int(value: str | None, key: str) -> int:
    """An integer as git reads it (git_parse_signed: strtoimax in base 0, so 0x10 is 16
    and 010 is 8, then an optional k, m or g unit and nothing else; within 64 bits)."""
    v = (value or "").strip()
    m = _NUMBER.fullmatch(v)
    if m is None or m.group(3).lower() not in _UNITS:
        raise FatalError(f"bad numeric config value '{value}' for '{key}': invalid unit",
                         kind=ErrorKind.CONFIG)
    sign, digits, unit = m.groups()
    number = int(digits, 0) if digits[:2].lower() == "0x" or digits == "0" else \
        int(digits, 8 if digits.startswith("0") else 10)
    number *= -1 if sign == "-" else 1
    # strtoimax's own range first (out of range before the unit applies), then the unit's
    if not -_INT64 <= number < _INT64 or not -_INT64 <= number * _UNITS[unit.lower()] < _INT64:
        raise FatalError(f"bad numeric config value '{value}' for '{key}': out of range",
                         kind=ErrorKind.CONFIG)
    return number * _UNITS[unit.lower()]
