"""window.plan: every request within the window; batches split, known items cut, summary inputs trimmed whole."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from consolidator.model import schemas, window
from consolidator.model.prompts import _SPECS, _render

AT = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)


def measure(op: str, request: object) -> int:
    """A wire-like size: the system prompt, the schema and the rendered request, four characters a token."""
    spec = _SPECS[op]
    return (len(spec.system) + len(str(spec.tool_param)) + len(_render(request))) // 4


def lines(n: int, words: int = 12) -> list[schemas.Line]:
    return [schemas.Line(id=f"m{k}", at=AT + timedelta(minutes=k), role="user", speaker="Ana",
                         text=" ".join(f"word{k}x{w}" for w in range(words))) for k in range(n)]


def batch(n: int, facts: int = 0, summaries: list[tuple[int, int]] = ()) -> schemas.BatchRequest:
    msgs = lines(n)
    asks = [schemas.SummarizeRequest(scope="s", ladder="count", rung="1", window_label=f"interaction {a}",
                                     budget_tokens=100, ref=f"count/1/{a}",
                                     inputs=[schemas.SummaryInput(id=m.id, label="", text=m.text) for m in msgs[a:b]])
            for a, b in summaries]
    known = [schemas.KnownFact(id=f"f{k}", text=f"Ana fact number {k} " * 6) for k in range(facts)]
    return schemas.BatchRequest(scope="s", messages=msgs, neighbours=known, known_contacts=[], open_tasks=[],
                                summaries=asks)


def leaves(op: str, request: object, size: int, max_tokens: int = 4096) -> list[window.Ask]:
    """The asks a plan comes down to, splits followed to the end."""
    step = window.plan(op, request, measure, size, max_tokens)
    if isinstance(step, window.Ask):
        return [step]
    return [ask for o, r in step.parts for ask in leaves(o, r, size, max_tokens)]


def test_a_request_that_fits_is_asked_whole() -> None:
    """Room enough: one ask, max_tokens as configured."""
    step = window.plan("consolidate_batch", batch(5), measure, 32_000, 4096)
    assert isinstance(step, window.Ask) and step.max_tokens == 4096 and len(step.request.messages) == 5


@pytest.mark.parametrize("size", [2048, 4096, 8192])
def test_every_ask_fits_and_every_line_is_asked_once(size: int) -> None:
    """A batch of 200 lines: each ask's prompt plus max_tokens within the window; each line in exactly one ask."""
    request = batch(200, facts=40)
    asks = leaves("consolidate_batch", request, size)
    assert all(measure(a.operation, a.request) + a.max_tokens <= size for a in asks)
    by_op: dict[str, list[str]] = {}
    for a in asks:
        by_op.setdefault(a.operation, []).extend(m.id for m in a.request.messages)
    for ids in by_op.values():
        assert sorted(ids) == sorted(m.id for m in request.messages)


def test_small_window_asks_the_three_operations() -> None:
    """When consolidate_batch's fixed prompt leaves no room, the batch is asked as facts, contacts and tasks."""
    ops = {a.operation for a in leaves("consolidate_batch", batch(20), 2048)}
    assert ops == {"extract_facts", "update_contacts", "update_tasks"}


def test_known_facts_cut_before_lines_are_split() -> None:
    """Known facts past a third of the window are cut, lowest ranked (last) first; the top ones stay."""
    request = batch(3, facts=400)
    step = window.plan("consolidate_batch", request, measure, 8192, 4096)
    assert isinstance(step, window.Ask)
    kept = step.request.neighbours
    assert 0 < len(kept) < 400 and kept == request.neighbours[: len(kept)]


def test_split_never_cuts_a_summary_asked_with_the_batch() -> None:
    """Cuts fall between the summaries' lines, so each summary goes whole to one part."""
    request = batch(60, summaries=[(0, 25), (25, 60)])
    step = window.plan("consolidate_batch", request, measure, 4500, 2048)
    assert isinstance(step, window.Split)
    parts = [r for _, r in step.parts]
    assert [len(p.messages) for p in parts] == [25, 35]
    assert [[s.ref for s in p.summaries] for p in parts] == [["count/1/0"], ["count/1/25"]]


def test_split_makes_as_few_parts_as_fit() -> None:
    """Each part holds as many lines as fit: one line more would not have fitted."""
    request = batch(200)
    step = window.plan("update_tasks", request.tasks_request(), measure, 4096, 1024)
    parts = [r for _, r in step.parts]
    assert sum(len(p.messages) for p in parts) == 200 and len(parts) >= 2
    for part, after in zip(parts, parts[1:]):
        longer = part.model_copy(update={"messages": [*part.messages, after.messages[0]]})
        assert measure("update_tasks", longer) + window.output_floor("update_tasks", longer, 1024) > 4096


def test_split_parts_carry_the_lines_before_them_as_context() -> None:
    """The first part keeps the request's context lines; each later part has the last lines of
    the part before it, as many as the request carried, so a cut never loses a reply's question."""
    request = batch(200).tasks_request()
    before = [line.model_copy(update={"id": f"c{k}"}) for k in range(2) for line in lines(1)]
    parts = [r for _, r in window.plan("update_tasks", request.model_copy(update={"context": before}),
                                       measure, 4096, 1024).parts]
    assert len(parts) >= 2 and parts[0].context == before
    for part, after in zip(parts, parts[1:]):
        assert after.context == part.messages[-2:]
    assert all(p.context == [] for _, p in window.plan("update_tasks", request, measure, 4096, 1024).parts)


def test_merge_joins_parts_and_one_person_stays_one() -> None:
    """Split replies merge: facts and tasks joined, one person's updates become one."""
    a = schemas.BatchReply(facts=[schemas.FactCandidate(text="A")], contacts=[
        schemas.ContactUpdate(name="Ana", aliases=["A"], details={"city": "Lyon"}, source_ids=["m1"], summary="moved")],
        tasks=[])
    b = schemas.BatchReply(facts=[schemas.FactCandidate(text="B")], contacts=[
        schemas.ContactUpdate(name="ana", aliases=["Annie"], details={"job": "nurse"}, source_ids=["m9"])], tasks=[])
    merged = window.merge("consolidate_batch", [a, b])
    assert [f.text for f in merged.facts] == ["A", "B"]
    (ana,) = merged.contacts
    assert ana.aliases == ["A", "Annie"] and ana.details == {"city": "Lyon", "job": "nurse"}
    assert ana.source_ids == ["m1", "m9"]


def summary_request(texts: list[str]) -> schemas.SummarizeRequest:
    return schemas.SummarizeRequest(scope="s", ladder="time", rung="week", window_label="2025-W10", budget_tokens=100,
                                    inputs=[schemas.SummaryInput(id=str(k), label=f"day {k}", text=t)
                                            for k, t in enumerate(texts)])


def test_summary_inputs_dropped_whole_by_rank() -> None:
    """Inputs that say least (fewest distinct content words) go first; the rest are kept word for word."""
    rich = ["Ana moved to Lyon on 2025-03-02 and started nursing at Hopital Edouard Herriot " + f"detail{k} " * 40
            for k in range(6)]
    thin = ["ok ok ok thanks " * 60 for _ in range(6)]
    request = summary_request([x for pair in zip(rich, thin) for x in pair])
    step = window.plan("summarize", request, measure, 2048, 2048)
    assert isinstance(step, window.Ask)
    kept = step.request.inputs
    assert measure("summarize", step.request) + step.max_tokens <= 2048
    assert all(i in request.inputs for i in kept)  # none was cut
    assert all(i.text in [k.text for k in kept] for i in request.inputs if i.text in rich)
    assert len(kept) < len(request.inputs)  # only the thin ones went


def test_a_last_input_loses_whole_lines() -> None:
    """One input too long alone loses lines from its end, never half a line."""
    text = "\n".join(f"2025-03-0{1 + k % 9} 10:00 Ana: line {k} " + "words " * 20 for k in range(200))
    step = window.plan("summarize", summary_request([text]), measure, 2048, 2048)
    (kept,) = step.request.inputs
    assert text.startswith(kept.text) and text[len(kept.text)] == "\n"
    assert measure("summarize", step.request) + step.max_tokens <= 2048


def test_cluster_keeps_its_first_facts() -> None:
    facts = [schemas.KnownFact(id=f"f{k}", text="Ana likes tea " * 30) for k in range(40)]
    step = window.plan("judge_cluster", schemas.ClusterRequest(scope="s", facts=facts), measure, 2048, 512)
    assert 2 <= len(step.request.facts) < 40 and step.request.facts == facts[: len(step.request.facts)]
    assert step.max_tokens <= 512


def test_an_operation_it_cannot_cut_is_asked_whole_or_refused() -> None:
    """An operation the window has no rule for (one added later) is asked whole if it fits, else refused."""
    request = schemas.ClusterRequest(scope="s", facts=[])
    fits = window.plan("new_operation", request, lambda op, r: 500, 2048, 1024)  # type: ignore[arg-type]
    assert isinstance(fits, window.Ask) and fits.max_tokens == 1024
    with pytest.raises(window.WindowTooSmall):
        window.plan("new_operation", request, lambda op, r: 1900, 2048, 1024)  # type: ignore[arg-type]
