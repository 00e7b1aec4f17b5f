"""Writing commits, signed as ``git commit -S`` does (gpg, gpgsm, ssh-keygen); a signer that
fails stops the run (fatal: the environment, not the response)."""
from __future__ import annotations

import os

from ..errors import ErrorKind, FatalError


def signer(repo, sign: bool | None):
    """A callable that signs commit content as ``git commit -S`` does, or None.

    Whether: ``sign`` (-S / --no-gpg-sign), else aiapply.gpgSign, else commit.gpgSign.
    How: gpg.format openpgp (gpg.program, default gpg) or x509 (gpg.x509.program, default
    gpgsm) run as ``PROGRAM --status-fd=2 -bsau KEY`` with KEY = user.signingKey or the
    committer's "Name <email>"; ssh (gpg.ssh.program, default ssh-keygen) run as
    ``ssh-keygen -Y sign -n git -f KEY FILE``."""
    if sign is None:
        sign = repo.config_bool("aiapply.gpgSign", repo.config_bool("commit.gpgSign", False))
    if not sign:
        return None
    fmt = (repo.config_get("gpg.format") or "openpgp").lower()
    if fmt not in ("openpgp", "x509", "ssh"):
        raise FatalError(f"invalid value for 'gpg.format': '{fmt}' (use openpgp, x509 or ssh)",
                         kind=ErrorKind.CONFIG)
    default = {"openpgp": "gpg", "x509": "gpgsm", "ssh": "ssh-keygen"}[fmt]
    program = repo.config_get(f"gpg.{fmt}.program") if fmt != "openpgp" else None
    program = program or (repo.config_get("gpg.program") if fmt == "openpgp" else None) or default
    key = repo.config_get("user.signingKey")
    if fmt == "ssh":
        return lambda content: _ssh_sign(program, key, content)

    def run(content: str) -> str:
        import subprocess

        who = key
        if not who:
            from .ident import identity

            c = identity(repo, "committer")
            who = f"{c.name} <{c.email}>"
        args = [program, "--status-fd=2", "-bsau", who]
        try:
            p = subprocess.run(args, input=content.encode("utf-8", "surrogateescape"),
                               capture_output=True)
        except OSError as e:
            raise FatalError(f"cannot run {program} to sign the commit: {e.strerror} (set "
                             "gpg.program to your gpg, or pass --no-gpg-sign)",
                             kind=ErrorKind.SIGNING) from None
        if p.returncode != 0 or b"-----BEGIN" not in p.stdout:
            # as git: what the signer said, then "gpg failed to sign the data"
            said = p.stderr.decode("utf-8", "replace").strip()[-500:]
            raise FatalError((said + "\n" if said else "") +
                             f"{program} failed to sign the data", kind=ErrorKind.SIGNING)
        return p.stdout.decode("utf-8", "replace")

    return run


def _ssh_sign(program: str, key: str | None, content: str) -> str:
    """gpg.format=ssh: ``ssh-keygen -Y sign -n git -f KEY FILE`` writes FILE.sig; a literal
    key (``key::...`` or ``ssh-...``) is used through the ssh agent (-U), as git does."""
    import shutil
    import subprocess
    import tempfile

    if not key:
        raise FatalError("either user.signingkey or gpg.ssh.defaultKeyCommand needs to be "
                         "configured", kind=ErrorKind.SIGNING)
    folder = tempfile.mkdtemp(prefix="ai-apply-sign-")
    try:
        payload = os.path.join(folder, "commit")
        with open(payload, "wb") as f:
            f.write(content.encode("utf-8", "surrogateescape"))
        literal = key[5:] if key.startswith("key::") else (key if key.startswith("ssh-") else None)
        args = [program, "-Y", "sign", "-n", "git", "-f"]
        if literal is not None:
            keyfile = os.path.join(folder, "key.pub")
            with open(keyfile, "w") as f:
                f.write(literal + "\n")
            args += [keyfile, "-U", payload]
        else:
            args += [os.path.expanduser(key), payload]
        try:
            p = subprocess.run(args, capture_output=True)
        except OSError as e:
            raise FatalError(f"cannot run {program} to sign the commit: {e.strerror}",
                             kind=ErrorKind.SIGNING) from None
        try:
            with open(payload + ".sig", encoding="utf-8") as f:
                sig = f.read()
        except OSError:
            sig = ""
        if p.returncode != 0 or "-----BEGIN" not in sig:
            # as git: what the signer said, then "gpg failed to sign the data"
            said = p.stderr.decode("utf-8", "replace").strip()[-500:]
            raise FatalError((said + "\n" if said else "") +
                             f"{program} failed to sign the data", kind=ErrorKind.SIGNING)
        return sig
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write_commit(r, author, committer, message: str, tree_id, parents, sign=None):
    """Write a commit object as ``git commit`` writes it, signed by ``sign(content) ->
    signature`` when given.  The header is built here from ``git.ident.Ident`` lines, not
    by libgit2, whose signatures refuse the empty email git writes (``Name <>``)."""
    import pygit2

    header = [f"tree {tree_id}", *(f"parent {p}" for p in parents),
              f"author {author.line()}", f"committer {committer.line()}"]
    content = "\n".join(header) + "\n\n" + message
    if sign is None:
        return r.write(pygit2.enums.ObjectType.COMMIT,
                       content.encode("utf-8", "surrogateescape"))
    # without its final newline, or libgit2 writes an extra " " line into the header,
    # which git never does
    signature = sign(content).rstrip("\n")
    return r.create_commit_with_signature(content, signature)
