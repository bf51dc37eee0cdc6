"""What a summary reads: raw lines rendered the same way for both ladders, and the content hash.

Both base rungs (a day, an interaction) render a message identically, so a day that is exactly
one interaction has identical inputs on both ladders and its summary is bought once.
"""

from __future__ import annotations

import hashlib
import json
from zoneinfo import ZoneInfo

from consolidator.model.attachments import decode, with_attachments
from consolidator.model.schemas import SummaryInput
from stores.schema.log import Message

PROMPT_VERSION = "summary-v2"  # v2: lines carry their local date


def render(message: Message, tz: ZoneInfo) -> str:
    """One raw line as summary input: local date and time, who, what (the same for both ladders).

    The date is the scope's local date, not UTC's: a count rung spans days, and "yesterday"
    in a line is resolved against the date of that line. Attachments follow the text as every
    rendering shows them ("(photo: a cake shaped like a castle)", consolidator/model/attachments.py).
    """
    who = message.speaker or message.role
    if message.role in ("action", "tool") and message.speaker is None:
        who = f"[{message.role}]"
    text = with_attachments(message.text, decode(getattr(message, "attachments", None)))
    return f"{message.at.astimezone(tz):%Y-%m-%d %H:%M} {who}: {text}"


def content_hash(model: str, budget: int, inputs: list[SummaryInput]) -> str:
    """Same model, prompt, budget and inputs: the same summary, so it is reused, not bought twice."""
    payload = json.dumps([PROMPT_VERSION, model, budget, [(i.label, i.text) for i in inputs]], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()
