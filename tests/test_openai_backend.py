"""OpenAIModel through the real openai SDK against FakeOpenAI: modes, quirks, repair, retries, window, config."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("openai")

from consolidator.cli import cli  # noqa: E402
from consolidator.core.config import ConfigError, Settings  # noqa: E402
from consolidator.model.calls import InvalidReplyError, RejectedRequestError, TransientModelError  # noqa: E402
from consolidator.model.openai_backend import OpenAIModel  # noqa: E402
from consolidator.model.recording import MemoryRecorder  # noqa: E402
from consolidator.model.settings import ModelSettings  # noqa: E402
from consolidator.runtime import model_factory  # noqa: E402
from tests.support.anthropic_kit import REQUESTS, scripted  # noqa: E402
from tests.support.fake_openai import FakeOpenAI, Quirks  # noqa: E402

KEY = "sk-proj-TEST-never-leak-51c2"


def responder(tool: str, body: dict[str, Any]) -> dict[str, Any]:
    return scripted(tool, body)


@pytest.fixture
def made() -> Iterator[Callable[..., tuple[OpenAIModel, FakeOpenAI, MemoryRecorder]]]:
    opened: list[Any] = []

    def make(quirks: Quirks = Quirks(), api_key: str | None = None, **overrides: Any):
        fake = FakeOpenAI(responder=responder, quirks=quirks, api_key=api_key).__enter__()
        values = {"provider": "openai", "base_url": fake.url, "default_model": "llama3.1:8b", "timeout_s": 5,
                  "max_call_s": 10, **overrides}
        recorder = MemoryRecorder()
        model = OpenAIModel(ModelSettings(**values), recorder, api_key=api_key)
        opened.append((model, fake))
        return model, fake, recorder

    yield make
    for model, fake in opened:
        model.close()
        fake.__exit__(None, None, None)


def reference() -> dict[str, Any]:
    """What each operation answers with no quirk: the scripted replies, resolved."""
    with FakeOpenAI(responder=responder) as fake:
        model = OpenAIModel(ModelSettings(provider="openai", base_url=fake.url, default_model="m"), MemoryRecorder())
        try:
            return {op: getattr(model, op)(request) for op, request in REQUESTS.items()}
        finally:
            model.close()


def assert_ledger(recorder: MemoryRecorder, fake: FakeOpenAI) -> None:
    c = fake.counters
    assert (recorder.calls, recorder.input_tokens, recorder.output_tokens) == (c.answered, c.input_tokens,
                                                                             c.output_tokens)


class TestModes:
    def test_json_schema_honoured(self, made) -> None:
        """A server that honours response_format keeps json_schema; every operation answers the scripted reply."""
        model, fake, recorder = made()
        want = reference()
        for op, request in REQUESTS.items():
            assert getattr(model, op)(request) == want[op]
        assert all(b["response_format"]["type"] == "json_schema" for b in fake.bodies)
        assert_ledger(recorder, fake)

    def test_ignored_format_fenced_prose_then_tools(self, made) -> None:
        """response_format ignored and the JSON fenced after a sentence: read anyway; the next calls use a tool."""
        model, fake, recorder = made(Quirks(ignore_response_format=True, fence=True, prose=True))
        want = reference()
        for op, request in REQUESTS.items():
            assert getattr(model, op)(request) == want[op]
        assert fake.counters.fenced == fake.counters.prose == 1
        assert "response_format" in fake.bodies[0] and all("tools" in b for b in fake.bodies[1:])
        assert fake.counters.received == len(REQUESTS)  # no repair was needed
        assert_ledger(recorder, fake)

    def test_tools_refused_found_once(self, made) -> None:
        """Format ignored, tools refused: one 400, then every call reads JSON from the text, schema in the prompt."""
        model, fake, recorder = made(Quirks(ignore_response_format=True, fence=True, prose=True, refuse_tools=True))
        want = reference()
        for op, request in REQUESTS.items():
            assert getattr(model, op)(request) == want[op]
        assert fake.counters.tools_refused == 1
        text_mode = [b for b in fake.bodies if "tools" not in b and "response_format" not in b]
        assert len(text_mode) == len(REQUESTS) - 1
        assert all("JSON schema" in b["messages"][0]["content"] for b in text_mode)
        assert_ledger(recorder, fake)


class TestRepair:
    def test_cut_reply_asked_again_once(self, made) -> None:
        """A reply cut at max_tokens is asked again with the problem shown; the second answer is used."""
        model, fake, recorder = made()
        fake.plan("cut")
        assert model.summarize(REQUESTS["summarize"]) == reference()["summarize"]
        repair = fake.bodies[1]["messages"]
        assert repair[-1]["role"] == "user" and "cut off at max_tokens" in repair[-1]["content"]
        assert [r.outcome for r in recorder.records] == ["invalid", "ok"]
        assert_ledger(recorder, fake)

    def test_a_cut_reply_does_not_change_the_mode(self, made) -> None:
        """Half an object cut at max_tokens is no sign that json_schema was ignored: the mode stays."""
        model, fake, _ = made()
        fake.plan("cut")
        model.summarize(REQUESTS["summarize"])
        model.judge_cluster(REQUESTS["judge_cluster"])
        assert all("response_format" in b for b in fake.bodies) and len(fake.bodies) == 3

    def test_twice_invalid_is_a_failed_call(self, made) -> None:
        """Two cut replies: InvalidReplyError, nothing returned, both recorded as invalid."""
        model, fake, recorder = made()
        fake.plan("cut", "cut")
        with pytest.raises(InvalidReplyError):
            model.extract_facts(REQUESTS["extract_facts"])
        assert [r.outcome for r in recorder.records] == ["invalid", "invalid"]

    def test_wrapped_object_is_unwrapped(self, made) -> None:
        """A reply wrapped as {"record_summary": {...}} is read without asking again."""
        model, fake, _ = made(Quirks(ignore_response_format=True))
        fake.responder = lambda tool, body: {tool: scripted(tool, body)}
        assert model.summarize(REQUESTS["summarize"]).text == "Alice moved to Lyon."
        assert fake.counters.received == 1


class TestRetriesAndErrors:
    @pytest.mark.slow  # the SDK's own backoff after a 500 (about 0.5-1 s)
    def test_rate_limit_and_server_error_retried_by_the_sdk(self, made) -> None:
        """429 (retry-after) and 500 are retried by the SDK; the one answer is recorded once."""
        model, fake, recorder = made()
        fake.plan("429", "500")
        assert model.judge_cluster(REQUESTS["judge_cluster"]).merge is True
        assert (fake.counters.rate_limited, fake.counters.server_errors, fake.counters.received) == (1, 1, 3)
        assert [r.outcome for r in recorder.records] == ["ok"]

    def test_retry_after_past_the_deadline_fails_at_once(self, made) -> None:
        """A retry-after longer than max_call_s is not waited for: TransientModelError."""
        model, fake, recorder = made(Quirks(rate_limit_rate=1.0, retry_after=30), max_call_s=2)
        with pytest.raises(TransientModelError) as caught:
            model.judge_cluster(REQUESTS["judge_cluster"])
        assert caught.value.status == 429 and fake.counters.received == 1
        assert caught.value.request_id and f"(request-id {caught.value.request_id})" in str(caught.value)
        assert [r.outcome for r in recorder.records] == ["error"]

    @pytest.mark.slow
    def test_slow_server_times_out_within_max_call_s(self, made) -> None:
        """Attempts that time out end the call as TransientModelError within max_call_s, recorded as an error."""
        import time

        model, fake, recorder = made(Quirks(delay_s=3.0), timeout_s=0.4, max_call_s=1.0, max_retries=2)
        started = time.monotonic()
        with pytest.raises(TransientModelError):
            model.judge_cluster(REQUESTS["judge_cluster"])
        assert time.monotonic() - started < 1.5
        assert [r.outcome for r in recorder.records] == ["error"] and fake.counters.answered == 0

    def test_bad_key_is_rejected_and_never_shown(self, made) -> None:
        """A 401 is a RejectedRequestError whose message holds no key."""
        model, fake, _ = made(api_key=KEY)
        model._client.api_key = "sk-wrong-" + KEY
        with pytest.raises(RejectedRequestError) as caught:
            model.judge_cluster(REQUESTS["judge_cluster"])
        assert caught.value.status == 401 and KEY not in str(caught.value)


class TestWindow:
    def test_every_request_fits(self, made) -> None:
        """With a 2,048-token window no request reaches the server over it; a batch too big is split."""
        model, fake, recorder = made(Quirks(window=2048), context_tokens=2048)
        lines = REQUESTS["consolidate_batch"].messages * 30
        lines = [line.model_copy(update={"id": f"m{n}", "text": f"{line.text} number {n}"})
                 for n, line in enumerate(lines)]
        reply = model.consolidate_batch(REQUESTS["consolidate_batch"].model_copy(update={"messages": lines}))
        assert reply.facts and fake.counters.over_window == 0
        assert all(b["max_tokens"] + len(json.dumps(b)) // 4 <= 2048 for b in fake.bodies)
        assert fake.counters.received > 1
        assert_ledger(recorder, fake)

    def test_repair_of_a_full_window_still_fits(self, made) -> None:
        """A cut reply to a request that filled the window: the repair leaves the bad reply out and asks less."""
        model, fake, _ = made(Quirks(window=1024), context_tokens=1024)
        fake.plan("cut")
        assert model.summarize(REQUESTS["summarize"]).text == "Alice moved to Lyon."
        assert fake.counters.over_window == 0 and fake.counters.received == 2
        assert fake.bodies[1]["max_tokens"] < fake.bodies[0]["max_tokens"]

    def test_server_window_smaller_than_configured(self, made) -> None:
        """A vLLM 400 'maximum context length is N' is met once: the window is taken from it and the call re-planned."""
        model, fake, _ = made(Quirks(window=1500), context_tokens=4096)
        assert model.extract_facts(REQUESTS["extract_facts"]).facts
        assert fake.counters.over_window == 1
        model.update_tasks(REQUESTS["update_tasks"])
        assert fake.counters.over_window == 1


class TestConfig:
    def test_hosted_without_key_names_it(self) -> None:
        """provider openai at OpenAI's URL without OPENAI_API_KEY: ConfigError naming the key."""
        settings = Settings(model={"provider": "openai"})
        with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
            model_factory.build_model(settings, env={})

    def test_local_server_needs_no_key(self) -> None:
        settings = Settings(model={"provider": "openai", "base_url": "http://127.0.0.1:11434/v1", "default_model": "m"})
        model = model_factory.build_model(settings, env={})
        assert model.name == "openai" and "OPENAI_API_KEY" not in repr(model)
        model.close()

    @pytest.mark.parametrize(("body", "key"), [
        ('base_url = "localhost:11434"', "model.base_url"),
        ('base_url = "http://127.0.0.1:99x/v1"', "model.base_url"),
        ("context_tokens = 1000", "model.context_tokens"),
        ("context_tokens = 10000001", "model.context_tokens"),
        ('base_url = "http://127.0.0.1:11434/v1"', "model"),
    ], ids=["no-scheme", "bad-port", "window-small", "window-large", "no-model-name"])
    def test_bad_config_is_one_line_exit_2(self, tmp_path: Path, body: str, key: str) -> None:
        """Malformed base_url, context_tokens out of range, no model name for a local server: one line, exit 2."""
        config = tmp_path / "config.toml"
        config.write_text(f'state_dir = "{tmp_path / "s"}"\n[model]\nprovider = "openai"\n{body}\n', encoding="utf-8")
        result = CliRunner().invoke(cli, ["--config", str(config), "run", "--once"])
        assert result.exit_code == 2, result.output
        line = result.output.strip()
        assert "\n" not in line and f"key '{key}'" in line and "Traceback" not in line

    def test_missing_sdk_is_one_line_exit_2(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        config = tmp_path / "config.toml"
        config.write_text(f'state_dir = "{tmp_path / "s"}"\n[model]\nprovider = "openai"\n'
                          'base_url = "http://127.0.0.1:1/v1"\ndefault_model = "m"\n', encoding="utf-8")
        monkeypatch.setattr(model_factory, "sdk_installed", lambda name: False)
        result = CliRunner().invoke(cli, ["--config", str(config), "run", "--once"])
        assert result.exit_code == 2
        assert "consolidator[openai]" in result.output and result.output.strip().count("\n") == 0


class TestPrices:
    def test_openai_list_prices_local_free_config_wins(self) -> None:
        """OpenAI's models at OpenAI's URL cost its list price; any model on a local server 0; [model.prices] wins."""
        from consolidator.model.settings import OPENAI_PRICES, Price

        hosted = ModelSettings(provider="openai")
        assert hosted.default_model == "gpt-4o-mini" and hosted.price_for("gpt-4o-mini") == OPENAI_PRICES["gpt-4o-mini"]
        assert hosted.context_window() == 128_000
        local = ModelSettings(provider="openai", base_url="http://127.0.0.1:8000/v1", default_model="qwen2.5")
        assert local.price_for("qwen2.5").cost(input_tokens=10**6, output_tokens=10**6, cache_read_tokens=0,
                                               cache_write_tokens=0) == 0
        assert local.context_window() == 8192
        mine = Price(input_per_mtok=0.2, output_per_mtok=0.4, cache_read_per_mtok=0, cache_write_per_mtok=0)
        priced = ModelSettings(provider="openai", base_url="http://127.0.0.1:8000/v1", default_model="qwen2.5",
                               prices={"qwen2.5": mine}, daily_budget_usd=1.0)
        assert priced.price_for("qwen2.5") == mine

    def test_ledger_costs_an_openai_call_at_its_price(self, made) -> None:
        """A call recorded by the backend is priced from the settings' price for its model."""
        from consolidator.model.settings import Price

        price = Price(input_per_mtok=1000, output_per_mtok=2000, cache_read_per_mtok=0, cache_write_per_mtok=0)
        model, fake, recorder = made(prices={"llama3.1:8b": price})
        model.judge_cluster(REQUESTS["judge_cluster"])
        (rec,) = recorder.records
        assert rec.cost_usd == pytest.approx((rec.input_tokens * 1000 + rec.output_tokens * 2000) / 1e6)


class TestReading:
    """openai_wire.check: what is read out of a reply's text, and what is refused."""

    from consolidator.model.prompts import _SPECS as SPECS

    @pytest.mark.parametrize("text", [
        '{"text": "Alice moved to Lyon."}',
        '```json\n{"text": "Alice moved to Lyon."}\n```',
        'Sure! Here it is:\n\n```\n{"text": "Alice moved to Lyon."}\n```\nAnything else?',
        'Here is the JSON: {"text": "Alice moved to Lyon."} Hope this helps.',
        'For example {"note": 1}; the answer: {"text": "Alice moved to Lyon.",}',
        '{"record_summary": {"text": "Alice moved to Lyon."}}',
        '{"name": "record_summary", "arguments": "{\\"text\\": \\"Alice moved to Lyon.\\"}"}',
    ], ids=["bare", "fenced", "prose-and-fence", "prose-around", "first-invalid-trailing-comma", "wrapped",
            "function-call-shape"])
    def test_the_object_is_found(self, text: str) -> None:
        from consolidator.model.openai_wire import check

        reply, problem = check(self.SPECS["summarize"], text, "stop")
        assert problem is None and reply.text == "Alice moved to Lyon."

    @pytest.mark.parametrize(("text", "finish", "said"), [
        ('{"text": "Alice moved to Lyon."}', "length", "cut off at max_tokens"),
        ('{"text": "Alice mov', "length", "cut off at max_tokens"),
        ("I cannot help with that.", "stop", "no complete JSON object"),
        ('{"summary_text": "x"}', "stop", "input is invalid"),
        ("", "stop", "empty"),
    ], ids=["cut-even-if-whole", "cut", "prose-only", "wrong-field", "empty"])
    def test_nothing_invalid_is_taken(self, text: str, finish: str, said: str) -> None:
        from consolidator.model.openai_wire import check

        reply, problem = check(self.SPECS["summarize"], text, finish)
        assert reply is None and said in problem
