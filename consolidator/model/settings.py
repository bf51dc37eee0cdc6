"""The `[model]` table of config.toml: which backend, which model per operation, limits, prices.

`resolve_provider` turns `provider = "auto"` into a concrete backend from the environment;
nothing here imports `anthropic` or `openai` or reads the environment by itself. With
`provider = "openai"` (any OpenAI-compatible server: OpenAI, Ollama, vLLM, llama.cpp, LM Studio)
`base_url` defaults to OpenAI's, `context_tokens` is the server's window (8,192 unless told, for
a server that is not OpenAI's) and a model without a `[model.prices]` entry is free there.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from urllib.parse import urlsplit
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from consolidator.units import parse_duration

Operation = Literal[
    "summarize", "extract_facts", "judge_cluster", "update_contacts", "update_tasks", "consolidate_batch",
    "split_table",
    "reflect",
]
OPERATIONS: tuple[Operation, ...] = get_args(Operation)

DEFAULT_MODEL = "claude-haiku-4-5"

# Ceilings that keep every setting finite and sane (floats are never inf or nan either).
MAX_PRICE = 100_000.0  # USD per million tokens
MAX_SECONDS = 3600.0  # one HTTP attempt, one operation
MaxTokens = Annotated[int, Field(ge=1, le=1_000_000)]
# The Message Batches API: half the price, answered within 24 h (usually minutes).
BATCH_DISCOUNT = 0.5


Duration = Annotated[timedelta, BeforeValidator(parse_duration)]

DEFAULT_MAX_TOKENS: dict[Operation, int] = {
    "summarize": 2048,
    "extract_facts": 2048,
    "judge_cluster": 512,
    "update_contacts": 2048,
    "update_tasks": 1024,
    "consolidate_batch": 4096,
    "split_table": 4096,
    "reflect": 512,
}


class Price(BaseModel):
    """USD per million tokens, one rate per kind of token the API reports."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    input_per_mtok: float = Field(ge=0, le=MAX_PRICE)
    output_per_mtok: float = Field(ge=0, le=MAX_PRICE)
    cache_read_per_mtok: float = Field(ge=0, le=MAX_PRICE)
    cache_write_per_mtok: float = Field(ge=0, le=MAX_PRICE)

    def cost(self, *, input_tokens: int, output_tokens: int, cache_read_tokens: int, cache_write_tokens: int) -> float:
        """Cost of one reply; `input_tokens` excludes cached tokens, as the API reports it."""
        return (
            input_tokens * self.input_per_mtok
            + output_tokens * self.output_per_mtok
            + cache_read_tokens * self.cache_read_per_mtok
            + cache_write_tokens * self.cache_write_per_mtok
        ) / 1_000_000


# Claude Haiku 4.5 list prices; cache writes are the 5-minute (ephemeral) rate.
DEFAULT_PRICES: dict[str, Price] = {
    DEFAULT_MODEL: Price(input_per_mtok=1.0, output_per_mtok=5.0, cache_read_per_mtok=0.10, cache_write_per_mtok=1.25),
}

# provider = "openai": OpenAI's own endpoint, its default model and list prices (a prompt-cache
# write costs the input rate there); any other server's window unless `context_tokens` says.
OPENAI_URL = "https://api.openai.com/v1"
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"
OPENAI_CONTEXT_TOKENS = 128_000
LOCAL_CONTEXT_TOKENS = 8_192
_FREE = Price(input_per_mtok=0, output_per_mtok=0, cache_read_per_mtok=0, cache_write_per_mtok=0)


def _openai_price(inp: float, out: float, cached: float) -> Price:
    return Price(input_per_mtok=inp, output_per_mtok=out, cache_read_per_mtok=cached, cache_write_per_mtok=inp)


OPENAI_PRICES: dict[str, Price] = {
    "gpt-4o-mini": _openai_price(0.15, 0.60, 0.075),
    "gpt-4o": _openai_price(2.50, 10.00, 1.25),
    "gpt-4.1": _openai_price(2.00, 8.00, 0.50),
    "gpt-4.1-mini": _openai_price(0.40, 1.60, 0.10),
    "gpt-4.1-nano": _openai_price(0.10, 0.40, 0.025),
}


def shown_url(url: str) -> str:
    """A base_url fit to show (logs, status, faults, errors): scheme, host, port and path, never
    credentials (user:key@) nor a query (?api-key=...) it may hold."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


class ModelSettings(BaseModel):
    """Settings of the model port. Partial `max_tokens` and `prices` tables extend the defaults."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    provider: Literal["auto", "offline", "anthropic", "openai"] = "auto"
    default_model: str = DEFAULT_MODEL
    models: dict[Operation, str] = Field(default_factory=dict, description="Per-operation model override.")
    max_tokens: dict[Operation, MaxTokens] = Field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS))
    base_url: str | None = None
    context_tokens: int | None = Field(
        default=None, ge=1_024, le=10_000_000,
        description="provider openai: the server's context window (prompt + max_tokens of every request fit in it).")
    max_retries: int = Field(default=2, ge=0, le=10)
    timeout_s: float = Field(default=60.0, gt=0, le=MAX_SECONDS, description="Limit of one HTTP attempt.")
    max_call_s: float = Field(
        default=120.0,
        gt=0,
        le=MAX_SECONDS,
        description="Limit of one operation: every HTTP attempt, SDK retry wait and the repair request.",
    )
    prices: dict[str, Price] = Field(default_factory=lambda: dict(DEFAULT_PRICES))
    daily_budget_usd: float | None = Field(default=None, ge=0, le=1_000_000)
    daily_budget_tokens: int | None = Field(default=None, ge=0, le=10**12)
    combine_batch_steps: bool = Field(
        default=True,
        description="One consolidate_batch call per batch serves the facts, contacts and tasks steps "
        "(when the backend has it); false: one call per step.",
    )

    batch_api: bool = Field(
        default=False,
        description="Send the daemon's model work as Message Batches (half the price, answered later); "
        "work waits, deferred, until its batch answers.",
    )
    batch_max_wait: Duration = Field(
        default=timedelta(hours=6), description="Work unanswered by its batch this long falls back to a direct call."
    )
    batch_poll: Duration = Field(
        default=timedelta(minutes=1), description="How often pending batches are polled (and deferred work retried)."
    )

    @field_validator("batch_max_wait", "batch_poll", mode="after")
    @classmethod
    def _positive(cls, value: timedelta) -> timedelta:
        if value <= timedelta(0):
            raise ValueError("must be a positive duration")
        return value

    @field_validator("base_url", mode="after")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018 - raises on a port that is not a number
        except ValueError as exc:
            raise ValueError(f"not a URL: {exc}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// URL with a host (e.g. http://127.0.0.1:11434/v1)")
        return value

    @field_validator("max_tokens", mode="after")
    @classmethod
    def _complete_max_tokens(cls, value: dict[Operation, int]) -> dict[Operation, int]:
        return {**DEFAULT_MAX_TOKENS, **value}

    @field_validator("prices", mode="after")
    @classmethod
    def _complete_prices(cls, value: dict[str, Price]) -> dict[str, Price]:
        return {**DEFAULT_PRICES, **value}

    @model_validator(mode="after")
    def _openai_model(self) -> ModelSettings:
        if self.provider == "openai" and "default_model" not in self.model_fields_set:
            if not self.openai_hosted:
                raise ValueError(f"default_model: provider \"openai\" at {shown_url(self.base_url or '')} needs the model name the "
                                 "server serves (e.g. default_model = \"llama3.1:8b\")")
            self.default_model = OPENAI_DEFAULT_MODEL
        return self

    @model_validator(mode="after")
    def _priced_when_budgeted(self) -> ModelSettings:
        if self.daily_budget_usd is not None:
            unpriced = sorted(m for m in {self.model_for(op) for op in OPERATIONS} if self.price_for(m) is None)
            if unpriced:
                raise ValueError(f"daily_budget_usd needs prices for: {', '.join(unpriced)}")
        return self

    def model_for(self, operation: Operation) -> str:
        return self.models.get(operation, self.default_model)

    def max_tokens_for(self, operation: Operation) -> int:
        return self.max_tokens[operation]

    def price_for(self, model: str) -> Price | None:
        if self.provider == "openai" and model not in self.prices:
            return OPENAI_PRICES.get(model) if self.openai_hosted else _FREE
        return self.prices.get(model)

    @property
    def openai_hosted(self) -> bool:
        """provider openai at OpenAI itself (no base_url, or api.openai.com): keyed, priced, a large window."""
        return self.base_url is None or urlsplit(self.base_url).hostname == "api.openai.com"

    def context_window(self) -> int:
        """provider openai: the window every request must fit (`context_tokens`, else by server)."""
        if self.context_tokens is not None:
            return self.context_tokens
        return OPENAI_CONTEXT_TOKENS if self.openai_hosted else LOCAL_CONTEXT_TOKENS


def resolve_provider(settings: ModelSettings, env: Mapping[str, str]) -> Literal["offline", "anthropic", "openai"]:
    """`auto` means anthropic iff ANTHROPIC_API_KEY is set and non-blank; explicit choices stand."""
    if settings.provider != "auto":
        return settings.provider
    return "anthropic" if env.get("ANTHROPIC_API_KEY", "").strip() else "offline"
