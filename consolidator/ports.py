"""The contracts between the daemon's parts, in one place.

- `BatchStep`: consolidates one batch in two phases (prepare: reads and model calls, no
  writes; apply: writes inside the ledger transaction). Contacts, facts, tasks and plugins.
- `Stage`: work after the steps of each claimed scope (ladders, the offline facts pass, snapshots).
  Every stage calls `on_progress()` after each finished unit of work (a summary, a cluster,
  a view), which the daemon wires to the systemd watchdog's beat: a long stage that keeps
  finishing units keeps the service alive, one that stalls lets the watchdog act.
- `Publisher`: writes one snapshot view of a scope (a file a planner reads).
- `Model` / `BatchModel`: what the steps and stages may ask of a language model
  (consolidator.model.base); `Embedder`: text to unit vectors (consolidator.model.embeddings).
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from consolidator.model.base import BatchModel, Model
from consolidator.model.embeddings import Embedder  # defined once, beside its implementations
from consolidator.pipeline.steps import BatchStep

if TYPE_CHECKING:
    from consolidator.core.app import App

__all__ = ["BatchModel", "BatchStep", "Embedder", "Model", "Publisher", "Stage"]


class Stage(Protocol):
    """Work after the batch steps of a scope; `run` returns how many units it finished.

    The daemon calls `run(now, stop, scopes=[scope])` for each scope it claimed from the work
    queue; `scopes=None` (rebuild, tests) means every scope. A stage's time-driven work
    (a day closing, an idle scope's offline pass) must be covered by the scope's next due
    time (consolidator/pipeline/scope_due.py), since nothing else brings the daemon back to it."""

    name: str
    on_progress: Callable[[], None]  # called after each finished unit; the daemon sets it

    def run(self, now: datetime, stop: threading.Event | None, scopes: Sequence[str] | None = None) -> int: ...


Publisher = Callable[["App", str, datetime], None]
