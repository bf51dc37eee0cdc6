"""Attachments: a message's photos, files and links round-trip through import, MessageLog, `consolidator
log`, export, the cold archive, both backends' prompts and the recall index (docs/attachments.md)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import duckdb
import pytest
from sqlalchemy import select

from consolidator import MessageLog
from consolidator.core.app import App
from consolidator.ladders.inputs import render
from consolidator.messages import export
from consolidator.messages.ingest import ImportRejected, InvalidMessage, import_stream, validate
from consolidator.model.attachments import ATTACHMENT, Attachment, render_one
from consolidator.model.offline import OfflineModel
from consolidator.model.schemas import FactExtractionRequest, Line, SummarizeRequest, SummaryInput
from consolidator.pipeline.steps import MessageView
from consolidator.retrieval.items import message_item
from stores.files import archive_files
from stores.engine import reading
from stores.schema.log import Message
from stores.messages import NewMessage, message_hash
from tests.support.anthropic_kit import KEY, fake, make_model, recorder  # noqa: F401  (fixtures)
from tests.support.attachments_kit import AT, ATTACHMENTS, PHOTO, SHOWN, TEXT, record


def stored(app: App) -> Message:
    with reading(app.engine) as session:
        return session.execute(select(Message)).scalars().one()


def import_lines(app: App, tmp_path: Path, *records: dict) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with path.open("rb") as stream:
        import_stream(app.engine, stream, str(path), AT)
    return path


def view(message: Message) -> MessageView:
    return MessageView(message.id, message.seq, message.at, message.role, message.speaker, message.text,
                       message.session, message.interaction, message.attachments)


# --- the log's three ways in, and export -------------------------------------------------------

def test_an_imported_attachment_is_stored_with_its_message_and_exported_as_imported(app, tmp_path) -> None:
    import_lines(app, tmp_path, record())
    assert json.loads(stored(app).attachments) == ATTACHMENTS
    assert list(export.records(app, "ana")) == [record()]


def test_message_log_and_the_log_command_take_attachments(app, run_cli) -> None:
    log = MessageLog(app=app)
    first = log.append(scope="ana", role="user", text=TEXT, at=AT, attachments=[Attachment(**PHOTO)])
    again = log.extend([record(id=None, at=(AT + timedelta(minutes=1)).isoformat())]).ids[0]
    out = run_cli("log", "--scope", "ana", "--role", "user", "--at", (AT + timedelta(minutes=2)).isoformat(),
                  "--attach", "image:a cake shaped like a lighthouse",
                  "--attach", json.dumps({"kind": "link", "caption": "the programme", "uri": "https://example.org"}),
                  TEXT)
    assert out.exit_code == 0, out.output
    with reading(app.engine) as session:
        rows = {m.id: json.loads(m.attachments) for m in session.execute(select(Message)).scalars()}
    assert rows[first] == [PHOTO] and rows[again] == ATTACHMENTS
    assert rows[out.stdout.strip()] == [{"kind": "image", "caption": "a cake shaped like a lighthouse"},
                                        {"kind": "link", "caption": "the programme", "uri": "https://example.org"}]


def test_a_bad_attach_option_is_one_line_naming_the_option(run_cli) -> None:
    for value, said in (("kayak:a boat", "--attach[0].kind"), ("a cake", "--attach[0]"), ("{", "--attach[0]")):
        out = run_cli("log", "--scope", "ana", "--role", "user", "--attach", value, TEXT)
        assert out.exit_code == 2 and said in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_attachments_count_in_the_content_hash_but_none_leaves_an_old_id_unchanged() -> None:
    plain = validate(record(id=None, attachments=None))
    photo = validate(record(id=None, attachments=[PHOTO]))
    other = validate(record(id=None, attachments=[{**PHOTO, "caption": "a cake shaped like a boat"}]))
    assert len({plain.key(), photo.key(), other.key()}) == 3
    assert plain.key() == message_hash("ana", AT, "user", "Ana", TEXT) == validate(record(id=None, attachments=[])).key()


@pytest.mark.parametrize(("attachments", "field"), [
    ("a photo", "attachments"),
    ([PHOTO] * 17, "attachments"),
    (["a photo"], "attachments[0]"),
    ([{**PHOTO, "kind": "video"}], "attachments[0].kind"),
    ([PHOTO, {"kind": "image"}], "attachments[1].caption"),
    ([{**PHOTO, "caption": "   "}], "attachments[0].caption"),
    ([{**PHOTO, "caption": "x" * 2001}], "attachments[0].caption"),
    ([{**PHOTO, "uri": "u" * 2049}], "attachments[0].uri"),
    ([{**PHOTO, "uri": 5}], "attachments[0].uri"),
    ([{**PHOTO, "size": 5}], "attachments[0].size"),
])
def test_a_bad_attachment_names_its_line_and_field(app, tmp_path, attachments, field) -> None:
    with pytest.raises(ImportRejected) as caught:
        import_lines(app, tmp_path, record(id="ok"), record(attachments=attachments))
    assert str(caught.value).startswith(f"{tmp_path / 'in.jsonl'}:2: field '{field}': ")
    with pytest.raises(InvalidMessage, match=r"record 0: "):
        MessageLog(app=app).extend([record(attachments=attachments)])


# --- the archive --------------------------------------------------------------------------------

def test_an_archived_message_keeps_its_attachments_and_a_file_without_the_column_still_reads(tmp_path) -> None:
    validated = validate(record())
    row = ("ana:m1", "ana", 1, AT, "user", "Ana", TEXT, "s1", AT, 1, validated.attachments)
    written = archive_files.write_file(tmp_path, Path("new.parquet"), [row])
    assert archive_files.verify(tmp_path, written.path, 1, written.checksum)
    old = tmp_path / "old.parquet"  # as written before the column existed
    connection = duckdb.connect()
    connection.execute(f"COPY (SELECT 'ana:m0' AS id, 'ana' AS scope, CAST(0 AS BIGINT) AS seq, "
                       f"TIMESTAMP '2025-03-01 10:00:00' AS \"at\", 'user' AS role, 'Ana' AS speaker, 'hi' AS text, "
                       f"NULL::VARCHAR AS session, TIMESTAMP '2025-03-01 10:00:00' AS received_at, "
                       f"CAST(1 AS BIGINT) AS interaction) TO '{old}' (FORMAT parquet)")
    connection.close()
    assert archive_files.read_rows(tmp_path, [Path("new.parquet")]) == [row]
    assert [r[-1] for r in archive_files.read_rows(tmp_path, [Path("old.parquet")])] == [None]
    both = archive_files.read_rows(tmp_path, [Path("old.parquet"), Path("new.parquet")])
    assert sorted((r[0], r[-1]) for r in both) == [("ana:m0", None), ("ana:m1", validated.attachments)]
    assert export.record(row)["attachments"] == ATTACHMENTS


@pytest.mark.slow
def test_the_archiver_moves_attachments_to_parquet_and_history_and_export_read_them_back(tmp_path) -> None:
    from consolidator.core.app import open_app
    from consolidator.core.config import ArchiveSettings, Settings
    from consolidator.messages.archive import Archiver
    from stores.messages import append_messages
    from tests.support.archive_kit import START, all_rows, consolidated, hot_ids

    app = open_app(Settings(state_dir=tmp_path / "s", archive=ArchiveSettings(after=timedelta(days=10))))
    try:
        attached = validate(record(scope="maya", at=(START + timedelta(days=1, hours=11)).isoformat()))
        append_messages(app.engine, [attached], START)
        now = consolidated(app, days=45)
        assert Archiver(app).run(now).messages > 0 and "maya:m1" not in hot_ids(app)
        (row,) = [r for r in all_rows(app) if r[0] == "maya:m1"]
        assert json.loads(row[-1]) == ATTACHMENTS
        (out,) = [r for r in export.records(app, "maya") if r.get("id") == "m1"]
        assert out["attachments"] == ATTACHMENTS
        export.write_parquet(app, "maya", tmp_path / "out.parquet")
        connection = duckdb.connect()
        got = connection.execute(f"SELECT attachments FROM read_parquet('{tmp_path / 'out.parquet'}') "
                                 "WHERE id = 'm1'").fetchone()[0]
        connection.close()
        assert json.loads(got) == ATTACHMENTS
    finally:
        app.close()


# --- what each backend and the index see ---------------------------------------------------------

def test_one_rendering_shows_attachments_after_the_text_everywhere(app, tmp_path) -> None:
    import_lines(app, tmp_path, record())
    message = stored(app)
    assert render(message, ZoneInfo("UTC")) == f"2025-03-02 09:14 Ana: {TEXT} {SHOWN}"
    assert view(message).line().attachments == [Attachment(**a) for a in ATTACHMENTS]
    item = message_item(message)
    assert item is not None and item.text == f"Ana: {TEXT} {SHOWN}"
    assert [m.group(0) for m in ATTACHMENT.finditer(SHOWN)] == [render_one(Attachment(**a)) for a in ATTACHMENTS]


def test_the_anthropic_prompt_shows_the_caption(app, tmp_path, make_model, fake) -> None:
    import_lines(app, tmp_path, record())
    message = stored(app)
    model = make_model()
    model.extract_facts(FactExtractionRequest(scope="ana", messages=[view(message).line()], neighbours=[]))
    model.summarize(SummarizeRequest(scope="ana", ladder="time", rung="day", window_label="2025-03-02",
                                     inputs=[SummaryInput(id=message.id, label="", text=render(message, ZoneInfo("UTC")))],
                                     budget_tokens=200))
    facts_body, summary_body = (json.dumps(b, ensure_ascii=False) for b in fake.bodies)
    assert f"[1] 09:14 Ana: {TEXT} {SHOWN}" in facts_body
    assert f"Ana: {TEXT} {SHOWN}" in summary_body


def test_the_offline_backend_reads_the_caption_from_the_field() -> None:
    """A fact's "this" names the photo of its line; a summary keeps the photo a turn points at."""
    lines = [Line(id="m1", at=AT, role="user", speaker="Ana", text="Last night I baked this cake!",
                  attachments=[Attachment(**PHOTO)]),
             Line(id="m2", at=AT + timedelta(minutes=1), role="user", speaker="Tomas", text="Wow, that's great!")]
    facts = OfflineModel().extract_facts(FactExtractionRequest(scope="ana", messages=lines, neighbours=[])).facts
    assert any("this cake (photo: a cake shaped like a lighthouse)" in f.text for f in facts), facts
    day = [f"2025-03-02 09:{14 + i} {line.speaker}: {line.text}{' ' + render_one(line.attachments[0]) if line.attachments else ''}"
           for i, line in enumerate(lines)]
    summary = OfflineModel().summarize(SummarizeRequest(scope="ana", ladder="time", rung="day", window_label="2025-03-02",
                                                        inputs=[SummaryInput(id=f"m{i}", label="", text=t)
                                                                for i, t in enumerate(day)], budget_tokens=200))
    assert "(photo: a cake shaped like a lighthouse)" in summary.text


def test_bench_locomo_maps_a_shared_image_to_an_attachment(tmp_path) -> None:
    from bench.locomo import load_locomo, said

    conversation = {"speaker_a": "Ana", "speaker_b": "Tomas", "session_1_date_time": "10:00 am on 8 May, 2023",
                    "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "Look!", "blip_caption": "a photo of a cake",
                                   "img_url": ["https://example.org/c.jpg"]},
                                  {"speaker": "Tomas", "dia_id": "D1:2", "text": "Nice."}]}
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([{"sample_id": "tiny", "conversation": conversation, "qa": []}]), encoding="utf-8")
    first, second = load_locomo(path)[0].sessions[0].messages
    assert isinstance(first, NewMessage) and first.text == "Look!"
    assert json.loads(first.attachments) == [{"kind": "image", "caption": "a photo of a cake",
                                              "uri": "https://example.org/c.jpg"}]
    assert said(first) == "Look! (photo: a photo of a cake)" and second.attachments is None
