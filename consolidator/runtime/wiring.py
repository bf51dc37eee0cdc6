"""Building the daemon's parts from settings: steps, stages and the model backend.

The one place that knows which concrete classes make up a running consolidator; entry
points call `build_consolidator(app)` and tests build their own with fakes.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from consolidator.core.app import App
from consolidator.core.faults import FaultBook
from consolidator.pipeline.batch_extraction import share_one_call
from consolidator.ladders.interaction_summaries import InteractionSummaries, PromisedSummaryModel
from consolidator.cost.budget import BudgetGate, budgeted
from consolidator.contacts.step import ContactsStep, publish_contacts
from consolidator.snapshots.context import publish_context
from consolidator.model.embeddings import default_embedder
from consolidator.facts.publish import publish_facts
from consolidator.facts.step import FactsStep
from consolidator.ladders.stage import LadderStage, ladder_specs
from consolidator.model.base import Model
from consolidator.batches.courier import BatchCourier
from consolidator.batches.book import BatchBook
from consolidator.runtime.model_factory import build_model
from consolidator.model.recording import TeeRecorder
from consolidator.snapshots.stage import SnapshotStage
from consolidator.retrieval.build import RecallStage
from consolidator.facts.sleep import SleepStage
from consolidator.messages.archive import ArchiveStage
from consolidator.pipeline.steps import BatchStep, PluginError, load_plugins
from consolidator.tasks.step import TasksStep, publish_tasks
from consolidator.runtime.tick import Consolidator
from consolidator.ports import Stage
from stores.model_calls import DbRecorder

log = structlog.get_logger()


@dataclass(frozen=True)
class PluginContext:
    """What a plugin factory receives."""

    app: App
    model: Model


def recorded_model(app: App, model: Model | None = None, *, batches: bool = False
                   ) -> tuple[Model, BudgetGate | None, BatchCourier | None]:
    """The configured backend as every command must use it: each call written to the ledger
    and, when a daily budget is set, checked against it first (the daemon, `rebuild`, ...).

    `batches`: a caller that keeps running (the daemon) may send its work as Message Batches
    when `model.batch_api` is on; the courier that submits and polls them comes back too (one
    command that runs once, like `rebuild`, calls directly). `model` (tests) replaces the
    configured backend; it is budgeted but records by itself.
    """
    gate = BudgetGate(app.engine, app.settings.model) if _budgeted(app) else None
    courier = None
    if model is None:
        ledger = DbRecorder(app.engine)
        book = BatchBook(app.engine, app.settings.model) if batches and app.settings.model.batch_api else None
        model = build_model(app.settings, recorder=TeeRecorder(ledger, gate) if gate else ledger, batch_book=book)
        if book is not None and hasattr(model, "batches"):  # the offline model answers at once
            courier = BatchCourier(app.engine, app.settings.model, model.batches, recorder=gate)
    # Which backend is used, never with its key (the model's repr holds none either).
    log.info("model.backend", provider=model.name, budget_usd=app.settings.model.daily_budget_usd,
             budget_tokens=app.settings.model.daily_budget_tokens)
    if gate is not None:
        base_rungs = {kind: spec.rungs[0].name for kind, spec in ladder_specs(app).items()}
        model = budgeted(model, gate, base_rungs)
    log.info("model.batch_api", on=courier is not None)
    return model, gate, courier


def build_consolidator(app: App, model: Model | None = None) -> Consolidator:
    model, gate, courier = recorded_model(app, model, batches=True)
    embedder = default_embedder()  # wordllama, else hashing (logged)
    contacts, facts, tasks = ContactsStep(app, model), FactsStep(app, model, embedder), TasksStep(app, model)
    shared = share_one_call(model, facts=facts, contacts=contacts, tasks=tasks,
                            enabled=app.settings.model.combine_batch_steps,
                            timezone_of=lambda scope: app.settings.timezone_of(scope).key,
                            summaries=InteractionSummaries(app, model.name))
    log.info("model.batch_steps", combined=shared is not None)
    steps: list[BatchStep] = [contacts, facts, tasks]
    try:
        steps.extend(load_plugins(app.settings.plugins, PluginContext(app, model)))
    except PluginError as exc:
        raise PluginError(f"{app.settings.source}: key 'plugins': {exc}") from None
    publishers = {"contacts": publish_contacts, "facts": publish_facts, "tasks": publish_tasks}
    faults = FaultBook(app.engine)
    stages: list[Stage] = [
        # The ladder stage only bumps the rungs' views; the snapshot stage writes the files,
        # scope by scope, so one scope's unwritable directory never stops another's ladders.
        # With one call per batch, that call also writes the summaries of the interactions it completes.
        LadderStage(app, PromisedSummaryModel(model, app) if shared is not None else model, publish=False),
        SleepStage(app, model, embedder),
        SnapshotStage(app, publishers, context=publish_context, faults=faults),
        # Last: the recall index holds what the tick wrote (and the messages no batch holds yet).
        RecallStage(app, embedder, faults=faults),
    ]
    # The courier's work is every scope's at once: it runs once per tick, after the scopes
    # (what their stages queued goes out in the same tick). The archive is housekeeping: only
    # ticks that found nothing else due run it.
    every_tick = [courier] if courier is not None else []
    return Consolidator(app, steps, stages, gate=gate, faults=faults, every_tick=every_tick, idle=[ArchiveStage(app)])


def _budgeted(app: App) -> bool:
    return app.settings.model.daily_budget_usd is not None or app.settings.model.daily_budget_tokens is not None
