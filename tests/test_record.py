"""The light @record decorator behaves like the parts of @dataclass the tool uses."""
from __future__ import annotations

import pytest

from git_aiapply.record import FrozenInstanceError, field, record, replace


@record
class Point:
    x: int
    y: int = 0
    tags: list = field(default_factory=list)


@record(frozen=True)
class Key:
    name: str
    n: int = 1


@record
class Checked:
    a: int
    b: list = field(default_factory=list)

    def __post_init__(self):
        if not self.b:
            self.b = [self.a]


def test_fields_defaults_and_factories():
    p = Point(1)
    assert (p.x, p.y, p.tags) == (1, 0, [])
    q = Point(1, tags=["t"], y=2)
    assert (q.x, q.y, q.tags) == (1, 2, ["t"])
    assert Point(1).tags is not Point(1).tags  # a fresh list each time
    with pytest.raises(TypeError):
        Point()
    with pytest.raises(TypeError):
        Point(1, z=3)


def test_equality_repr_and_hashing():
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(2, 1)
    assert Point(1) != Key("x")
    assert repr(Point(1, 2)) == "Point(x=1, y=2, tags=[])"
    with pytest.raises(TypeError):
        hash(Point(1))
    assert hash(Key("a")) == hash(Key("a")) and {Key("a"), Key("a")} == {Key("a")}


def test_frozen_and_replace():
    k = Key("a")
    with pytest.raises(FrozenInstanceError):
        k.n = 2
    k2 = replace(k, n=5)
    assert (k.n, k2.n, k2.name) == (1, 5, "a")
    with pytest.raises(TypeError):
        replace(k, nope=1)


def test_post_init_runs():
    assert Checked(3).b == [3]


def test_non_default_after_default_refused():
    with pytest.raises(TypeError):
        @record
        class Bad:
            a: int = 1
            b: int
