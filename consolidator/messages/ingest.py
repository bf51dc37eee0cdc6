"""Ingestion: validating messages and importing JSON-lines files.

The import format is one JSON object per line:
    {"id": "optional", "scope": "maya", "at": "2025-03-02T09:14:00+01:00", "role": "user",
     "text": "...", "session": "optional", "speaker": "optional",
     "attachments": [{"kind": "image", "caption": "a cake shaped like a castle", "uri": "optional"}]}
`attachments` is optional: at most 16, each of kind image, file or link, with a non-empty caption
(up to 2,000 characters) and an optional uri (up to 2,048); see docs/attachments.md.
Validation is hand-written rather than pydantic because it runs on every line of large
imports; every error names the field (and, for files, the file and line).

Policy for a file with bad lines: by default the whole file is rejected (nothing of it is
added, everything logged before stays); with skip_invalid the good lines are added and the
bad ones reported. Either way the caller learns every bad line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from consolidator.model import attachments as attached
from stores.engine import Engine, transaction

from stores.schema.log import MAX_ID_CHARS, MAX_SESSION_CHARS, MAX_SPEAKER_CHARS
from stores.messages import ROLES, AppendResult, NewMessage, insert_new, logged_content
from stores.scopes import InvalidScope, validate_scope
from stores.types import utc

FIELDS = ("id", "scope", "at", "role", "text", "session", "speaker", "attachments")
_FIELD_SET = frozenset(FIELDS)
_ROLE_SET = frozenset(ROLES)
EARLIEST = datetime(1990, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc)


class InvalidMessage(ValueError):
    """A message that cannot be logged; `field` names the offending field."""

    def __init__(self, field_name: str, problem: str) -> None:
        super().__init__(f"field '{field_name}': {problem}")
        self.field = field_name
        self.problem = problem


@dataclass(frozen=True)
class LineError:
    source: str
    line: int
    field: str
    problem: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: field '{self.field}': {self.problem}"


class ImportRejected(ValueError):
    """The file had invalid lines and was rejected whole (nothing of it was added)."""

    def __init__(self, errors: list[LineError]) -> None:
        self.errors = errors
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"{errors[0]}{more}")


_KNOWN_SCOPES: set[str] = set()


def _valid_scope(scope: Any) -> str:
    """validate_scope, remembering names already accepted (imports repeat a few scopes)."""
    if type(scope) is str and scope in _KNOWN_SCOPES:
        return scope
    validate_scope(scope)
    if len(_KNOWN_SCOPES) < 10_000:
        _KNOWN_SCOPES.add(scope)
    return scope


def parse_time(value: Any, field_name: str = "at") -> datetime:
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidMessage(field_name, f"not an ISO 8601 time: {value!r}") from None
    else:
        raise InvalidMessage(field_name, "must be an ISO 8601 time string")
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise InvalidMessage(field_name, f"time {parsed.isoformat()} has no time zone (add e.g. +00:00)")
    if not EARLIEST <= parsed <= LATEST:
        # A typo such as year 0001 would otherwise make the time ladder announce every day since.
        raise InvalidMessage(field_name, f"time {parsed.isoformat()} is outside {EARLIEST.year}-{LATEST.year - 1}")
    return parsed


def _optional_text(record: Mapping[str, Any], name: str, limit: int, label: str | None = None) -> str | None:
    value = record.get(name)
    if value is None:
        return None
    label = label or name
    if not isinstance(value, str) or not value:
        raise InvalidMessage(label, "must be a non-empty string or null")
    if len(value) > limit:
        raise InvalidMessage(label, f"longer than {limit} characters")
    _encodable(label, value)
    return value


def _encodable(name: str, value: str) -> None:
    """Refuse strings that cannot be stored as UTF-8 (lone surrogates from JSON escapes)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidMessage(name, f"invalid Unicode at position {exc.start}") from None


_ATTACHMENT_FIELDS = frozenset(attached.FIELDS)
_KINDS = frozenset(attached.KINDS)


def _attachments(value: Any) -> str | None:
    """The `attachments` field as stored JSON text (None for none); errors name the item and key."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        raise InvalidMessage("attachments", "must be a list of objects")
    if len(value) > attached.MAX_ATTACHMENTS:
        raise InvalidMessage("attachments", f"more than {attached.MAX_ATTACHMENTS} attachments")
    items = []
    for n, item in enumerate(value):
        name = f"attachments[{n}]"
        if hasattr(item, "model_dump"):  # an Attachment built in Python
            item = item.model_dump(exclude_none=True)
        if not isinstance(item, Mapping):
            raise InvalidMessage(name, "must be an object with kind, caption and optionally uri")
        if not _ATTACHMENT_FIELDS.issuperset(item):
            unknown = next(key for key in item if key not in _ATTACHMENT_FIELDS)
            raise InvalidMessage(f"{name}.{unknown}", f"unknown field (allowed: {', '.join(attached.FIELDS)})")
        kind = item.get("kind")
        if type(kind) is not str or kind not in _KINDS:
            raise InvalidMessage(f"{name}.kind", f"must be one of {', '.join(attached.KINDS)}, got {kind!r}")
        caption = item.get("caption")
        if not isinstance(caption, str) or not caption.strip():
            raise InvalidMessage(f"{name}.caption", "must be a non-empty string")
        if len(caption) > attached.MAX_CAPTION_CHARS:
            raise InvalidMessage(f"{name}.caption", f"longer than {attached.MAX_CAPTION_CHARS} characters")
        _encodable(f"{name}.caption", caption)
        uri = _optional_text(item, "uri", attached.MAX_URI_CHARS, f"{name}.uri")
        items.append({"kind": kind, "caption": caption, "uri": uri})
    return attached.encode(items)


def validate(record: Mapping[str, Any], now: Callable[[], datetime] | None = None) -> NewMessage:
    """Turn a mapping into a NewMessage, or raise InvalidMessage naming the field."""
    if type(record) is not dict and not isinstance(record, Mapping):  # dict first: the hot path
        raise InvalidMessage("<line>", "must be a JSON object")
    if not _FIELD_SET.issuperset(record):
        unknown = next(key for key in record if key not in _FIELD_SET)
        raise InvalidMessage(str(unknown), f"unknown field (allowed: {', '.join(FIELDS)})")
    for required in ("scope", "role", "text"):
        if required not in record:
            raise InvalidMessage(required, "missing")
    try:
        scope = _valid_scope(record["scope"])
    except InvalidScope as exc:
        raise InvalidMessage("scope", str(exc)) from None
    role = record["role"]
    if type(role) is not str or role not in _ROLE_SET:
        raise InvalidMessage("role", f"must be one of {', '.join(ROLES)}, got {role!r}")
    text = record["text"]
    if not isinstance(text, str) or not text.strip():
        raise InvalidMessage("text", "must be a non-empty string")
    _encodable("text", text)
    if "at" in record and record["at"] is not None:
        at = parse_time(record["at"])
    elif now is not None:
        at = now()
    else:
        raise InvalidMessage("at", "missing")
    return NewMessage(
        scope=scope,
        at=at,
        role=role,
        text=text,
        speaker=_optional_text(record, "speaker", MAX_SPEAKER_CHARS),  # the limits are the columns' sizes
        session=_optional_text(record, "session", MAX_SESSION_CHARS),
        id=_optional_text(record, "id", MAX_ID_CHARS),
        attachments=_attachments(record.get("attachments")),
    )


_COMPARED = ("text", "role", "speaker", "session", "attachments", "at")


@dataclass(frozen=True)
class Conflict:
    """A caller's id given to a second, different message: the fields that differ, and whether
    the first is logged already (else it came earlier in the same import)."""

    message: NewMessage
    changed: tuple[str, ...]
    logged: bool

    def __str__(self) -> str:
        where = "already logged" if self.logged else "given before"
        return f"{self.message.id!r} is {where} in scope {self.message.scope!r} with a different {', '.join(self.changed)}"


def id_conflicts(connection: Any, messages: Sequence[NewMessage],
                 timeless: frozenset[int] = frozenset()) -> dict[int, Conflict]:
    """Index -> Conflict for each message whose caller `id` is already logged in its scope (or
    given earlier in `messages`) with other content: an idempotency key names one message, so a
    second content under it is refused, never dropped as a duplicate. The messages at the
    `timeless` indexes were given no time (it is now): their `at` is not compared."""
    keyed = [(i, m, m.key()) for i, m in enumerate(messages) if m.id]
    if not keyed:
        return {}
    first: dict[str, NewMessage] = logged_content(connection, [k for _, _, k in keyed])
    logged = set(first)
    out: dict[int, Conflict] = {}
    for i, message, key in keyed:
        before = first.setdefault(key, message)
        if before is message:  # the id's first message: nothing to compare (most of an import)
            continue
        fields = [f for f in _COMPARED if f != "at" or i not in timeless]
        if changed := tuple(f for f in fields if _differs(f, getattr(before, f), getattr(message, f))):
            out[i] = Conflict(message, changed, key in logged)
    return out


def _differs(name: str, a: Any, b: Any) -> bool:
    return utc(a) != utc(b) if name == "at" else a != b


def parse_lines(lines: Iterable[str | bytes], source: str) -> Iterator[NewMessage | LineError]:
    """Validate a JSON-lines stream, yielding a message or an error per non-blank line.

    Lines may be bytes (decoded here as UTF-8, so one undecodable line is reported as that
    line's error instead of aborting the file; a byte-order mark on line 1 is dropped).
    """
    for _, item in _numbered(lines, source):
        yield item


def _numbered(lines: Iterable[str | bytes], source: str) -> Iterator[tuple[int, NewMessage | LineError]]:
    for number, line in enumerate(lines, start=1):
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                yield number, LineError(source, number, "<encoding>", f"not UTF-8 (byte {exc.start})")
                continue
        elif number == 1:
            line = line.removeprefix("\ufeff")
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            yield number, LineError(source, number, "<json>", f"invalid JSON: {exc.msg} (column {exc.colno})")
            continue
        try:
            yield number, validate(record)
        except InvalidMessage as exc:
            yield number, LineError(source, number, exc.field, exc.problem)


@dataclass
class ImportReport:
    added: int = 0
    duplicates: int = 0
    errors: list[LineError] = field(default_factory=list)


def import_stream(
    engine: Engine,
    stream: Iterable[str | bytes],
    source: str,
    received_at: datetime,
    skip_invalid: bool = False,
    progress: Callable[[int], None] | None = None,
    archive_root: Path | None = None,
) -> ImportReport:
    """Import a JSON-lines stream in one transaction (see the module docstring for the policy);
    `archive_root`, the archive directory, is where ids archived long ago are looked for."""
    report = ImportReport()
    valid: list[NewMessage] = []
    numbers: list[int] = []
    for number, item in _numbered(stream, source):
        if isinstance(item, LineError):
            report.errors.append(item)
        else:
            valid.append(item)
            numbers.append(number)
    if report.errors and not skip_invalid:
        raise ImportRejected(report.errors)
    with transaction(engine) as session:  # one call: every scope's counter locked once, in order
        connection = session.connection()
        if conflicts := id_conflicts(connection, valid):  # an id reused for another message: a bad line
            report.errors = sorted([*report.errors, *(LineError(source, numbers[i], "id", str(conflict))
                                                      for i, conflict in conflicts.items())], key=lambda e: e.line)
            if not skip_invalid:
                raise ImportRejected(report.errors)
            valid = [m for i, m in enumerate(valid) if i not in conflicts]
        result: AppendResult = insert_new(connection, valid, received_at, progress, archive_root=archive_root)
    report.added, report.duplicates = result.added, result.duplicates
    return report
