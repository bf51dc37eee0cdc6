"""Which scopes an MCP server may touch, and its five tools as plain functions (no SDK here).

A server is started with an explicit set of scopes (`--scope`, `[mcp] scopes`) or with
`--all-scopes`; every tool call names its scope (optional when the server has one) and a scope
outside the set is refused before anything is read or written. Each tool answers through the
planner's own API (`recall`, `read_context`, `mark_used`, `consolidator log`'s append, `report`'s
gatherer); every problem is a `Refused` whose text is the one line the agent sees as a tool error.
No tool deletes, forgets, rebuilds or configures: there is no such function here to call.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from consolidator.core.app import App
from consolidator.core.clock import utcnow
from consolidator.messages.ingest import InvalidMessage
from consolidator.messages.log import append_one
from consolidator.snapshots.reader import read_context as read_context_file
from stores.errors import StorageError
from stores.scopes import InvalidScope, validate_scope

MAX_TEXT_CHARS = 1_000_000  # one message; a larger one is refused (the log itself has no bound)
MAX_FACT_IDS = 1_000  # per mark_used call
DEFAULT_BUDGET = 1000


class Refused(ValueError):
    """A tool call that cannot be done as asked: the agent sees this one line, nothing was written."""


class StartRefused(ValueError):
    """The server cannot start as configured (the CLI says this line and exits 2)."""


@dataclass(frozen=True)
class Scopes:
    """The scopes a server serves: a fixed tuple, or None for every scope (`--all-scopes`)."""

    names: tuple[str, ...] | None

    @property
    def single(self) -> str | None:
        return self.names[0] if self.names is not None and len(self.names) == 1 else None

    def describe(self) -> str:
        return "every scope" if self.names is None else ", ".join(self.names)

    def pick(self, scope: Any) -> str:
        """The scope a call acts on: the one given if this server serves it, else the server's
        only scope; Refused names the scope and what the server serves."""
        if scope is None or scope == "":
            if self.single is None:
                raise Refused(f"scope: required (this server serves {self.describe()})")
            return self.single
        if not isinstance(scope, str):
            raise Refused(f"scope: must be a string, got {type(scope).__name__}")
        try:
            name = validate_scope(scope)
        except InvalidScope as exc:
            raise Refused(f"scope: {exc}") from None
        if self.names is not None and name not in self.names:
            raise Refused(f"scope {name!r} is not served by this server (it serves {self.describe()}); "
                          f"nothing was read or written")
        return name

    def allows(self, name: str) -> bool:
        return self.names is None or name in self.names

    def present(self, snapshot_dir: Path) -> list[str]:
        """The served scopes, in order: the named ones, or every scope with a snapshot directory."""
        if self.names is not None:
            return list(self.names)
        try:
            found = sorted(p.name for p in snapshot_dir.iterdir() if p.is_dir())
        except OSError:
            return []
        return [name for name in found if _valid(name)]


def _valid(name: str) -> bool:
    try:
        validate_scope(name)
    except InvalidScope:
        return False
    return True


def choose_scopes(named: Iterable[str], all_scopes: bool, configured: Iterable[str]) -> Scopes:
    """`--scope` (repeatable) or else `[mcp] scopes`; `--all-scopes` alone; none: StartRefused."""
    named, configured = list(named), list(configured)
    if all_scopes:
        if named:
            raise StartRefused("--all-scopes and --scope exclude each other")
        return Scopes(None)
    chosen = named or configured
    if not chosen:
        raise StartRefused("no scope named: give --scope S (repeatable), set [mcp] scopes in config.toml, "
                           "or pass --all-scopes to serve every scope")
    names: list[str] = []
    for name in chosen:
        try:
            name = validate_scope(name)
        except InvalidScope as exc:
            raise StartRefused(f"--scope: {exc}") from None
        if name not in names:
            names.append(name)
    return Scopes(tuple(names))


def _text(name: str, value: Any, limit: int | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Refused(f"{name}: must be a non-empty string")
    if limit is not None and len(value) > limit:
        raise Refused(f"{name}: {len(value):,} characters, more than the {limit:,} a call may send")
    return value


class Tools:
    """The five tools over one opened app and a scope policy."""

    def __init__(self, app: App, scopes: Scopes) -> None:
        self.app = app
        self.scopes = scopes

    def recall(self, query: Any, scope: Any = None, budget_tokens: Any = None) -> dict[str, Any]:
        """Ranked, dated, tagged items for `query` within the budget, and the block to paste."""
        from consolidator.retrieval.read import recall as search
        from stores.files.recall_index import IndexUnreadable

        name = self.scopes.pick(scope)
        query = _text("query", query)
        budget = DEFAULT_BUDGET if budget_tokens is None else budget_tokens
        if isinstance(budget, bool) or not isinstance(budget, int):
            raise Refused("budget_tokens: must be an integer")
        try:
            result = search(name, query, budget_tokens=budget, config=self.app.settings)
        except ValueError as exc:
            raise Refused(str(exc).removeprefix("recall: ")) from None
        except (IndexUnreadable, StorageError, OSError) as exc:
            raise Refused(f"recall in scope {name!r} failed: {exc}") from None
        return result.as_dict()

    def read_context(self, scope: Any = None) -> str:
        """The scope's context.md, or a line saying none is published yet."""
        name = self.scopes.pick(scope)
        try:
            text = read_context_file(name, self.app.settings)
        except OSError as exc:
            raise Refused(f"context.md of scope {name!r} cannot be read: {exc.strerror or exc}") from None
        return text or f"(no context.md published yet for scope {name!r}: the daemon writes it after its first batch)"

    def log_message(self, role: Any, text: Any, scope: Any = None, speaker: Any = None, at: Any = None,
                    session: Any = None, id: Any = None) -> dict[str, Any]:
        """One append, validated and idempotent exactly as `consolidator log`."""
        name = self.scopes.pick(scope)
        if isinstance(text, str) and len(text) > MAX_TEXT_CHARS:
            raise Refused(f"text: {len(text):,} characters, more than the {MAX_TEXT_CHARS:,} a message may have; "
                          f"nothing was logged")
        record = {"scope": name, "role": role, "text": text, "at": at, "session": session, "speaker": speaker,
                  "id": id}
        try:
            stored, duplicate = append_one(self.app, record)
        except InvalidMessage as exc:
            raise Refused(f"{exc.field}: {exc.problem}" + ("" if exc.problem.endswith("nothing was changed")
                                                            else "; nothing was logged")) from None
        except (StorageError, OSError) as exc:
            raise Refused(f"{exc}; the message was not logged") from None
        return {"id": stored, "scope": name, "duplicate": duplicate}

    def mark_used(self, fact_ids: Any, scope: Any = None) -> dict[str, Any]:
        """Queue uses of these facts (the daemon applies them: strength + 1, last used now)."""
        from consolidator.facts.api import mark_used as queue_uses

        name = self.scopes.pick(scope)
        if isinstance(fact_ids, str):
            fact_ids = [fact_ids]
        if not isinstance(fact_ids, list) or not fact_ids:
            raise Refused("fact_ids: must be a non-empty list of fact ids")
        if len(fact_ids) > MAX_FACT_IDS:
            raise Refused(f"fact_ids: {len(fact_ids):,} ids, more than {MAX_FACT_IDS:,} a call may mark")
        try:
            queued = queue_uses(name, fact_ids, app=self.app, at=utcnow(), strict=True)
        except ValueError as exc:
            raise Refused(f"fact_ids: {exc}; nothing was marked") from None
        except (StorageError, OSError) as exc:
            raise Refused(f"{exc}; nothing was marked") from None
        return {"scope": name, "queued": queued}

    def memory_report(self, scope: Any = None) -> dict[str, Any]:
        """What `consolidator report --json` says of the scope (its local paths left out)."""
        from consolidator.snapshots.overview import gather_report

        name = self.scopes.pick(scope)
        try:
            report = gather_report(self.app, [name], utcnow())["scopes"][name]
        except (StorageError, OSError) as exc:
            raise Refused(f"the report of scope {name!r} failed: {exc}") from None
        report["context"] = {k: v for k, v in report["context"].items() if k != "path"}
        return {"scope": name, **report}
