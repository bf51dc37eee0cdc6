"""The snapshot files of the served scopes as read-only MCP resources (no SDK here).

`consolidator://SCOPE/context.md`, `.../facts`, `.../facts/index`, `.../contacts`, `.../tasks`, and one per ladder
rung with a published summary (`.../time/day` ... `.../count/520`). A resource is a file the
daemon publishes atomically (temp file, rename), so a read sees one whole version; its published
time is the file's modification time. Only the files below are ever named: a URI is parsed into
(scope, view) against this table and the ladder/rung pattern, never joined to a path as given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from consolidator.mcpserver.access import Refused, Scopes

SCHEME = "consolidator"
VIEWS = {  # the URI's tail -> (file under snapshots/<scope>/, MIME type, what it is)
    "context.md": ("context.md", "text/markdown", "the block a planner pastes every turn"),
    "facts": ("facts.json", "application/json", "current facts, ranked"),
    "contacts": ("contacts.json", "application/json", "people and their details"),
    "tasks": ("tasks.json", "application/json", "open tasks and the recently closed"),
    "facts/index": ("facts/index.json", "application/json", "the topic tables of the facts (docs/tables.md)"),
}
LADDERS = ("time", "count")
_RUNG = re.compile(r"[a-z0-9]{1,16}")
_URI = re.compile(rf"{SCHEME}://([^/]+)/(.+)")


@dataclass(frozen=True)
class Snapshot:
    uri: str
    scope: str
    name: str  # context.md, facts, time/day ...
    path: Path
    mime_type: str
    description: str

    def published(self) -> str | None:
        """When the daemon published this version (the file's modification time, UTC, ISO 8601)."""
        try:
            return datetime.fromtimestamp(self.path.stat().st_mtime, timezone.utc).isoformat()
        except OSError:
            return None

    def size(self) -> int | None:
        try:
            return self.path.stat().st_size
        except OSError:
            return None

    def read(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise Refused(f"{self.uri}: not published yet (the daemon writes it after the scope's first batch)") from None
        except OSError as exc:
            raise Refused(f"{self.uri}: cannot be read: {exc.strerror or exc}") from None


def _snapshot(root: Path, scope: str, name: str) -> Snapshot | None:
    if name in VIEWS:
        file, mime, what = VIEWS[name]
        return Snapshot(f"{SCHEME}://{scope}/{name}", scope, name, root / scope / file, mime, f"{scope}: {what}")
    ladder, slash, rung = name.partition("/")
    if slash and ladder in LADDERS and _RUNG.fullmatch(rung):
        return Snapshot(f"{SCHEME}://{scope}/{name}", scope, name, root / scope / ladder / f"{rung}.json",
                        "application/json", f"{scope}: the newest {ladder} ladder summary of rung {rung}")
    return None


def listed(root: Path, scopes: Scopes) -> list[Snapshot]:
    """Every published snapshot of the served scopes."""
    out: list[Snapshot] = []
    for scope in scopes.present(root):
        for name in VIEWS:
            snapshot = _snapshot(root, scope, name)
            if snapshot is not None and snapshot.path.is_file():
                out.append(snapshot)
        for ladder in LADDERS:
            try:
                rungs = sorted((p.stem for p in (root / scope / ladder).glob("*.json")), key=_rung_order)
            except OSError:
                continue
            out.extend(s for rung in rungs if (s := _snapshot(root, scope, f"{ladder}/{rung}")) is not None)
    return out


def _rung_order(rung: str) -> tuple[int, str]:
    """day, week, 4w, 12w, 52w and 1, 10, 40 ... in size order."""
    named = {"day": 0, "week": 7}
    digits = "".join(c for c in rung if c.isdigit())
    size = named.get(rung, int(digits) * (7 if rung.endswith("w") else 1) if digits else 10**9)
    return size, rung


def resolve(root: Path, scopes: Scopes, uri: str) -> Snapshot:
    """The snapshot a URI names, if its scope is served; Refused otherwise (naming the URI)."""
    match = _URI.fullmatch(str(uri))
    if match is None:
        raise Refused(f"{uri}: not a consolidator resource (consolidator://SCOPE/context.md, facts, contacts, "
                      f"tasks, time/RUNG or count/RUNG)")
    scope = scopes.pick(match.group(1))
    snapshot = _snapshot(root, scope, match.group(2))
    if snapshot is None:
        raise Refused(f"{uri}: no such snapshot (context.md, facts, contacts, tasks, time/RUNG or count/RUNG)")
    return snapshot
