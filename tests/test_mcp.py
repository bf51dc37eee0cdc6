"""`consolidator mcp` (issue 30): the MCP server, driven by the SDK's own client.

In process (fast): the tools, their refusals, the resources. Over stdio (the CLI in a
subprocess) and over streamable HTTP (uvicorn in a thread): a conversation logged through
`log_message`, drained by the daemon, recalled, and context.md read as a resource; the HTTP
server's bearer gate and its refusal to listen beyond loopback without a token."""

from __future__ import annotations

import ast
from datetime import timedelta
from pathlib import Path

import anyio
import pytest
from sqlalchemy import func, select

pytest.importorskip("mcp.server.mcpserver", reason="the mcp extra is not installed")

from stores.engine import reading
from stores.schema.log import Message
from stores.schema.memory import FactUse
from tests.support.mcp_kit import (TOKEN, error_text, http_client, http_serving, in_process, payload, raw_post,
                                   records, stdio_client)
from tests.support.recall_kit import T0, drain

TOOLS = {"recall", "read_context", "log_message", "mark_used", "memory_report"}


def messages(app, scope: str | None = None) -> list[str]:
    with reading(app.engine) as session:
        query = select(Message.text).order_by(Message.scope, Message.seq)
        if scope is not None:
            query = query.where(Message.scope == scope)
        return list(session.execute(query).scalars())


async def log_chat(client, **extra) -> list[str]:
    return [payload(await client.call_tool("log_message", {**r, **extra}))["id"] for r in records()]


def test_tools_are_the_five_and_none_deletes(app) -> None:
    """The server lists exactly the five tools; none deletes, forgets, rebuilds or configures."""
    async def main():
        async with in_process(app, "maya") as client:
            return (await client.list_tools()).tools

    tools = anyio.run(main)
    assert {t.name for t in tools} == TOOLS
    log = next(t for t in tools if t.name == "log_message")
    assert set(log.input_schema["required"]) == {"role", "text"}
    assert set(log.input_schema["properties"]) == {"role", "text", "scope", "speaker", "at", "session", "id"}
    assert all(t.annotations.destructive_hint is False for t in tools)


def test_malformed_arguments_are_tool_errors_and_log_nothing(app) -> None:
    """Missing text, a naive `at`, a role outside the five, a 10 MB text, a bad budget: each a one-line
    tool error; nothing is written."""
    bad = {
        "missing text": ({"role": "user"}, "text: field required"),
        "naive at": ({"role": "user", "text": "hi", "at": "2024-05-06T09:00:00"}, "at: time 2024-05-06T09:00:00 has no time zone"),
        "role": ({"role": "boss", "text": "hi"}, "role: must be one of user, assistant, action, tool, system"),
        "10 MB": ({"role": "user", "text": "x" * 10_000_000}, "text: 10,000,000 characters"),
        "empty": ({"role": "user", "text": "   "}, "text: must be a non-empty string"),
    }

    async def main():
        async with in_process(app, "maya") as client:
            out = {k: error_text(await client.call_tool("log_message", args)) for k, (args, _) in bad.items()}
            out["budget"] = error_text(await client.call_tool("recall", {"query": "x", "budget_tokens": 10}))
            out["ids"] = error_text(await client.call_tool("mark_used", {"fact_ids": []}))
            return out

    got = anyio.run(main)
    for key, (_, expected) in bad.items():
        assert expected in got[key] and "\n" not in got[key], (key, got[key])
    assert "budget" in got["budget"] and "fact_ids" in got["ids"]
    assert messages(app) == []


def test_a_scope_outside_the_set_is_a_tool_error_naming_it_with_nothing_written(app) -> None:
    """Every tool refuses a scope the server does not serve, naming it; the log stays empty there."""
    calls = {
        "log_message": {"role": "user", "text": "I live in Rome.", "scope": "eve"},
        "recall": {"query": "Rome", "scope": "eve"},
        "read_context": {"scope": "eve"},
        "mark_used": {"fact_ids": ["f1"], "scope": "eve"},
        "memory_report": {"scope": "eve"},
    }

    async def main():
        async with in_process(app, "maya", "bob") as client:
            out = {name: error_text(await client.call_tool(name, args)) for name, args in calls.items()}
            out["none"] = error_text(await client.call_tool("read_context", {}))
            out["bad name"] = error_text(await client.call_tool("read_context", {"scope": "../maya"}))
            return out

    got = anyio.run(main)
    for name in calls:
        assert "scope 'eve' is not served by this server (it serves maya, bob)" in got[name], got[name]
    assert "scope: required (this server serves maya, bob)" in got["none"]
    assert "scope:" in got["bad name"]
    assert messages(app) == []
    with reading(app.engine) as session:
        from stores.schema.memory import FactUse

        assert session.execute(select(func.count()).select_from(FactUse)).scalar_one() == 0


def test_log_message_is_idempotent_and_a_changed_retry_is_refused(app) -> None:
    """The same id and content twice adds one message; the same id with another text is a tool error."""
    async def main():
        async with in_process(app, "maya") as client:
            args = {"role": "user", "text": "I moved to Paris.", "id": "k1", "at": "2024-05-06T09:00:00+02:00"}
            first = payload(await client.call_tool("log_message", args))
            again = payload(await client.call_tool("log_message", args))
            changed = error_text(await client.call_tool("log_message", {**args, "text": "I moved to Rome."}))
            return first, again, changed

    first, again, changed = anyio.run(main)
    assert first["id"] == again["id"] and (first["duplicate"], again["duplicate"]) == (False, True)
    assert "'k1' is already logged in scope 'maya' with a different text; nothing was changed" in changed
    assert messages(app) == ["I moved to Paris."]


def test_log_drain_recall_and_read_context_in_process(app, settings) -> None:
    """A conversation logged through log_message, drained by the daemon, is recalled; context.md,
    facts and the ladder rungs are listed and read as resources with their published time;
    mark_used queues a recalled fact; memory_report counts what was made."""
    async def log():
        async with in_process(app, "maya") as client:
            return await log_chat(client)

    ids = anyio.run(log)
    assert len(set(ids)) == 5
    drain(app, T0 + timedelta(days=1))  # the day closed: its time/day rung is published

    async def read():
        async with in_process(app, "maya") as client:
            found = payload(await client.call_tool("recall", {"query": "Which classes did Maya start?"}))
            listed = (await client.list_resources()).resources
            context = await client.read_resource("consolidator://maya/context.md")
            facts = [i["id"] for i in found["items"] if i["kind"] == "fact"]
            used = payload(await client.call_tool("mark_used", {"fact_ids": facts[:1] or ["none"]}))
            report = payload(await client.call_tool("memory_report", {}))
            text = payload(await client.call_tool("read_context", {}))
            return found, listed, context, used, report, text

    found, listed, context, used, report, text = anyio.run(read)
    assert "pottery" in found["text"]
    assert any(item["kind"] == "fact" and "pottery" in item["text"] for item in found["items"]), found["items"]
    uris = {r.uri for r in listed}
    assert {"consolidator://maya/context.md", "consolidator://maya/facts"} <= uris
    assert any(u.startswith("consolidator://maya/time/") for u in uris)
    assert any(u.startswith("consolidator://maya/count/") for u in uris)
    assert all(r.annotations.last_modified for r in listed)
    (content,) = context.contents
    assert content.text == (settings.snapshot_dir / "maya" / "context.md").read_text(encoding="utf-8") == text
    assert content.mime_type == "text/markdown" and content.meta["published"]
    assert used == {"scope": "maya", "queued": 1}
    assert report["messages"] == 5 and report["facts"]["current"] >= 1 and "path" not in report["context"]


def test_mark_used_of_no_fact_of_the_scope_is_a_tool_error_with_nothing_written(app) -> None:
    """mark_used queued any id, another scope's too ({"queued": 1}, a row written), though a bad
    argument is to write nothing; the CLI refused the same ids."""
    async def mark():
        async with in_process(app, "maya") as client:
            return error_text(await client.call_tool("mark_used", {"fact_ids": ["f_bogus", "f_bogus"]}))

    assert "fact_ids: unknown fact id in scope 'maya': f_bogus; nothing was marked" in anyio.run(mark)
    with reading(app.engine) as session:
        assert session.execute(select(func.count()).select_from(FactUse)).scalar_one() == 0


def test_resources_of_other_scopes_are_neither_listed_nor_read(app) -> None:
    """A server of maya lists only maya's snapshots and refuses to read another scope's."""
    async def log():
        async with in_process(app, "maya", "eve") as client:
            await log_chat(client, scope="maya")
            await client.call_tool("log_message", {"role": "user", "text": "I live in Rome.", "scope": "eve",
                                                   "at": "2024-05-06T09:00:00+00:00"})
    anyio.run(log)
    drain(app, T0 + timedelta(hours=2))

    async def read():
        async with in_process(app, "maya") as client:
            listed = {r.uri for r in (await client.list_resources()).resources}
            try:
                await client.read_resource("consolidator://eve/context.md")
            except Exception as exc:  # the SDK raises the server's error
                refused = str(exc)
            else:
                refused = ""
            return listed, refused

    async def read_all():
        async with in_process(app) as client:  # --all-scopes
            return {r.uri for r in (await client.list_resources()).resources}

    listed, refused = anyio.run(read)
    assert listed and all(u.startswith("consolidator://maya/") for u in listed)
    assert "scope 'eve' is not served" in refused
    every = anyio.run(read_all)
    assert listed < every and "consolidator://eve/context.md" in every


@pytest.mark.subprocess
def test_over_stdio_log_drain_recall_and_read_context(app, state_dir) -> None:
    """`consolidator mcp --scope maya` over stdio: tools and resources listed, a conversation logged,
    drained by the daemon, recalled, context.md read as a resource."""
    async def log():
        async with stdio_client(state_dir, "--scope", "maya") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            return tools, await log_chat(client)

    tools, ids = anyio.run(log)
    assert tools == TOOLS and len(set(ids)) == 5
    drain(app, T0 + timedelta(hours=2))

    async def read():
        async with stdio_client(state_dir, "--scope", "maya") as client:
            found = payload(await client.call_tool("recall", {"query": "Which classes did Maya start?"}))
            listed = {r.uri for r in (await client.list_resources()).resources}
            context = await client.read_resource("consolidator://maya/context.md")
            refused = error_text(await client.call_tool("log_message", {"role": "user", "text": "x", "scope": "eve"}))
            return found, listed, context, refused

    found, listed, context, refused = anyio.run(read)
    assert any(item["kind"] == "fact" and "pottery" in item["text"] for item in found["items"])
    assert "consolidator://maya/context.md" in listed
    assert "pottery" in context.contents[0].text
    assert "scope 'eve' is not served" in refused and messages(app, "eve") == []


@pytest.mark.slow
def test_over_http_with_a_token_log_drain_recall_and_read_context(app) -> None:
    """Streamable HTTP on 127.0.0.1 with a token: the same round trip through the SDK client; a
    request without the token, or with a wrong one, gets 401."""
    with http_serving(app, ("maya",), token=TOKEN) as url:
        assert raw_post(url) == 401
        assert raw_post(url, {"Authorization": "Bearer wrong-token-0123456789"}) == 401
        assert raw_post(url, {"Authorization": TOKEN}) == 401

        async def log():
            async with http_client(url, TOKEN) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                bad = error_text(await client.call_tool("log_message", {"role": "user", "text": "x" * 10_000_000}))
                return tools, await log_chat(client), bad

        tools, ids, bad = anyio.run(log)
        assert tools == TOOLS and len(set(ids)) == 5 and "10,000,000 characters" in bad
        drain(app, T0 + timedelta(hours=2))

        async def read():
            async with http_client(url, TOKEN) as client:
                found = payload(await client.call_tool("recall", {"query": "Which classes did Maya start?"}))
                listed = {r.uri for r in (await client.list_resources()).resources}
                context = await client.read_resource("consolidator://maya/context.md")
                return found, listed, context

        found, listed, context = anyio.run(read)
    assert any(item["kind"] == "fact" and "pottery" in item["text"] for item in found["items"])
    assert "consolidator://maya/context.md" in listed and "pottery" in context.contents[0].text


@pytest.mark.slow
def test_four_http_clients_at_once_lose_and_double_nothing(app) -> None:
    """4 clients log 50 messages each at once, every one sent twice: 200 messages, each once."""
    with http_serving(app, ("maya",)) as url:
        async def client_run(n: int) -> None:
            async with http_client(url) as client:
                for i in range(50):
                    args = {"role": "user", "text": f"client {n} message {i}", "id": f"{n}-{i}"}
                    for _ in range(2):
                        assert not (await client.call_tool("log_message", args)).is_error

        async def main():
            async with anyio.create_task_group() as group:
                for n in range(4):
                    group.start_soon(client_run, n)

        anyio.run(main)
    texts = messages(app, "maya")
    assert len(texts) == 200 and len(set(texts)) == 200


def test_refusals_to_start(run_cli, monkeypatch) -> None:
    """No scope named, a non-loopback address without a token, a short token, a bad address: one
    line each, exit 2, nothing served."""
    monkeypatch.delenv("CONSOLIDATOR_MCP_TOKEN", raising=False)
    cases = {
        ("mcp",): "no scope named",
        ("mcp", "--scope", "maya", "--http", "0.0.0.0:8765"): "needs a bearer token: set CONSOLIDATOR_MCP_TOKEN",
        ("mcp", "--scope", "maya", "--http", "192.168.1.5:8765"): "needs a bearer token",
        ("mcp", "--scope", "maya", "--http", "127.0.0.1:http"): "--http: expected HOST:PORT",
        ("mcp", "--scope", "../x"): "--scope:",
        ("mcp", "--scope", "maya", "--all-scopes"): "exclude each other",
    }
    for args, expected in cases.items():
        result = run_cli(*args)
        assert result.exit_code == 2, (args, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0], (args, lines)


def test_a_short_token_is_refused(run_cli, monkeypatch) -> None:
    monkeypatch.setenv("CONSOLIDATOR_MCP_TOKEN", "short")
    result = run_cli("mcp", "--scope", "maya", "--http", "0.0.0.0:8765")
    assert result.exit_code == 2 and "at least 16 characters" in result.stderr


def test_configured_scopes_are_used_when_none_is_given(tmp_path) -> None:
    """`[mcp] scopes` names the set; --scope replaces it; --all-scopes serves every scope."""
    from consolidator.core.config import load_settings
    from consolidator.mcpserver.access import choose_scopes

    config = tmp_path / "config.toml"
    config.write_text('[mcp]\nscopes = ["maya", "bob"]\n', encoding="utf-8")
    configured = load_settings(config, env={}).mcp.scopes
    assert choose_scopes([], False, configured).names == ("maya", "bob")
    assert choose_scopes(["eve"], False, configured).names == ("eve",)
    assert choose_scopes([], True, configured).names is None


def test_without_the_sdk_the_command_says_so_in_one_line(run_cli, monkeypatch) -> None:
    """`consolidator mcp` without the mcp SDK installed: one line naming the extra, exit 2."""
    import consolidator.mcpserver

    monkeypatch.setattr(consolidator.mcpserver.importlib.util, "find_spec", lambda name: None)
    result = run_cli("mcp", "--scope", "maya")
    assert result.exit_code == 2
    assert result.stderr.strip() == "Error: the MCP server needs the mcp SDK: pip install 'consolidator[mcp]'"


@pytest.mark.slow
def test_only_the_server_module_imports_the_sdk() -> None:
    """Of all project code, only consolidator/mcpserver/server.py imports the `mcp` SDK (lazy imports
    included): the rest of the package, and the CLI, work without it."""
    root = Path(__file__).resolve().parents[1]
    importers = set()
    for path in sorted(p for package in ("consolidator", "hierarchy", "stores") for p in (root / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            if any(name == "mcp" or name.startswith(("mcp.", "mcp_types")) for name in names):
                importers.add(path.relative_to(root).as_posix())
    assert importers == {"consolidator/mcpserver/server.py"}
