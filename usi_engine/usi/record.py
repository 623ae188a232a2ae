"""A plain record class for the modules that ``usi-engine`` imports before ``usiok``.

:mod:`dataclasses` imports :mod:`inspect` (with ``ast``, ``dis`` and ``tokenize``),
some 15 ms of the 100 ms a GUI allows from process start to ``usiok``; these records
need only field-wise equality and a readable repr.

Example::

    >>> class Point(Record):
    ...     __slots__ = ("x", "y")
    ...     def __init__(self, x: int, y: int) -> None:
    ...         self.x, self.y = x, y
    >>> Point(1, 2) == Point(1, 2), Point(1, 2) == Point(2, 1)
    (True, False)
    >>> Point(1, 2)
    Point(x=1, y=2)
"""
from __future__ import annotations

from typing import Any

__all__ = ["Record"]


class Record:
    """Equality and repr over the fields named in ``__slots__`` (a tuple). Unhashable
    (defining ``__eq__`` sets ``__hash__`` to None) unless a subclass defines a hash."""

    __slots__: tuple[str, ...] = ()

    def field_values(self) -> tuple[Any, ...]:
        """The fields' values, in ``__slots__`` order."""
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Record)
        return self.field_values() == other.field_values()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"
