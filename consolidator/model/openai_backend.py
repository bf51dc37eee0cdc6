"""`OpenAIModel`: the model port over an OpenAI-compatible chat completions API (the only `openai` import).

Any server that speaks the API: OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio. The
operations, prompts and reply schemas are the Anthropic backend's (`prompts._SPECS`); the
wire format is `openai_wire`, and every request is planned to fit the server's window by
`window.plan` (a batch too big is split, its replies merged into one; summary inputs trimmed).

How a reply is asked for (`openai_wire.Mode`) is found once per process per (server, model)
and logged (`model.openai_mode`): json_schema `response_format` first; a server that refuses
it (400) or answers anything but a bare JSON object is asked with a forced tool next; one that
refuses tools or answers without the call, with the schema in the prompt. Whatever the mode,
the JSON is read out of the reply's text (fences, prose dropped) and validated; an invalid or
truncated reply is answered once with what is wrong, then the call fails (`InvalidReplyError`)
and the step's retry rules apply. A 400 "maximum context length" (the server counts tokens
differently) sets the window this process assumes to the N the server gave (else a fifth less) and
re-plans once.

Retries are the SDK's (429 with retry-after, 5xx, timeouts), bounded by `max_call_s` for a request
and its repair (each part of a split has its own: a local model may be slow) through an HTTP
transport that reads the deadline (`calls.DEADLINE`) before each attempt and raises rather than
let the SDK wait past it. Every answered request is recorded in the ledger
(`calls.record_call`) with the server's usage; a request that got no answer as "error".
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import httpx2
import openai
import structlog

from consolidator.model import calls
from consolidator.model import openai_wire as wire
from consolidator.model import window
from consolidator.model.base import BatchOperations
from consolidator.model.prompts import _SPECS, _render
from consolidator.model.recording import CallRecorder, Outcome
from consolidator.model.refs import resolve
from consolidator.model.settings import OPENAI_URL, ModelSettings, Operation, shown_url
from consolidator.model.openai_wire import Mode

log = structlog.get_logger(__name__)

PROVIDER = "openai"
MARGIN_TOKENS = 16  # beyond the body's estimate: the server's chat template
_OVER_WINDOW = "maximum context length"
_MODES: dict[tuple[str, str], Mode] = {}  # (base_url, model) -> the mode found for it in this process
_SETTLED: set[tuple[str, str]] = set()
_LOCK = threading.Lock()
_NO_CHOICE = SimpleNamespace(message=SimpleNamespace(content="", tool_calls=None), finish_reason=None)


class _DeadlineExceeded(openai.OpenAIError, calls.DeadlineExceeded):
    """Raised inside the SDK's retry loop; an OpenAIError, which the SDK passes on without retrying."""


class _OverWindow(Exception):
    """The server said the request is over its context length (vLLM says which: `limit`)."""

    def __init__(self, message: str) -> None:
        super().__init__("over the context length")
        found = re.search(r"maximum context length is (\d+)", message)
        self.limit = int(found[1]) if found else None


class _DeadlineTransport(httpx2.BaseTransport):
    """Each HTTP attempt within the operation's deadline; no SDK retry wait past it."""

    def __init__(self, inner: httpx2.BaseTransport, *, clock: Callable[[], float], timeout_s: float,
                 max_retries: int) -> None:
        self._inner, self._clock, self._timeout_s, self._max_retries = inner, clock, timeout_s, max_retries

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        def send(limit: float | None) -> httpx2.Response:
            if limit is not None:
                request.extensions["timeout"] = {"connect": limit, "read": limit, "write": limit, "pool": limit}
            return self._inner.handle_request(request)

        return calls.attempt_in_deadline(
            send, clock=self._clock, timeout_s=self._timeout_s, max_retries=self._max_retries,
            taken=int(request.headers.get("x-stainless-retry-count", "0") or 0),
            transport_errors=httpx2.TransportError, fail=_DeadlineExceeded, request_id_header="x-request-id")

    def close(self) -> None:
        self._inner.close()


class OpenAIModel(BatchOperations):
    """The model port over chat completions. Thread-safe; `close()` releases the connection pool."""

    name = "openai"

    def __init__(self, settings: ModelSettings, recorder: CallRecorder, api_key: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        key = (api_key or "").strip()
        if not key and settings.openai_hosted:
            raise calls.RejectedRequestError("(any)", "no API key: set OPENAI_API_KEY", provider=PROVIDER)
        self._settings, self._recorder, self._clock, self._now = settings, recorder, clock, now
        self._secret = key
        self._url = settings.base_url or OPENAI_URL
        self._squeeze = 1.0  # lowered when the server counts a request over its window
        transport = _DeadlineTransport(httpx2.HTTPTransport(), clock=clock, timeout_s=settings.timeout_s,
                                       max_retries=settings.max_retries)
        self._client = openai.OpenAI(api_key=key or "none", base_url=self._url, max_retries=settings.max_retries,
                                     timeout=settings.timeout_s, http_client=httpx2.Client(transport=transport))

    def __repr__(self) -> str:
        return f"OpenAIModel(base_url={shown_url(self._url)})"

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the port ---

    def call(self, operation: Operation, request: Any) -> Any:
        return self._planned(operation, request, over_window_retry=True)

    def _planned(self, op: Operation, request: Any, *, over_window_retry: bool) -> Any:
        size = int(self._settings.context_window() * self._squeeze)
        try:
            step = window.plan(op, request, self.measure, size, self._settings.max_tokens_for(op))
        except window.WindowTooSmall as exc:
            raise calls.RejectedRequestError(op, f"{exc} ({size} tokens)", provider=PROVIDER) from None
        if isinstance(step, window.Split):
            log.info("model.request_split", operation=op, scope=request.scope, ref=request.ref, parts=len(step.parts),
                     into=[o for o, _ in step.parts])
            return step.merge([self._planned(o, r, over_window_retry=over_window_retry) for o, r in step.parts])
        try:
            with calls.deadline(self._clock, self._settings.max_call_s):  # each request of a split its own
                return self._ask(step.operation, step.request, step.max_tokens)
        except _OverWindow as over:
            if not over_window_retry:
                raise calls.RejectedRequestError(op, "over the server's context length twice",
                                                 provider=PROVIDER) from None
            told = over.limit if over.limit is not None and over.limit < size else int(size * 0.8)
            self._squeeze = told / self._settings.context_window()
            log.warning("model.over_window", operation=op, context_tokens=size, now_assumed=told)
            return self._planned(op, request, over_window_retry=False)

    def measure(self, op: str, request: Any) -> int:
        """The prompt a request costs on the wire, in tokens."""
        return self._prompt(op, [{"role": "user", "content": _render(request)}])

    def _prompt(self, op: str, messages: list[dict[str, Any]]) -> int:
        """A body's prompt tokens (its largest over the modes: four characters a token) and a margin."""
        spec, model = _SPECS[op], self._settings.model_for(op)  # type: ignore[index, arg-type]
        biggest = max(len(json.dumps(wire.build(spec, mode, model, 999_999, messages))) for mode in Mode)
        return -(-biggest // 4) + MARGIN_TOKENS

    # --- one request and its repair ---

    def _ask(self, op: Operation, request: Any, max_tokens: int) -> Any:
        spec, model = _SPECS[op], self._settings.model_for(op)
        asked = [{"role": "user", "content": _render(request)}]
        messages = asked
        for attempt in (1, 2):
            completion, mode, latency_s = self._complete(op, request, model, max_tokens, messages)
            choice = completion.choices[0] if completion.choices else _NO_CHOICE
            text, call = wire.reply_text(choice, spec)
            if choice.finish_reason != "length":  # a cut reply says nothing of the mode
                self._learn(model, mode, text, call)
            reply, problem = wire.check(spec, text, choice.finish_reason)
            if problem is None:
                reply = resolve(request, reply)
            self._record(op, request, model, completion, "ok" if problem is None else "invalid", latency_s)
            if problem is None:
                return reply
            log.warning("model.reply_invalid", operation=op, scope=request.scope, ref=request.ref, attempt=attempt,
                        mode=str(mode), finish_reason=choice.finish_reason, problem=problem[:300])
            if attempt == 2:
                raise calls.InvalidReplyError(f"{op}: invalid reply twice ({problem[:300]})")
            messages, max_tokens = self._repair(op, asked, wire.repair(mode, text, call, problem), max_tokens)
        raise AssertionError("unreachable")

    def _repair(self, op: Operation, asked: list[dict[str, Any]], turns: list[dict[str, Any]],
                max_tokens: int) -> tuple[list[dict[str, Any]], int]:
        """The repair request and its max_tokens: without the bad reply itself, and with less room to
        answer, when the window has no room for all of it."""
        size = int(self._settings.context_window() * self._squeeze)
        full = [*asked, *turns]
        if self._prompt(op, full) + max_tokens <= size:
            return full, max_tokens
        least = min(max_tokens, window.MIN_OUTPUT)
        text = str(turns[-1]["content"])
        short = [*asked, {"role": "user", "content": text}]
        while self._prompt(op, short) + least > size and len(text) > 200:  # a long error list: its head
            text = text[: len(text) * 3 // 4]
            short = [*asked, {"role": "user", "content": text + " ..."}]
        room = size - self._prompt(op, short)
        if room < least:  # never a request over the window: the reply stays invalid, the call fails
            raise calls.InvalidReplyError(f"{op}: invalid reply, and no room in context_tokens to ask again")
        return short, min(max_tokens, room)

    def _complete(self, op: Operation, request: Any, model: str, max_tokens: int,
                  messages: list[dict[str, Any]]) -> tuple[Any, Mode, float]:
        """One completion in the process's mode for this model; a mode the server refuses is left for the next."""
        while True:
            mode = self._mode(model)
            params = wire.build(_SPECS[op], mode, model, max_tokens, messages)
            started = self._clock()
            try:
                completion = self._client.chat.completions.create(**params)
                return completion, mode, self._clock() - started
            except (_DeadlineExceeded, openai.APITimeoutError, openai.APIConnectionError) as err:
                failure = calls.transient_failure(op, err, openai, max_call_s=self._settings.max_call_s,
                                                  provider=PROVIDER)
            except openai.APIStatusError as err:
                message = calls.scrub(str(_message(err)), self._secret)
                if err.status_code == 400 and _OVER_WINDOW in message:
                    failure = _OverWindow(message)
                elif err.status_code in (400, 422) and mode is not Mode.TEXT:
                    self._record(op, request, model, None, "error", self._clock() - started)
                    self._settle(model, Mode.TOOLS if mode is Mode.SCHEMA else Mode.TEXT,
                                 f"{mode} refused: HTTP {err.status_code}")
                    continue
                else:
                    failure = calls.status_error(PROVIDER, op, err.status_code, _kind(err), message,
                                           err.response.headers.get("x-request-id"))
            # Raised outside the except blocks: no SDK exception (which holds the request) in its context.
            self._record(op, request, model, None, "error", self._clock() - started)
            if not isinstance(failure, _OverWindow):
                log.warning("model.call_failed", operation=op, scope=request.scope, ref=request.ref,
                            error=type(failure).__name__, status=getattr(failure, "status", None))
            raise failure

    # --- the mode, found once per process ---

    def _mode(self, model: str) -> Mode:
        with _LOCK:
            return _MODES.get((self._url, model), Mode.SCHEMA)

    def _learn(self, model: str, mode: Mode, text: str, call: Any) -> None:
        """A first answer settles the mode: a bare JSON object honours json_schema; a tool call, tools."""
        if (self._url, model) in _SETTLED:
            return
        if mode is Mode.SCHEMA:
            try:
                bare = isinstance(json.loads(text), dict)
            except ValueError:
                bare = False
            self._settle(model, Mode.SCHEMA if bare else Mode.TOOLS, "answers a bare object" if bare else
                         "response_format ignored", final=bare)
        elif mode is Mode.TOOLS:
            self._settle(model, Mode.TOOLS if call is not None else Mode.TEXT,
                         "answers the forced tool" if call is not None else "no tool call", final=True)
        else:
            self._settle(model, Mode.TEXT, "JSON read from the text", final=True)

    def _settle(self, model: str, mode: Mode, why: str, final: bool | None = None) -> None:
        key = (self._url, model)
        with _LOCK:
            if key in _SETTLED:
                return
            _MODES[key] = mode
            if final or mode is Mode.TEXT:
                _SETTLED.add(key)
        log.info("model.openai_mode", base_url=shown_url(self._url), model=model, mode=str(mode), why=why,
                 settled=bool(final or mode is Mode.TEXT))

    # --- the ledger ---

    def _record(self, op: str, request: Any, model: str, completion: Any, outcome: Outcome,
                latency_s: float | None = None) -> None:
        tokens = wire.usage_tokens(completion.usage) if completion is not None else None
        calls.record_call(self._recorder, self._settings, self._now(), op=op, request=request, model=model,
                    latency_s=latency_s or 0.0, outcome=outcome, tokens=tokens)


def _message(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        return str(inner.get("message", "")) if isinstance(inner, dict) else str(inner)
    return str(body or err.message)


def _kind(err: openai.APIStatusError) -> str | None:
    body = err.body
    inner = body.get("error", body) if isinstance(body, dict) else None
    return str(inner.get("type")) if isinstance(inner, dict) and inner.get("type") else None


def reset_modes() -> None:
    """Forget the modes found (tests start each server afresh)."""
    with _LOCK:
        _MODES.clear()
        _SETTLED.clear()
