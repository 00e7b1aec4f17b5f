"""Functions a reader can hold (issue 23 item 6): no function of the package over
cyclomatic complexity 20, counted as radon counts it. Nested functions and methods are
counted too, each on its own, so hiding branches in a closure does not help."""
from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit

PACKAGE = Path(__file__).resolve().parent.parent / "git_aiapply"
MOST = 20


def functions_over(source: str, most: int) -> list[tuple[str, int, int]]:
    """(name, line, complexity) of each function or method of ``source`` over ``most``."""
    over = set()  # radon gives a method both in its class and on its own
    blocks = list(cc_visit(source))
    while blocks:
        b = blocks.pop()
        blocks.extend([*getattr(b, "methods", ()), *getattr(b, "closures", ())])
        if b.letter in "FM" and b.complexity > most:
            over.add((b.fullname, b.lineno, b.complexity))
    return sorted(over, key=lambda o: o[1])


def test_no_function_of_the_package_over_the_limit():
    over = [f"{p.relative_to(PACKAGE.parent)}:{line} {name} ({cc})"
            for p in sorted(PACKAGE.rglob("*.py"))
            for name, line, cc in functions_over(p.read_text(encoding="utf-8"), MOST)]
    assert not over, f"functions over complexity {MOST}:\n" + "\n".join(over)


def test_the_count_sees_branches_hidden_in_a_closure():
    # the rule would be empty if a nested function's branches went uncounted
    branches = "\n".join(f"        if x == {i}:\n            return {i}" for i in range(MOST))
    source = f"def outer(x):\n    def inner(x):\n{branches}\n    return inner(x)\n"
    assert [(name, cc) for name, _line, cc in functions_over(source, MOST)] == [
        ("inner", MOST + 1)]
    assert functions_over(source, MOST + 1) == []
