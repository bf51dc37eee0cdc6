"""Where the configuration and the state directory are: the standard library only.

The planner's reads (`read_context`, `recall`) need only the snapshot directory, and a planner
pays for every import at each start, so the lookup lives here, without pydantic;
`consolidator.core.config.load_settings` uses the same functions, so both agree.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

SYSTEM_CONFIG = Path("/etc/consolidator/config.toml")
DEFAULT_STATE_DIR = "~/.local/state/consolidator"


def find_config(explicit: Path | None, env: dict[str, str] | None = None, cwd: Path | None = None,
                system: Path | None = None) -> Path | None:
    """--config, then $CONSOLIDATOR_CONFIG, then ./config.toml, then the system file (None: defaults)."""
    env = os.environ if env is None else env
    if explicit is not None:
        return explicit
    if env.get("CONSOLIDATOR_CONFIG"):
        return Path(env["CONSOLIDATOR_CONFIG"])
    for candidate in ((cwd or Path.cwd()) / "config.toml", system or SYSTEM_CONFIG):
        try:
            if candidate.is_file():
                return candidate
        except OSError:  # a directory we may not look into holds no config of ours
            continue
    return None


def resolve_state_dir(value: str | Path, config_path: Path | None, from_file: bool) -> Path:
    """"~" expanded; a relative state_dir given in a config file is relative to that file."""
    state_dir = Path(value).expanduser()
    if not state_dir.is_absolute() and config_path is not None and from_file:
        state_dir = config_path.parent / state_dir
    return state_dir


def state_dir_of(explicit: Path | None = None, env: dict[str, str] | None = None, cwd: Path | None = None,
                 system: Path | None = None) -> Path | None:
    """The state directory the CLI would use, or None when the config file cannot be read as TOML
    with a string state_dir (then `load_settings` says what is wrong)."""
    env = os.environ if env is None else env
    if env.get("CONSOLIDATOR_STATE_DIR"):
        return resolve_state_dir(env["CONSOLIDATOR_STATE_DIR"], None, False)
    path = find_config(explicit, env, cwd, system)
    if path is None:
        return resolve_state_dir(DEFAULT_STATE_DIR, None, False)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None
    value = data.get("state_dir", DEFAULT_STATE_DIR)
    if not isinstance(value, str):
        return None
    return resolve_state_dir(value, path, "state_dir" in data)
