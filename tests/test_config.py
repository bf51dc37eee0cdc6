"""Configuration: defaults, lookup order, overrides, durations and errors that name key and file."""

from __future__ import annotations

import tomllib
from datetime import timedelta
from pathlib import Path

import pytest

import consolidator.core.config
from consolidator.core.config import ConfigError, Settings, find_config, load_settings, parse_duration

REPO_CONFIG = Path(__file__).resolve().parents[1] / "config.toml"


def write(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    return path


class TestDefaults:
    def test_repo_config_equals_builtin_defaults(self, tmp_path: Path) -> None:
        """The repository's config.toml loads to exactly the built-in defaults (source aside)."""
        from_file = load_settings(REPO_CONFIG, env={}, cwd=tmp_path)
        builtin = load_settings(None, env={}, cwd=tmp_path)
        assert from_file.source == str(REPO_CONFIG)
        assert builtin.source == "<built-in defaults>"
        assert from_file.model_dump() == builtin.model_dump()
        assert from_file.model_dump(exclude={"state_dir"}) == Settings().model_dump(exclude={"state_dir"})
        assert from_file.state_dir == Settings().state_dir.expanduser()

    def test_repo_config_documents_every_setting(self) -> None:
        """Every top-level key and every key of [retry], [daemon], [ladders] appears in config.toml."""
        data = tomllib.loads(REPO_CONFIG.read_text(encoding="utf-8"))
        top = set(Settings.model_fields) - {"source"}
        assert top <= set(data)
        for section in ("retry", "daemon", "ladders"):
            fields = set(type(getattr(Settings(), section)).model_fields)
            assert fields <= set(data[section]), section

    def test_builtin_values_from_the_issue(self) -> None:
        """batch_size 50, flush_idle and interaction_gap 30 min, timezone UTC, provider auto."""
        s = Settings()
        assert s.batch_size == 50
        assert s.flush_idle == timedelta(minutes=30)
        assert s.interaction_gap == timedelta(minutes=30)
        assert s.timezone == "UTC"
        assert s.model.provider == "auto"

    def test_default_database_is_sqlite_in_state_dir(self, tmp_path: Path) -> None:
        """With an empty database_url the database is consolidator.db in state_dir."""
        s = Settings(state_dir=tmp_path / "st")
        assert s.db_url == f"sqlite:///{tmp_path / 'st' / 'consolidator.db'}"


class TestLookup:
    @pytest.fixture
    def files(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
        """One config per lookup step, each with its own batch_size to tell them apart."""
        system = write(tmp_path / "etc" / "config.toml", "batch_size = 4\n")
        monkeypatch.setattr(consolidator.core.config, "SYSTEM_CONFIG", system)
        return {
            "explicit": write(tmp_path / "explicit.toml", "batch_size = 1\n"),
            "env": write(tmp_path / "env.toml", "batch_size = 2\n"),
            "cwd": write(tmp_path / "work" / "config.toml", "batch_size = 3\n"),
            "system": system,
        }

    @pytest.mark.parametrize(
        "explicit, env_set, local, expected",
        [
            (True, True, True, "explicit"),
            (False, True, True, "env"),
            (False, False, True, "cwd"),
            (False, False, False, "system"),
        ],
    )
    def test_order(self, files: dict[str, Path], tmp_path: Path,
                   explicit: bool, env_set: bool, local: bool, expected: str) -> None:
        """--config, then $CONSOLIDATOR_CONFIG, then ./config.toml, then the system file."""
        env = {"CONSOLIDATOR_CONFIG": str(files["env"])} if env_set else {}
        cwd = files["cwd"].parent if local else tmp_path / "empty"
        given = files["explicit"] if explicit else None
        assert find_config(given, env, cwd) == files[expected]
        settings = load_settings(given, env, cwd)
        assert settings.source == str(files[expected])
        assert settings.batch_size == {"explicit": 1, "env": 2, "cwd": 3, "system": 4}[expected]

    def test_no_file_anywhere_gives_defaults(self, tmp_path: Path) -> None:
        """Nothing found: find_config is None and load_settings returns the built-in defaults."""
        assert find_config(None, {}, tmp_path) is None
        settings = load_settings(None, {}, tmp_path)
        assert settings.source == "<built-in defaults>"
        assert settings.batch_size == 50

    def test_empty_env_var_is_ignored(self, tmp_path: Path) -> None:
        """An empty $CONSOLIDATOR_CONFIG falls through to ./config.toml."""
        local = write(tmp_path / "config.toml", "batch_size = 7\n")
        assert find_config(None, {"CONSOLIDATOR_CONFIG": ""}, tmp_path) == local

    def test_missing_explicit_file_is_an_error(self, tmp_path: Path) -> None:
        """A --config path that does not exist is an error naming it (no silent fallback)."""
        missing = tmp_path / "nope.toml"
        with pytest.raises(ConfigError, match="nope.toml"):
            load_settings(missing, {}, tmp_path)


class TestStateDir:
    def test_env_overrides_the_file(self, tmp_path: Path) -> None:
        """$CONSOLIDATOR_STATE_DIR wins over state_dir in the config file."""
        cfg = write(tmp_path / "c.toml", 'state_dir = "/somewhere/else"\n')
        settings = load_settings(cfg, {"CONSOLIDATOR_STATE_DIR": str(tmp_path / "override")}, tmp_path)
        assert settings.state_dir == tmp_path / "override"
        assert str(tmp_path / "override" / "consolidator.db") in settings.db_url

    def test_env_overrides_the_defaults(self, tmp_path: Path) -> None:
        """$CONSOLIDATOR_STATE_DIR applies with no config file too."""
        settings = load_settings(None, {"CONSOLIDATOR_STATE_DIR": str(tmp_path / "s")}, tmp_path)
        assert settings.state_dir == tmp_path / "s"

    def test_relative_state_dir_is_relative_to_the_file(self, tmp_path: Path) -> None:
        """A relative state_dir in a config file resolves against the file's directory."""
        cfg = write(tmp_path / "conf" / "c.toml", 'state_dir = "data"\n')
        assert load_settings(cfg, {}, tmp_path / "elsewhere").state_dir == tmp_path / "conf" / "data"

    def test_home_is_expanded(self, tmp_path: Path) -> None:
        """The default "~/..." state_dir comes back expanded."""
        assert "~" not in str(load_settings(None, {}, tmp_path).state_dir)


class TestDurations:
    @pytest.mark.parametrize(
        "value, seconds",
        [("30m", 1800), ("1h30m", 5400), (90, 90), (2.5, 2.5), ("45s", 45), ("2d", 172800),
         ("1w", 604800), ("500ms", 0.5), (" 1h 30m ", 5400), (0, 0)],
    )
    def test_accepted(self, value: object, seconds: float) -> None:
        """Numbers are seconds; strings are unit-suffixed parts that add up."""
        assert parse_duration(value) == timedelta(seconds=seconds)

    @pytest.mark.parametrize("value", ["3 fortnights", "", "30m and more", "m30", -5, True, None, [30]])
    def test_rejected(self, value: object) -> None:
        """Anything else is a ValueError that says what a duration looks like."""
        with pytest.raises(ValueError, match="duration"):
            parse_duration(value)

    def test_through_a_file(self, tmp_path: Path) -> None:
        """Durations in config.toml are parsed into timedeltas, nested ones included."""
        cfg = write(tmp_path / "c.toml", 'flush_idle = "1h30m"\ninteraction_gap = 90\n[retry]\nbase_delay = "5s"\n')
        settings = load_settings(cfg, {}, tmp_path)
        assert settings.flush_idle == timedelta(minutes=90)
        assert settings.interaction_gap == timedelta(seconds=90)
        assert settings.retry.base_delay == timedelta(seconds=5)


class TestTimezones:
    def test_per_scope_override(self, tmp_path: Path) -> None:
        """[scopes.NAME] timezone overrides the top-level timezone for that scope only."""
        cfg = write(tmp_path / "c.toml", 'timezone = "America/New_York"\n[scopes.maya]\ntimezone = "Europe/Paris"\n')
        settings = load_settings(cfg, {}, tmp_path)
        assert settings.timezone_of("maya").key == "Europe/Paris"
        assert settings.timezone_of("other").key == "America/New_York"


BAD_CONFIGS = [
    pytest.param("colour = 1\n", ["colour"], id="unknown-top-level-key"),
    pytest.param('[model]\nprovidr = "offline"\n', ["model.providr"], id="unknown-nested-key"),
    pytest.param('[daemon]\ntick_intervall = "5s"\n', ["daemon.tick_intervall"], id="unknown-daemon-key"),
    pytest.param('batch_size = "fifty"\n', ["batch_size"], id="wrong-type"),
    pytest.param("batch_size = 0\n", ["batch_size"], id="out-of-range"),
    pytest.param('[model]\nprovider = "gemini"\n', ["model.provider"], id="bad-provider"),
    pytest.param('flush_idle = "3 fortnights"\n', ["flush_idle", "3 fortnights"], id="bad-duration"),
    pytest.param('timezone = "Mars/Olympus"\n', ["timezone", "Mars/Olympus"], id="bad-timezone"),
    pytest.param('[scopes.x]\ntimezone = "Nowhere/Land"\n', ["scopes.x.timezone", "Nowhere/Land"], id="bad-scope-timezone"),
    pytest.param('[scopes."../x"]\n', ["scopes", "../x"], id="scope-escapes-dir"),
    pytest.param('[scopes.".hidden"]\n', ["scopes", ".hidden"], id="scope-starts-with-dot"),
    pytest.param('[scopes."a/b"]\n', ["scopes", "a/b"], id="scope-with-slash"),
]


class TestErrors:
    @pytest.mark.parametrize("body, named", BAD_CONFIGS)
    def test_error_names_key_and_file(self, tmp_path: Path, body: str, named: list[str]) -> None:
        """A bad value or an unknown key raises ConfigError naming the key and the file."""
        cfg = write(tmp_path / "bad.toml", body)
        with pytest.raises(ConfigError) as caught:
            load_settings(cfg, {}, tmp_path)
        message = str(caught.value)
        assert str(cfg) in message
        for part in named:
            assert part in message

    def test_invalid_toml_names_the_file(self, tmp_path: Path) -> None:
        """A file that is not TOML raises ConfigError naming the file and saying so."""
        cfg = write(tmp_path / "bad.toml", "batch_size = 50\nplugins = [\nstate_dir = 'x'\n")
        with pytest.raises(ConfigError) as caught:
            load_settings(cfg, {}, tmp_path)
        assert str(cfg) in str(caught.value)
        assert "invalid TOML" in str(caught.value)

    def test_every_problem_is_reported(self, tmp_path: Path) -> None:
        """Several problems in one file are all named in one error."""
        cfg = write(tmp_path / "bad.toml", 'colour = 1\nbatch_size = "fifty"\n')
        with pytest.raises(ConfigError) as caught:
            load_settings(cfg, {}, tmp_path)
        assert "colour" in str(caught.value) and "batch_size" in str(caught.value)


class TestCli:
    @pytest.mark.parametrize("body, named", BAD_CONFIGS[:4] + BAD_CONFIGS[7:9])
    def test_bad_config_exits_2_naming_key_and_file(self, run_cli, tmp_path: Path, body: str, named: list[str]) -> None:
        """`consolidator --config bad.toml status` exits 2 with a message naming key and file."""
        cfg = write(tmp_path / "bad.toml", body)
        result = run_cli("--config", str(cfg), "status")
        assert result.exit_code == 2
        assert str(cfg) in result.stderr
        for part in named:
            assert part in result.stderr

    def test_bad_config_from_env_exits_2(self, run_cli, cli_env: dict[str, str], tmp_path: Path) -> None:
        """A bad file found through $CONSOLIDATOR_CONFIG fails the same way."""
        cfg = write(tmp_path / "bad.toml", "batch_size = [50]\n")
        cli_env["CONSOLIDATOR_CONFIG"] = str(cfg)
        result = run_cli("status")
        assert result.exit_code == 2
        assert str(cfg) in result.stderr and "batch_size" in result.stderr

    def test_bad_local_config_exits_2(self, run_cli, tmp_path: Path) -> None:
        """A bad ./config.toml in the working directory is picked up and refused."""
        write(tmp_path / "config.toml", "[ladders]\nbudget = 3\n")
        result = run_cli("status")
        assert result.exit_code == 2
        assert "config.toml" in result.stderr and "ladders.budget" in result.stderr

    def test_missing_config_exits_2(self, run_cli, tmp_path: Path) -> None:
        """--config naming a missing file exits 2 naming it."""
        result = run_cli("--config", str(tmp_path / "absent.toml"), "status")
        assert result.exit_code == 2
        assert "absent.toml" in result.stderr

    def test_good_config_runs(self, run_cli, tmp_path: Path, state_dir: Path) -> None:
        """A valid --config is used (and $CONSOLIDATOR_STATE_DIR still decides the state dir)."""
        cfg = write(tmp_path / "good.toml", "batch_size = 10\n")
        result = run_cli("--config", str(cfg), "status", "--json")
        assert result.exit_code == 0, result.stderr
        assert (state_dir / "consolidator.db").is_file()


@pytest.mark.parametrize(
    "body, key",
    [('[ladders]\ntime = ["day", "fortnight"]\n', "ladders.time"), ("[ladders]\ncount = [1, 1000]\n", "ladders.count")],
)
def test_bad_ladder_rungs_are_config_errors(tmp_path, body, key):
    """An impossible ladder in config.toml is a ConfigError naming the key and the file, not a crash later."""
    path = tmp_path / "ladders.toml"
    path.write_text(body)
    with pytest.raises(ConfigError) as caught:
        load_settings(path, env={})
    assert key in str(caught.value) and str(path) in str(caught.value)
