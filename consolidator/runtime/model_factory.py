"""Choosing the model backend from settings: offline by default, Anthropic when asked or keyed."""

from __future__ import annotations

import os
from typing import Mapping

from consolidator.core.config import ConfigError, Settings
from consolidator.model.base import Model
from consolidator.model.recording import CallRecorder, MemoryRecorder
from consolidator.model.settings import resolve_provider


def build_model(settings: Settings, recorder: CallRecorder | None = None, env: Mapping[str, str] | None = None,
                batch_book: object = None) -> Model:
    """`batch_book` (a consolidator.batches.book.BatchBook) puts the Anthropic backend in batch mode."""
    env = os.environ if env is None else env
    if resolve_provider(settings.model, env) == "anthropic":
        if not env.get("ANTHROPIC_API_KEY", "").strip():
            raise ConfigError(f"{settings.source}: key 'model.provider': \"anthropic\" needs ANTHROPIC_API_KEY "
                              "in the environment (or provider = \"auto\" or \"offline\")")
        from consolidator.model.anthropic_backend import AnthropicModel

        return AnthropicModel(settings.model, recorder or MemoryRecorder(), api_key=env.get("ANTHROPIC_API_KEY"),
                              batch_book=batch_book)
    from consolidator.model.offline import OfflineModel

    return OfflineModel()
