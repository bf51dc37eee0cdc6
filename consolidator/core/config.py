"""Configuration: config.toml parsed with tomllib and validated with pydantic.

Lookup order: --config PATH, $CONSOLIDATOR_CONFIG, ./config.toml, /etc/consolidator/config.toml,
else the built-in defaults (which equal the repository's config.toml).
$CONSOLIDATOR_STATE_DIR overrides state_dir wherever the config came from.
Any unknown key, wrong type, value out of its range or unknown time zone raises ConfigError
naming the key and the file; the CLI turns it into exit code 2. Every value is bounded:
durations are finite (at most MAX_DURATION), floats are never inf or nan, counts and budgets
have sane ceilings, so no setting can overflow a date or a timer later, in the daemon.
"""

from __future__ import annotations

import os
import tomllib
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator,
                      model_validator)

from consolidator.model.settings import ModelSettings
from consolidator.units import parse_duration, short_repr
from consolidator.core import locate
from hierarchy.tiling import count_ladder, time_ladder
from stores.scopes import InvalidScope, validate_scope

SYSTEM_CONFIG = locate.SYSTEM_CONFIG
MAX_TIMEZONE_CHARS = 64
MAX_PROBLEMS = 5  # a config with more wrong keys names the first few


class ConfigError(ValueError):
    """The configuration is invalid; the message names the file and the key."""


def _at_least(minimum: timedelta):
    def check(value: timedelta) -> timedelta:
        if value < minimum or value <= timedelta(0):
            raise ValueError(f"must be at least {minimum.total_seconds():g}s" if minimum else "must be longer than 0s")
        return value

    return check


Duration = Annotated[timedelta, BeforeValidator(parse_duration)]
PositiveDuration = Annotated[timedelta, BeforeValidator(parse_duration), AfterValidator(_at_least(timedelta(0)))]
TickDuration = Annotated[timedelta, BeforeValidator(parse_duration), AfterValidator(_at_least(timedelta(seconds=0.1)))]
LeaseDuration = Annotated[timedelta, BeforeValidator(parse_duration), AfterValidator(_at_least(timedelta(seconds=1)))]
# Shorter than one unit of work (a model call) and the watchdog would restart a healthy daemon.
StallDuration = Annotated[timedelta, BeforeValidator(parse_duration), AfterValidator(_at_least(timedelta(seconds=10)))]


def _check_timezone(name: str) -> str:
    if len(name) > MAX_TIMEZONE_CHARS:
        raise ValueError(f"unknown time zone {short_repr(name)}: longer than {MAX_TIMEZONE_CHARS} characters")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name the file system refuses
        raise ValueError(f"unknown time zone {short_repr(name)}") from None
    return name


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class ScopeSettings(_Section):
    timezone: str | None = None

    _tz = field_validator("timezone")(lambda cls, v: v if v is None else _check_timezone(v))


class RetrySettings(_Section):
    base_delay: Duration = timedelta(seconds=30)
    max_delay: Duration = timedelta(hours=1)
    max_attempts: int = Field(default=8, ge=1, le=100)


class DaemonSettings(_Section):
    tick_interval: TickDuration = timedelta(seconds=5)
    lease_ttl: LeaseDuration = timedelta(seconds=60)
    step_workers: int = Field(default=3, ge=1, le=32)
    stall_after: StallDuration = timedelta(minutes=5)


class LadderSettings(_Section):
    time: list[str] = ["day", "week", "4w", "12w", "52w"]
    count: list[int] = [1, 10, 40, 120, 520]
    day_grace: Duration = timedelta(minutes=10)
    budget_tokens: int = Field(default=400, ge=16, le=100_000)

    @field_validator("time")
    @classmethod
    def _time_rungs(cls, value: list[str]) -> list[str]:
        time_ladder(tuple(value))  # raises ValueError naming the rung
        return value

    @field_validator("count")
    @classmethod
    def _count_rungs(cls, value: list[int]) -> list[int]:
        count_ladder(tuple(value))
        return value


class TableSpec(_Section):
    """One default topic table: a name and a one-line description (placement compares with both)."""

    name: str = Field(min_length=1, max_length=64, pattern=r"^[^\r\n]*\S[^\r\n]*$")  # one line
    description: str = Field(default="", max_length=300)


DEFAULT_TABLES = (
    TableSpec(name="people", description="family, friends, partners and who they are to each other"),
    TableSpec(name="work and study", description="jobs, careers, employers, school, classes and learning"),
    TableSpec(name="home and places", description="where people live, move, travel and visit"),
    TableSpec(name="health", description="illness, injuries, allergies, diet, fitness and wellbeing"),
    TableSpec(name="hobbies and interests", description="pastimes, sports, arts, music, books, games and pets"),
    TableSpec(name="plans and commitments", description="plans, goals, intentions, promises and upcoming events"),
    TableSpec(name="events", description="things that happened: experiences, outings, news and feelings"),
)


class FactSettings(_Section):
    """Facts: write-path dedup, decay, and the offline ("sleep") pass."""

    tau: PositiveDuration = timedelta(days=30)
    near_duplicate: float = Field(default=0.9, gt=0.0, le=1.0)
    neighbours: int = Field(default=10, ge=0, le=200)
    strength_cap: float = Field(default=10.0, ge=1.0, le=1_000_000)
    score_floor: float = Field(default=0.05, ge=0.0, le=10.0)  # a score is at most importance 10
    keep_top: int = Field(default=500, ge=1, le=1_000_000)
    sleep_idle: Duration = timedelta(hours=2)
    sleep_importance: int = Field(default=40, ge=1, le=1_000_000)
    merge_threshold: float = Field(default=0.85, gt=0.0, le=1.0)
    restore_grace: Duration = timedelta(days=30)
    # Topic tables (docs/tables.md): the default set, and when the offline pass restructures them.
    tables: list[TableSpec] = Field(default_factory=lambda: list(DEFAULT_TABLES), min_length=1, max_length=100)
    table_max: int = Field(default=40, ge=2, le=100_000)
    table_min: int = Field(default=3, ge=1, le=100_000)
    table_move_margin: float = Field(default=0.1, ge=0.0, le=2.0)

    @model_validator(mode="after")
    def _table_sizes(self) -> "FactSettings":
        if 2 * self.table_min > self.table_max:
            raise ValueError(f"table_min ({self.table_min}) must be at most half of table_max ({self.table_max})")
        names = [t.name.casefold() for t in self.tables]
        if len(set(names)) != len(names):
            raise ValueError("two tables share a name")
        return self

    # Reflections (docs/reflections.md): the offline pass writes one over a subject's related
    # current facts, from two sessions or more, at least reflect_min_facts of them (cosine to
    # their centroid >= reflect_threshold), listing at most reflect_max_facts.
    reflect: bool = True
    reflect_min_facts: int = Field(default=3, ge=2, le=100)
    reflect_max_facts: int = Field(default=8, ge=2, le=100)
    reflect_threshold: float = Field(default=0.35, gt=-1.0, le=1.0)


class ContextSettings(_Section):
    """context.md: the block a planner pastes every turn, under a hard token cap."""

    context_tokens: int = Field(default=1500, ge=64, le=100_000)
    contacts_share: float = Field(default=0.25, ge=0.0, le=1.0)
    facts_share: float = Field(default=0.35, ge=0.0, le=1.0)
    tasks_share: float = Field(default=0.15, ge=0.0, le=1.0)
    summaries_share: float = Field(default=0.25, ge=0.0, le=1.0)
    # The messages not yet consolidated: at most this many shown (newest last), within this
    # share of the cap, taken first; the four shares above divide what they leave.
    pending_messages: int = Field(default=10, ge=0, le=1000)
    pending_share: float = Field(default=0.25, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _shares(self) -> "ContextSettings":
        total = self.contacts_share + self.facts_share + self.tasks_share + self.summaries_share
        if total > 1.0 + 1e-9:
            raise ValueError(f"the four *_share values add up to {total:g}, more than 1")
        return self


class ArchiveSettings(_Section):
    """The cold archive: consolidated messages older than `after` move to Parquet under `dir`."""

    after: Duration = timedelta(days=90)  # 0 turns the archive off
    dir: Path | None = None  # default: state_dir/archive; a relative path is under state_dir
    files_per_tick: int = Field(default=4, ge=1, le=10_000)  # the daemon's share when idle


def _check_scope_names(names: Any) -> Any:
    """Each name (a list's items, a mapping's keys) a valid scope name, else a ValueError for pydantic."""
    for name in names:
        try:
            validate_scope(name)
        except InvalidScope as exc:
            raise ValueError(str(exc)) from None
    return names


class MCPSettings(_Section):
    """`consolidator mcp`: the scopes a server may touch when no --scope is given."""

    scopes: list[str] = []

    _names = field_validator("scopes")(lambda cls, v: _check_scope_names(v))


class Settings(_Section):
    state_dir: Path = Path("~/.local/state/consolidator")
    database_url: str = ""
    timezone: str = "UTC"
    batch_size: int = Field(default=50, ge=1, le=10_000)
    batch_context_lines: int = Field(default=2, ge=0, le=50)
    flush_idle: Duration = timedelta(minutes=30)
    interaction_gap: Duration = timedelta(minutes=30)
    plugins: list[str] = []
    scopes: dict[str, ScopeSettings] = {}
    retry: RetrySettings = RetrySettings()
    daemon: DaemonSettings = DaemonSettings()
    ladders: LadderSettings = LadderSettings()
    facts: FactSettings = FactSettings()
    context: ContextSettings = ContextSettings()
    archive: ArchiveSettings = ArchiveSettings()
    model: ModelSettings = ModelSettings()
    mcp: MCPSettings = MCPSettings()
    source: str = Field(default="<built-in defaults>", exclude=True)

    _tz = field_validator("timezone")(lambda cls, v: _check_timezone(v))
    _scope_names = field_validator("scopes")(lambda cls, v: _check_scope_names(v))

    @property
    def db_url(self) -> str:
        from stores.engine import default_url  # lazy: the snapshot reader needs settings, not SQLAlchemy

        return self.database_url or default_url(self.state_dir)

    @property
    def snapshot_dir(self) -> Path:
        return self.state_dir / "snapshots"

    @property
    def archive_dir(self) -> Path:
        if self.archive.dir is None:
            return self.state_dir / "archive"
        return self.state_dir / self.archive.dir.expanduser()  # an absolute dir replaces state_dir

    def timezone_of(self, scope: str) -> ZoneInfo:
        override = self.scopes.get(scope)
        return ZoneInfo(override.timezone if override and override.timezone else self.timezone)


def find_config(explicit: Path | None, env: dict[str, str] | None = None, cwd: Path | None = None) -> Path | None:
    return locate.find_config(explicit, env, cwd, system=SYSTEM_CONFIG)


def load_settings(explicit: Path | None = None, env: dict[str, str] | None = None, cwd: Path | None = None) -> Settings:
    """Find, parse and validate the configuration; apply $CONSOLIDATOR_STATE_DIR."""
    env = os.environ if env is None else env
    path = find_config(explicit, env, cwd)
    data: dict[str, Any] = {}
    source = "<built-in defaults>"
    if path is not None:
        source = str(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{path}: config file not found") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
        except RecursionError:
            raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    if env.get("CONSOLIDATOR_STATE_DIR"):
        data["state_dir"] = env["CONSOLIDATOR_STATE_DIR"]
    try:
        settings = Settings.model_validate({**data, "source": source})
    except ValidationError as exc:
        raise ConfigError(_describe(source, exc)) from None
    from_file = "state_dir" in data and not env.get("CONSOLIDATOR_STATE_DIR")
    state_dir = locate.resolve_state_dir(settings.state_dir, path, from_file)
    return settings.model_copy(update={"state_dir": state_dir})


def _describe(source: str, exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        key = printable(short_repr(".".join(str(part) for part in error["loc"]), 80).strip("'\""))
        if error["type"] == "extra_forbidden":
            problems.append(f"unknown key '{key}'")
        else:
            message = error["msg"].removeprefix("Value error, ")
            problems.append(f"key '{key}': {message}")
    if len(problems) > MAX_PROBLEMS:
        problems = problems[:MAX_PROBLEMS] + [f"and {len(problems) - MAX_PROBLEMS} more"]
    return printable(f"{source}: " + "; ".join(problems))


def printable(text: str) -> str:
    """One line: control characters (a newline or NUL in a key or path someone typed) shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def to_toml_defaults() -> dict[str, Any]:
    """The built-in defaults as plain data (used by a test that compares them to config.toml)."""
    return Settings().model_dump(mode="json")

