"""A repair (the bad reply's problem sent back) fits the window like any request: a long validation
error (one per bad item of a big batch) never sends a request over context_tokens."""

from __future__ import annotations

import pytest

from consolidator.model.calls import InvalidReplyError
from consolidator.model.openai_backend import OpenAIModel
from consolidator.model.recording import MemoryRecorder
from consolidator.model.settings import ModelSettings

WINDOW = 2048


@pytest.fixture
def model():
    made = OpenAIModel(ModelSettings(provider="openai", base_url="http://127.0.0.1:9/v1", default_model="local",
                                     context_tokens=WINDOW), MemoryRecorder())
    yield made
    made.close()


def asked_with_room(model, room: int) -> list[dict]:
    text = "word " * 10
    while model._prompt("extract_facts", [{"role": "user", "content": text + "word "}]) <= WINDOW - room:
        text += "word "
    return [{"role": "user", "content": text}]


def test_a_repair_whose_problem_is_longer_than_the_room_left_is_never_sent_over_the_window(model):
    asked = asked_with_room(model, 300)  # the first ask fitted with 300 tokens to answer in
    problem = "The record_facts input is invalid: " + "; ".join(f"facts.{n}.text: Field required" for n in range(200))
    turns = [{"role": "assistant", "content": "{}"}, {"role": "user", "content": problem}]
    try:
        messages, max_tokens = model._repair("extract_facts", asked, turns, 300)
    except InvalidReplyError:
        return  # no room to ask again: a failed call, never a request over the window
    assert model._prompt("extract_facts", messages) + max_tokens <= WINDOW
    assert max_tokens >= 64
