"""The chat-completions wire format of the OpenAI-compatible backend: requests per mode, replies read.

Nothing here imports `openai`: requests are plain dicts of `chat.completions.create` keyword
arguments and replies are read from the SDK's objects by attribute. What is asked is
`prompts._SPECS` (the same system prompts, rendering and pydantic reply schemas as the
Anthropic backend); only how the reply comes back differs, by `Mode`:

- `SCHEMA`: `response_format` json_schema with the reply's schema (servers with structured
  output: OpenAI, vLLM, llama.cpp, Ollama, LM Studio);
- `TOOLS`: one forced function call whose parameters are the schema (the Anthropic way);
- `TEXT`: the schema in the system prompt and the JSON read out of the text.

Whatever the mode, a reply's JSON is found in its text (`candidates`: the text, a fenced
block, or an object that decodes from a `{` on, with any prose around it left out; trailing
commas forgiven) and the first candidate valid against the reply model is taken; an object
the model wrapped in one key (`{"record_summary": {...}}`, a function call's `{"name": ...,
"arguments": {...}}`) is unwrapped. A reply cut at max_tokens (finish_reason "length") is
never taken. Nothing else is returned: `check` says what is wrong, in words the repair turn
shows the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from enum import StrEnum
from typing import Any

from pydantic import ValidationError

from consolidator.model.prompts import _describe, _Spec

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_WRAPPERS = ("arguments", "parameters", "input", "output", "result", "data")


class Mode(StrEnum):
    SCHEMA = "json_schema"
    TOOLS = "tools"
    TEXT = "text"


def system_prompt(spec: _Spec[Any], mode: Mode) -> str:
    """The operation's system prompt; its last sentence says how to answer in this mode."""
    if mode is Mode.TOOLS:
        return spec.system
    asked = spec.system.replace(f"Answer only by calling {spec.tool}.", "").rstrip()
    answer = f" Answer with one JSON object only, the {spec.tool} input, and nothing before or after it."
    if mode is Mode.TEXT:
        schema = json.dumps(spec.tool_param["input_schema"], separators=(",", ":"))
        answer += f" Its JSON schema: {schema}"
    return asked + answer


def build(spec: _Spec[Any], mode: Mode, model: str, max_tokens: int, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """`chat.completions.create` arguments for one request: system prompt first, then `messages`."""
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": [{"role": "system", "content": system_prompt(spec, mode)}, *messages],
    }
    schema = spec.tool_param["input_schema"]
    if mode is Mode.SCHEMA:
        params["response_format"] = {"type": "json_schema", "json_schema": {"name": spec.tool, "schema": schema}}
    elif mode is Mode.TOOLS:
        function = {"name": spec.tool, "description": spec.description, "parameters": schema}
        params["tools"] = [{"type": "function", "function": function}]
        params["tool_choice"] = {"type": "function", "function": {"name": spec.tool}}
    return params


def reply_text(choice: Any, spec: _Spec[Any]) -> tuple[str, Any]:
    """What the model answered: its tool call's arguments when it made one, else its text; and the call."""
    message = choice.message
    for call in getattr(message, "tool_calls", None) or []:
        function = getattr(call, "function", None)
        if function is not None and function.name == spec.tool:
            return function.arguments or "", call
    return message.content or "", None


def candidates(text: str) -> Iterator[Any]:
    """Every JSON object a reply's text may mean, likeliest first: the whole text, each fenced
    block, each object that decodes from a `{` on (prose around it left out); and each of those
    again with trailing commas dropped (`{"a": 1,}`), which small models write."""
    stripped = text.strip()
    pieces = [stripped, *(block.strip() for block in _FENCE.findall(stripped))]
    seen: set[str] = set()
    for lenient in (False, True):
        for piece in pieces:
            piece = _TRAILING_COMMA.sub(r"\1", piece) if lenient else piece
            if piece in seen:
                continue
            seen.add(piece)
            try:
                yield json.loads(piece)
                continue
            except ValueError:
                pass
            decoder = json.JSONDecoder()
            for found in re.finditer(r"\{", piece):
                try:
                    value, _ = decoder.raw_decode(piece, found.start())
                except ValueError:
                    continue
                if isinstance(value, dict):
                    yield value


def find_json(text: str) -> tuple[Any, str | None]:
    """The first JSON object in a reply's text, fences and prose around it left out; or a problem."""
    if not text.strip():
        return None, "The reply was empty."
    for value in candidates(text):
        return value, None
    return None, "The reply holds no complete JSON object."


def _unwrapped(value: Any, spec: _Spec[Any]) -> Any:
    """A reply object the model wrapped: `{"record_x": {...}}` or `{"name": "record_x", "arguments": {...}}`."""
    if not isinstance(value, dict):
        return value
    if set(value) == {spec.tool} or (len(value) == 1 and next(iter(value)) in _WRAPPERS):
        inner = next(iter(value.values()))
    elif value.get("name") == spec.tool and any(k in value for k in _WRAPPERS):
        inner = next(value[k] for k in _WRAPPERS if k in value)
    else:
        return value
    if isinstance(inner, str):
        inner, _ = find_json(inner)
    return inner if isinstance(inner, dict) else value


def check(spec: _Spec[Any], text: str, finish_reason: str | None) -> tuple[Any, str | None]:
    """The validated reply model (refs not yet resolved) from the first candidate object that is
    valid, itself or unwrapped; else what is wrong with the likeliest one."""
    if finish_reason == "length":  # half an object may hold a whole smaller one: never take it
        return None, ("The reply was cut off at max_tokens before the JSON object was complete; answer again, "
                      "briefer (leave out fields at their defaults).")
    first: ValidationError | None = None
    for value in candidates(text):
        for shape in (value, _unwrapped(value, spec)):
            try:
                return spec.reply.model_validate(shape), None
            except ValidationError as err:
                first = first or err
    if first is not None:
        return None, f"The {spec.tool} input is invalid: {_describe(first)}. Answer again with it fixed."
    _, problem = find_json(text)
    return None, f"{problem} Answer with the {spec.tool} input as one JSON object."


def repair(mode: Mode, text: str, call: Any, problem: str) -> list[dict[str, Any]]:
    """The turns that show the model its reply and what is wrong with it."""
    if mode is Mode.TOOLS and call is not None:
        tool_call = {"id": call.id, "type": "function", "function": {"name": call.function.name, "arguments": text}}
        return [{"role": "assistant", "content": None, "tool_calls": [tool_call]},
                {"role": "tool", "tool_call_id": call.id, "content": problem}]
    turns: list[dict[str, Any]] = [{"role": "assistant", "content": text}] if text else []
    return [*turns, {"role": "user", "content": problem}]


def usage_tokens(usage: Any) -> dict[str, int]:
    """The ledger's token counts from a chat completion's usage (cached prompt tokens apart)."""
    prompt = (getattr(usage, "prompt_tokens", 0) or 0) if usage else 0
    details = getattr(usage, "prompt_tokens_details", None) if usage else None
    cached = (getattr(details, "cached_tokens", 0) or 0) if details else 0
    output = (getattr(usage, "completion_tokens", 0) or 0) if usage else 0
    return {"input_tokens": prompt - cached, "output_tokens": output, "cache_read_tokens": cached, "cache_write_tokens": 0}
