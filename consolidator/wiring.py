"""Building the daemon's parts from settings: steps, stages and the model backend.

The one place that knows which concrete classes make up a running consolidator; entry
points call `build_consolidator(app)` and tests build their own with fakes.
"""

from __future__ import annotations

from dataclasses import dataclass

from consolidator.app import App
from consolidator.steps import BatchStep, load_plugins
from consolidator.tick import Consolidator, Stage


@dataclass(frozen=True)
class PluginContext:
    """What a plugin factory receives."""

    app: App


def build_consolidator(app: App) -> Consolidator:
    steps: list[BatchStep] = []
    stages: list[Stage] = []
    steps.extend(load_plugins(app.settings.plugins, PluginContext(app)))
    return Consolidator(app, steps, stages)
