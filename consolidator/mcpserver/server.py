"""The MCP server on the official `mcp` SDK: the only module of the project that imports it.

`build(app, scopes)` makes an MCPServer with the five tools of `access.Tools` and the snapshot
resources of `resources`; `serve_stdio` runs it on stdin/stdout (nothing else may write to
stdout), `serve_http` on the streamable HTTP transport under uvicorn, behind `BearerGate` when
a token is set. Every problem a tool meets is a tool error (`isError`) of one line: `Refused`
and the SDK's own argument validation alike; an unexpected exception is logged on stderr and
the agent sees only `Error executing tool NAME`.
"""

from __future__ import annotations

import hmac
import ipaddress
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import anyio
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp_types import Annotations, ToolAnnotations
from mcp_types import Resource as MCPResource
from pydantic import ValidationError

from consolidator.core.app import App
from consolidator.mcpserver import resources
from consolidator.mcpserver.access import DEFAULT_BUDGET, Refused, Scopes, StartRefused, Tools

MAX_BODY = 32 * 1024 * 1024  # bytes per HTTP request: a 10 MB text reaches log_message and is refused there
MIN_TOKEN_CHARS = 16
TOKEN_ENV = "CONSOLIDATOR_MCP_TOKEN"
PATH = "/mcp"

INSTRUCTIONS = (
    "Long-term memory of the conversations with a user (a scope). Call `recall` with what you need "
    "now, `read_context` for the standing summary, `log_message` for every turn worth keeping "
    "(a daemon consolidates the log offline into facts, contacts, tasks and summaries), `mark_used` "
    "with the fact ids you relied on. Nothing here deletes or changes memory.")


def _one_line(exc: ValidationError) -> str:
    """Pydantic's report as one line: `field: problem; field: problem`."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        parts.append(f"{where}: {error['msg'].lower()}")
    return "; ".join(parts)


def _refusing(fn):
    """Run a tool body, turning Refused into the SDK's tool error."""
    try:
        return fn()
    except Refused as exc:
        raise ToolError(str(exc)) from None


class ConsolidatorServer(MCPServer):
    """MCPServer whose resources are the served scopes' snapshot files, listed as they are now."""

    def __init__(self, app: App, scopes: Scopes) -> None:
        try:
            release = version("consolidator")
        except PackageNotFoundError:
            release = "0"
        super().__init__("consolidator", version=release, instructions=INSTRUCTIONS, log_level="WARNING")
        self.scopes = scopes
        self.root = app.settings.snapshot_dir
        self.tools = Tools(app, scopes)
        _register(self, self.tools)

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):  # the SDK's argument check: one line, not pydantic's page
                raise ToolError(f"Error executing tool {name}: {_one_line(exc.__cause__)}") from exc.__cause__
            raise

    async def list_resources(self) -> list[MCPResource]:
        def found() -> list[tuple[resources.Snapshot, str | None, int | None]]:
            return [(snap, snap.published(), snap.size()) for snap in resources.listed(self.root, self.scopes)]

        return [MCPResource(uri=snap.uri, name=f"{snap.scope}/{snap.name}", description=snap.description,
                            mime_type=snap.mime_type, size=size, annotations=Annotations(last_modified=published),
                            _meta={"published": published})
                for snap, published, size in await anyio.to_thread.run_sync(found)]

    async def read_resource(self, uri, context=None):
        def read() -> tuple[str, str | None, resources.Snapshot]:
            snap = resources.resolve(self.root, self.scopes, str(uri))
            return snap.read(), snap.published(), snap

        try:
            text, published, snap = await anyio.to_thread.run_sync(read)
        except Refused as exc:
            raise ResourceError(str(exc)) from None
        return [ReadResourceContents(content=text, mime_type=snap.mime_type, meta={"published": published})]


def _register(server: MCPServer, tools: Tools) -> None:
    single = tools.scopes.single
    scope_note = (f"(optional: this server serves only {single!r})" if single
                  else f"(required: this server serves {tools.scopes.describe()})")
    reading = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    appending = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)

    def recall(query: str, scope: str | None = None, budget_tokens: int = DEFAULT_BUDGET) -> dict[str, Any]:
        return _refusing(lambda: tools.recall(query, scope, budget_tokens))

    def read_context(scope: str | None = None) -> str:
        return _refusing(lambda: tools.read_context(scope))

    def log_message(role: str, text: str, scope: str | None = None, speaker: str | None = None,
                    at: str | None = None, session: str | None = None, id: str | None = None) -> dict[str, Any]:
        return _refusing(lambda: tools.log_message(role, text, scope, speaker, at, session, id))

    def mark_used(fact_ids: list[str], scope: str | None = None) -> dict[str, Any]:
        return _refusing(lambda: tools.mark_used(fact_ids, scope))

    def memory_report(scope: str | None = None) -> dict[str, Any]:
        return _refusing(lambda: tools.memory_report(scope))

    described = {
        recall: (f"What the memory holds for `query`: ranked, dated items (facts, people, tasks, summaries, "
                 f"messages) within `budget_tokens` (50-100,000, default {DEFAULT_BUDGET}), as `text` (the block "
                 f"to paste) and `items` (each with its id). No model call. `scope` {scope_note}.", reading),
        read_context: (f"The scope's context.md: people, top facts, open tasks, the newest summaries and the "
                       f"messages not consolidated yet, within the configured token cap. `scope` {scope_note}.",
                       reading),
        log_message: (f"Log one message of the conversation (exactly as `consolidator log`). `role`: user, "
                      f"assistant, action, tool or system; `at`: ISO 8601 with a time zone (default now); "
                      f"`session`: messages with the same session form one interaction; `id`: an idempotency key "
                      f"(a retry with the same id and content adds nothing). Returns the stored id. "
                      f"`scope` {scope_note}.", appending),
        mark_used: (f"Record that you relied on these facts (ids from `recall` items or facts); the daemon "
                    f"strengthens them. `scope` {scope_note}.", appending),
        memory_report: (f"What `consolidator report --json` says of the scope: counts of messages, "
                        f"interactions, facts, contacts, open tasks and summaries, with the best few. "
                        f"`scope` {scope_note}.", reading),
    }
    for fn, (description, annotations) in described.items():
        server.add_tool(fn, description=description, annotations=annotations, structured_output=False)


def build(app: App, scopes: Scopes) -> ConsolidatorServer:
    return ConsolidatorServer(app, scopes)


def serve_stdio(app: App, scopes: Scopes) -> None:
    """Serve MCP on stdin/stdout until the client closes them."""
    anyio.run(build(app, scopes).run_stdio_async)


# --- HTTP ------------------------------------------------------------------------------------


def parse_address(value: str) -> tuple[str, int]:
    """`HOST:PORT`, `[::1]:PORT`, `:PORT` or `PORT` (host 127.0.0.1); StartRefused otherwise."""
    host, colon, port = value.rpartition(":")
    if not colon:
        host, port = "", value
    host = host.strip().removeprefix("[").removesuffix("]") or "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not 1 <= number <= 65535:
        raise StartRefused(f"--http: expected HOST:PORT with a port from 1 to 65535, got {value!r}")
    return host, number


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve to anything


def check_token(host: str, token: str | None) -> str | None:
    """The bearer token to require (None: none set); StartRefused when a non-loopback address has none."""
    token = token or None
    if token is None and not is_loopback(host):
        raise StartRefused(f"--http {host}: listening beyond this machine needs a bearer token: set {TOKEN_ENV} "
                           f"(at least {MIN_TOKEN_CHARS} characters), or listen on 127.0.0.1")
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise StartRefused(f"{TOKEN_ENV}: at least {MIN_TOKEN_CHARS} characters, got {len(token)}")
    return token


class BearerGate:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`, else 401."""

    def __init__(self, app, token: str) -> None:
        self.app = app
        self.token = token.encode()

    def allowed(self, headers: list[tuple[bytes, bytes]]) -> bool:
        given = next((value for name, value in headers if name.lower() == b"authorization"), b"")
        scheme, _, credential = given.partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(credential.strip(), self.token)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and not self.allowed(scope.get("headers", [])):
            body = b'{"error": "unauthorized: send Authorization: Bearer <token>"}'
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                    (b"www-authenticate", b'Bearer realm="consolidator"')]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def http_app(app: App, scopes: Scopes, host: str, token: str | None):
    """The ASGI application: the SDK's streamable HTTP app at /mcp, behind the bearer gate when a token is set."""
    starlette = build(app, scopes).streamable_http_app(streamable_http_path=PATH, host=host,
                                                         max_request_body_size=MAX_BODY)
    return BearerGate(starlette, token) if token else starlette


def http_server(app: App, scopes: Scopes, host: str, port: int, token: str | None):
    """A uvicorn Server for the app (tests run one in a thread and set `should_exit`)."""
    import uvicorn

    config = uvicorn.Config(http_app(app, scopes, host, token), host=host, port=port, log_level="warning",
                            lifespan="on", access_log=False)
    return uvicorn.Server(config)


def serve_http(app: App, scopes: Scopes, host: str, port: int, token: str | None) -> None:
    http_server(app, scopes, host, port, token).run()
