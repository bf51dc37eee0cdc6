"""A reflect request over a big group still fits a small window: its last-said facts give way
(at least two stay), instead of the request being refused - which failed every reflection of the
scope's pass, on every pass, at 2,048 tokens."""

from __future__ import annotations

from consolidator.model import schemas, window
from consolidator.model.prompts import _SPECS, _render


def measure(op: str, request: object) -> int:
    spec = _SPECS[op]
    return (len(spec.system) + len(str(spec.tool_param)) + len(_render(request))) // 4


def test_a_reflect_request_over_the_window_keeps_its_first_facts_and_fits() -> None:
    facts = [schemas.KnownFact(id=f"f{k}", text=f"Ana went sailing on the lake with her friends from the club, trip number {k}")
             for k in range(80)]
    request = schemas.ReflectRequest(scope="s", subject="Ana", facts=facts, max_items=8)
    step = window.plan("reflect", request, measure, 2048, 512)
    assert isinstance(step, window.Ask)
    assert 2 <= len(step.request.facts) < 80 and step.request.facts == facts[: len(step.request.facts)]
    assert measure("reflect", step.request) + step.max_tokens <= 2048


def test_a_cut_reflect_request_loses_the_topic_counted_over_the_whole_group() -> None:
    facts = [schemas.KnownFact(id=f"f{k}", text=f"Ana went sailing on the lake with her friends from the club, trip number {k}")
             for k in range(80)]
    whole = schemas.ReflectRequest(scope="s", subject="Ana", facts=facts[:3], max_items=8, topic="sport")
    assert window.plan("reflect", whole, measure, 2048, 512).request.topic == "sport"  # fits: kept
    cut = window.plan("reflect", whole.model_copy(update={"facts": facts}), measure, 2048, 512).request
    assert len(cut.facts) < 80 and cut.topic == ""
