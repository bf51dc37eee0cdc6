"""A base_url may carry credentials (https://user:KEY@host/v1, ?api-key=KEY): they never reach a log
line, a repr, a config fault (`status`, `run`'s one line) or a config error."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from structlog.testing import capture_logs

from consolidator.core.config import Settings
from consolidator.model.openai_backend import OpenAIModel, reset_modes
from consolidator.model.openai_wire import Mode
from consolidator.model.recording import MemoryRecorder
from consolidator.model.settings import ModelSettings
from consolidator.runtime.model_factory import config_fault

SECRET = "s3cret-in-the-url"


def test_the_mode_log_line_and_repr_leave_out_a_url_s_credentials() -> None:
    reset_modes()
    settings = ModelSettings(provider="openai", base_url=f"http://me:{SECRET}@127.0.0.1:9/v1?api-key={SECRET}",
                             default_model="local")
    model = OpenAIModel(settings, MemoryRecorder())
    try:
        with capture_logs() as logs:
            model._settle("local", Mode.TOOLS, "response_format ignored")
        assert logs and SECRET not in repr(logs)
        assert "127.0.0.1:9/v1" in repr(logs)
        assert SECRET not in repr(model)
    finally:
        model.close()
        reset_modes()


def test_a_config_fault_or_error_names_the_url_without_its_credentials(state_dir) -> None:
    hosted = ModelSettings(provider="openai", base_url=f"https://me:{SECRET}@api.openai.com/v1")
    fault = config_fault(Settings(state_dir=state_dir, model=hosted), env={})
    assert fault is not None and "OPENAI_API_KEY" in fault and SECRET not in fault
    with pytest.raises(ValidationError) as err:
        ModelSettings(provider="openai", base_url=f"http://me:{SECRET}@10.0.0.2:8000/v1")
    assert "default_model" in str(err.value) and SECRET not in str(err.value)
