"""A real HTTP server on 127.0.0.1 in a thread, for the fakes of remote services.

    with LocalServer(handler_class) as server:
        url = server.url   # http://127.0.0.1:PORT
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: object,
              headers: dict[str, str] | None = None) -> None:
    """One JSON answer with its length (keep-alive connections need it)."""
    import json

    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)
