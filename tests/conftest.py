"""Shared fixtures: a hermetic environment, settings on a temporary state dir, the CLI runner."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import structlog
from click.testing import CliRunner, Result

import consolidator.core.config
import consolidator.core.locate
from consolidator.core.app import App, open_app
from consolidator.cli.main import cli
from consolidator.core.config import Settings

_CLEARED_ENV = ("CONSOLIDATOR_CONFIG", "CONSOLIDATOR_STATE_DIR", "ANTHROPIC_API_KEY")


@pytest.fixture(autouse=True)
def _hermetic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No config or key leaks in from the caller's environment, the repo or /etc."""
    for name in _CLEARED_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(consolidator.core.config, "SYSTEM_CONFIG", tmp_path / "etc-consolidator" / "config.toml")
    monkeypatch.setattr(consolidator.core.locate, "SYSTEM_CONFIG", tmp_path / "etc-consolidator" / "config.toml")
    yield
    structlog.reset_defaults()  # the CLI configures structlog onto CliRunner's captured stderr


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def settings(state_dir: Path) -> Settings:
    return Settings(state_dir=state_dir)


@pytest.fixture
def app(settings: Settings) -> Iterator[App]:
    opened = open_app(settings)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def cli_env(state_dir: Path) -> dict[str, str]:
    """Environment for CliRunner or a subprocess: the same state dir as `settings`."""
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED_ENV}
    env["CONSOLIDATOR_STATE_DIR"] = str(state_dir)
    return env


@pytest.fixture
def run_cli(cli_env: dict[str, str]) -> Callable[..., Result]:
    """run_cli("import", "f.jsonl", input=None) -> click Result (stdout and stderr apart)."""
    runner = CliRunner()

    def run(*args: str, input: str | bytes | None = None) -> Result:
        return runner.invoke(cli, list(args), input=input, env=cli_env, catch_exceptions=False)

    return run


# Tests that need a PostgreSQL server by name (the others are found by their URL parameter or fixture).
POSTGRESQL_TESTS = ("test_three_daemons_share_50_scopes_survive_a_sigkill_and_match_one_daemon",
                    "test_four_first_imports_into_an_empty_postgresql_database_all_succeed")
IMPLY_SLOW = ("subprocess", "browser", "postgresql")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A PostgreSQL case gets the `postgresql` marker (a contract test's PostgreSQL parameter, a
    test of a PostgreSQL module, one using the `pg_url` fixture); subprocess, browser and
    PostgreSQL tests are also `slow`, so `-m "not slow"` is the quick inner loop."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        callspec = getattr(item, "callspec", None)
        pg_param = callspec is not None and "postgresql" in callspec.id.split("-")
        if pg_param or "pg_url" in fixtures or item.originalname in POSTGRESQL_TESTS:
            item.add_marker(pytest.mark.postgresql)
        if any(item.get_closest_marker(name) for name in IMPLY_SLOW):
            item.add_marker(pytest.mark.slow)
