"""Snapshot files: ready-made views a planner reads every turn for the cost of a file read.

Written atomically (temporary file in the same directory, fsync, rename, fsync of the
directory), so a reader sees the old file or the new one, never half of one. A write of the
bytes the file already holds is skipped (no rewrite: the file and its directory are fsynced, which
costs little when they are already durable, and makes them so when a crash left them unsynced). Layout:
<state_dir>/snapshots/<scope>/<view>, e.g. maya/time/week.json or maya/facts.json.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from pathlib import Path
from typing import Any

from stores.scopes import validate_scope


def snapshot_path(root: Path, scope: str, view: str) -> Path:
    """The file of `view` (e.g. "time/week.json") for a validated scope, inside `root`."""
    validate_scope(scope)
    path = (root / scope / view).resolve()
    if not path.is_relative_to((root / scope).resolve()):
        raise ValueError(f"snapshot view {view!r} escapes the scope directory")
    return path


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` atomically. An OSError (read-only or full file system, no
    permission) names `path` itself, not the temporary file, so a report says which view."""
    try:
        if not _already(path, data):
            _write_atomic(path, data)
    except OSError as exc:
        if exc.filename == str(path) or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, str(path)) from exc


def _already(path: Path, data: bytes) -> bool:
    """Whether `path` holds exactly `data`, made durable (fsynced, with its directory) if so."""
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size != len(data) or handle.read(len(data) + 1) != data:
                return False
            os.fsync(handle.fileno())
        fsync_path(path.parent)
    except OSError:  # missing, unreadable: written as before, which reports its own fault
        return False
    return True


def fsync_path(path: Path) -> None:
    """fsync a file or a directory by its path (a directory: the names in it are durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Not mkstemp (always 0600): 0666 less the umask, so that under the unit's UMask=0007 the
    # snapshots are readable by the agents in the state directory's group.
    tmp = str(path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_path(path.parent)


def publish_json(root: Path, scope: str, view: str, payload: dict[str, Any]) -> Path:
    path = snapshot_path(root, scope, view)
    write_atomic(path, json.dumps(payload, ensure_ascii=False, indent=1).encode())
    return path


def publish_text(root: Path, scope: str, view: str, text: str) -> Path:
    path = snapshot_path(root, scope, view)
    write_atomic(path, text.encode())
    return path


def read_snapshot(root: Path, scope: str, view: str) -> str:
    return snapshot_path(root, scope, view).read_text(encoding="utf-8")


def remove_scope(root: Path, scope: str) -> None:
    """Erase every snapshot of a scope (for `forget`)."""
    validate_scope(scope)
    shutil.rmtree(root / scope, ignore_errors=True)
