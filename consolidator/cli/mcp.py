"""`consolidator mcp`: serve the memory to agents over the Model Context Protocol (consolidator/mcpserver/)."""

from __future__ import annotations

import os

import click

from consolidator.cli.common import UserError, app_of
from consolidator.core.config import load_settings


@click.command("mcp")
@click.option("--scope", "scopes", multiple=True, metavar="SCOPE",
              help="A scope the server may touch (repeatable; default: [mcp] scopes in config.toml).")
@click.option("--all-scopes", is_flag=True, help="Serve every scope (an explicit choice: no scope named refuses to start).")
@click.option("--http", "http", default=None, metavar="HOST:PORT",
              help="Serve the streamable HTTP transport at http://HOST:PORT/mcp instead of stdio (HOST defaults to "
                   "127.0.0.1; any other than loopback needs CONSOLIDATOR_MCP_TOKEN, sent as a bearer token).")
@click.pass_context
def mcp_command(ctx, scopes: tuple[str, ...], all_scopes: bool, http: str | None) -> None:
    """Serve MCP (stdio by default): tools recall, read_context, log_message, mark_used, memory_report;
    each scope's snapshots as read-only resources. No tool deletes, forgets or reconfigures."""
    from consolidator.mcpserver import sdk_missing

    if (missing := sdk_missing()) is not None:
        raise UserError(missing)
    from consolidator.mcpserver.access import StartRefused, choose_scopes
    from consolidator.mcpserver import server

    config = ctx.find_root().ensure_object(dict).get("config")
    try:
        chosen = choose_scopes(scopes, all_scopes, load_settings(config).mcp.scopes)
        address = token = None
        if http is not None:
            address = server.parse_address(http)
            token = server.check_token(address[0], os.environ.get(server.TOKEN_ENV))
    except StartRefused as exc:
        raise UserError(str(exc)) from None
    app = app_of(ctx)
    if address is None:
        server.serve_stdio(app, chosen)
        return
    host, port = address
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"serving MCP on http://{shown}:{port}{server.PATH} for {chosen.describe()}"
               f"{' (bearer token required)' if token else ''}", err=True)
    server.serve_http(app, chosen, host, port, token)


COMMANDS = [mcp_command]
