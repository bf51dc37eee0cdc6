"""`status` with a configuration `run` would refuse: the state still shown, the refusal said on one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from consolidator.cli import cli

SECRET = "sk-proj-status-never-shown-77"


def invoke(tmp_path: Path, model: str, *args: str, plugins: str = "") -> object:
    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{tmp_path / "state"}"\n{plugins}[model]\n{model}\n', encoding="utf-8")
    CliRunner().invoke(cli, ["--config", str(config), "log", "--scope", "maya", "--role", "user", "--speaker", "Maya",
                             "hello"])
    return CliRunner().invoke(cli, ["--config", str(config), *args])


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def config_faults(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("fault: config: ")]


def test_status_shows_the_openai_provider_and_url_never_a_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """provider and base_url in status --json and the text (credentials in the URL left out); the key nowhere."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    model = 'provider = "openai"\nbase_url = "http://user:pw@127.0.0.1:11434/v1"\ndefault_model = "llama3.1:8b"'
    report = json.loads(invoke(tmp_path, model, "status", "--json").output)
    assert (report["model"]["provider"], report["model"]["base_url"]) == ("openai", "http://127.0.0.1:11434/v1")
    text = invoke(tmp_path, model, "status").output
    assert "model backend: openai at http://127.0.0.1:11434/v1" in text
    assert SECRET not in text and "pw@" not in text and not config_faults(text)


@pytest.mark.parametrize(("model", "key", "provider"), [
    ('provider = "openai"', "OPENAI_API_KEY", '"openai"'),
    ('provider = "anthropic"', "ANTHROPIC_API_KEY", '"anthropic"'),
], ids=["openai-hosted", "anthropic"])
def test_status_says_run_would_refuse_for_want_of_a_key(tmp_path: Path, model: str, key: str, provider: str) -> None:
    """No key in this shell: status shows the scopes and one `fault: config:` line naming key and provider;
    run exits 2."""
    result = invoke(tmp_path, model, "status")
    assert result.exit_code == 0 and "maya: 1 message" in result.output
    (line,) = config_faults(result.output)
    assert key in line and provider in line and "key 'model.provider'" in line
    assert invoke(tmp_path, model, "run", "--once").exit_code == 2


def test_local_server_needs_no_key(tmp_path: Path) -> None:
    model = 'provider = "openai"\nbase_url = "http://127.0.0.1:11434/v1"\ndefault_model = "m"'
    assert not config_faults(invoke(tmp_path, model, "status").output)


def test_status_names_a_plugin_that_is_not_a_step_factory(tmp_path: Path) -> None:
    """A plugin whose name is not a callable (or cannot be imported): one config fault line each."""
    plugins = 'plugins = ["json:__doc__", "nosuchmodule_zz:make"]\n'
    result = invoke(tmp_path, 'provider = "offline"', "status", plugins=plugins)
    faults = config_faults(result.output)
    assert len(faults) == 2 and "key 'plugins'" in faults[0] and "json:__doc__" in faults[0]
    assert "nosuchmodule_zz" in faults[1]


def test_status_names_a_plugin_that_exits_while_loading(tmp_path: Path, monkeypatch) -> None:
    """A plugin module that calls sys.exit at import is a config fault line, not the end of status."""
    (tmp_path / "exiting_plugin_zz.py").write_text("import sys\nsys.exit(3)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    result = invoke(tmp_path, 'provider = "offline"', "status", plugins='plugins = ["exiting_plugin_zz:make"]\n')
    faults = config_faults(result.output)
    assert result.exit_code == 0 and len(faults) == 1 and "exiting_plugin_zz" in faults[0] and "SystemExit" in faults[0]
