"""systemd/consolidator.service passes .ci/verify-unit.sh, and the script really fails on a bad unit."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.systemd_kit import _settings

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "consolidator.service"
SCRIPT = ROOT / ".ci" / "verify-unit.sh"

needs_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None,
    reason="systemd-analyze not installed (Debian: apt-get install -y systemd)",
)


def _run(unit: Path, *, path: str | None = None, via_env: bool = False) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    args = [str(SCRIPT)]
    if via_env:
        env["CONSOLIDATOR_UNIT"] = str(unit)
    else:
        args.append(str(unit))
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)


def _variant(tmp_path: Path, transform) -> Path:
    # Same file name as the real unit: systemd derives the unit name from it.
    copy = tmp_path / UNIT.name
    copy.write_text(transform(UNIT.read_text()))
    return copy


def test_script_is_executable() -> None:
    assert os.access(SCRIPT, os.X_OK)


@needs_analyze
def test_real_unit_verifies_cleanly() -> None:
    result = _run(UNIT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    assert "verify-unit: OK" in result.stdout


@needs_analyze
def test_unit_can_be_named_by_env_var(tmp_path: Path) -> None:
    bad = _variant(tmp_path, lambda t: t.replace("[Service]\n", "[Service]\nBogusKey=1\n", 1))
    result = _run(bad, via_env=True)
    assert result.returncode == 1
    assert "BogusKey" in result.stderr


@needs_analyze
@pytest.mark.parametrize("old, new, said", [
    # systemd-analyze itself exits 0 on an unknown key; the script must not.
    ("[Service]\n", "[Service]\nBogusKey=1\n", "Unknown key 'BogusKey'"),
    ("Restart=on-failure", "Restart=sometimes", "sometimes"),
    ("WatchdogSec=60", "WatchdogSec 60", ""),
], ids=["unknown-key", "bad-value", "missing-equals"])
def test_a_broken_unit_fails(tmp_path: Path, old: str, new: str, said: str) -> None:
    bad = _variant(tmp_path, lambda t: t.replace(old, new, 1))
    assert new in bad.read_text()
    result = _run(bad)
    assert result.returncode == 1, result.stdout + result.stderr
    assert said in result.stderr


@needs_analyze
def test_exec_start_falls_back_to_stand_in(tmp_path: Path) -> None:
    # Neither the unit's path nor PATH has the console script.
    unit = _variant(
        tmp_path,
        lambda t: t.replace("/usr/local/bin/consolidator", "/nonexistent/bin/consolidator"),
    )
    result = _run(unit, path="/usr/bin:/bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "stand-in" in result.stdout


@needs_analyze
def test_exec_start_rewritten_to_command_v(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "consolidator"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    unit_dir = tmp_path / "unit"
    unit_dir.mkdir()
    unit = _variant(
        unit_dir,
        lambda t: t.replace("/usr/local/bin/consolidator", "/nonexistent/bin/consolidator"),
    )
    result = _run(unit, path=f"{bindir}:/usr/bin:/bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"verifying with {fake}" in result.stdout


@needs_analyze
def test_script_reports_missing_unit_file(tmp_path: Path) -> None:
    result = _run(tmp_path / "absent.service")
    assert result.returncode == 2


def test_unit_settings() -> None:
    s = _settings(UNIT.read_text())
    svc = lambda key: s.get(("Service", key), [])  # noqa: E731
    assert svc("Type") == ["notify"]
    assert svc("NotifyAccess") == ["main"]
    assert svc("ExecStart") == ["/usr/local/bin/consolidator run"]
    assert svc("WatchdogSec") == ["60"]
    assert svc("Restart") == ["on-failure"]
    assert svc("KillSignal") == ["SIGTERM"]
    assert svc("StateDirectory") == ["consolidator"]
    assert svc("ConfigurationDirectory") == ["consolidator"]
    assert not any(e.startswith("CONSOLIDATOR_STATE_DIR=") for e in svc("Environment"))  # the config names it
    assert "CONSOLIDATOR_CONFIG=/etc/consolidator/config.toml" in svc("Environment")
    assert svc("EnvironmentFile") == ["-/etc/consolidator/env"]
    assert svc("UMask") == ["0007"]
    assert svc("RestrictAddressFamilies") == ["AF_UNIX AF_INET AF_INET6"]
    for key in (
        "NoNewPrivileges",
        "ProtectHome",
        "PrivateTmp",
        "PrivateDevices",
        "ProtectKernelTunables",
        "ProtectKernelModules",
        "ProtectControlGroups",
        "RestrictNamespaces",
        "LockPersonality",
    ):
        assert svc(key) == ["yes"], key
    assert svc("ProtectSystem") == ["strict"]
    assert svc("SystemCallArchitectures") == ["native"]
    assert s.get(("Install", "WantedBy")) == ["multi-user.target"]
