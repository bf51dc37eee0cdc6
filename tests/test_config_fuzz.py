"""Seeded random damage to config.toml: every case ends in exit 0 or one error line, never a traceback."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from consolidator.cli.main import cli

ROOT = Path(__file__).resolve().parents[1]
BASE = (ROOT / "config.toml").read_text(encoding="utf-8")
CASES = 250
SEED = 20250310

# Replacement values: wrong types, out of range, non-finite, huge, empty, odd strings.
VALUES = [
    "inf", "-inf", "nan", "1e308", "-1", "0", "0.0", "99999999999999999999999", "-99999999999999999999",
    '"99999999999d"', '"1e400s"', '"0s"', '"-5m"', '""', '"' + "Z" * 300 + '"', "true", "[]", '[1, "a"]',
    "{a = 1}", '"Europe/Paris"', '"Mars/Olympus"', '"..\\u0000"', "1979-05-27", "07:32:00", '"\\n"',
    '"postgresql+psycopg2://nobody/x"', '"sqlite:////nonexistent-consolidator-dir/x.db"', '"not a url"',
    '["os:sep"]', '["tests.support.plugins:nothing"]', '["nosuchmodule:x"]', '"anthropic"', "[1e999]", "[0, 10]",
    "[10, 1]", '["day", "day"]', "[99999999999999]", "3.5", '"5"',
]
BYTES = [b"\xff", b"\x00", b'"', b"[", b"]", b"=", b"\n", b"9", b"{", b"\\", b"'", b"\xc3", b" ", b"#"]
ASSIGNMENT = re.compile(rb"^(\s*[A-Za-z_.]+\s*=\s*)(.+)$")


def damage(rng: random.Random, text: bytes) -> bytes:
    """One or two random mutations of a config file's bytes."""
    for _ in range(rng.randint(1, 2)):
        lines = text.split(b"\n")
        kind = rng.choice(["value", "value", "value", "bytes", "line", "section", "unknown"])
        if kind == "value":
            slots = [i for i, line in enumerate(lines) if ASSIGNMENT.match(line)]
            i = rng.choice(slots)
            lines[i] = ASSIGNMENT.sub(lambda m: m.group(1) + rng.choice(VALUES).encode(), lines[i])
        elif kind == "bytes":
            at = rng.randrange(len(text))
            cut = rng.randint(0, 3)
            return text[:at] + b"".join(rng.choice(BYTES) for _ in range(rng.randint(1, 3))) + text[at + cut:]
        elif kind == "line":
            i = rng.randrange(len(lines))
            lines.insert(rng.randrange(len(lines)), lines[i]) if rng.random() < 0.5 else lines.pop(i)
        elif kind == "section":
            name = rng.choice([b"retry", b"daemon", b"ladders", b"facts", b"context", b"model", b"scopes"])
            lines.append(rng.choice([name + b" = 5", b"[" + name + b"]", b"[scopes.a]\ntimezone = 4"]))
        else:
            lines.insert(rng.randrange(len(lines)), rng.choice([b"surprise = 1", b"[facts]\nsurprise = 1"]))
        text = b"\n".join(lines)
    return text


def test_damage_is_seeded_and_varied() -> None:
    """The same seed gives the same configs, and the cases differ from the base and each other."""
    first = [damage(random.Random(SEED + n), BASE.encode()) for n in range(20)]
    again = [damage(random.Random(SEED + n), BASE.encode()) for n in range(20)]
    assert first == again
    assert len(set(first)) == 20 and BASE.encode() not in first


@pytest.mark.slow
def test_fuzzed_configs_never_give_a_traceback(tmp_path: Path) -> None:
    """Hundreds of damaged configs: `run --once` exits 0, or 1/2 with one-line errors; no traceback, ever."""
    runner = CliRunner()
    env = {"CONSOLIDATOR_STATE_DIR": str(tmp_path / "state")}  # damage never points state elsewhere
    codes: dict[int, int] = {}
    for n in range(CASES):
        config = tmp_path / "config.toml"
        config.write_bytes(damage(random.Random(SEED + n), BASE.encode()))
        result = runner.invoke(cli, ["--config", str(config), "run", "--once"], env=env, catch_exceptions=False)
        text = result.stdout + result.stderr
        assert "Traceback" not in text, (n, config.read_bytes(), text)
        assert result.exit_code in (0, 1, 2), (n, result.exit_code, text)
        if result.exit_code:
            errors = [line for line in result.stderr.splitlines() if line.lower().startswith("error:")]
            assert errors, (n, text)
            if result.exit_code == 2:
                assert len(errors) == 1 and str(config) in errors[0], (n, errors)
        codes[result.exit_code] = codes.get(result.exit_code, 0) + 1
    assert codes.get(0, 0) > CASES // 20 and codes.get(2, 0) > CASES // 3, codes  # both paths were exercised


@pytest.mark.parametrize("value", ["inf", "nan", "1e308", '"99999999999d"'])
def test_every_duration_key_is_bounded(tmp_path: Path, value: str) -> None:
    """Each duration key of config.toml refuses an infinite, nan or overflowing value with exit 2 naming it."""
    runner = CliRunner()
    section, keys = "", []
    for line in BASE.splitlines():
        if line.startswith("["):
            section = line.strip("[]") + "."
        elif (m := re.match(r'^(\w+) = "\d+[a-z]+"$', line)):
            keys.append((section, m.group(1)))
    assert len(keys) >= 10
    for section, key in keys:
        text = _set(BASE, section[:-1], key, value)
        config = tmp_path / "config.toml"
        config.write_text(text, encoding="utf-8")
        result = runner.invoke(cli, ["--config", str(config), "status"], env={"CONSOLIDATOR_STATE_DIR": str(tmp_path)},
                               catch_exceptions=False)
        assert result.exit_code == 2, (section, key, result.output)
        assert f"key '{section}{key}'" in result.stderr and "Traceback" not in result.stderr


def _set(text: str, section: str, key: str, value: str) -> str:
    """config.toml with `key` of `section` ("" for the top level) set to `value`."""
    out, current = [], ""
    for line in text.splitlines():
        if line.startswith("["):
            current = line.strip("[]")
        if current == section and re.match(rf"^{key} = ", line):
            line = f"{key} = {value}"
        out.append(line)
    return "\n".join(out) + "\n"
