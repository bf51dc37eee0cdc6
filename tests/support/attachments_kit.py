"""Messages with attachments, as the attachment tests write and read them: one photo, one link,
the import record that carries them and what every rendering shows of them."""

from __future__ import annotations

from datetime import datetime, timezone

PHOTO = {"kind": "image", "caption": "a cake shaped like a lighthouse", "uri": "https://example.org/cake.jpg"}
LINK = {"kind": "link", "caption": "the festival programme", "uri": "https://example.org/fest"}
ATTACHMENTS = [PHOTO, LINK]
# What a model, a summary input and the recall index show after the message's text.
SHOWN = "(photo: a cake shaped like a lighthouse) (link: the festival programme <https://example.org/fest>)"
AT = datetime(2025, 3, 2, 9, 14, tzinfo=timezone.utc)
TEXT = "Look what we baked for the fair last night!"


def record(**overrides: object) -> dict[str, object]:
    """An import-format record of Ana's that carries a photo and a link."""
    base: dict[str, object] = {"scope": "ana", "at": AT.isoformat(), "role": "user", "speaker": "Ana", "text": TEXT,
                               "session": "s1", "id": "m1", "attachments": ATTACHMENTS}
    base.update(overrides)
    return base
