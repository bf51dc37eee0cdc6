"""The planner's reader: a scope's context.md for the cost of one file read.

A planner calls `read_context` every turn, so this module imports nothing heavy: the
standard library only: the snapshot directory is resolved the way the CLI does by
`consolidator.core.locate` (no pydantic), once per config location. It never
opens the database.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from consolidator.core.locate import state_dir_of
from stores.scopes import validate_scope

if TYPE_CHECKING:
    from consolidator.core.config import Settings

__all__ = ["CONTEXT_FILE", "read_context", "snapshot_root"]

CONTEXT_FILE = "context.md"
_ROOTS: dict[tuple, Path] = {}


def snapshot_root(config: "Path | str | Settings | None") -> Path:
    """The snapshot directory for a config location (resolved once per process and environment)."""
    if hasattr(config, "snapshot_dir"):
        return config.snapshot_dir
    env = os.environ
    key = (str(config) if config else None, env.get("CONSOLIDATOR_CONFIG"), env.get("CONSOLIDATOR_STATE_DIR"), os.getcwd())
    root = _ROOTS.get(key)
    if root is None:
        state_dir = state_dir_of(Path(config) if config else None)
        if state_dir is None:  # a config that does not parse: the full loader says what is wrong
            from consolidator.core.config import load_settings

            state_dir = load_settings(Path(config) if config else None).state_dir
        root = _ROOTS[key] = state_dir / "snapshots"
    return root


def read_context(scope: str, config: "Path | str | Settings | None" = None) -> str:
    """The scope's context.md ("" when none is published yet): one file read, no database.

    `config` is a config.toml path (else the CLI's lookup) or a Settings. The state directory
    is resolved once per process for a given config location and environment.
    """
    validate_scope(scope)
    try:
        return (snapshot_root(config) / scope / CONTEXT_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
