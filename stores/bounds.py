"""Strings bounded by their column: model output is cut to fit before it is stored.

What the model writes (a contact's name, a detail's key, a fact's topic, a task's title...)
comes with no length bound, and PostgreSQL refuses a value longer than its VARCHAR(n)
("value too long for type character varying") where SQLite silently keeps it. A column that
takes such text is declared `Bounded(n)`: every value bound to it, on every write path (ORM
or Core) and in comparisons, is cut to n characters, so the store never refuses it and a
lookup by the full value finds the row kept under the cut one. `fit(column, value)` cuts the
same way for code that compares in Python. The length lives in one place, the column.

Columns whose values are validated before they get here (scopes, message ids, speakers)
keep plain String(n) sized from those limits: for them a longer value is a bug to report.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import String
from sqlalchemy.types import TypeDecorator


class Bounded(TypeDecorator):
    """VARCHAR(length) whose bound values are cut to `length` characters."""

    impl = String
    cache_ok = True

    def __init__(self, length: int) -> None:
        super().__init__(length)
        self.length = length

    def process_bind_param(self, value: Any, dialect) -> Any:
        return cut(value, self.length)


def cut(value: Any, length: int) -> Any:
    """`value` cut to `length` characters (anything not a string is left alone)."""
    if isinstance(value, str) and len(value) > length:
        return value[:length]
    return value


def fit(column: Any, value: str) -> str:
    """`value` as `column` (a Bounded column or mapped attribute, e.g. Contact.name) will store it."""
    kind = getattr(column, "type", None)
    length = getattr(kind, "length", None)
    if not isinstance(kind, Bounded) or length is None:
        raise TypeError(f"{column} is not a Bounded column")
    return cut(value, length)
