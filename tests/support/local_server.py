"""A real HTTP server on 127.0.0.1 in a thread, and what the fakes of remote services built on it share.

    with LocalServer(handler_class) as server:
        url = server.url   # http://127.0.0.1:PORT

`FakeHandler` is their request handler's base (HTTP/1.1 keep-alive, quiet, JSON answers);
`ModelCounters` what a fake model server counts, `estimate_tokens` its token estimate.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class LocalServer:
    def __init__(self, handler: type[BaseHTTPRequestHandler], name: str = "fake-server") -> None:
        self._handler, self._name = handler, name
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.stopping = threading.Event()

    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> LocalServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name=self._name, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


class FakeHandler(BaseHTTPRequestHandler):
    """A fake service's handler: keep-alive (HTTP/1.1), no log lines, JSON answers with their length."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
        pass

    def send_json(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        """One JSON answer with its length (keep-alive connections need it)."""
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


@dataclass
class ModelCounters:
    """What a fake model server received and answered (a fake adds its own counts after these)."""

    received: int = 0
    answered: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


def estimate_tokens(text: str) -> int:
    """A fake server's token count: four bytes a token, at least one."""
    return max(1, len(text) // 4)
