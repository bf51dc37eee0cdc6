"""The offline extractor on a conversation, as the offline tests read it: two people talking
(`chat`), the facts one batch of lines gives (`fact_texts`), what Caroline's words give, and what
Maya tells the agent (`told`)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from consolidator.model.offline import OfflineModel
from consolidator.model.attachments import Attachment, render_one
from consolidator.model.schemas import FactCandidate, FactExtractionRequest, KnownFact, Line, TasksRequest

UTC = timezone.utc
MODEL = OfflineModel()
AT = datetime(2023, 5, 7, 14, 0, tzinfo=UTC)
# Monday 2025-03-03 23:30 UTC is Tuesday 00:30 in Paris (UTC+1 in March).
LATE = datetime(2025, 3, 3, 23, 30, tzinfo=UTC)


def chat(*turns: tuple[str, str], at: datetime = AT) -> list[Line]:
    """Turns (speaker, text) of two people talking, a minute apart."""
    return [Line(id=f"m{i}", at=at + timedelta(minutes=i), role="user", speaker=who, text=text)
            for i, (who, text) in enumerate(turns)]


def fact_texts(lines: list[Line], zone: str = "UTC", neighbours: list[KnownFact] = ()) -> list[str]:
    request = FactExtractionRequest(scope="s", messages=lines, neighbours=list(neighbours), timezone=zone)
    return [f.text for f in MODEL.extract_facts(request).facts]


def said_by_caroline(text: str, *photos: str) -> list[str]:
    """Caroline says `text`, sharing photos with these captions, to Melanie (who answers with
    nothing of substance)."""
    lines = chat(("Caroline", text), ("Melanie", "Wow, that's great!"))
    lines[0] = lines[0].model_copy(update={"attachments": [image(c) for c in photos]})
    return fact_texts(lines)


def image(caption: str) -> Attachment:
    return Attachment(kind="image", caption=caption)


def photo(caption: str) -> str:
    """An image attachment as every rendering shows it: "(photo: caption)"."""
    return render_one(image(caption))


def told_lines(*texts: str) -> list[Line]:
    """Maya's lines to the agent and its replies, in turn (hers first), at LATE."""
    return [Line(id=f"m{i}", at=LATE, role="assistant" if i % 2 else "user", speaker=None if i % 2 else "Maya",
                 text=text) for i, text in enumerate(texts)]


def told(*texts: str) -> tuple[list[str], list[str]]:
    """Maya's lines to the agent and its replies, in turn (hers first), at LATE: the facts' texts
    and the tasks' titles they give."""
    lines = told_lines(*texts)
    facts = MODEL.extract_facts(FactExtractionRequest(scope="s", messages=lines, neighbours=[])).facts
    tasks = MODEL.update_tasks(TasksRequest(scope="s", messages=lines, open_tasks=[])).changes
    return [f.text for f in facts], [t.title for t in tasks]


def told_against(known: list[str], *texts: str) -> list[FactCandidate]:
    """The fact candidates of Maya's lines (`told_lines`) against stored facts `known` (ids f1, f2,
    ..., each less similar than the one before): what each would add, update or leave."""
    neighbours = [KnownFact(id=f"f{i + 1}", text=t, similarity=0.8 - 0.1 * i) for i, t in enumerate(known)]
    return MODEL.extract_facts(FactExtractionRequest(scope="s", messages=told_lines(*texts), neighbours=neighbours)).facts
