"""Batch steps: the contract every consolidation step (contacts, facts, tasks, plugins) meets.

A step runs in two phases so that slow model calls never hold the database's write lock:
`prepare` reads and thinks (it may call a model; it writes nothing), then `apply` writes
its result inside the transaction that also marks the step done in the ledger. So a crash
during `prepare` leaves no trace, and a crash during `apply` rolls back both the writes and
the ledger mark: the step simply runs again.

Plugins: config `plugins = ["module:factory"]`; `factory(context)` returns an iterable of
steps. Tests use it to register steps of their own.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Iterable, Protocol, runtime_checkable

from stores.engine import Session

from consolidator.model.attachments import decode
from consolidator.model.schemas import Line


@dataclass(frozen=True)
class MessageView:
    id: str
    seq: int
    at: datetime
    role: str
    speaker: str | None
    text: str
    session: str | None
    interaction: int | None
    attachments: str | None = None  # the stored JSON text (consolidator/model/attachments.py)

    def line(self) -> Line:
        """The message as the model sees it (one rendering for every step)."""
        return Line(id=self.id, at=self.at, role=self.role, speaker=self.speaker, text=self.text,
                    attachments=decode(self.attachments))


@dataclass(frozen=True)
class BatchWork:
    """What a step sees of one batch."""

    batch_id: int
    scope: str
    number: int
    first_seq: int
    last_seq: int
    messages: tuple[MessageView, ...]
    now: datetime
    before: tuple[MessageView, ...] = ()  # the context lines: the last few of the same interaction before the batch

    def asked(self, timezone: str) -> dict[str, Any]:
        """What every request about this batch carries: the scope, the lines, the context lines
        before them, the batch's ref, the zone."""
        return {"scope": self.scope, "messages": [m.line() for m in self.messages], "ref": f"batch:{self.batch_id}",
                "timezone": timezone, "context": [m.line() for m in self.before]}


@runtime_checkable
class BatchStep(Protocol):
    name: str

    def prepare(self, work: BatchWork) -> Any: ...

    def apply(self, session: Session, work: BatchWork, prepared: Any) -> None: ...


class PluginError(ValueError):
    """A plugin named in the config cannot be loaded."""


def load_plugins(specs: Iterable[str], context: Any) -> list[BatchStep]:
    steps: list[BatchStep] = []
    for spec in specs:
        module_name, _, attr = spec.partition(":")
        if not module_name or not attr:
            raise PluginError(f"plugin {spec!r}: expected 'module:factory'")
        try:
            factory: Callable[[Any], Iterable[BatchStep]] = getattr(importlib.import_module(module_name), attr)
        except Exception as exc:  # not importable, no such name, or the module raised while loading
            raise PluginError(f"plugin {spec!r}: {type(exc).__name__}: {exc}") from None
        if not callable(factory):
            raise PluginError(f"plugin {spec!r}: {attr} is a {type(factory).__name__}, not a factory of batch steps")
        try:
            made = list(factory(context))
        except Exception as exc:  # a plugin's own failure is a configuration problem of this host
            raise PluginError(f"plugin {spec!r}: its factory failed: {type(exc).__name__}: {exc}") from None
        for step in made:
            if not isinstance(step, BatchStep):
                raise PluginError(f"plugin {spec!r}: {step!r} is not a batch step")
            steps.append(step)
    return steps


def check_unique(steps: list[BatchStep]) -> list[BatchStep]:
    seen: set[str] = set()
    for step in steps:
        if step.name in seen:
            raise PluginError(f"two steps are named {step.name!r}")
        seen.add(step.name)
    return steps
