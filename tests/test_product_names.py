"""Product code names no speaker of the development conversations: docstrings, comments and
prompt examples use invented names, so the benchmark's people never live in the product."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("consolidator", "stores", "hierarchy")


def _data() -> Path | None:
    for base in ROOT.parents:
        path = base / "shared" / "data" / "locomo-dev" / "locomo-dev.json"
        if path.is_file():
            return path
    return None


def test_no_speaker_of_the_development_data_is_named_in_product_code() -> None:
    path = _data()
    if path is None:
        pytest.skip("the development conversations (shared/data/locomo-dev) are not here")
    speakers = sorted({sample["conversation"][key] for sample in json.loads(path.read_text(encoding="utf-8"))
                       for key in ("speaker_a", "speaker_b")})
    word = re.compile(r"\b(" + "|".join(map(re.escape, speakers)) + r")\b", re.I)
    found = [f"{p.relative_to(ROOT)}:{n}: {m.group(1)}"
             for folder in PRODUCT for p in sorted((ROOT / folder).rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1) if (m := word.search(line))]
    assert speakers and not found, "\n".join(found)


def test_no_answer_of_the_development_data_is_a_prompt_or_docstring_example() -> None:
    """An example listing three items or more of one development answer (with the name swapped)
    teaches the model the benchmark: no three items of a listed answer within three product lines."""
    path = _data()
    if path is None:
        pytest.skip("the development conversations (shared/data/locomo-dev) are not here")
    answers = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        for qa in sample.get("qa", []):
            items = [a.strip().lower() for a in re.split(r",|\band\b", str(qa.get("answer", ""))) if len(a.strip()) >= 4]
            if len(items) >= 3:
                answers.append([re.compile(r"\b" + re.escape(i) + r"\b") for i in items])
    found = []
    for folder in PRODUCT:
        for p in sorted((ROOT / folder).rglob("*.py")):
            lines = p.read_text(encoding="utf-8").lower().splitlines()
            found += [f"{p.relative_to(ROOT)}:{n + 1}" for n in range(len(lines))
                      if any(sum(1 for i in items if i.search(" ".join(lines[n:n + 3]))) >= 3 for items in answers)]
    assert answers and not found, "\n".join(found)
