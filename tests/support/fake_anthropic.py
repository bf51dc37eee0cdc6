"""A fake Anthropic Messages API: a real HTTP server on 127.0.0.1 for the real SDK to talk to.

    with FakeAnthropic(api_key="sk-test") as fake:
        client = Anthropic(api_key="sk-test", base_url=fake.url)
        fake.plan(Fault.rate_limit(retry_after=1), None)   # first request 429, second answered

It answers `POST /v1/messages` for requests with a forced tool (`tool_choice` of type
"tool") with one `tool_use` block whose input comes from `responder(tool_name, request)`;
the default responder builds a minimal valid object from the tool's input schema.
Token counts are estimates (four bytes a token). A request whose `system` or `tools` carry
`cache_control` is answered as a prompt-cache write the first time that prefix is seen and
as a cache read afterwards.

`latency_s` makes every answered request take that long (a model's own time).
Faults are consumed one per request, in order (`plan`), or chosen by a callable
`faults(index, body) -> Fault | None`. The server counts what it received and what it
answered with a message, so tests can compare a client's ledger with the server's own.

The Message Batches endpoints are `fake.batches` (tests.support.fake_batches): their answers go
through the same responder and the same counters.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Literal

from tests.support.local_server import FakeHandler, LocalServer, ModelCounters, estimate_tokens

Responder = Callable[[str, dict[str, Any]], dict[str, Any]]
FaultKind = Literal[
    "rate_limit", "server_error", "overloaded", "bad_request", "timeout", "malformed", "max_tokens"
]

_ERRORS: dict[str, tuple[int, str]] = {
    "rate_limit": (429, "rate_limit_error"),
    "server_error": (500, "api_error"),
    "overloaded": (529, "overloaded_error"),
    "bad_request": (400, "invalid_request_error"),
}


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    retry_after: float | None = None  # rate_limit: the retry-after header, in seconds
    delay_s: float = 2.0  # timeout: how long the server sits on the request
    message: str | None = None  # error faults: the error message in the body

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1) -> Fault:
        return cls("rate_limit", retry_after=retry_after)

    @classmethod
    def timeout(cls, delay_s: float = 2.0) -> Fault:
        return cls("timeout", delay_s=delay_s)


def minimal_instance(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """The smallest value valid against a (pydantic-made) JSON schema: required fields only."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return minimal_instance(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return minimal_instance(schema["anyOf"][0], defs)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: minimal_instance(props[name], defs) for name in schema.get("required", [])}
    if kind == "array":
        return []
    if kind == "string":
        return "2025-01-01" if schema.get("format") == "date" else "fake"
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


def schema_responder(tool_name: str, body: dict[str, Any]) -> dict[str, Any]:
    tool = next(t for t in body["tools"] if t["name"] == tool_name)
    return minimal_instance(tool["input_schema"])


@dataclass
class Counters(ModelCounters):
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass
class FakeAnthropic:
    api_key: str = "sk-ant-fake"
    responder: Responder = schema_responder
    faults: Callable[[int, dict[str, Any]], Fault | None] | None = None
    counters: Counters = field(default_factory=Counters)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    latency_s: float = 0.0  # how long every answered request takes (a model's think time; bench/scale.py)

    def __post_init__(self) -> None:
        from tests.support.fake_batches import FakeBatches

        self.batches = FakeBatches(self)
        self._lock = threading.Lock()
        self._planned: deque[Fault | None] = deque()
        self._cached_prefixes: set[str] = set()
        self._server = LocalServer(_handler_for(self), "fake-anthropic")

    # --- lifecycle ---

    @property
    def url(self) -> str:
        return self._server.url

    def __enter__(self) -> FakeAnthropic:
        self._server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.__exit__(*exc)

    def plan(self, *faults: Fault | None) -> None:
        """Faults for the next requests, one each (None: answer normally)."""
        with self._lock:
            self._planned.extend(faults)

    # --- request handling (called from handler threads) ---

    def _next_fault(self, body: dict[str, Any]) -> Fault | None:
        with self._lock:
            self.counters.received += 1
            self.bodies.append(body)
            index = self.counters.received - 1
            if self._planned:
                return self._planned.popleft()
        return self.faults(index, body) if self.faults else None

    def _message(self, body: dict[str, Any], raw_size: int, fault: Fault | None) -> dict[str, Any]:
        tool_name = body["tool_choice"]["name"]
        tool_input = self.responder(tool_name, body)
        stop_reason = "tool_use"
        if fault and fault.kind == "malformed":
            tool_input = {key: {"unexpected": True} for key in tool_input} or {"unexpected": True}
        if fault and fault.kind == "max_tokens":
            tool_input, stop_reason = {}, "max_tokens"
        output = body["max_tokens"] if stop_reason == "max_tokens" else estimate_tokens(json.dumps(tool_input)) + 10
        total_in = estimate_tokens("x" * raw_size)
        cache_read = cache_write = 0
        if _has_cache_marker(body):
            prefix = json.dumps([body.get("tools"), body.get("system")], sort_keys=True)
            prefix_tokens = min(estimate_tokens(prefix), total_in - 1)
            with self._lock:
                hit = prefix in self._cached_prefixes
                self._cached_prefixes.add(prefix)
            cache_read, cache_write = (prefix_tokens, 0) if hit else (0, prefix_tokens)
            total_in -= prefix_tokens
        with self._lock:
            self.counters.answered += 1
            n = self.counters.answered
            self.counters.input_tokens += total_in
            self.counters.output_tokens += output
            self.counters.cache_read_tokens += cache_read
            self.counters.cache_write_tokens += cache_write
        return {
            "id": f"msg_fake_{n}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [{"type": "tool_use", "id": f"toolu_fake_{n}", "name": tool_name, "input": tool_input}],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": total_in,
                "output_tokens": output,
                "cache_read_input_tokens": cache_read,
                "cache_creation_input_tokens": cache_write,
            },
        }


def _has_cache_marker(body: dict[str, Any]) -> bool:
    system = body.get("system")
    blocks = [*(system if isinstance(system, list) else []), *body.get("tools", [])]
    return any(isinstance(b, dict) and "cache_control" in b for b in blocks)


def _problem(body: dict[str, Any]) -> str | None:
    """What the real API would reject in this request (the part our backend relies on)."""
    for key in ("model", "max_tokens", "messages"):
        if key not in body:
            return f"{key}: Field required"
    choice = body.get("tool_choice") or {}
    if choice.get("type") != "tool" or choice.get("name") not in {t.get("name") for t in body.get("tools", [])}:
        return "tool_choice: the fake answers only forced tool calls"
    previous_tool_ids: set[str] = set()
    for turn in body["messages"]:
        content = turn["content"] if isinstance(turn["content"], list) else []
        if turn["role"] == "user":
            for block in content:
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in previous_tool_ids:
                    return "messages: tool_result without a matching tool_use in the previous turn"
        is_assistant = turn["role"] == "assistant"
        previous_tool_ids = {b["id"] for b in content if b.get("type") == "tool_use"} if is_assistant else set()
    return None


def _handler_for(fake: FakeAnthropic) -> type[FakeHandler]:
    class Handler(FakeHandler):
        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self.send_json(status, payload, {"request-id": f"req_fake_{fake.counters.received}", **(headers or {})})

        def _error(self, status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> None:
            self._send(status, {"type": "error", "error": {"type": kind, "message": message}}, headers)

        def _send_raw(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/binary")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _batches(self, method: str, raw: bytes) -> bool:
            """Answer a Message Batches request; False when the path is not one."""
            from tests.support.fake_batches import route

            if not self.path.startswith("/v1/messages/batches"):
                return False
            bearer = self.headers.get("authorization", "").removeprefix("Bearer ")
            if fake.api_key not in (self.headers.get("x-api-key"), bearer):
                self._error(401, "authentication_error", "invalid x-api-key")
                return True
            answer = route(fake.batches, method, self.path, json.loads(raw) if raw else None)
            assert answer is not None
            status, payload = answer
            if isinstance(payload, bytes):
                self._send_raw(status, payload)
            else:
                self._send(status, payload)
            return True

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            if not self._batches("GET", b""):
                self._error(404, "not_found_error", f"no route {self.path}")

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            if self._batches("POST", raw):
                return None
            if self.path.split("?")[0] != "/v1/messages":
                return self._error(404, "not_found_error", f"no route {self.path}")
            body = json.loads(raw)
            fault = fake._next_fault(body)
            with fake._lock:
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
            bearer = self.headers.get("authorization", "").removeprefix("Bearer ")
            if fake.api_key not in (self.headers.get("x-api-key"), bearer):
                return self._error(401, "authentication_error", "invalid x-api-key")
            if not self.headers.get("anthropic-version"):
                return self._error(400, "invalid_request_error", "anthropic-version: header is required")
            if (problem := _problem(body)) is not None:
                return self._error(400, "invalid_request_error", problem)
            if fault is None or fault.kind in ("malformed", "max_tokens"):
                if fake.latency_s:
                    fake._server.stopping.wait(fake.latency_s)
                return self._send(200, fake._message(body, len(raw), fault))
            if fault.kind == "timeout":
                fake._server.stopping.wait(fault.delay_s)  # the client gives up first; then drop the connection
                self.close_connection = True
                return None
            status, kind = _ERRORS[fault.kind]
            headers = {"retry-after": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
            message = fault.message or ("Overloaded" if status == 529 else HTTPStatus(status).phrase)
            return self._error(status, kind, message, headers)

    return Handler
