"""Helpers for the MCP server tests and bench/mcp_server.py: the SDK's own client over stdio (the CLI
in a subprocess), over streamable HTTP (uvicorn in a thread), or in process; a conversation to
log through `log_message`; a free loopback port; tool results as JSON."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from consolidator.core.app import App
from consolidator.mcpserver.access import Scopes
from consolidator.mcpserver.server import build, http_server

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "s3cret-token-for-tests-0123456789"

# "Speaker: text" lines a minute apart from T0 (recall_kit.T0), one session.
CHAT = [
    "Maya: I just started pottery classes on Tuesdays.",
    "Assistant: Nice! How is it going?",
    "Maya: My teacher Ana says my bowls are getting better.",
    "Maya: Also, my sister Lea is visiting from Lyon in June.",
    "Assistant: Lovely, I will remember that.",
]


def records(start_iso_minute: str = "2024-05-06T09:{:02d}:00+00:00", session: str = "s1") -> list[dict[str, Any]]:
    """log_message arguments for CHAT."""
    out = []
    for i, line in enumerate(CHAT):
        speaker, _, text = line.partition(": ")
        out.append({"role": "assistant" if speaker == "Assistant" else "user", "text": text, "speaker": speaker,
                    "at": start_iso_minute.format(i), "session": session, "id": f"chat-{i}"})
    return out


def payload(result) -> Any:
    """A successful tool result's content: JSON decoded when it is JSON, else the text."""
    assert not result.is_error, result.content[0].text
    text = result.content[0].text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def error_text(result) -> str:
    """A tool error's one line (the call must have failed as a tool error)."""
    assert result.is_error, result.content
    (block,) = result.content
    return block.text


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stdio_params(state_dir: Path, *args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """`python -m consolidator mcp ARGS` on the state directory, from the repository root."""
    base = {k: v for k, v in (env or os.environ).items() if k in ("PATH", "HOME", "PYTHONPATH", "LANG")}
    base.update({"CONSOLIDATOR_STATE_DIR": str(state_dir), "PYTHONPATH": str(ROOT)})
    return StdioServerParameters(command=sys.executable, args=["-m", "consolidator", "mcp", *args], env=base,
                                 cwd=str(ROOT))


def stdio_client(state_dir: Path, *args: str) -> Client:
    return Client(stdio_params(state_dir, *args), cache=None)


def in_process(app: App, *scopes: str) -> Client:
    """The SDK's client on a server in this process (no transport): the tools' behaviour, fast."""
    return Client(build(app, Scopes(tuple(scopes) if scopes else None)), cache=None)


@contextmanager
def http_serving(app: App, scopes: tuple[str, ...], token: str | None = None) -> Iterator[str]:
    """The streamable HTTP server on a free 127.0.0.1 port in a thread; yields its URL."""
    port = free_port()
    server = http_server(app, Scopes(scopes), "127.0.0.1", port, token)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the MCP HTTP server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@asynccontextmanager
async def http_client(url: str, token: str | None = None) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, sending the bearer token when given."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http), cache=None) as client:
            yield client


def raw_post(url: str, headers: dict[str, str] | None = None) -> int:
    """The HTTP status of a bare initialize POST (no SDK), to see the gate answer."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
