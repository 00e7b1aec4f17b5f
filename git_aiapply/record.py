"""A lighter ``@dataclass`` for the classes on the start-up path.

``dataclasses.dataclass`` costs about 0.3-0.6 ms per class (it generates and compiles
``__init__``, ``__repr__``, ``__eq__`` and more, and inspects the class); with ~30 classes
loaded by every `git ai-apply` run that was about a tenth of the start-up time above the
`import pygit2` floor.  ``record`` compiles only ``__init__`` (so creating instances stays
as fast as with a dataclass) and shares one ``__eq__`` / ``__repr__`` among all records.

Supported: annotated fields in order, plain defaults, ``field(default_factory=...)``,
``__post_init__``, ``frozen=True`` (immutable and hashable) and ``replace``.  Equality and
hashing follow dataclasses: same class and equal fields; a mutable record is unhashable.
"""
from __future__ import annotations

# Type checkers read @record as a dataclass (PEP 681); at run time the marker costs nothing,
# so that `typing` stays off the start-up path.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, dataclass_transform
else:
    def dataclass_transform(**_kwargs):
        return lambda decorated: decorated

_FIELDS = "__record_fields__"


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make


def field(*, default_factory) -> "Any":
    """A field whose default is made anew for every instance (``list``, ``dict``...)."""
    return _Factory(default_factory)


class FrozenInstanceError(AttributeError):
    pass


def _eq(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return all(getattr(self, n) == getattr(other, n) for n in getattr(self, _FIELDS))


def _repr(self):
    inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in getattr(self, _FIELDS))
    return f"{self.__class__.__qualname__}({inner})"


def _hash(self):
    return hash(tuple(getattr(self, n) for n in getattr(self, _FIELDS)))


def _frozen_setattr(self, name, value):
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name):
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _make(cls, frozen: bool):
    names = list(cls.__dict__.get("__annotations__", {}))
    params, body, namespace = [], [], {"_setattr": object.__setattr__}
    seen_default = False
    for name in names:
        value = cls.__dict__.get(name, _FIELDS)
        if value is _FIELDS:
            if seen_default:
                raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one with")
            params.append(name)
            source = name
        elif isinstance(value, _Factory):
            seen_default = True
            namespace[f"_make_{name}"] = value.make
            params.append(f"{name}=_MISSING")
            source = f"_make_{name}() if {name} is _MISSING else {name}"
            delattr(cls, name)
        else:
            seen_default = True
            namespace[f"_default_{name}"] = value
            params.append(f"{name}=_default_{name}")
            source = name
        body.append(f"_setattr(self, {name!r}, {source})" if frozen else f"self.{name} = {source}")
    if "__post_init__" in cls.__dict__:
        body.append("self.__post_init__()")
    namespace["_MISSING"] = _FIELDS
    code = f"def __init__(self, {', '.join(params)}):\n    " + ("\n    ".join(body) or "pass")
    exec(code, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init
    setattr(cls, _FIELDS, tuple(names))
    cls.__eq__ = _eq
    if "__repr__" not in cls.__dict__:
        cls.__repr__ = _repr
    if frozen:
        cls.__setattr__ = _frozen_setattr
        cls.__delattr__ = _frozen_delattr
        cls.__hash__ = _hash
    else:
        cls.__hash__ = None
    return cls


@dataclass_transform(field_specifiers=(field,))
def record(cls=None, *, frozen: bool = False):
    """Class decorator: ``@record`` or ``@record(frozen=True)``."""
    if cls is None:
        return lambda c: _make(c, frozen)
    return _make(cls, frozen)


def replace(obj, **changes):
    """A copy of record ``obj`` with some fields changed (as ``dataclasses.replace``)."""
    values = {n: getattr(obj, n) for n in getattr(obj, _FIELDS)}
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{obj.__class__.__name__} has no field {sorted(unknown)[0]!r}")
    values.update(changes)
    return obj.__class__(**values)
