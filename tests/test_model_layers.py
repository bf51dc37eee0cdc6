"""One call path: a backend is `call` plus its wire format; a layer wraps another by overriding
`call` alone and keeps exactly the capability of what it wraps."""

from __future__ import annotations

import pytest

from consolidator.model.base import BatchModel, BatchOperations, Layer, Model, Operations
from consolidator.model.offline import OfflineModel
from consolidator.model.schemas import (
    BatchRequest,
    ClusterReply,
    ClusterRequest,
    ContactsReply,
    ContactsRequest,
    SummarizeRequest,
    SummaryInput,
    SummaryReply,
    TasksReply,
)
from tests.support.fakes import CountingModel


class Tagging(Layer):
    """Appends its tag to every summary and counts what passes through it."""

    def __init__(self, inner: Model, tag: str) -> None:
        super().__init__(inner)
        self.tag = tag
        self.seen: list[str] = []

    def call(self, operation, request):
        self.seen.append(operation)
        reply = super().call(operation, request)
        return SummaryReply(text=f"{reply.text} {self.tag}") if operation == "summarize" else reply


class EchoBackend(BatchOperations):
    """A whole backend in one method: its 'wire format' is echoing the request's first input."""

    name = "echo"

    def call(self, operation, request):
        if operation == "summarize":
            return SummaryReply(text=request.inputs[0].text)
        if operation == "judge_cluster":
            return ClusterReply(merge=False, reason="echo")
        if operation == "update_contacts":
            return ContactsReply(contacts=[])
        if operation == "update_tasks":
            return TasksReply(changes=[])
        raise NotImplementedError(operation)


def summary_request() -> SummarizeRequest:
    return SummarizeRequest(scope="s", ladder="time", rung="day", window_label="2025-03-02",
                            inputs=[SummaryInput(id="1", label="2025-03-02", text="Ana baked bread.")],
                            budget_tokens=50, ref="time/day/1", timezone="UTC")


def test_a_backend_is_one_call_method() -> None:
    backend = EchoBackend()
    assert isinstance(backend, Model) and isinstance(backend, BatchModel)
    assert backend.summarize(summary_request()).text == "Ana baked bread."
    assert backend.judge_cluster(ClusterRequest(scope="s", ref="c", facts=[])).reason == "echo"


def test_layers_compose_in_order_around_a_backend() -> None:
    inner = Tagging(CountingModel(), "[inner]")
    outer = Tagging(inner, "[outer]")
    reply = outer.summarize(summary_request())
    assert reply.text.endswith("[inner] [outer]")
    assert outer.seen == inner.seen == ["summarize"]
    outer.update_contacts(ContactsRequest(scope="s", ref="b", messages=[], known=[]))
    assert inner.seen == ["summarize", "update_contacts"]
    assert outer.name == "counting"


@pytest.mark.parametrize("inner, batch", [(CountingModel(), False), (OfflineModel(), True), (EchoBackend(), True)])
def test_a_layer_has_the_batch_capability_exactly_when_its_model_has(inner, batch) -> None:
    layered = Tagging(Tagging(inner, "a"), "b")
    assert isinstance(layered, BatchModel) is batch
    assert hasattr(layered, "consolidate_batch") is batch
    assert isinstance(layered, Tagging) and isinstance(layered, Operations)


def test_the_batch_operation_passes_through_every_layer() -> None:
    outer = Tagging(OfflineModel(), "x")
    request = BatchRequest(scope="s", ref="b", messages=[], neighbours=[], known_contacts=[], open_tasks=[])
    outer.consolidate_batch(request)
    assert outer.seen == ["consolidate_batch"]
