"""Building the daemon's parts from settings: steps, stages and the model backend.

The one place that knows which concrete classes make up a running consolidator; entry
points call `build_consolidator(app)` and tests build their own with fakes.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from consolidator.app import App
from consolidator.ladders import LadderStage
from consolidator.model.base import Model
from consolidator.model.factory import build_model
from consolidator.publishing import SnapshotStage
from consolidator.steps import BatchStep, load_plugins
from consolidator.tick import Consolidator, Stage

log = structlog.get_logger()


@dataclass(frozen=True)
class PluginContext:
    """What a plugin factory receives."""

    app: App
    model: Model


def build_consolidator(app: App, model: Model | None = None) -> Consolidator:
    model = model or build_model(app.settings)
    log.info("model.backend", provider=model.name)
    steps: list[BatchStep] = []
    steps.extend(load_plugins(app.settings.plugins, PluginContext(app, model)))
    stages: list[Stage] = [LadderStage(app, model), SnapshotStage(app, publishers={})]
    return Consolidator(app, steps, stages)
