"""Scope names: validated once, because a scope becomes a directory name under snapshots/."""

from __future__ import annotations

import re

MAX_SCOPE_CHARS = 128  # every table's scope column is sized from this
_SCOPE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,%d}" % (MAX_SCOPE_CHARS - 1))


class InvalidScope(ValueError):
    """A scope name that could escape its directory or is otherwise unusable."""


def validate_scope(scope: object) -> str:
    """Return `scope` if it is 1-128 characters of [A-Za-z0-9._-] not starting with a dot."""
    if not isinstance(scope, str):
        raise InvalidScope(f"scope must be a string, got {type(scope).__name__}")
    if not _SCOPE.fullmatch(scope):
        raise InvalidScope(
            f"invalid scope {scope!r}: use 1-{MAX_SCOPE_CHARS} characters of A-Z a-z 0-9 . _ - , not starting with '.'"
        )
    return scope
