"""What "this" and "it" point at when a line shares a photo: the fact names the thing shown.

"Last night I made this yummy grilled dish!" with an image attachment captioned "a photo of a
plate of food with a piece of salmon and some vegetables" gave the fact "Tomas made this yummy
grilled dish": the memory keeps a pointer to a photo its reader never sees. When the sentence a
fact comes from carries exactly one photo, that is, the line has exactly one image attachment
and the sentence is the line's last (attachments follow the text, model/attachments.py), the
fact's pointer is followed by what the photo shows, in the summariser's short form of a photo
(text_compact.compact_aside):

    Tomas made this yummy grilled dish (photo: a plate of food with a piece of salmon ...) (2023-08-14).
    Ana painted it (photo: a painting of a sunset over the ocean) after Ana visited the beach.

A pointer is the first "this"/"these" of the fact (with the words of its noun phrase: "this
pic", "this yummy grilled dish") or an "it", "this" or "these" that is the object of the fact's
first verb ("Maya got it as a gift"). A fact that quotes the speaker ("X said: ...") keeps the
words as said; a pointer in a sentence that carries no photo, or two, is left alone (what it
means would be a guess). bench/recall.py, development subset: facts 435 -> 433, stores 39,517 ->
39,858 characters, single-hop answers in the stores 118 -> 119.

A sentence that only presents the photo ("Here's the finished bookshelf", "Take a look at this",
"Check it out!", "Look what I made") states nothing a clause rule reads, though what it shows is
the point of the line: the photo becomes the fact, dated the day it was shared, unless a claim of
the same sentence already names it ("Here's dinner: I made this grilled dish!"):

    Ana shared a photo of a painting of a lighthouse at dusk (2023-05-07).

bench/recall.py, development subset: facts 413 -> 427 (22 shared photos, some displacing weaker
facts under the batch's share), stores 44,175 -> 45,322 characters; answers in the stores:
single-hop 116 -> 123, multi-hop 35 -> 37, temporal 84 -> 83 (of 187, 80, 96); recall at
500 / 1,000 / 2,000 tokens, all categories: 237 / 272 / 291 -> 242 / 274 / 290 of 389.
"""

from __future__ import annotations

import re

from consolidator.model.attachments import Attachment, render_one
from consolidator.model.offline.text_compact import MEDIA, compact_aside
from consolidator.model.offline.words import NP_ENDS  # the noun phrase after "this" ends there or at punctuation

_THIS = re.compile(r"\b(?:this|these)\b", re.I)
_OBJECT = re.compile(r"^(?:[A-Z][\w'-]*\s+){1,3}[a-z]+\s+(?:it|this|these)\b(?!\s*['’])")
MAX_NP_WORDS = 4
_NEXT_WORD = re.compile(r"[ \t]+([A-Za-z][\w']*)\b(?![-/])")


def caption_of(attachments: list[Attachment]) -> str | None:
    """The one image of a line's `attachments` as "photo: what it shows", else None."""
    shown = [compact_aside(render_one(a)) for a in attachments if a.kind == "image"]
    return shown[0][1:-1].strip() if len(shown) == 1 else None


def with_shown(fact: str, caption: str | None) -> str:
    """`fact` with `caption` after its pointer (module docstring); the fact itself when it has none."""
    if not caption or " said: " in fact or caption.split(": ", 1)[-1].lower() in fact.lower():
        return fact
    m = _OBJECT.match(fact) or _THIS.search(fact)
    if not m:
        return fact
    end = m.end()
    if not fact[:end].lower().endswith("it"):  # "this pic", "these cookies": the noun phrase too
        for _ in range(MAX_NP_WORDS):
            word = _NEXT_WORD.match(fact, end)
            if not word or word.group(1).lower() in NP_ENDS or word.group(1)[:1].isupper():
                break
            end = word.end()
    return f"{fact[:end]} ({caption}){fact[end:]}"


# A sentence that only presents what the line shows: "Here's the finished bookshelf", "Take a look at
# this", "Check it out!", "Look what I made". It states nothing, so no clause rule reads it, yet
# the photo it presents is often the point of the line (a painting, a dish, a new pair of shoes).
_PRESENTING = re.compile(
    r"^(?:(?:by the way|btw|oh|and|so|also|anyway|hey|look|ok|okay)[,!.]?\s+)*"
    r"(?:here(?:'s|\u2019s| is| are)|(?:take|have) a look|check (?:it|this|these|that|them) out|check out|look at|"
    r"look what|see this)\b",
    re.I,
)
_MEDIUM_ONLY = re.compile(rf"^(?:(?:a|an|the)\s+)?(?:{MEDIA})(?:\s+of)?$", re.I)  # "a photo of": it shows nothing said


def presented(sentence: str, caption: str | None) -> str | None:
    """For a sentence that presents the line's one photo: "shared a photo of <what it shows>",
    the photo as what was said (shown.py's module docstring); else None."""
    if not caption or not _PRESENTING.match(sentence.strip()):
        return None
    what = _MEDIUM_ONLY.sub("", caption.partition(":")[2].strip().rstrip(".").strip())
    return f"shared a photo of {what}" if re.search(r"\w", what) else None
