"""Ingestion: validation of records, JSON-lines import, `consolidator log` and the MessageLog API."""

from __future__ import annotations

import io
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import select

from consolidator import MessageLog
from consolidator.core.app import App
from consolidator.messages.ingest import ImportRejected, InvalidMessage, LineError, import_stream, parse_lines, validate
from consolidator.messages.log import IdConflict
from stores.engine import reading
from stores.schema.log import Message

T0 = datetime(2025, 3, 2, 9, 14, tzinfo=timezone.utc)
_DROP = object()  # record(field=_DROP) leaves the field out


def record(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {"scope": "maya", "at": "2025-03-02T09:14:00+01:00", "role": "user", "text": "hello"}
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not _DROP}


def line(**overrides: object) -> str:
    return json.dumps(record(**overrides))


def jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(item + "\n" for item in lines), encoding="utf-8")
    return path


def good_lines(n: int, scope: str = "maya", start: int = 0) -> list[str]:
    return [line(scope=scope, text=f"message {start + i}", at=(T0 + timedelta(minutes=start + i)).isoformat())
            for i in range(n)]


def stored(app: App) -> list[tuple[str, int, str]]:
    """(scope, seq, text) of every stored message, in scope then arrival order."""
    with reading(app.engine) as session:
        return [tuple(r) for r in session.execute(
            select(Message.scope, Message.seq, Message.text).order_by(Message.scope, Message.seq))]


# --- validation -------------------------------------------------------------------------------

REJECTED = [
    pytest.param('{"scope": "maya", "role": ', "<json>", id="bad-json"),
    pytest.param("[1, 2, 3]", "<line>", id="array-line"),
    pytest.param('"just a string"', "<line>", id="string-line"),
    pytest.param(line(scope=_DROP), "scope", id="missing-scope"),
    pytest.param(line(role=_DROP), "role", id="missing-role"),
    pytest.param(line(text=_DROP), "text", id="missing-text"),
    pytest.param(line(at=_DROP), "at", id="missing-at"),
    pytest.param(line(text=5), "text", id="text-not-a-string"),
    pytest.param(line(text="   "), "text", id="blank-text"),
    pytest.param(line(scope=5), "scope", id="scope-not-a-string"),
    pytest.param(line(speaker=5), "speaker", id="speaker-not-a-string"),
    pytest.param(line(session=""), "session", id="empty-session"),
    pytest.param(line(id="x" * 129), "id", id="id-too-long"),
    pytest.param(line(colour="red"), "colour", id="unknown-field"),
    pytest.param(line(at="2025-03-02T09:14:00"), "at", id="naive-time"),
    pytest.param(line(at="yesterday"), "at", id="unparsable-time"),
    pytest.param(line(at=1741000000), "at", id="epoch-number-time"),
    pytest.param(line(role="robot"), "role", id="bad-role"),
    pytest.param(line(scope="../x"), "scope", id="scope-dotdot"),
    pytest.param(line(scope="a/b"), "scope", id="scope-slash"),
    pytest.param(line(scope=""), "scope", id="scope-empty"),
    pytest.param(line(scope=".hidden"), "scope", id="scope-dot-first"),
    pytest.param(line(scope="a" * 129), "scope", id="scope-129-chars"),
    pytest.param(line(scope="maya smith"), "scope", id="scope-space"),
]


class TestValidation:
    @pytest.mark.parametrize("text, field", REJECTED)
    def test_rejected_line_names_the_field(self, text: str, field: str) -> None:
        """Each malformed line yields one LineError that names the offending field and line."""
        (item,) = parse_lines([text], "f.jsonl")
        assert isinstance(item, LineError)
        assert (item.source, item.line, item.field) == ("f.jsonl", 1, field)
        assert str(item).startswith(f"f.jsonl:1: field '{field}'")

    @pytest.mark.parametrize(
        "overrides",
        [
            pytest.param({}, id="minimal"),
            pytest.param({"session": "s-1", "speaker": "Maya", "id": "msg-1"}, id="all-optional-fields"),
            pytest.param({"session": None, "speaker": None, "id": None}, id="explicit-nulls"),
            pytest.param({"at": "2025-03-02T08:14:00Z"}, id="z-suffix"),
            pytest.param({"scope": "a" * 128}, id="scope-128-chars"),
            pytest.param({"scope": "Maya_2.old-x"}, id="scope-all-allowed-characters"),
            pytest.param({"role": "action"}, id="role-action"),
        ],
    )
    def test_accepted(self, overrides: dict[str, object]) -> None:
        """Valid records become aware NewMessages at the same instant, whatever the offset syntax."""
        (item,) = parse_lines([line(**overrides)], "f.jsonl")
        assert not isinstance(item, LineError), item
        assert item.at.utcoffset() is not None
        assert item.at == datetime(2025, 3, 2, 8, 14, tzinfo=timezone.utc)
        for key, value in overrides.items():
            if key != "at":
                assert getattr(item, key) == value

    def test_blank_lines_are_skipped_but_counted(self) -> None:
        """Blank lines are ignored, yet line numbers still match the file."""
        items = list(parse_lines([line(), "\n", "   \n", "not json\n"], "f"))
        assert len(items) == 2
        assert isinstance(items[1], LineError) and items[1].line == 4

    def test_now_fills_a_missing_time_only_for_the_api(self) -> None:
        """validate() uses `now` when `at` is absent; without `now` a missing `at` is an error."""
        assert validate(record(at=None), now=lambda: T0).at == T0
        with pytest.raises(InvalidMessage) as caught:
            validate(record(at=None))
        assert caught.value.field == "at"

    def test_same_instant_in_another_offset_is_the_same_message(self) -> None:
        """The content hash uses the UTC instant, so +01:00 and Z spellings are one message."""
        a = validate(record(at="2025-03-02T09:14:00+01:00"))
        b = validate(record(at="2025-03-02T08:14:00Z"))
        assert a.key() == b.key()
        assert a.key() != validate(record(text="hello!")).key()


# --- import -----------------------------------------------------------------------------------

class TestImport:
    def test_same_file_twice_adds_nothing(self, run_cli, app: App, tmp_path: Path) -> None:
        """A second import of the same file reports only duplicates and leaves the log unchanged."""
        path = jsonl(tmp_path / "h.jsonl", good_lines(5) + good_lines(3, scope="tom"))
        first = run_cli("import", str(path), "--json")
        assert first.exit_code == 0, first.stderr
        assert json.loads(first.stdout) == {"added": 8, "duplicates": 0, "invalid": []}
        before = stored(app)
        second = run_cli("import", str(path), "--json")
        assert second.exit_code == 0, second.stderr
        assert json.loads(second.stdout) == {"added": 0, "duplicates": 8, "invalid": []}
        assert stored(app) == before

    def test_duplicates_within_one_file(self, run_cli, app: App, tmp_path: Path) -> None:
        """A line repeated in one file (or the same id with the same message) is added once."""
        lines = good_lines(2) + good_lines(1) + [line(id="k1", text="a"), line(id="k1", text="a")]
        result = run_cli("import", str(jsonl(tmp_path / "d.jsonl", lines)), "--json")
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout) == {"added": 3, "duplicates": 2, "invalid": []}
        assert [text for _, _, text in stored(app)] == ["message 0", "message 1", "a"]

    def test_an_id_given_to_another_message_is_a_bad_line(self, run_cli, app: App, tmp_path: Path) -> None:
        """The same id with other content was counted a duplicate and the second message lost
        without a word; it is a bad line, in the file or against what is logged, and nothing of
        the file is added (--skip-invalid: the rest is)."""
        run_cli("import", str(jsonl(tmp_path / "a.jsonl", [line(id="k1", text="first")])))
        lines = [line(id="k2", text="x"), line(id="k2", text="y"), line(id="k1", text="second")]
        result = run_cli("import", str(jsonl(tmp_path / "b.jsonl", lines)))
        assert result.exit_code == 2
        assert "b.jsonl:2: field 'id': 'k2' is given before in scope 'maya' with a different text" in result.stderr
        assert "b.jsonl:3: field 'id': 'k1' is already logged in scope 'maya' with a different text" in result.stderr
        assert [text for _, _, text in stored(app)] == ["first"]
        skipped = run_cli("import", "--skip-invalid", "--json", str(tmp_path / "b.jsonl"))
        assert json.loads(skipped.stdout)["added"] == 1 and len(json.loads(skipped.stdout)["invalid"]) == 2
        assert [text for _, _, text in stored(app)] == ["first", "x"]

    def test_from_stdin(self, run_cli, app: App) -> None:
        """`consolidator import -` reads JSON lines from stdin."""
        result = run_cli("import", "-", input="".join(item + "\n" for item in good_lines(4)))
        assert result.exit_code == 0, result.stderr
        assert "added 4" in result.stdout
        assert len(stored(app)) == 4

    def test_bad_line_rejects_the_whole_file(self, run_cli, app: App, tmp_path: Path) -> None:
        """A bad line 3 exits 2 naming file, line and field; nothing of the file is added; earlier messages stay."""
        earlier = jsonl(tmp_path / "earlier.jsonl", good_lines(3, scope="tom"))
        assert run_cli("import", str(earlier)).exit_code == 0
        before = stored(app)
        bad = jsonl(tmp_path / "bad.jsonl", good_lines(2) + [line(at="2025-03-02T10:00:00")] + good_lines(2, start=10))
        result = run_cli("import", str(bad))
        assert result.exit_code == 2
        assert f"{bad}:3: field 'at'" in result.stderr
        assert "nothing from it was added" in result.stderr
        assert stored(app) == before and len(before) == 3

    @pytest.mark.parametrize("text, field", REJECTED)
    def test_every_rejected_case_exits_2(self, run_cli, app: App, tmp_path: Path, text: str, field: str) -> None:
        """Every rejected line, through the CLI, exits 2 naming file, line and field; the log is unchanged."""
        assert run_cli("import", str(jsonl(tmp_path / "ok.jsonl", good_lines(2, scope="tom")))).exit_code == 0
        bad = jsonl(tmp_path / "bad.jsonl", good_lines(1) + [text])
        result = run_cli("import", str(bad))
        assert result.exit_code == 2
        assert f"{bad}:2: field '{field}'" in result.stderr
        assert [scope for scope, _, _ in stored(app)] == ["tom", "tom"]

    def test_skip_invalid_keeps_good_lines(self, run_cli, app: App, tmp_path: Path) -> None:
        """--skip-invalid adds the good lines, lists every bad one and still exits 2."""
        lines = good_lines(2) + [line(role="robot")] + good_lines(1, start=5) + ["{oops"]
        path = jsonl(tmp_path / "mixed.jsonl", lines)
        result = run_cli("import", str(path), "--skip-invalid", "--json")
        assert result.exit_code == 2
        report = json.loads(result.stdout)
        assert report["added"] == 3 and report["duplicates"] == 0
        assert [e.split(": field ")[0] for e in report["invalid"]] == [f"{path}:3", f"{path}:5"]
        assert f"{path}:3: field 'role'" in result.stderr
        assert f"{path}:5: field '<json>'" in result.stderr
        assert [text for _, _, text in stored(app)] == ["message 0", "message 1", "message 5"]

    def test_import_stream_api_is_atomic(self, app: App) -> None:
        """import_stream raises ImportRejected listing every bad line and writes nothing."""
        stream = io.StringIO("\n".join(good_lines(3) + ["{", line(scope="a/b")]) + "\n")
        with pytest.raises(ImportRejected) as caught:
            import_stream(app.engine, stream, "s.jsonl", T0)
        assert [(e.line, e.field) for e in caught.value.errors] == [(4, "<json>"), (5, "scope")]
        assert stored(app) == []

    def test_json_output_shape(self, run_cli, tmp_path: Path) -> None:
        """`import --json` prints one JSON object with added, duplicates and invalid."""
        result = run_cli("import", str(jsonl(tmp_path / "j.jsonl", good_lines(1))), "--json")
        assert result.exit_code == 0
        assert json.loads(result.stdout) == {"added": 1, "duplicates": 0, "invalid": []}


# --- consolidator log -------------------------------------------------------------------------

class TestLogCommand:
    def test_logs_and_prints_the_id(self, run_cli, app: App) -> None:
        """`consolidator log` stores the message and prints its id; the same message twice is stored once."""
        args = ("log", "--scope", "maya", "--role", "user", "--at", "2025-03-02T09:14:00+01:00", "--session", "s1",
                "--speaker", "Maya", "hello there")
        first = run_cli(*args)
        second = run_cli(*args)
        assert first.exit_code == 0 and second.exit_code == 0, first.stderr
        assert first.stdout.strip() == second.stdout.strip() != ""
        with reading(app.engine) as session:
            (message,) = session.execute(select(Message)).scalars().all()
        assert (message.id, message.session, message.speaker, message.text) == (
            first.stdout.strip(), "s1", "Maya", "hello there")
        assert message.at == datetime(2025, 3, 2, 8, 14, tzinfo=timezone.utc)

    def test_explicit_id_is_used(self, run_cli) -> None:
        """--id is the idempotency key within the scope; the stored id printed back is scope:id."""
        result = run_cli("log", "--scope", "maya", "--role", "user", "--id", "turn-7", "hi")
        assert result.exit_code == 0 and result.stdout.strip() == "maya:turn-7"

    @pytest.mark.parametrize(
        "option, value",
        [("--at", "2025-03-02T09:14:00"), ("--at", "tomorrow"), ("--scope", "../x"), ("--scope", ".hidden"),
         ("--role", "robot"), ("--speaker", "x" * 300)],
    )
    def test_bad_option_exits_2_and_adds_nothing(self, run_cli, app: App, option: str, value: str) -> None:
        """A bad --at, --scope, --role or --speaker exits 2 naming the option; nothing is added."""
        assert run_cli("log", "--scope", "tom", "--role", "user", "before").exit_code == 0
        args = {"--scope": "maya", "--role": "user", "--at": "2025-03-02T09:14:00Z"}
        args[option] = value
        result = run_cli("log", *[part for pair in args.items() for part in pair], "text")
        assert result.exit_code == 2
        assert option in result.stderr
        assert [text for _, _, text in stored(app)] == ["before"]


# --- MessageLog API ---------------------------------------------------------------------------

class TestMessageLog:
    @pytest.fixture
    def log(self, app: App) -> MessageLog:
        return MessageLog(app=app)

    def test_seq_is_dense_per_scope_in_arrival_order(self, log: MessageLog, app: App) -> None:
        """Each scope numbers its messages 1..n in arrival order, not in `at` order."""
        arrivals = [("a", 5), ("b", 1), ("a", 3), ("a", 9), ("b", 0), ("c", 2), ("a", 1)]
        for index, (scope, minute) in enumerate(arrivals):
            log.append(scope=scope, role="user", text=f"m{index}", at=T0 + timedelta(minutes=minute))
        expected = []
        for scope in ("a", "b", "c"):
            texts = [f"m{i}" for i, (s, _) in enumerate(arrivals) if s == scope]
            expected += [(scope, seq, text) for seq, text in enumerate(texts, start=1)]
        assert stored(app) == expected

    def test_seq_continues_across_calls_and_imports(self, log: MessageLog, app: App) -> None:
        """append, extend and import share one per-scope sequence without gaps."""
        log.append(scope="a", role="user", text="one", at=T0)
        log.extend([{"scope": "a", "role": "user", "text": "two", "at": T0}])
        import_stream(app.engine, io.StringIO(line(scope="a", text="three") + "\n"), "x", T0)
        assert [seq for _, seq, _ in stored(app)] == [1, 2, 3]

    def test_append_is_idempotent(self, log: MessageLog, app: App) -> None:
        """Appending the same message twice returns the same id and stores it once."""
        first = log.append(scope="maya", role="assistant", text="ok", at="2025-03-02T09:14:00+01:00")
        second = log.append(scope="maya", role="assistant", text="ok", at=T0 - timedelta(hours=1))
        keyed = [log.append(scope="maya", role="user", text="x", at=T0, id="k") for _ in range(2)]
        assert first == second
        assert keyed == ["maya:k", "maya:k"]
        assert len(stored(app)) == 2

    def test_a_message_with_an_id_and_attachments_sent_again_is_a_duplicate(self, log: MessageLog, app: App) -> None:
        """The stored attachments were read into the wrong field: resending it was a conflict."""
        sent = dict(scope="maya", role="user", text="Look!", at=T0, id="p1", attachments=[{"kind": "image", "caption": "a cat"}])
        assert log.append(**sent) == log.append(**sent) == "maya:p1"
        assert log.extend([sent]).duplicates == 1
        with pytest.raises(IdConflict, match="a different attachments"):
            log.append(**{**sent, "attachments": [{"kind": "image", "caption": "a dog"}]})

    def test_an_id_given_to_another_message_raises_and_changes_nothing(self, log: MessageLog, app: App) -> None:
        """append() and extend() returned the first message's id for a second, different one,
        which was lost; `log --id` and the MCP server refused it. All paths refuse it now."""
        log.append(scope="maya", role="user", text="I moved to Paris.", at=T0, id="msg-0001")
        with pytest.raises(IdConflict, match=r"'msg-0001' is already logged in scope 'maya' with a different text"):
            log.append(scope="maya", role="user", text="I moved to Rome.", at=T0, id="msg-0001")
        with pytest.raises(IdConflict, match=r"record 2: 'b' is given before"):
            log.extend([{"scope": "maya", "role": "user", "text": t, "at": T0, "id": i}
                        for t, i in (("one", "a"), ("two", "b"), ("three", "b"))])
        assert [text for _, _, text in stored(app)] == ["I moved to Paris."]  # extend: all or nothing

    def test_same_caller_id_in_two_scopes_keeps_both(self, log: MessageLog, app: App) -> None:
        """Caller ids are scoped: the same key in another scope is another message, not a duplicate."""
        ids = [log.append(scope=scope, role="user", text=f"from {scope}", at=T0, id="msg-0001") for scope in ("maya", "bob")]
        assert ids == ["maya:msg-0001", "bob:msg-0001"]
        assert len(stored(app)) == 2

    def test_append_rejects_naive_time(self, log: MessageLog, app: App) -> None:
        """A naive datetime is refused with InvalidMessage on field 'at'."""
        with pytest.raises(InvalidMessage) as caught:
            log.append(scope="maya", role="user", text="x", at=datetime(2025, 1, 1))
        assert caught.value.field == "at"
        assert stored(app) == []

    def test_append_without_time_uses_now(self, log: MessageLog, app: App) -> None:
        """Without `at` the message is stamped with the current UTC time."""
        before = datetime.now(timezone.utc)
        log.append(scope="maya", role="user", text="now")
        with reading(app.engine) as session:
            at = session.execute(select(Message.at)).scalar_one()
        assert before - timedelta(seconds=1) <= at <= datetime.now(timezone.utc)

    def test_extend_is_all_or_nothing(self, log: MessageLog, app: App) -> None:
        """One bad record in extend() raises naming its index and field, and none is stored."""
        log.append(scope="maya", role="user", text="kept", at=T0)
        records = [record(text="a"), record(text="b"), record(scope="../x")]
        with pytest.raises(InvalidMessage) as caught:
            log.extend(records)
        assert caught.value.field == "scope"
        assert "record 2" in str(caught.value)
        assert [text for _, _, text in stored(app)] == ["kept"]

    def test_extend_reports_added_and_duplicates(self, log: MessageLog) -> None:
        """extend() returns counts and one id per record, duplicates included."""
        result = log.extend([record(text="a"), record(text="b"), record(text="a")])
        assert (result.added, result.duplicates) == (2, 1)
        assert len(result.ids) == 3 and result.ids[0] == result.ids[2]

    def test_message_log_from_config_path(self, tmp_path: Path) -> None:
        """MessageLog(config) opens the state dir named in that config file."""
        cfg = tmp_path / "c.toml"
        cfg.write_text(f'state_dir = "{tmp_path / "st"}"\n', encoding="utf-8")
        with MessageLog(cfg) as log:
            log.append(scope="maya", role="user", text="x", at=T0)
        assert (tmp_path / "st" / "consolidator.db").is_file()


class TestHostileFiles:
    @pytest.mark.parametrize(
        "raw, field",
        [
            (b'{"scope": "maya", "at": "0001-01-01T00:30+01:00", "role": "user", "text": "x"}\n', "at"),
            (b'{"scope": "maya", "at": "9999-12-31T23:00-05:00", "role": "user", "text": "x"}\n', "at"),
            (b'{"scope": "maya", "at": "1975-01-01T00:00+00:00", "role": "user", "text": "x"}\n', "at"),
            (b'{"scope": "maya", "at": "2025-01-01T00:00+00:00", "role": "user", "text": "bad \\ud800"}\n', "text"),
            (b'{"scope": "maya", "at": "2025-01-01T00:00+00:00", "role": "user", "text": "\xff\xfe"}\n', "<encoding>"),
        ],
    )
    def test_rejected_with_line_and_field(self, run_cli, tmp_path, app: App, raw: bytes, field: str) -> None:
        """Out-of-range times, lone surrogates and non-UTF-8 bytes are line errors (exit 2), not crashes."""
        path = tmp_path / "hostile.jsonl"
        path.write_bytes(b'{"scope": "maya", "at": "2025-01-01T00:00+00:00", "role": "user", "text": "fine"}\n' + raw)
        result = run_cli("import", str(path))
        assert result.exit_code == 2
        assert f"{path}:2: field '{field}'" in result.stderr
        assert stored(app) == []

    def test_byte_order_mark_is_accepted(self, run_cli, tmp_path, app: App) -> None:
        """A UTF-8 file starting with a byte-order mark imports normally."""
        path = tmp_path / "bom.jsonl"
        path.write_bytes(b'\xef\xbb\xbf{"scope": "maya", "at": "2025-01-01T00:00+00:00", "role": "user", "text": "hi"}\n')
        assert run_cli("import", str(path)).exit_code == 0 and len(stored(app)) == 1
