"""The install as documented: the README's commands, its systemd steps, the unit and the
installed config agree on one state directory, shared with the agents' group."""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

import consolidator.core.config as config_module
import consolidator.core.locate as locate_module
from consolidator.core.app import open_app
from consolidator.core.config import Settings, load_settings
from stores.messages import NewMessage, append_messages
from stores.files.snapshots import publish_json, publish_text
from tests.support.systemd_kit import _settings

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
UNIT = _settings((ROOT / "systemd" / "consolidator.service").read_text())
SYSUSERS = ROOT / "systemd" / "consolidator.sysusers"


def sh_blocks(section: str) -> list[str]:
    """The ```sh blocks of a README section (from its heading to the next heading of any level)."""
    start = README.index(section)
    following = re.search(r"^#{1,6} ", README[start + len(section):], flags=re.M)
    body = README[start: start + len(section) + (following.start() if following else len(README))]
    return re.findall(r"```sh\n(.*?)```", body, flags=re.S)


def commands(block: str) -> list[list[str]]:
    """Each line of a shell block as words, comments dropped."""
    return [shlex.split(line, comments=True) for line in block.splitlines() if shlex.split(line, comments=True)]


def unit_env() -> dict[str, str]:
    return dict(entry.split("=", 1) for entry in UNIT[("Service", "Environment")])


def install_target(source: str) -> str:
    """Where the README's systemd steps install a file of the repository."""
    for words in commands(sh_blocks("### Under systemd")[0]):
        if words[0] == "install" and source in words:
            return words[-1]
    raise AssertionError(f"the README's systemd steps do not install {source}")


def real_system_config() -> Path:
    """SYSTEM_CONFIG as locate.py defines it for config.py (the test fixtures point the loaded one elsewhere)."""
    tree = ast.parse(Path(locate_module.__file__).read_text(encoding="utf-8"))
    [value] = [node.value for node in tree.body
               if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["SYSTEM_CONFIG"]]
    return Path(ast.literal_eval(value.args[0]))


# --- the README's two commands ---------------------------------------------------------------


def test_readme_commands_make_their_own_virtual_environment() -> None:
    """Both commands create .venv and run pip, the CLI and pytest from it, never the system's."""
    main, tests = sh_blocks("## The two commands")[:2]
    for block in (main, tests):
        programs = [part.split()[0] for part in re.split(r"&&|\|", block.strip())]
        assert programs[0] == "python3" and block.startswith("python3 -m venv .venv && ")
        assert len(programs) > 2 and all(p.startswith(".venv/bin/") for p in programs[1:]), programs
    assert main.strip().endswith(".venv/bin/consolidator report")


def test_ci_runs_exactly_the_readme_test_command() -> None:
    """.ci/run ends with the README's test command, character for character."""
    readme_command = sh_blocks("## The two commands")[1].strip()
    ci_lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip()]
    assert ci_lines[-1] == readme_command


# --- one state directory per host ------------------------------------------------------------


def test_installed_config_and_unit_resolve_to_one_state_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon (the unit's environment) and an agent (no environment) load the installed config
    to the same state directory and database: the unit's StateDirectory under /var/lib."""
    target = install_target("systemd/config.toml")
    assert target == str(real_system_config())  # where an agent's lookup ends
    env = unit_env()
    assert env["CONSOLIDATOR_CONFIG"] == target  # where the daemon is pointed
    installed = tmp_path / "root" / target.lstrip("/")
    installed.parent.mkdir(parents=True)
    shutil.copy(ROOT / "systemd" / "config.toml", installed)
    monkeypatch.setattr(config_module, "SYSTEM_CONFIG", installed)
    service_cwd, agent_cwd = tmp_path / "service", tmp_path / "agent"
    service_cwd.mkdir()
    agent_cwd.mkdir()

    daemon = load_settings(env={**env, "CONSOLIDATOR_CONFIG": str(installed)}, cwd=service_cwd)
    agent = load_settings(env={}, cwd=agent_cwd)

    expected = Path("/var/lib") / UNIT[("Service", "StateDirectory")][0]
    assert daemon.state_dir == agent.state_dir == expected
    assert daemon.db_url == agent.db_url
    assert "CONSOLIDATOR_STATE_DIR" not in env  # one place names it: the installed config


def test_status_names_the_state_directory_and_database(run_cli, state_dir: Path) -> None:
    """`status` prints the state directory and the database it uses; status --json adds `database`."""
    text = run_cli("status").output.splitlines()
    assert text[:2] == [f"state: {state_dir}", f"database: sqlite:///{state_dir / 'consolidator.db'}"]
    report = json.loads(run_cli("status", "--json").output)
    assert report["state_dir"] == str(state_dir) and report["database"] == f"sqlite:///{state_dir / 'consolidator.db'}"


def test_repo_config_stays_the_personal_default() -> None:
    """The repository's config.toml (the two commands' defaults) keeps the per-user state directory."""
    assert load_settings(ROOT / "config.toml", env={}).state_dir == Path("~/.local/state/consolidator").expanduser()


def test_readme_steps_install_the_unit_user_and_executable_the_unit_names() -> None:
    """The README installs the sysusers file, the unit, and the console script at ExecStart's path."""
    block = sh_blocks("### Under systemd")[0]
    assert install_target("systemd/consolidator.service") == "/etc/systemd/system/consolidator.service"
    assert install_target("systemd/consolidator.sysusers").startswith("/etc/sysusers.d/")
    words = [w for line in commands(block) for w in line]
    assert "systemd-sysusers" in words
    executable = UNIT[("Service", "ExecStart")][0].split()[0]
    links = [line for line in commands(block) if line[:2] == ["ln", "-sf"]]
    assert [line[-1] for line in links] == [executable]
    assert re.search(r"usermod -aG consolidator \S+", block)


def test_unit_runs_as_the_static_user_with_a_group_shared_state_directory() -> None:
    """A static user and group "consolidator"; state 2770 (setgid, group rw); files group rw only."""
    svc = lambda key: UNIT.get(("Service", key), [])  # noqa: E731
    assert svc("DynamicUser") == []
    assert svc("User") == svc("Group") == ["consolidator"]
    assert svc("StateDirectoryMode") == ["2770"]
    assert svc("UMask") == ["0007"]
    declared = [line.split() for line in SYSUSERS.read_text().splitlines() if line and not line.startswith("#")]
    assert [(d[0], d[1]) for d in declared] == [("u", "consolidator")]


@pytest.mark.subprocess
@pytest.mark.skipif(shutil.which("systemd-sysusers") is None, reason="systemd-sysusers not installed (Debian: apt-get install -y systemd)")
def test_sysusers_file_creates_the_user_and_its_group(tmp_path: Path) -> None:
    """systemd-sysusers, on an empty root, creates the user and the group the unit names."""
    (tmp_path / "etc").mkdir()
    result = subprocess.run(["systemd-sysusers", f"--root={tmp_path}", str(SYSUSERS)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    users = {line.split(":")[0]: line.split(":") for line in (tmp_path / "etc" / "passwd").read_text().splitlines()}
    groups = {line.split(":")[0]: line.split(":") for line in (tmp_path / "etc" / "group").read_text().splitlines()}
    assert users["consolidator"][3] == groups["consolidator"][2]  # primary group: "consolidator"
    assert users["consolidator"][5] == "/var/lib/consolidator"


@pytest.mark.subprocess
@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed (Debian: apt-get install -y systemd)")
def test_exposure_score_is_no_worse_than_before(tmp_path: Path) -> None:
    """`systemd-analyze security --offline=true` rates the unit 1.4 or better (as with DynamicUser=)."""
    copy = tmp_path / "consolidator.service"  # ExecStart must exist for the offline analysis
    text = (ROOT / "systemd" / "consolidator.service").read_text()
    copy.write_text(re.sub(r"^ExecStart=\S+", "ExecStart=/bin/true", text, flags=re.M))
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", "--threshold=14", str(copy)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout[-600:] + result.stderr
    assert "Overall exposure level" in result.stdout


# --- files in a group-shared state directory -------------------------------------------------


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def shared_state(tmp_path: Path, umask: int, directory_mode: int = 0o2770) -> tuple[Path, dict[str, int]]:
    """Open the state in a directory of `directory_mode` under `umask`, log a message and publish
    two snapshots; returns the state directory and the modes of the database files while open."""
    state = tmp_path / "state"
    state.mkdir()
    os.chmod(state, directory_mode)
    previous = os.umask(umask)
    try:
        app = open_app(Settings(state_dir=state))
        from datetime import datetime, timezone

        at = datetime(2025, 3, 3, 9, tzinfo=timezone.utc)
        append_messages(app.engine, [NewMessage("maya", at, "user", "hello")], at)
        publish_text(app.settings.snapshot_dir, "maya", "context.md", "# Memory: maya\n")
        publish_json(app.settings.snapshot_dir, "maya", "time/week.json", {"text": "a week"})
        present = {p.name: mode(p) for p in state.iterdir() if p.name.startswith("consolidator.db")}
        app.close()
    finally:
        os.umask(previous)
    return state, present


def test_daemon_umask_shares_database_and_snapshots_with_the_group(tmp_path: Path) -> None:
    """Under UMask=0007 in a 2770 directory: the database, -wal and -shm are group rw, snapshots
    and their directories group readable (setgid inherited), nothing open to others."""
    state, database_files = shared_state(tmp_path, 0o007)
    assert len(database_files) == 3  # WAL mode: -wal and -shm exist while the database is open
    for name, bits in database_files.items():
        assert bits & 0o060 == 0o060 and bits & 0o007 == 0, (name, oct(bits))
    snapshots = state / "snapshots" / "maya"
    for path in (snapshots / "context.md", snapshots / "time" / "week.json"):
        assert mode(path) & 0o040 and not mode(path) & 0o007, (path, oct(mode(path)))
    for directory in (state / "snapshots", snapshots, snapshots / "time"):
        assert mode(directory) & 0o2070 == 0o2070, (directory, oct(mode(directory)))


def test_an_agent_creating_the_database_leaves_it_writable_for_the_daemon(tmp_path: Path) -> None:
    """An agent (umask 0022) that opens the shared state first makes the database group-writable."""
    _, database_files = shared_state(tmp_path, 0o022)
    assert len(database_files) == 3 and all(bits & 0o060 == 0o060 for bits in database_files.values())


def test_a_private_state_directory_stays_private(tmp_path: Path) -> None:
    """In a directory not writable by its group (the per-user default), no file gains group write."""
    _, database_files = shared_state(tmp_path, 0o077, directory_mode=0o700)
    assert len(database_files) == 3 and all(bits & 0o077 == 0 for bits in database_files.values())
