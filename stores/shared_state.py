"""Sharing the embedded database with a group: the daemon and its agents in one state directory.

On a systemd host the state directory is /var/lib/consolidator, mode 2770 (setgid, group
"consolidator"): the daemon and every agent's user in that group must be able to write the
database. SQLite creates a new database file with 0644 less the umask, so it is never
group-writable by itself; it does give its -wal and -shm files the database file's mode
(whatever the umask of the process that creates them). So one rule suffices: a database
file in a group-writable directory is made group-readable and group-writable by its owner.
A private directory (the default ~/.local/state/consolidator, 0700) is left as it is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from sqlalchemy.engine import make_url

from stores.engine import is_embedded

GROUP_RW = stat.S_IRGRP | stat.S_IWGRP


def database_file(url: str) -> Path | None:
    """The file of an embedded database URL (None for a server or an in-memory database)."""
    if not is_embedded(url):
        return None
    try:
        database = make_url(url).database
    except Exception:  # an unparsable URL is reported where the engine is made
        return None
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def share_database_file(url: str) -> list[Path]:
    """Give the group read and write on the database file (and its -wal and -shm files, if
    they exist) when its directory is group-writable; returns the files changed.

    Only the owner of a file may change its mode: files owned by another user are left as
    they are (the process that created them made them group-writable in its turn)."""
    path = database_file(url)
    if path is None:
        return []
    try:
        directory = path.parent.stat()
    except OSError:
        return []
    if not directory.st_mode & stat.S_IWGRP:
        return []
    changed = []
    for candidate in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            info = candidate.stat()
            if info.st_uid != os.geteuid() or info.st_mode & GROUP_RW == GROUP_RW:
                continue
            os.chmod(candidate, stat.S_IMODE(info.st_mode) | GROUP_RW)
        except OSError:
            continue  # gone meanwhile (a -wal at close) or not ours to change
        changed.append(candidate)
    return changed
