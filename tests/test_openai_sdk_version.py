"""The backend runs on the openai SDK 3.x (its HTTP transport is httpx2's); the extra pins it, and an
older SDK already installed (2.x speaks httpx) is one config line and exit 2, never an ImportError."""

from __future__ import annotations

import tomllib
from pathlib import Path

from click.testing import CliRunner

from consolidator.cli import cli
from consolidator.runtime import model_factory

ROOT = Path(__file__).resolve().parents[1]


def test_an_openai_sdk_of_another_major_is_one_line_exit_2(tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{tmp_path / "s"}"\n[model]\nprovider = "openai"\n'
                      'base_url = "http://127.0.0.1:1/v1"\ndefault_model = "m"\n', encoding="utf-8")
    monkeypatch.setattr(model_factory, "sdk_version", lambda name: "2.54.0")
    result = CliRunner().invoke(cli, ["--config", str(config), "run", "--once"])
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and "openai SDK 3.x" in line and "2.54.0" in line and "model.provider" in line


def test_the_extra_asks_for_the_sdk_the_backend_runs_on() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert extras["openai"] == [f"openai>={model_factory.OPENAI_SDK_MAJOR},<{model_factory.OPENAI_SDK_MAJOR + 1}"]
