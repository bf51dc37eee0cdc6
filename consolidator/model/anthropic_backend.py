"""`AnthropicModel`: the model port over the Anthropic Messages API (the only `anthropic` import).

Each operation is one `messages.create` call with one forced tool whose input schema is the
reply model's JSON schema; the tool input is validated with that model (`consolidate_batch`,
tool record_batch, is the facts, contacts and tasks operations of one batch in one call). A
reply that fails validation, or stops at max_tokens, is answered once with an error
tool_result and asked again; a second failure raises `InvalidReplyError`. Nothing invalid
is returned.

Exceptions: `calls.py`'s (all `ModelError`: transient, invalid reply, rejected request).
Messages are built from the operation, status, error type and request id; the API key is
never part of them (a server message quoted in one is scrubbed of it), and they are raised
outside the SDK's `except` block, so no SDK exception (which holds the request and its
headers) is their cause or context.

Time bound: the SDK retries 429/5xx itself and sleeps for whatever `retry-after` says, with
no cap. A client middleware (`_DeadlineMiddleware`, run by the SDK once per HTTP attempt)
enforces `settings.max_call_s` for the whole operation, repair request included:

- before an attempt, it gives the attempt `timeout = min(timeout_s, time left)`, or raises
  if no time is left;
- after a retryable failure, if the SDK's next wait (the server's `retry-after`, else the
  upper bound of its backoff) would not end before the deadline, it raises instead of
  letting the SDK sleep. The error is not an SDK error type, so the SDK does not retry it.

httpx timeouts are per phase (connect, write, read), each capped at the time left: an
operation ends within `max_call_s` plus a few milliseconds (measured: 1.506 s for 1.5 s);
only an attempt slow in several phases at once could overrun by more. The SDK's
retries (and their `retry-after`) are used whenever they fit in the budget. The deadline
lives in a ContextVar, so concurrent operations in different threads keep their own.

Accounting: every `messages.create` that returned a message is recorded with the reply's
usage (outcome "ok" or "invalid"); one that raised is recorded as "error" with zero tokens.

Batch mode (`batch_book`, model.batch_api): the first try of an operation is looked up in the
book (consolidator.batches.book), which queues it for a Message Batch and raises
`BatchPending` until the answer is stored; the stored message is then checked like a direct
reply (it was recorded, at the batch price, when the courier stored it), and a repair, if
needed, is a direct call. `batches` is the SDK's batch client the courier uses.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import anthropic
import structlog
from pydantic import ValidationError

from consolidator.model import calls
from consolidator.model.calls import InvalidReplyError, RejectedRequestError, TransientModelError  # callers catch them here
from consolidator.model.base import BatchOperations, ModelError
from consolidator.model.prompts import _SPECS, _describe, _render, _Spec
from consolidator.model.refs import resolve
from consolidator.model.recording import CallRecorder, Outcome
from consolidator.model.settings import ModelSettings, Operation

log = structlog.get_logger(__name__)



class _DeadlineMiddleware(anthropic.Middleware):
    def __init__(self, *, clock: Callable[[], float], timeout_s: float, max_retries: int) -> None:
        self._clock = clock
        self._timeout_s = timeout_s
        self._max_retries = max_retries

    def handle(self, request: anthropic.APIRequest, call_next: Any) -> Any:
        return calls.attempt_in_deadline(
            lambda timeout: call_next(request if timeout is None else request.copy(timeout=timeout)),
            clock=self._clock, timeout_s=self._timeout_s, max_retries=self._max_retries,
            taken=request.retries_taken, transport_errors=anthropic.APIConnectionError, fail=calls.DeadlineExceeded,
            failed=lambda err: "timed out" if isinstance(err, anthropic.APITimeoutError) else "connection failed")


# --- the backend ---------------------------------------------------------------------------


class AnthropicModel(BatchOperations):
    """The model port over the Messages API. Thread-safe; `close()` releases the connection pool."""

    name = "anthropic"

    def __init__(
        self,
        settings: ModelSettings,
        recorder: CallRecorder,
        api_key: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        batch_book: Any = None,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY", "")
        if not key.strip():
            raise ModelError("no Anthropic API key: set ANTHROPIC_API_KEY")
        self._settings = settings
        self._recorder = recorder
        self._clock = clock
        self._now = now
        self._secret = key
        self._book = batch_book  # a consolidator.batches.book.BatchBook, or None: direct calls only
        self._client = anthropic.Anthropic(
            api_key=key,
            base_url=settings.base_url,
            max_retries=settings.max_retries,
            timeout=settings.timeout_s,
            middleware=[
                _DeadlineMiddleware(clock=clock, timeout_s=settings.timeout_s, max_retries=settings.max_retries)
            ],
        )

    def __repr__(self) -> str:
        return f"AnthropicModel(base_url={self._client.base_url!s})"

    def close(self) -> None:
        self._client.close()

    @property
    def batches(self) -> Any:
        """The SDK's Message Batches client (create, retrieve, results, cancel, list), for the courier."""
        return self._client.messages.batches

    def __enter__(self) -> AnthropicModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the port: every operation is one call (consolidator.model.base.Operations) ---

    def call(self, operation: Operation, request: Any) -> Any:
        # A summary may use its whole budget: leave room for the tool call around it.
        max_tokens = (max(self._settings.max_tokens_for("summarize"), 2 * request.budget_tokens)
                      if operation == "summarize" else None)
        return self._run(operation, request, max_tokens)

    # --- one operation ---

    def _run(self, op: Operation, request: Any, max_tokens: int | None = None) -> Any:
        spec = _SPECS[op]
        model = self._settings.model_for(op)
        params: dict[str, Any] = {
            "model": model,
            "max_tokens": max_tokens or self._settings.max_tokens_for(op),
            "system": [{"type": "text", "text": spec.system, "cache_control": {"type": "ephemeral"}}],
            "tools": [spec.tool_param],
            "tool_choice": {"type": "tool", "name": spec.tool},
        }
        messages: list[dict[str, Any]] = [{"role": "user", "content": _render(request)}]
        with calls.deadline(self._clock, self._settings.max_call_s):
            for attempt in (1, 2):
                stored = None
                if attempt == 1 and self._book is not None:  # raises BatchPending until its batch answers
                    stored = self._book.answer(op, request, model, {**params, "messages": messages})
                if stored is not None:
                    message = anthropic.types.Message.model_validate(stored)
                else:
                    message, latency_s = self._create(op, request, model, params, messages)
                block = next((b for b in message.content if b.type == "tool_use" and b.name == spec.tool), None)
                reply, problem = self._check(spec, request, message, block)
                if stored is None:  # a batch answer was recorded when it was stored
                    self._record(op, request, model, latency_s, "ok" if problem is None else "invalid", message.usage)
                if problem is None:
                    return reply
                log.warning("model.reply_invalid", operation=op, scope=request.scope, ref=request.ref,
                            attempt=attempt, problem=problem[:300])
                if attempt == 2:
                    raise InvalidReplyError(f"{op}: invalid reply twice ({problem[:300]})")
                messages += self._repair(spec, message, block, problem)
        raise AssertionError("unreachable")

    def _check(self, spec: _Spec[Any], request: Any, message: Any, block: Any) -> tuple[Any, str | None]:
        if message.stop_reason == "max_tokens":
            return None, "The reply was cut off at max_tokens before the tool input was complete; be briefer."
        if block is None:
            return None, f"No {spec.tool} call in the reply; answer by calling {spec.tool}."
        try:
            return resolve(request, spec.reply.model_validate(block.input)), None
        except ValidationError as err:
            return None, f"The {spec.tool} input is invalid: {_describe(err)}. Call {spec.tool} again, fixed."

    @staticmethod
    def _repair(spec: _Spec[Any], message: Any, block: Any, problem: str) -> list[dict[str, Any]]:
        if block is None:
            texts = [{"type": "text", "text": b.text} for b in message.content if b.type == "text" and b.text]
            turn = [{"role": "assistant", "content": texts}] if texts else []
            return [*turn, {"role": "user", "content": problem}]
        tool_use = {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
        if not isinstance(block.input, dict):
            tool_use["input"] = {}
        result = {"type": "tool_result", "tool_use_id": block.id, "is_error": True, "content": problem}
        return [{"role": "assistant", "content": [tool_use]}, {"role": "user", "content": [result]}]

    def _create(
        self, op: Operation, request: Any, model: str, params: dict[str, Any], messages: list[Any]
    ) -> tuple[Any, float]:
        """One messages.create (SDK retries included) and its latency; a failure is recorded and mapped."""
        started = self._clock()
        try:
            message = self._client.messages.create(messages=messages, **params)
        except (calls.DeadlineExceeded, anthropic.AnthropicError) as err:
            failure = self._translate(op, err)
        else:
            return message, self._clock() - started
        # Raised outside the except block: no SDK exception (which holds the request) in its context.
        self._record(op, request, model, self._clock() - started, "error")
        log.warning("model.call_failed", operation=op, scope=request.scope, ref=request.ref,
                    error=type(failure).__name__, status=failure.status, request_id=failure.request_id)
        raise failure

    def _translate(self, op: str, err: Exception) -> TransientModelError | RejectedRequestError:
        failure = calls.transient_failure(op, err, anthropic, max_call_s=self._settings.max_call_s,
                                          provider="anthropic")
        if failure is not None:
            return failure
        if isinstance(err, anthropic.APIStatusError):
            return calls.status_error("anthropic", op, err.status_code, err.type,
                                      self._scrub(str(err.api_message or "")), err.request_id)
        return RejectedRequestError(op, f"client error {type(err).__name__}")

    def _scrub(self, text: str) -> str:
        return calls.scrub(text, self._secret)

    def _record(self, op: str, request: Any, model: str, latency_s: float, outcome: Outcome, usage: Any = None) -> None:
        tokens = {
            "input_tokens": (usage.input_tokens or 0) if usage else 0,
            "output_tokens": (usage.output_tokens or 0) if usage else 0,
            "cache_read_tokens": (usage.cache_read_input_tokens or 0) if usage else 0,
            "cache_write_tokens": (usage.cache_creation_input_tokens or 0) if usage else 0,
        }
        calls.record_call(self._recorder, self._settings, self._now(), op=op, request=request, model=model,
                    latency_s=latency_s, outcome=outcome, tokens=tokens if usage is not None else None)
