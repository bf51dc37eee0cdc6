"""The offline summariser and fact extractor are ordered, named passes over one document: each
pass has the one signature `(doc, settings) -> doc`, the order is one tuple, and the runner runs
that tuple in order, so a pass can be swapped through the runner's argument."""

from __future__ import annotations

import inspect
from dataclasses import replace
from datetime import datetime, timezone

import pytest

from consolidator.model.offline import extraction, summarise
from consolidator.model.offline.extraction import EXTRACTION_PASSES, ExtractionDoc, extract_facts
from consolidator.model.offline.lexicon import Lexicon
from consolidator.model.offline.passes import run_passes
from consolidator.model.offline.summarise import SUMMARY_PASSES, SummaryDoc, extractive_summary
from consolidator.model.offline.summaryform import parse_turns
from consolidator.model.offline.tuning import DEFAULTS, OfflineSettings
from consolidator.model.schemas import FactExtractionRequest, Line

SUMMARY_ORDER = ("read_turns", "compact_sentences", "score_rarity", "weigh_priors", "drop_phatic", "pool_best",
                 "date_relative", "choose_within_budget", "write_form")
EXTRACTION_ORDER = ("read_claims", "merge_duplicates", "latest_per_attribute", "drop_ended", "keep_novel", "decide_ops",
                    "share_room")


@pytest.mark.parametrize("module, passes, order, doc", [
    (summarise, SUMMARY_PASSES, SUMMARY_ORDER, SummaryDoc),
    (extraction, EXTRACTION_PASSES, EXTRACTION_ORDER, ExtractionDoc),
])
def test_the_pass_lists_are_named_functions_of_one_signature(module, passes, order, doc) -> None:
    assert isinstance(passes, tuple)
    assert tuple(p.__name__ for p in passes) == order
    for p in passes:
        assert getattr(module, p.__name__) is p  # a module-level function, found by its name
        params = list(inspect.signature(p).parameters.values())
        assert [x.name for x in params] == ["doc", "settings"], p.__name__
        assert params[0].annotation in (doc.__name__, doc), p.__name__
        assert params[1].annotation in ("OfflineSettings", OfflineSettings), p.__name__
        assert inspect.signature(p).return_annotation in (doc.__name__, doc), p.__name__
        assert p.__doc__, p.__name__


def test_the_runner_runs_the_passes_in_order_and_passes_the_settings() -> None:
    seen: list[tuple[str, int]] = []

    def first(doc: list, settings: OfflineSettings) -> list:
        seen.append(("first", settings.min_target))
        return doc + [1]

    def second(doc: list, settings: OfflineSettings) -> list:
        seen.append(("second", settings.min_target))
        return doc + [2]

    mine = replace(DEFAULTS, min_target=7)
    assert run_passes([], mine, (first, second)) == [1, 2]
    assert run_passes([], mine, (second, first)) == [2, 1]
    assert seen == [("first", 7), ("second", 7), ("second", 7), ("first", 7)]


DAY = [
    "2023-05-08 10:00 Ana: Hey Ben!",
    "2023-05-08 10:01 Ben: Hi Ana! We had a good time!",
    "2023-05-08 10:02 Ana: My sister Lena moved to Lisbon for a nursing job in March.",
    "2023-05-08 10:03 Ben: I started pottery classes at the community center on Tuesdays.",
]


def test_a_summary_pass_swapped_through_the_runner_changes_only_its_step() -> None:
    """The summary is what its passes make: the same passes give the same text; a write_form
    replaced through `passes` writes the same choice its own way; no phatic filter lets a
    phatic sentence compete."""
    whole = extractive_summary(DAY, 200)
    assert "Lisbon" in whole and "good time" not in whole
    assert extractive_summary(DAY, 200, passes=SUMMARY_PASSES) == whole

    def shouting(doc: SummaryDoc, settings: OfflineSettings) -> SummaryDoc:
        doc.text = " | ".join(c.text.upper() for c in doc.chosen)
        return doc

    loud = extractive_summary(DAY, 200, passes=SUMMARY_PASSES[:-1] + (shouting,))
    assert "LISBON" in loud and "Lisbon" not in loud

    def keep_all(doc: SummaryDoc, settings: OfflineSettings) -> SummaryDoc:
        return doc

    no_filter = tuple(keep_all if p.__name__ == "drop_phatic" else p for p in SUMMARY_PASSES)
    roomy = replace(DEFAULTS, compression=1, min_target=2000)
    assert "good time" not in extractive_summary(DAY, 2000, settings=roomy)  # phatic: said nothing
    assert "good time" in extractive_summary(DAY, 2000, settings=roomy, passes=no_filter)


def line(n: int, speaker: str, text: str) -> Line:
    return Line(id=f"m{n}", at=datetime(2023, 5, 8, 10, n, tzinfo=timezone.utc), role="user", speaker=speaker, text=text)


def test_an_extraction_pass_swapped_through_the_runner_changes_only_its_step() -> None:
    """keep_novel replaced through the runner's argument (by a filter of its own, or by none)
    changes which claims reach the decisions; the passes around it run as before."""
    request = FactExtractionRequest(scope="s", messages=[line(1, "Ana", "I moved to Lisbon in March."),
                                                         line(2, "Ana", "I work at Acme as a nurse.")],
                                    neighbours=[])
    facts = extract_facts(request)
    assert any("Lisbon" in f.text for f in facts) and all(f.op == "ADD" for f in facts)
    assert extract_facts(request, passes=EXTRACTION_PASSES) == facts

    def keep_every_claim(doc: ExtractionDoc, settings: OfflineSettings) -> ExtractionDoc:
        return doc

    def only_events(doc: ExtractionDoc, settings: OfflineSettings) -> ExtractionDoc:
        doc.claims = [c for c in doc.claims if c.attribute == "employer"]
        return doc

    passes = tuple(only_events if p.__name__ == "keep_novel" else p for p in EXTRACTION_PASSES)
    employer = extract_facts(request, passes=passes)
    assert employer and all("Acme" in f.text for f in employer)
    assert [p.__name__ for p in passes].index("only_events") == EXTRACTION_ORDER.index("keep_novel")
    unfiltered = tuple(keep_every_claim if p.__name__ == "keep_novel" else p for p in EXTRACTION_PASSES)
    assert len(extract_facts(request, passes=unfiltered)) >= len(facts)


def test_memoised_sentences_give_what_a_fresh_run_gives() -> None:
    """A sentence's trim and scores are kept by (sentence, speakers): the same words read where
    "Mari" is a speaker (her name is filler and weighs nothing) and where she is only named give
    each what a run with empty memos gives."""
    turns = parse_turns(["2023-05-08 10:00 Ana: Mari, I drove to Lisbon for the pottery fair."])

    def candidates(speakers: set[str]) -> list[tuple[str, float, dict[str, float]]]:
        return [(c.text, c.prior, c.concepts) for c in summarise._candidates(turns, Lexicon(speakers), DEFAULTS)]

    def cold(speakers: set[str]) -> list[tuple[str, float, dict[str, float]]]:
        summarise._TRIMMED.clear()
        summarise._SCORED.clear()
        return candidates(speakers)

    named, speaking = cold({"ana"}), cold({"ana", "mari"})
    assert named != speaking and "mari" in named[0][2] and "mari" not in speaking[0][2]
    warm = [candidates(s) for s in ({"ana"}, {"ana", "mari"}, {"ana"})]
    assert warm == [named, speaking, named]
    assert summarise._SCORED  # the memo was used


def test_a_full_memo_starts_again() -> None:
    memo = summarise.Memo(2)
    memo.keep("a", 1)
    memo.keep("b", 2)
    assert memo.keep("c", 3) == 3 and dict(memo) == {"c": 3}
