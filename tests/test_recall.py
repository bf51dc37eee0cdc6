"""`recall` end to end: the daemon keeps each scope's recall index, the planner reads it.

Real SQLite, the offline model, the daemon's own wiring; small hand-written conversations."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta

import pytest

from consolidator import recall
from consolidator.domain import estimate_tokens
from consolidator.retrieval.build import RecallStage
from consolidator.core.app import open_app
from consolidator.core.config import Settings
from consolidator.runtime.forget import forget_scope
from stores.files.common_words import COMMON_FILE
from stores.files.recall_index import FILE
from tests.support.recall_kit import T0, drain, log, put_fact, supersede

CHAT = [
    "Maya: I just started pottery classes on Tuesdays.",
    "Assistant: Nice! How is it going?",
    "Maya: My teacher Ana says my bowls are getting better.",
    "Maya: Also, my sister Lea is visiting from Lyon in June.",
]


def index_file(settings, scope: str):
    return settings.snapshot_dir / scope / FILE


def test_a_message_logged_after_the_last_batch_is_found_before_its_batch_runs(app, settings) -> None:
    """Messages too few for a batch and younger than flush_idle are indexed on the next tick and recalled."""
    log(app, "maya", CHAT)
    consolidator, report = drain(app, T0 + timedelta(minutes=10))  # flush_idle (30 min) not reached
    assert report.batches == 0
    got = recall("maya", "Who is visiting from Lyon?", config=settings, now=T0 + timedelta(minutes=10))
    assert got.source == "index"
    assert any(item.kind == "message" and "Lyon" in item.text for item in got.items)
    assert "Lyon" in got.text


def test_the_block_is_dated_in_the_scope_zone_and_tagged_with_ids(app, settings) -> None:
    """Each line carries its time in the scope's zone and the id a planner passes back."""
    zoned = Settings(state_dir=settings.state_dir, scopes={"maya": {"timezone": "Asia/Tokyo"}})
    other = open_app(zoned)
    try:
        ids = log(other, "maya", CHAT)
        drain(other, T0 + timedelta(hours=2))
    finally:
        other.close()
    got = recall("maya", "pottery classes", config=zoned, now=T0 + timedelta(hours=2))
    first = next(i for i in got.items if i.kind == "message" and "pottery" in i.text)
    assert first.id == ids[0] and first.time.startswith("2024-05-06T18:00") and first.time.endswith("+09:00")
    assert f"2024-05-06 18:00 Maya: I just started pottery classes on Tuesdays. [{first.tag}]" in got.text
    assert "times Asia/Tokyo" in got.text.splitlines()[0]


@pytest.mark.slow
def test_never_over_the_budget(app, settings) -> None:
    """Whatever the budget and however long the items, the block's estimate stays within it."""
    long = "Maya: " + " ".join(f"pottery glaze kiln number {i} was fired slowly and carefully." for i in range(80))
    log(app, "maya", [*CHAT, long, long.replace("kiln", "oven")])
    drain(app, T0 + timedelta(hours=2))
    for budget in (50, 51, 63, 100, 257, 1000, 5000):
        for query in ("pottery kiln", "What did Maya say?", "Lyon", "zebra"):
            got = recall("maya", query, budget_tokens=budget, config=settings, now=T0 + timedelta(hours=2))
            assert estimate_tokens(got.text) <= budget, (budget, query)
            assert got.tokens == estimate_tokens(got.text)


@pytest.mark.slow
def test_no_other_scope_item_ever(app, settings) -> None:
    """Two scopes sharing words: each recall shows only its own scope's items."""
    ids = {"maya": log(app, "maya", ["Maya: My favourite pottery glaze is celadon green."]),
           "omar": log(app, "omar", ["Omar: My favourite pottery glaze is tenmoku brown."])}
    drain(app, T0 + timedelta(hours=2))
    for scope, mine, theirs in (("maya", "celadon", "tenmoku"), ("omar", "tenmoku", "celadon")):
        got = recall(scope, "favourite pottery glaze", config=settings, now=T0 + timedelta(hours=2))
        assert mine in got.text and theirs not in got.text
        assert got.items and all(theirs not in i.text for i in got.items)
        assert {i.id for i in got.items if i.kind == "message"} <= set(ids[scope])


def test_a_superseded_fact_is_never_presented_as_current(app, settings) -> None:
    """After a job change the old job shows only as history ("no longer current"), the new one as a fact."""
    old = put_fact(app, "maya", "Maya works at Acme as a designer.", T0)
    new = supersede(app, "maya", old, "Maya works at Initech as a designer.", T0 + timedelta(days=30))
    RecallStage(app).update("maya", T0 + timedelta(days=30))
    got = recall("maya", "Where does Maya work?", config=settings, now=T0 + timedelta(days=31))
    by_id = {i.id: i for i in got.items}
    assert by_id[new].status == "current" and by_id[old].status == "history"
    line_old = next(line for line in got.text.splitlines() if old in line)
    assert "no longer current" in line_old and "fact:" not in line_old
    assert "fact: Maya works at Initech" in got.text


def test_an_index_update_costs_what_changed(app, settings) -> None:
    """A second update with nothing new writes nothing; one new message writes one item."""
    log(app, "maya", CHAT)
    stage = RecallStage(app)
    first = stage.update("maya", T0 + timedelta(minutes=5))
    assert first == len(CHAT)
    assert stage.update("maya", T0 + timedelta(minutes=6)) == 0
    log(app, "maya", ["Maya: The kiln broke today."], start=T0 + timedelta(minutes=7))
    assert stage.update("maya", T0 + timedelta(minutes=8)) == 1
    assert "kiln" in recall("maya", "kiln", config=settings, now=T0 + timedelta(minutes=9)).text


def test_forget_erases_the_index(app, settings) -> None:
    """`forget` removes the scope's index with its other snapshots; recall then knows no such scope."""
    log(app, "maya", CHAT)
    drain(app, T0 + timedelta(hours=2))
    assert index_file(settings, "maya").is_file()
    forget_scope(app, "maya")
    assert not index_file(settings, "maya").exists()
    with pytest.raises(ValueError, match="unknown scope 'maya'"):
        recall("maya", "pottery", config=settings, now=T0 + timedelta(hours=2))


def test_a_scope_never_drained_is_answered_from_the_log(app, settings) -> None:
    """No index yet is no error: recall reads the log and says so; nothing is written."""
    log(app, "maya", CHAT)
    got = recall("maya", "Who is visiting from Lyon?", config=settings, now=T0 + timedelta(minutes=5))
    assert got.source == "log" and "message log" in got.note
    assert "Lyon" in got.text
    assert not index_file(settings, "maya").exists()


@pytest.mark.parametrize(("query", "budget", "problem"), [
    ("", 1000, "query is empty"), ("   \n\t", 1000, "query is empty"),
    ("pottery", 49, "budget_tokens"), ("pottery", 100_001, "budget_tokens"), ("pottery", 500.0, "budget_tokens"),
])
def test_bad_input_is_a_value_error_and_writes_nothing(app, settings, query, budget, problem) -> None:
    """An empty query or a budget outside 50-100,000: ValueError naming it; no index is made."""
    log(app, "maya", CHAT)
    with pytest.raises(ValueError, match=problem):
        recall("maya", query, budget_tokens=budget, config=settings)
    assert not index_file(settings, "maya").exists()


def test_an_unknown_scope_is_a_value_error_and_creates_no_database(settings) -> None:
    """A scope nothing is logged under (even with no database yet): ValueError, nothing created."""
    with pytest.raises(ValueError, match="unknown scope 'nobody'"):
        recall("nobody", "anything", config=settings)
    assert not settings.state_dir.exists()
    with pytest.raises(ValueError):
        recall("../etc", "anything", config=settings)


def test_cli_recall_prints_the_block_and_json(app, run_cli) -> None:
    """`consolidator recall` prints the block; --json the block and its items; bad input exits 2."""
    log(app, "maya", CHAT)
    drain(app, T0 + timedelta(hours=2))
    plain = run_cli("recall", "--scope", "maya", "--budget", "200", "Lyon sister")
    assert plain.exit_code == 0 and "Lyon" in plain.stdout
    assert estimate_tokens(plain.stdout) <= 200
    out = run_cli("recall", "--scope", "maya", "--budget", "200", "--json", "Lyon sister")
    payload = json.loads(out.stdout)
    assert payload["source"] == "index" and payload["text"] == plain.stdout
    assert {"kind", "id", "text", "time", "score", "sources"} <= set(payload["items"][0])
    for args, needle in ((["--budget", "10", "x"], "--budget"), (["   "], "query is empty")):
        bad = run_cli("recall", "--scope", "maya", *args)
        assert bad.exit_code == 2 and needle in bad.stderr and "Traceback" not in bad.stderr
    unknown = run_cli("recall", "--scope", "nobody", "x")
    assert unknown.exit_code == 2 and "unknown scope 'nobody'" in unknown.stderr


def test_a_reader_sees_a_whole_index_while_the_daemon_writes(app, settings) -> None:
    """An update is one transaction: a reader opened mid-update sees the index before it."""
    log(app, "maya", CHAT)
    RecallStage(app).update("maya", T0 + timedelta(minutes=5))
    before = recall("maya", "kiln", config=settings, now=T0 + timedelta(minutes=6))
    writer = sqlite3.connect(index_file(settings, "maya"), isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO item (id, kind, text) VALUES ('msg:half', 'message', 'Maya: the kiln half')")
    writer.execute("INSERT INTO item_text (rowid, body, context) VALUES (last_insert_rowid(), 'kiln half', '')")
    during = recall("maya", "kiln", config=settings, now=T0 + timedelta(minutes=6))
    writer.execute("ROLLBACK")
    writer.close()
    assert "kiln half" not in during.text and during.text == before.text


KILLED_MID_UPDATE = """
import os, signal, sys
from datetime import datetime
from pathlib import Path
import stores.files.recall_index as index
from consolidator.retrieval.build import RecallStage
from consolidator.core.app import open_app
from consolidator.core.config import Settings

put = index.Writer.put
def put_then_die(self, items):
    put(self, items)
    os.kill(os.getpid(), signal.SIGKILL)  # rows written, transaction open
index.Writer.put = put_then_die
RecallStage(open_app(Settings(state_dir=Path(sys.argv[1])))).update("maya", datetime.fromisoformat(sys.argv[2]))
"""


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_index_survives_kill_9_during_its_update(app, settings, tmp_path) -> None:
    """SIGKILL inside an update's transaction: readers see the old index whole, the next tick completes it."""
    import subprocess
    import sys

    log(app, "maya", CHAT)
    RecallStage(app).update("maya", T0 + timedelta(minutes=5))
    log(app, "maya", ["Maya: The kiln broke today."], start=T0 + timedelta(minutes=7))
    now = T0 + timedelta(minutes=8)
    child = subprocess.run([sys.executable, "-c", KILLED_MID_UPDATE, str(settings.state_dir), now.isoformat()],
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == -9, child.stderr
    after_kill = recall("maya", "kiln pottery", config=settings, now=now)
    assert "kiln" not in after_kill.text and "pottery" in after_kill.text
    assert RecallStage(app).update("maya", now) == 1
    assert "The kiln broke today." in recall("maya", "kiln", config=settings, now=now).text


def test_a_broken_index_is_one_fault_and_the_other_scopes_go_on(app, settings) -> None:
    """An index file that is not one is recorded as the scope's `recall` fault (no traceback); other scopes are indexed."""
    from consolidator.core.faults import FaultBook

    log(app, "maya", CHAT)
    log(app, "omar", ["Omar: The kiln is hot."])
    index_file(settings, "maya").parent.mkdir(parents=True)
    index_file(settings, "maya").write_bytes(b"not a database at all" * 100)
    book = FaultBook(app.engine)
    RecallStage(app, faults=book).run(T0 + timedelta(minutes=5), scopes=["maya", "omar"])
    assert [(f.where, f.scope) for f in book.met()] == [("recall", "maya")]
    assert "kiln" in recall("omar", "kiln", config=settings, now=T0 + timedelta(minutes=6)).text


@pytest.mark.slow
@pytest.mark.subprocess
def test_recall_reads_the_index_alone(app, settings, tmp_path) -> None:
    """`from consolidator import read_context, recall` loads nothing heavy; a recall over an index then
    loads numpy and sqlite3 but never the database layer, pydantic, a tokenizer or a model SDK."""
    import subprocess
    import sys

    log(app, "maya", CHAT)
    drain(app, T0 + timedelta(hours=2))
    never = ["sqlalchemy", "sqlmodel", "pydantic", "anthropic", "tokenizers", "wordllama", "psycopg", "httpx"]
    probe = ("import sys\nfrom consolidator import read_context, recall\n"
             "before = [m for m in ('numpy', 'sqlalchemy', 'pydantic') if m in sys.modules]\n"
             "hit = recall('maya', 'Lyon sister')\n"
             f"after = [m for m in {never!r} if m in sys.modules]\n"
             "print(before, after, 'Lyon' in hit.text)")
    env = {"CONSOLIDATOR_STATE_DIR": str(settings.state_dir), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env,
                            check=True)
    assert result.stdout.strip() == "[] [] True"


@pytest.mark.slow
def test_the_readme_loop_recall_then_mark_used_strengthens_the_facts_shown(app, settings) -> None:
    """README's planner loop: the fact ids a recall showed, passed to mark_used, are strengthened by the daemon."""
    from consolidator import mark_used
    from stores.engine import reading
    from stores.facts import get_fact

    fid = put_fact(app, "maya", "Ana lives in Lisbon.", T0)
    log(app, "maya", ["Maya: My sister Ana finally moved to Lisbon!"], start=T0 + timedelta(minutes=1))
    consolidator, _ = drain(app, T0 + timedelta(minutes=5))
    hit = recall("maya", "Where does Ana live?", config=settings, now=T0 + timedelta(minutes=5))
    used = [item.id for item in hit.items if item.kind == "fact"]
    assert fid in used and f"[{fid}]" in hit.text
    assert mark_used("maya", used, at=T0 + timedelta(minutes=6), app=app) == len(used)
    consolidator.drain(T0 + timedelta(minutes=7))
    with reading(app.engine) as session:
        assert get_fact(session, "maya", fid).strength == 2.0


def test_a_contact_is_recalled_as_its_details_not_the_summary_that_repeats_a_fact(app, settings) -> None:
    """Maya's running summary repeats the batch's fact ("Maya started pottery classes ..."): her
    contact item holds her details and biography only, so the fact, the item a planner marks
    used, is shown and not skipped as a repeat of the card."""
    log(app, "maya", CHAT)
    drain(app, T0 + timedelta(hours=2))
    contacts = json.loads((settings.snapshot_dir / "maya" / "contacts.json").read_text(encoding="utf-8"))
    summary = next(c["summary"] for c in contacts["contacts"] if c["name"] == "Maya")
    assert "pottery" in summary  # the running summary repeats the fact
    got = recall("maya", "Which classes did Maya start?", config=settings, now=T0 + timedelta(hours=2))
    assert any(i.kind == "fact" and "pottery" in i.text for i in got.items), got.text
    card = recall("maya", "Tell me about Maya", config=settings, now=T0 + timedelta(hours=2))
    maya = next(i for i in card.items if i.kind == "contact" and i.text.startswith("Maya"))
    assert "pottery" not in maya.text


FAMILY = [
    "Maya: My sister Lea moved back in with our parents.",
    "Maya: My mom is in hospital since Tuesday.",
    "Maya: I bought new running shoes for the trail race.",
]


def test_a_word_the_scope_never_used_finds_what_it_means(app, settings) -> None:
    """"family" was never said: its vector comes from the common-words table beside the scopes
    (the real embeddings), so the family lines come first; without the table, nothing is found."""
    log(app, "maya", FAMILY)
    drain(app, T0 + timedelta(hours=2))
    common = settings.snapshot_dir / COMMON_FILE
    got = recall("maya", "family", config=settings, now=T0 + timedelta(hours=2))
    assert [i.text for i in got.items if i.kind == "message"][:2] == [
        "Maya: My sister Lea moved back in with our parents.", "Maya: My mom is in hospital since Tuesday."]
    common.unlink()
    assert recall("maya", "family", config=settings, now=T0 + timedelta(hours=2)).items == []


def test_the_common_words_table_is_no_ones_data_and_written_once(app, settings) -> None:
    """The table holds English's common words, not a scope's (a word only Maya used is not in it),
    and a later tick (another process's stage) leaves it as it is."""
    log(app, "maya", [*FAMILY, "Maya: Zorblaxian tea is my favourite."])
    drain(app, T0 + timedelta(hours=2))
    common = settings.snapshot_dir / COMMON_FILE
    conn = sqlite3.connect(common)
    try:
        words = {w for (w,) in conn.execute("SELECT word FROM word")}
    finally:
        conn.close()
    assert {"family", "hospital", "sister"} <= words and "Zorblaxian" not in words and "zorblaxian" not in words
    before = common.stat()
    log(app, "maya", ["Maya: The race is on Sunday."], start=T0 + timedelta(hours=3))
    drain(app, T0 + timedelta(hours=5))
    assert (common.stat().st_ino, common.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_common_words_table_that_cannot_be_written_is_one_fault_and_indexes_go_on(app, settings) -> None:
    from consolidator.core.faults import FaultBook
    from consolidator.model.embeddings import default_embedder

    log(app, "maya", CHAT)
    (settings.snapshot_dir / COMMON_FILE).mkdir(parents=True)  # a folder where the file goes
    book = FaultBook(app.engine)
    RecallStage(app, embedder=default_embedder(), faults=book).run(T0 + timedelta(minutes=5), scopes=["maya"])
    assert [(f.where, f.scope) for f in book.met()] == [("recall-words", "")]
    assert "Lyon" in recall("maya", "Lyon", config=settings, now=T0 + timedelta(minutes=6)).text


def test_a_fact_is_found_by_its_topic_table_and_a_move_refiles_it(app, settings) -> None:
    """The fact's table name is searched with it ("health" finds the allergy, which never says
    "health"); a restructure that moves it to another table re-indexes it under the new name."""
    import numpy as np

    from consolidator.facts.tables import TablePlan, write_plan
    from stores.engine import transaction
    from stores.schema.memory import Fact
    from stores.view_versions import bump

    log(app, "maya", ["Maya: I react badly to peanuts."])
    fid = put_fact(app, "maya", "Maya is allergic to peanuts.", T0)
    with transaction(app.engine) as session:
        session.get(Fact, fid).fact_table = "health"
    put_fact(app, "maya", "Maya drinks green tea.", T0 + timedelta(minutes=1))  # the index's watermark passes it
    now = T0 + timedelta(minutes=5)
    RecallStage(app).update("maya", now)
    assert [i.id for i in recall("maya", "health", config=settings, now=now).items if i.kind == "fact"] == [fid]
    later = T0 + timedelta(hours=1)
    with transaction(app.engine) as session:
        write_plan(session, "maya", TablePlan(tables={"food": ("What one eats", np.zeros(8, np.float32))},
                                              assigned={fid: "food"}), later)
        bump(session, "maya", "facts")
    RecallStage(app).update("maya", later)
    assert [i.id for i in recall("maya", "food", config=settings, now=later).items if i.kind == "fact"] == [fid]
    assert not [i for i in recall("maya", "health", config=settings, now=later).items if i.kind == "fact"]


def test_a_plan_told_on_monday_is_what_tomorrow_holds_on_thursday(app, settings) -> None:
    """The README's example end to end: "My flight to Lisbon is on Friday" logged on Monday, the
    offline model writes its day into the fact, and on Thursday "anything tomorrow?" (no word of
    it) and "what's coming up?" find it first; on Saturday the flight is no longer ahead, and nothing
    is: no line of other days fills the answer."""
    log(app, "maya", ["Maya: My flight to Lisbon is on Friday.", "Assistant: Noted, have a good trip!"])
    drain(app, T0 + timedelta(days=1))

    def first(query: str, now):
        return recall("maya", query, budget_tokens=80, config=settings, now=now).items[0]

    thursday, saturday = T0 + timedelta(days=3, hours=3), T0 + timedelta(days=5)
    assert first("Anything tomorrow?", thursday).kind == "fact" and "(2024-05-10)" in first("Anything tomorrow?", thursday).text
    ahead = first("What's coming up?", thursday)
    assert ahead.kind == "fact" and "flight" in ahead.text
    gone = recall("maya", "What's coming up?", budget_tokens=80, config=settings, now=saturday)
    assert gone.items == [] and gone.text.endswith("- nothing found\n"), gone.text
    assert recall("maya", "Anything tomorrow?", budget_tokens=80, config=settings, now=saturday).items == []


def test_a_birthday_on_a_card_is_of_the_period_it_falls_in_every_year(app, settings) -> None:
    """"My sister Lea's birthday is on June 14th" said in May 2024: "anything next month?" asked
    the next May (no word of it) finds her card, which the period held nothing of before; asked in
    March it does not."""
    log(app, "maya", ["Maya: My sister Lea's birthday is on June 14th.", "Assistant: Noted!"])
    drain(app, T0 + timedelta(days=1))

    def cards(now):
        return [i for i in recall("maya", "Anything next month?", budget_tokens=200, config=settings, now=now).items
                if i.kind == "contact"]

    [card] = cards(T0 + timedelta(days=365))  # May 2025: June is next month
    assert "birthday: June 14." in card.text
    assert cards(T0 + timedelta(days=300)) == []  # March 2025: April holds no birthday


def test_a_card_is_of_no_period_by_when_the_daemon_wrote_it(app, settings) -> None:
    """A card's time is when a batch last wrote it: "anything today?" asked the day the daemon ran
    answered with every card (the cards were the whole answer where nothing happened that day)."""
    log(app, "maya", ["Maya: My sister Lea lives in Porto.", "Assistant: Noted!"])
    drained = T0 + timedelta(days=2)
    drain(app, drained)
    card = recall("maya", "Where does Lea live?", budget_tokens=200, config=settings, now=drained).items
    assert any(i.kind == "contact" for i in card)  # the card is there to be found
    today = recall("maya", "Anything today?", budget_tokens=200, config=settings, now=drained)
    assert [i for i in today.items if i.kind == "contact"] == [], today.text
