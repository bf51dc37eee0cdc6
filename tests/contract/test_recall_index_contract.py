"""The recall stage reads the same on every database engine: what it indexes, and what it reads again."""

from __future__ import annotations

from datetime import timedelta

from consolidator import recall
from consolidator.retrieval.build import RecallStage
from consolidator.core.app import App
from consolidator.core.config import Settings
from stores.files.recall_index import index_path, open_for_read, rows_by_id
from tests.support.recall_kit import T0, log, put_fact, supersede


def test_the_recall_index_is_kept_alike_on_every_engine(engine, tmp_path) -> None:
    """Messages, a job change and a later message: indexed, recalled, and an idle update writes nothing."""
    settings = Settings(state_dir=tmp_path / "state")
    app = App(settings, engine)
    ids = log(app, "maya", ["Maya: I work at Acme.", "Ana: Since when?", "Maya: Since March, as a designer."])
    old = put_fact(app, "maya", "Maya works at Acme.", T0)
    stage = RecallStage(app)
    assert stage.update("maya", T0 + timedelta(minutes=5)) == 4
    new = supersede(app, "maya", old, "Maya works at Initech.", T0 + timedelta(days=3))
    log(app, "maya", ["Maya: First day at Initech today!"], start=T0 + timedelta(days=3))
    assert stage.update("maya", T0 + timedelta(days=3, minutes=5)) == 3  # the old fact again, the new one, a message
    assert stage.update("maya", T0 + timedelta(days=3, minutes=6)) == 0
    conn = open_for_read(index_path(settings.snapshot_dir / "maya"))
    rows = rows_by_id(conn, [f"fact:{old}", f"fact:{new}", f"msg:{ids[2]}"])
    conn.close()
    assert rows[f"fact:{old}"].status == "history" and rows[f"fact:{new}"].status == "current"
    assert rows[f"msg:{ids[2]}"].text == "Maya: Since March, as a designer."
    got = recall("maya", "When did Maya start at Initech?", config=settings, now=T0 + timedelta(days=4))
    assert "First day at Initech" in got.text and "fact: Maya works at Initech." in got.text
