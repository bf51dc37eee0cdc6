"""Choosing the model backend from settings: offline by default, Anthropic or OpenAI-compatible when asked."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
from typing import Mapping

from consolidator.core.config import ConfigError, Settings
from consolidator.model.base import Model
from consolidator.model.recording import CallRecorder, MemoryRecorder
from consolidator.model.settings import resolve_provider, shown_url


OPENAI_SDK_MAJOR = 3  # the backend's HTTP transport is httpx2's, which the openai SDK uses from 3.0 on


def sdk_installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def sdk_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def config_fault(settings: Settings, env: Mapping[str, str] | None = None) -> str | None:
    """Why `run` would refuse this model configuration (a key missing, the SDK not installed), or None."""
    env = os.environ if env is None else env
    provider = resolve_provider(settings.model, env)
    where = f"{settings.source}: key 'model.provider'"
    if provider == "anthropic" and not env.get("ANTHROPIC_API_KEY", "").strip():
        return (f"{where}: \"anthropic\" needs ANTHROPIC_API_KEY in the environment "
                "(or provider = \"auto\" or \"offline\")")
    if provider == "openai":
        if settings.model.openai_hosted and not env.get("OPENAI_API_KEY", "").strip():
            url = shown_url(settings.model.base_url) if settings.model.base_url else "OpenAI's API"
            return f"{where}: \"openai\" at {url} needs OPENAI_API_KEY in the environment (a local server needs none)"
        if not sdk_installed("openai"):
            return f"{where}: \"openai\" needs the openai SDK: pip install 'consolidator[openai]'"
        version = sdk_version("openai") or ""
        if version.split(".")[0] != str(OPENAI_SDK_MAJOR):
            return (f"{where}: \"openai\" needs the openai SDK {OPENAI_SDK_MAJOR}.x (installed: {version or 'unknown'}): "
                    "pip install -U 'consolidator[openai]'")
    return None


def build_model(settings: Settings, recorder: CallRecorder | None = None, env: Mapping[str, str] | None = None,
                batch_book: object = None) -> Model:
    """`batch_book` (a consolidator.batches.book.BatchBook) puts the Anthropic backend in batch mode."""
    env = os.environ if env is None else env
    if (fault := config_fault(settings, env)) is not None:
        raise ConfigError(fault)
    provider = resolve_provider(settings.model, env)
    if provider == "anthropic":
        from consolidator.model.anthropic_backend import AnthropicModel

        return AnthropicModel(settings.model, recorder or MemoryRecorder(), api_key=env.get("ANTHROPIC_API_KEY"),
                              batch_book=batch_book)
    if provider == "openai":
        from consolidator.model.openai_backend import OpenAIModel

        return OpenAIModel(settings.model, recorder or MemoryRecorder(), api_key=env.get("OPENAI_API_KEY"))
    from consolidator.model.offline import OfflineModel

    return OfflineModel()
