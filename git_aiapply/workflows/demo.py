"""`git ai-apply demo`: a scratch repository, one example response per format (and one
chat-API answer whose edits are tool calls) applied through the real command path, and
the resulting history."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from importlib import resources

PROJECT = {
    "README.md": "# Demo app\n\nA tiny program that greets people.\n",
    "src/app.py": (
        "def greet(name):\n"
        '    print("Hi " + name)\n'
        "\n\n"
        "def main():\n"
        '    greet("world")\n'
        "\n\n"
        'if __name__ == "__main__":\n'
        "    main()\n"
    ),
    "src/util.py": (
        "def slugify(text):\n"
        '    return text.strip().lower().replace(" ", "-")\n'
        "\n\n"
        "def shout(text):\n"
        "    return text.upper()\n"
    ),
    "docs/NOTES.txt": "Ideas: a config file, a command line argument.\n",
    "old_config.ini": "[greeting]\nword = Hi\n",
}


def _hashline_response(util_text: str) -> str:
    """The hashline example: its ids must match the file as the earlier examples left it."""
    from ..locate.hashline import line_id

    lines = util_text.splitlines()
    n = next(i for i, l in enumerate(lines, 1) if l.startswith("def shout"))
    body = n + 1
    return (
        "Give `shout` an exclamation mark, as shouting deserves one.\n\n"
        "<FILE_CHANGES>\n"
        '<FILE_HASHLINE_PATCH file_path="src/util.py">\n'
        f'{body}#{line_id(lines[body - 1])}:    return text.upper() + "!"\n'
        f"<+{n}#{line_id(lines[n - 1])}:# Loud on purpose.\n"
        "</FILE_HASHLINE_PATCH>\n"
        "</FILE_CHANGES>\n"
    )


def _git(cwd: str, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def run_demo(keep: bool = True) -> int:
    from ..run.pipeline import Options, apply_one
    from ..git.repo import Repo
    from ..answer.response import read_response

    root = tempfile.mkdtemp(prefix="git-ai-apply-demo-")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.name", "Demo User")
    _git(root, "config", "user.email", "demo@example.com")
    for path, text in PROJECT.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", newline="") as f:
            f.write(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "Demo app: first version")

    # one response per format, and one chat-API answer whose edits are tool calls
    examples = sorted(p.name for p in resources.files("git_aiapply.examples").iterdir()
                      if p.name.endswith((".md", ".json")))
    responses = [(name, resources.files("git_aiapply.examples").joinpath(name).read_bytes())
                 for name in examples]
    cwd = os.getcwd()
    os.chdir(root)
    code = 0
    try:
        repo = Repo(root)
        for name, raw in sorted(responses + [("05-hashline.md", None)]):
            if raw is None:
                with open(os.path.join(root, "src/util.py")) as f:
                    raw = _hashline_response(f.read()).encode()
            resp = read_response(raw, name=name)
            # the whole format is never auto-detected: its example asks for it, as a user would
            options = Options(format="whole") if "whole" in name else Options()
            outcome = apply_one(repo, resp, options)
            status = f"{outcome.status}" + (f" {outcome.commit[:7]}" if outcome.commit else "")
            print(f"{name:22} {', '.join(outcome.formats):14} {status}")
            if outcome.exit_code:
                code = 1
                for p in outcome.problems:
                    print(p.render(), file=sys.stderr)
    finally:
        os.chdir(cwd)
    print()
    print(_git(root, "log", "--stat", "-M"))
    if keep:
        print(f"The demo repository is in {root}")
    else:
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    return code
