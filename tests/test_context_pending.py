"""context.md's "Not yet consolidated" section: the newest messages no batch has consolidated yet,
republished on the tick after an append, bounded in count and tokens, gone once consolidated."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from consolidator.domain import estimate_tokens
from consolidator.core.app import App
from consolidator.core.config import ConfigError, ContextSettings, ScopeSettings, Settings, load_settings
from consolidator.snapshots.context import publish_context
from stores.engine import reading
from stores.messages import NewMessage, append_messages
from stores.pending import pending
from stores.view_versions import stale
from tests.support.memory_kit import START, Memory, ScriptedModel
from tests.support.context_kit import context_text, fill_huge_store, with_cap

NEW_YORK = ZoneInfo("America/New_York")
TITLE = "## Not yet consolidated"


@pytest.fixture
def settings(state_dir) -> Settings:
    """The scope has a time zone of its own, so the lines must be dated in it, not in UTC."""
    return Settings(state_dir=state_dir, scopes={"maya": ScopeSettings(timezone="America/New_York")})


def log(app: App, first_at: datetime, *texts: str, speaker: str = "Caroline") -> list[str]:
    """Append `texts` a minute apart from `first_at`; their stored ids."""
    messages = [NewMessage("maya", first_at + timedelta(minutes=i), "user", text, speaker=speaker)
                for i, text in enumerate(texts)]
    return append_messages(app.engine, messages, first_at + timedelta(minutes=len(texts))).ids


def section(text: str) -> list[str]:
    """The lines of the section (empty when the section is left out)."""
    if TITLE not in text:
        return []
    return [line for line in text.split(TITLE + "\n", 1)[1].split("\n## ", 1)[0].splitlines() if line]


def local(at: datetime) -> str:
    return f"{at.astimezone(NEW_YORK):%Y-%m-%d %H:%M}"


def test_messages_logged_after_the_last_batch_show_on_the_next_tick(app: App) -> None:
    """A partial batch younger than flush_idle is listed on the next tick, newest last, dated in the scope's zone."""
    memory = Memory(app)
    memory.say("maya", "user: hello there")
    assert TITLE not in context_text(app)  # everything is consolidated: no section
    at = memory.clock
    ids = log(app, at, "We moved to Lisbon in May.", "The cat is called Mochi.", "Dinner at eight?")
    memory.consolidator.tick(at + timedelta(minutes=5))  # within flush_idle: no batch is cut
    text = context_text(app)
    assert "3 messages not yet consolidated" in text
    assert section(text) == [
        f"- {local(at)} Caroline: We moved to Lisbon in May. [{ids[0]}]",
        f"- {local(at + timedelta(minutes=1))} Caroline: The cat is called Mochi. [{ids[1]}]",
        f"- {local(at + timedelta(minutes=2))} Caroline: Dinner at eight? [{ids[2]}]",
    ]
    assert text.rstrip("\n").endswith(f"[{ids[2]}]")  # the section comes last: the newest line closes the file


def test_context_is_not_recomposed_when_nothing_moved(app: App) -> None:
    """The marks context.md was composed with are never stale views, and an unchanged scope is not rewritten."""
    memory = Memory(app)
    at = START + timedelta(hours=1)
    log(app, at, "first note")
    memory.consolidator.tick(at + timedelta(minutes=2))
    before = context_text(app)
    with reading(app.engine) as session:
        assert stale(session, "maya") == [] and not pending(session, "maya").stale_views
    stage = memory.consolidator.stages[-1]
    assert stage.run(at + timedelta(minutes=3), scopes=["maya"]) == 0
    assert context_text(app) == before  # same `_updated` time: not composed again
    log(app, at + timedelta(minutes=4), "second note")
    stage.run(at + timedelta(minutes=6), scopes=["maya"])
    assert context_text(app) != before and "second note" in context_text(app)


@pytest.mark.parametrize("bound, shown", [(3, 3), (0, 0)])
def test_past_the_bound_one_line_counts_the_earlier_messages_and_says_since_when(
        app: App, bound: int, shown: int) -> None:
    """With more pending than `pending_messages`, the newest few are listed after a line giving the rest's count and start."""
    bounded = App(settings=app.settings.model_copy(update={"context": ContextSettings(pending_messages=bound)}),
                  engine=app.engine)
    memory = Memory(bounded)
    at = START + timedelta(hours=1)
    ids = log(bounded, at, *[f"note number {i}" for i in range(8)])
    memory.consolidator.tick(at + timedelta(minutes=10))
    lines = section(context_text(app))
    if shown:
        assert lines[0] == f"- … and 5 earlier messages since {local(at)}"
        assert [line.rsplit(" [", 1)[1] for line in lines[1:]] == [f"{i}]" for i in ids[5:]]  # newest last
        assert lines[-1] == f"- {local(at + timedelta(minutes=7))} Caroline: note number 7 [{ids[7]}]"
    else:
        assert lines == [f"- 8 messages since {local(at)}"]


@pytest.mark.slow
@pytest.mark.parametrize("tokens", [64, 300, 1500, 6000])
def test_huge_pending_texts_never_exceed_the_cap(app: App, tokens: int) -> None:
    """Pending messages of thousands of words, on a huge store, keep context.md under its cap, each cut in its text."""
    fill_huge_store(app)
    at = START + timedelta(hours=1)
    ids = log(app, at, *[f"message {i} " + "a long long text " * 2000 for i in range(15)])
    capped = with_cap(app, tokens)
    publish_context(capped, "maya", at + timedelta(minutes=20))
    text = context_text(app)
    assert estimate_tokens(text) <= tokens
    lines = section(text)
    if tokens < 300:
        return
    for heading in ("## People", "## Facts", "## Open tasks", "## Summaries", TITLE):
        assert heading in text
    assert lines[0].startswith("- … and ") and lines[0].endswith(f"earlier messages since {local(START)}")
    assert lines[-1].endswith(f"… [{ids[-1]}]") and "message 14 a long" in lines[-1]  # cut in its text, id kept
    for line in lines[1:]:
        shown = line.split("Caroline: ", 1)[1].rsplit("… [", 1)[0]
        full = line.split("Caroline: ", 1)[1].split(" a long", 1)[0] + " " + "a long long text " * 2000
        assert full.startswith(shown) and full[len(shown)] == " "  # at a word boundary


def test_the_section_disappears_once_its_batch_is_consolidated(app: App) -> None:
    """Once flush_idle passes and the batch's steps ran, the section is gone though no view changed."""
    memory = Memory(app, model=ScriptedModel())  # replies with no contact or task: no view is bumped
    at = START + timedelta(hours=1)
    log(app, at, "ok", "sure thing")
    memory.consolidator.tick(at + timedelta(minutes=3))
    assert len(section(context_text(app))) == 2
    memory.consolidator.drain(at + timedelta(hours=2))
    text = context_text(app)
    assert TITLE not in text and "0 messages not yet consolidated" in text


@pytest.mark.parametrize("line", ["pending_share = 1.5", "pending_share = -0.1", "pending_messages = -1",
                                  "pending_messages = 100000"])
def test_pending_settings_out_of_range_are_rejected(tmp_path, line: str) -> None:
    """pending_share and pending_messages are validated like the other [context] settings."""
    path = tmp_path / "c.toml"
    path.write_text(f"[context]\n{line}\n")
    with pytest.raises(ConfigError, match=r"key 'context\.pending_\w+': "):  # out of range, not unknown
        load_settings(path, env={})


def test_pending_settings_in_range_are_read(tmp_path) -> None:
    """pending_messages and pending_share are [context] keys read from config.toml."""
    path = tmp_path / "c.toml"
    path.write_text("[context]\npending_messages = 0\npending_share = 0.5\n")
    context = load_settings(path, env={}).context
    assert (context.pending_messages, context.pending_share) == (0, 0.5)
