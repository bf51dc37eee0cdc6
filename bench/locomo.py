"""Loading the LoCoMo development conversations (../shared/data/locomo-dev) as log messages.

    from bench.locomo import load_locomo
    conversations = load_locomo()            # [Conversation(scope="conv-26", sessions=[...]), ...]

Each sample is one scope (its sample_id); each `session_N` is one interaction (`session` =
"session_N"). Both speakers are people: every turn is role "user" with `speaker` set. Sessions
carry a local date-time ("1:56 pm on 8 May, 2023", read as UTC); turns carry none, so turn k
of a session is placed `spacing` seconds after the previous one (30-60 s, drawn from a
seeded generator: the same file always gives the same times). A turn that shares an image
keeps its text, and the image is an attachment of kind "image": its caption the turn's
`blip_caption`, its uri the first `img_url` (docs/attachments.md). `said(message)` is a
message as every reader shows it, its attachments after its text. Message ids are
"<sample_id>:<dia_id>", so importing twice adds nothing.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from consolidator.model.attachments import decode, encode, with_attachments
from stores.messages import NewMessage

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo-dev" / "locomo-dev.json"
_SESSION = re.compile(r"^session_(\d+)$")


@dataclass(frozen=True)
class Session:
    name: str  # "session_N"
    at: datetime  # start of the session (UTC)
    messages: tuple[NewMessage, ...]


@dataclass(frozen=True)
class Conversation:
    scope: str
    speakers: tuple[str, str]
    sessions: tuple[Session, ...]

    @property
    def messages(self) -> list[NewMessage]:
        return [m for s in self.sessions for m in s.messages]


def parse_session_time(text: str) -> datetime:
    """ "1:56 pm on 8 May, 2023" -> 2023-05-08 13:56 UTC."""
    return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def load_locomo(path: Path = DEFAULT_PATH, spacing: tuple[float, float] = (30.0, 60.0), seed: int = 0) -> list[Conversation]:
    rng = random.Random(seed)
    out = []
    for sample in json.loads(Path(path).read_text(encoding="utf-8")):
        conv = sample["conversation"]
        scope = sample["sample_id"]
        numbers = sorted(int(m.group(1)) for key in conv if (m := _SESSION.match(key)))
        sessions = []
        for n in numbers:
            turns = conv[f"session_{n}"]
            if not turns:
                continue
            start = parse_session_time(conv[f"session_{n}_date_time"])
            at = start
            messages = []
            for turn in turns:
                messages.append(NewMessage(scope=scope, at=at, role="user", text=turn["text"], speaker=turn["speaker"],
                                           session=f"session_{n}", id=f"{scope}:{turn['dia_id']}",
                                           attachments=encode(image_of(turn))))
                at += timedelta(seconds=rng.uniform(*spacing))
            sessions.append(Session(f"session_{n}", start, tuple(messages)))
        sessions.sort(key=lambda s: s.at)
        out.append(Conversation(scope, (conv["speaker_a"], conv["speaker_b"]), tuple(sessions)))
    return out


def image_of(turn: dict) -> list[dict]:
    """A turn's shared image as attachments: [] when it shares none."""
    caption = (turn.get("blip_caption") or "").strip()
    if not caption:
        return []
    urls = turn.get("img_url") or []
    uri = (urls[0] if isinstance(urls, list) and urls else urls if isinstance(urls, str) else None) or None
    return [{"kind": "image", "caption": caption, "uri": uri}]


def said(message: NewMessage) -> str:
    """A message's text followed by its attachments, as the product renders them."""
    return with_attachments(message.text, decode(message.attachments))
