"""Attachments of a message (a photo, a file, a link) and the one way every reader shows them.

A message may carry up to MAX_ATTACHMENTS attachments, each a kind (`image`, `file`, `link`),
a caption (what it shows or holds, as text) and an optional uri. The log stores them as
canonical JSON text (`encode`); the model sees them as `Attachment`s of a `Line`.

Every text rendering (the Anthropic prompt's lines, summary inputs, the recall index, the
offline rules' reading of a line) writes them after the message's text, one parenthesis each:

    Ana: Look what we made yesterday! (photo: a cake shaped like a castle)
    Ana: The programme is here (link: festival programme <https://example.org/fest>)

`render` is that form and `ATTACHMENT` its pattern, kept here together: the offline rules
recognise what `render` writes, so the format and its parser cannot drift apart. An image is
a "photo" (the word people use), a file a "file", a link a "link"; only a link shows its uri
(the address is what a link says; an image's or file's uri is a location nobody can read in a
prompt). A caption is one line: runs of whitespace become one space.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field

KINDS = ("image", "file", "link")
MAX_ATTACHMENTS = 16  # per message
MAX_CAPTION_CHARS = 2_000
MAX_URI_CHARS = 2_048
FIELDS = ("kind", "caption", "uri")
WORDS = {"image": "photo", "file": "file", "link": "link"}  # what a rendering calls each kind


class Attachment(BaseModel):
    """One attachment as a model sees it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["image", "file", "link"]
    caption: str = Field(min_length=1, max_length=MAX_CAPTION_CHARS)
    uri: str | None = Field(default=None, max_length=MAX_URI_CHARS)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def render_one(attachment: Attachment) -> str:
    """`(photo: caption)`, `(file: caption)`, `(link: caption <uri>)`."""
    caption = _one_line(attachment.caption)
    if attachment.kind == "link" and attachment.uri:
        caption = f"{caption} <{_one_line(attachment.uri)}>"
    return f"({WORDS[attachment.kind]}: {caption})"


def render(attachments: Iterable[Attachment]) -> str:
    """What follows a message's text: " (photo: ...) (file: ...)", "" for none."""
    return "".join(" " + render_one(a) for a in attachments)


def with_attachments(text: str, attachments: Iterable[Attachment]) -> str:
    """A message's text followed by its attachments, as every rendering shows it."""
    return text + render(attachments)


# The pattern of one rendered attachment: its word, then the caption up to the closing
# parenthesis (a caption may hold parentheses one level deep: "(photo: a cat (asleep))").
ATTACHMENT_FORM = r"\((?:photo|file|link): (?:[^()\n]|\([^()\n]*\))+\)"  # no groups: for re.split
ATTACHMENT = re.compile(r"\((?P<word>photo|file|link): (?P<caption>(?:[^()\n]|\([^()\n]*\))+)\)")


def is_rendered(text: str) -> bool:
    """Whether `text` starts with one rendered attachment (an aside of the line, not speech)."""
    return ATTACHMENT.match(text) is not None


def encode(attachments: Iterable[Mapping[str, Any]]) -> str | None:
    """Validated attachments as the stored JSON text (keys in a fixed order, no uri when none);
    None for none, so a message without attachments stores and hashes as it always did."""
    items = [{k: a[k] for k in FIELDS if a.get(k) is not None} for a in attachments]
    return json.dumps(items, ensure_ascii=False, separators=(",", ":")) if items else None


def decode(stored: str | None) -> list[Attachment]:
    """The stored JSON text as Attachments ([] for none)."""
    if not stored:
        return []
    return [Attachment(**item) for item in json.loads(stored)]


def as_records(stored: str | None) -> list[dict]:
    """The stored JSON text as import-format objects ([] for none)."""
    return json.loads(stored) if stored else []
