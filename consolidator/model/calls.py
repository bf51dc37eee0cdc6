"""What every remote backend shares: its errors, the operation's deadline, and the ledger record.

Exceptions (all `ModelError`)::

    ModelError
     +-- TransientModelError   429, 408/409, 5xx/529, timeouts, connection errors, deadline:
     |                         the caller may reschedule the step
     +-- InvalidReplyError     two invalid replies in a row
     +-- RejectedRequestError  4xx the request itself caused (400, 401, 403, 404, 413)

Messages are built from the provider, operation, status, error type and request id, never from
an SDK object (which holds the request and its headers); a server's message quoted in one is
scrubbed of the key first (`scrub`).

The deadline: an operation (every HTTP attempt, the SDK's retry waits and a repair request)
must end within `max_call_s`. `DEADLINE` holds its end for the running thread (a ContextVar,
so concurrent operations keep their own); the backends' HTTP hooks (the Anthropic SDK's
middleware, the OpenAI client's transport) run each attempt through `attempt_in_deadline`,
which reads it before the attempt and after a retryable answer, and raises rather than let the
SDK sleep past it.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any

import structlog

from consolidator.model.base import ModelError
from consolidator.model.recording import CallRecord, CallRecorder, Outcome
from consolidator.model.settings import ModelSettings

log = structlog.get_logger(__name__)


class CallError(ModelError):
    """A request that got no message; the message is built from ids, never from SDK objects."""

    provider = "anthropic"

    def __init__(self, operation: str, what: str, *, status: int | None = None, error_type: str | None = None,
                 request_id: str | None = None, provider: str | None = None) -> None:
        prefix = provider or self.provider
        super().__init__(f"{prefix} {operation}: {what}" + (f" (request-id {request_id})" if request_id else ""))
        self.operation = operation
        self.status = status
        self.error_type = error_type
        self.request_id = request_id


class TransientModelError(CallError):
    """No reply now (rate limit, overload, server error, timeout, deadline); try again later."""


class RejectedRequestError(CallError):
    """The server refused the request itself (400, 401, 403, 404, 413...): retrying will not help."""


class InvalidReplyError(ModelError):
    """The model answered twice without a valid reply."""


def status_error(provider: str, op: str, status: int, kind: str | None, message: str,
                 request_id: str | None) -> CallError:
    """An HTTP error answer as the error the step sees: transient for 408/409/429/5xx."""
    transient = status in (408, 409, 429) or status >= 500
    cls = TransientModelError if transient else RejectedRequestError
    return cls(op, f"HTTP {status} {kind or 'error'}: {message[:200]}", status=status, error_type=kind,
               request_id=request_id, provider=provider)


class DeadlineExceeded(Exception):
    """Raised by `attempt_in_deadline` inside an SDK's retry loop: the operation's deadline would pass.

    A backend raises it as is, or as a subclass the SDK passes on without retrying."""

    def __init__(self, reason: str, *, status: int | None = None, request_id: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.request_id = request_id


def transient_failure(op: str, err: BaseException, sdk: Any, *, max_call_s: float,
                      provider: str) -> TransientModelError | None:
    """The failures both SDKs report alike (their error classes share names): the deadline passed, the
    request timed out, no connection. None for anything else (the backend's own reading)."""
    if isinstance(err, DeadlineExceeded):
        return TransientModelError(op, f"no reply within max_call_s={max_call_s:g}s: {err.reason}", status=err.status,
                                   request_id=err.request_id, provider=provider)
    if isinstance(err, sdk.APITimeoutError):
        return TransientModelError(op, "request timed out", provider=provider)
    if isinstance(err, sdk.APIConnectionError):
        return TransientModelError(op, "connection failed", provider=provider)
    return None


def scrub(text: str, secret: str) -> str:
    return text.replace(secret, "[redacted]") if secret else text


# --- the deadline -------------------------------------------------------------------------

DEADLINE: ContextVar[float | None] = ContextVar("consolidator_model_deadline", default=None)

# The SDKs' backoff without retry-after: min(0.5 * 2**retries_taken, 8) s, jittered down.
BACKOFF_INITIAL_S = 0.5
BACKOFF_MAX_S = 8.0
# An attempt with less time than this left is not worth starting.
MIN_ATTEMPT_S = 0.05


@contextmanager
def deadline(clock: Callable[[], float], max_call_s: float) -> Iterator[None]:
    """The running operation must end within `max_call_s` (its attempts, waits and repair)."""
    token = DEADLINE.set(clock() + max_call_s)
    try:
        yield
    finally:
        DEADLINE.reset(token)


def backoff_s(retries_taken: int) -> float:
    return min(BACKOFF_INITIAL_S * 2**retries_taken, BACKOFF_MAX_S)


def wait_fits(clock: Callable[[], float], wait_s: float, end: float) -> bool:
    return clock() + max(wait_s, 0.0) + MIN_ATTEMPT_S < end


def retry_after_s(headers: Any) -> float | None:
    """The wait the server asks for, read as the SDKs read it (retry-after-ms, seconds, date)."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return float(headers.get(name)) * scale
        except (TypeError, ValueError):
            pass
    raw = headers.get("retry-after")
    parsed = email.utils.parsedate_tz(raw) if raw else None
    return None if parsed is None else email.utils.mktime_tz(parsed) - time.time()


def sdk_would_retry(status: int, headers: Any) -> bool:
    flag = headers.get("x-should-retry")
    if flag in ("true", "false"):
        return flag == "true"
    return status in (408, 409, 429) or status >= 500


def attempt_in_deadline(send: Callable[[float | None], Any], *, clock: Callable[[], float], timeout_s: float,
                        max_retries: int, taken: int, transport_errors: type[BaseException],
                        fail: Callable[..., BaseException], failed: Callable[[BaseException], str] = lambda _: "failed",
                        request_id_header: str = "request-id") -> Any:
    """One HTTP attempt (`send(timeout)`, `taken` retries before it) within the running operation's deadline.

    No deadline: `send(None)`. Otherwise the attempt gets `min(timeout_s, time left)`, and
    `fail(reason, status=, request_id=)` is raised (an error the SDK does not retry) when no time
    is left for it, or when the SDK would retry a failure but its wait (the server's
    `retry-after`, else the backoff) would pass the deadline. `failed(err)` says how a transport
    error failed ("timed out", ...).
    """
    end = DEADLINE.get()
    if end is None:
        return send(None)
    remaining = end - clock()
    if remaining < MIN_ATTEMPT_S:
        raise fail(f"no time left for attempt {taken + 1}")
    retries_left = taken < max_retries
    try:
        response = send(min(timeout_s, remaining))
    except transport_errors as err:
        if retries_left and not wait_fits(clock, backoff_s(taken), end):
            raise fail(f"attempt {taken + 1} {failed(err)}; no time to retry") from None
        raise
    status, headers = response.status_code, response.headers
    if status >= 400 and retries_left and sdk_would_retry(status, headers):
        wait_s = retry_after_s(headers)
        wait_s = backoff_s(taken) if wait_s is None or wait_s <= 0 else wait_s
        if not wait_fits(clock, wait_s, end):
            request_id = headers.get(request_id_header)
            response.close()
            raise fail(f"HTTP {status}; retry in {wait_s:.1f}s would pass the deadline", status=status,
                       request_id=request_id)
    return response


# --- the ledger -----------------------------------------------------------------------------


def record_call(recorder: CallRecorder, settings: ModelSettings, now: datetime, *, op: str, request: Any, model: str,
                latency_s: float, outcome: Outcome, tokens: dict[str, int] | None = None) -> CallRecord:
    """One request in the ledger, priced from `[model.prices]`; "error" records carry no tokens."""
    tokens = tokens or {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0}
    price = settings.price_for(model)
    if outcome != "error" and price is None:
        log.warning("model.price_unknown", model=model)
    rec = CallRecord(operation=op, scope=request.scope, ref=request.ref, model=model, **tokens, latency_s=latency_s,
                     outcome=outcome, cost_usd=price.cost(**tokens) if price else 0.0, at=now)
    recorder.record(rec)
    log.info("model.call", operation=op, scope=rec.scope, ref=rec.ref, model=model, outcome=outcome,
             latency_s=round(rec.latency_s, 3), cost_usd=rec.cost_usd, **tokens)
    return rec
