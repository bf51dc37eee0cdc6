"""A fake OpenAI-compatible chat completions server on 127.0.0.1, with what real local servers do.

    with FakeOpenAI(responder=OfflineResponder(), quirks=Quirks.every(window=8192)) as fake:
        client = OpenAI(base_url=fake.url + "/v1", api_key="none")

It answers `POST /v1/chat/completions`. The object it answers with comes from
`responder(tool_name, body)` (tests/support/model_responder.py answers as OfflineModel would;
the default builds a minimal valid object from the schema), called with an Anthropic-shaped
view of the request (its first user message, the tool and its schema), so one responder serves
both fakes. Which tool (operation) is asked is read from the forced function, the json_schema
name, or the `the record_x input` sentence of the system prompt.

Quirks, each off by default (`Quirks.every()` turns all on):
- `ignore_response_format`: json_schema is not honoured; the model writes free text;
- `fence`: free text wraps the JSON in ```json fences; `prose`: a sentence comes before it;
- `refuse_tools`: a request with tools gets HTTP 400;
- `cut_rate`: that share of answers is cut at max_tokens (finish_reason "length", half the text);
- `window`: a request whose prompt plus max_tokens is over it gets vLLM's 400 "maximum context length";
- `rate_limit_rate`, `server_error_rate`: that share of requests gets 429 (retry-after) or 500.
`plan("429", "500", "cut", None, ...)` forces what the next requests meet, one each, before the
rates apply. Random choices come from `seed`. Token counts are estimates (four bytes a token) and the
counters say what was received, answered, refused and why, so a test compares the ledger.
"""

from __future__ import annotations

import json
import uuid
import random
import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from consolidator.model.prompts import _SPECS
from tests.support.fake_anthropic import minimal_instance
from tests.support.local_server import FakeHandler, LocalServer, ModelCounters, estimate_tokens

Responder = Callable[[str, dict[str, Any]], dict[str, Any]]
_TOOLS = {spec.tool: spec for spec in _SPECS.values()}
_ASKED = re.compile(r"the (record_\w+) input")
PROSE = "Sure! Here is the JSON object you asked for."


@dataclass(frozen=True)
class Quirks:
    ignore_response_format: bool = False
    fence: bool = False
    prose: bool = False
    refuse_tools: bool = False
    cut_rate: float = 0.0
    window: int | None = None
    rate_limit_rate: float = 0.0
    server_error_rate: float = 0.0
    retry_after: float = 0.01
    delay_s: float = 0.0  # every answer takes this long (a slow model; a client's timeout)

    @classmethod
    def every(cls, window: int = 8192, cut_rate: float = 0.05, error_rate: float = 0.05) -> Quirks:
        return cls(True, True, True, True, cut_rate, window, error_rate, error_rate)


@dataclass
class Counters(ModelCounters):
    over_window: int = 0
    tools_refused: int = 0
    format_ignored: int = 0
    cut: int = 0
    rate_limited: int = 0
    server_errors: int = 0
    fenced: int = 0
    prose: int = 0

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def schema_responder(tool_name: str, body: dict[str, Any]) -> dict[str, Any]:
    return minimal_instance(body["tools"][0]["input_schema"])


@dataclass
class FakeOpenAI:
    responder: Responder = schema_responder
    quirks: Quirks = field(default_factory=Quirks)
    api_key: str | None = None  # None: no key asked (a local server)
    seed: int = 7
    counters: Counters = field(default_factory=Counters)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    over_window_bodies: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._random = random.Random(self.seed)
        self._server = LocalServer(_handler_for(self), "fake-openai")
        self._planned: deque[str | None] = deque()

    def plan(self, *events: str | None) -> None:
        """What the next requests meet, one each: "429", "500", "cut" (or None: as the quirks say)."""
        with self._lock:
            self._planned.extend(events)

    @property
    def url(self) -> str:
        """The base_url a client is given (OpenAI's paths are under /v1)."""
        return self._server.url + "/v1"

    def __enter__(self) -> FakeOpenAI:
        from consolidator.model.openai_backend import reset_modes

        reset_modes()  # a port reused by a new server must be probed afresh
        self._server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.__exit__(*exc)

    def _draw(self) -> float:
        with self._lock:
            return self._random.random()

    def count(self, name: str, n: int = 1) -> None:
        with self._lock:
            setattr(self.counters, name, getattr(self.counters, name) + n)

    # --- one request (called from handler threads) ---

    def answer(self, body: dict[str, Any], raw_size: int) -> tuple[int, dict[str, Any], dict[str, str]]:
        q = self.quirks
        with self._lock:
            self.counters.received += 1
            self.bodies.append(body)
            planned = self._planned.popleft() if self._planned else None
        prompt = estimate_tokens("x" * raw_size)
        if q.window is not None and prompt + body.get("max_tokens", 0) > q.window:
            self.count("over_window")
            with self._lock:
                self.over_window_bodies.append(body)
            asked = prompt + body.get("max_tokens", 0)
            return 400, {"object": "error", "type": "BadRequestError", "param": None, "code": 400, "message": (
                f"This model's maximum context length is {q.window} tokens. However, you requested {asked} tokens "
                f"({prompt} in the messages, {body.get('max_tokens', 0)} in the completion). Please reduce the "
                "length of the messages or completion.")}, {}
        if planned is None:
            draw = self._draw()
            planned = ("429" if draw < q.rate_limit_rate else
                       "500" if draw < q.rate_limit_rate + q.server_error_rate else None)
        if planned == "429":
            self.count("rate_limited")
            return 429, {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}, {
                "retry-after": f"{q.retry_after:g}"}
        if planned == "500":
            self.count("server_errors")
            return 500, {"error": {"message": "Internal server error", "type": "server_error"}}, {}
        if body.get("tools") and q.refuse_tools:
            self.count("tools_refused")
            return 400, {"error": {"message": "this model does not support tools", "type": "invalid_request_error"}}, {}
        return 200, self._completion(body, prompt, cut=planned == "cut"), {}

    def _completion(self, body: dict[str, Any], prompt: int, cut: bool = False) -> dict[str, Any]:
        q = self.quirks
        tool, mode = _asked(body)
        spec = _TOOLS[tool]
        users = [m for m in body["messages"] if m["role"] == "user"]
        view = {"messages": [{"role": "user", "content": users[0]["content"]}],
                "tools": [{"name": tool, "input_schema": spec.tool_param["input_schema"]}]}
        value = json.dumps(self.responder(tool, view))
        if mode == "json_schema" and q.ignore_response_format:
            self.count("format_ignored")
            mode = "text"
        text = value
        if mode == "text":
            if q.fence:
                self.count("fenced")
                text = f"```json\n{text}\n```"
            if q.prose:
                self.count("prose")
                text = f"{PROSE}\n\n{text}"
        finish = "tool_calls" if mode == "tools" else "stop"
        output = estimate_tokens(text) + 5
        if cut or self._draw() < q.cut_rate:
            self.count("cut")
            text, finish, output = text[: len(text) // 2], "length", body.get("max_tokens", output)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if mode == "tools":
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{self.counters.received}", "type": "function",
                 "function": {"name": tool, "arguments": text}}]}
        with self._lock:
            self.counters.answered += 1
            self.counters.input_tokens += prompt
            self.counters.output_tokens += output
            n = self.counters.answered
        return {"id": f"chatcmpl-fake-{n}", "object": "chat.completion", "created": 1_700_000_000,
                "model": body["model"], "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output}}


def _asked(body: dict[str, Any]) -> tuple[str, str]:
    """(tool name, mode) of a request: a forced function, a json_schema, or the system prompt's words."""
    choice = body.get("tool_choice")
    if body.get("tools") and isinstance(choice, dict):
        return choice["function"]["name"], "tools"
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return fmt["json_schema"]["name"], "json_schema"
    system = next(m["content"] for m in body["messages"] if m["role"] == "system")
    found = _ASKED.search(system)
    if found is None:
        raise ValueError("no operation named in the system prompt")
    return found[1], "text"


def _handler_for(fake: FakeOpenAI) -> type[FakeHandler]:
    class Handler(FakeHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            if self.path.split("?")[0] != "/v1/chat/completions":
                return self.send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            if fake.api_key is not None and self.headers.get("authorization") != f"Bearer {fake.api_key}":
                return self.send_json(401, {"error": {"message": "invalid api key", "type": "invalid_request_error"}})
            if fake.quirks.delay_s:
                fake._server.stopping.wait(fake.quirks.delay_s)
            status, payload, headers = fake.answer(json.loads(raw), len(raw))
            # OpenAI's API names every answer (vLLM and Ollama do not; the backend reads it when there)
            return self.send_json(status, payload, {"x-request-id": f"req_{uuid.uuid4().hex[:24]}", **headers})

    return Handler
