"""The offline model's weights, in one frozen object passed in (OfflineModel(settings=...)).

The factors were set by reasoning and checked on the development subset (docs/experiments/);
each module's docstring says what its factors do. Tests and experiments build their own
(`dataclasses.replace(DEFAULTS, shown_boost=1.0)`) instead of switching module constants.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OfflineSettings:
    # --- the summariser (summarise.py) -------------------------------------------------------
    compression: int = 3  # a summary is at most 1/3 of what it reads...
    min_target: int = 200  # ...but may always use this many characters (within the budget)
    df_boost: float = 1.0  # a concept used by n sentences of the window weighs 1 + df_boost ln(n)
    first_boost: float = 2.0  # fact_prior: a speaker telling about themselves (first person)
    second_only: float = 0.6  # ...one only addressing the listener ("You're so brave")
    question: float = 0.4  # ...a question
    answer_boost: float = 2.0  # a turn that replies to another speaker's question
    echo_boost: float = 1.25  # the sentence of such a reply that takes up a word of the question: its answer
    agent_weight: float = 0.5  # the agent's own turns and tool/action lines: the memory is about the people
    dated_boost: float = 1.3  # a sentence with a relative date
    key_boost: float = 1.25  # each of a number, a proper name, a quoted title
    shown_boost: float = 2.0  # the one photo of a turn whose words point at it ("Here's our latest work")
    repeat_cosine: float = 0.9  # a sentence this close to a chosen one says it again
    min_room: int = 60  # characters: less room left than this is not worth cutting a sentence for
    keep_share: float = 0.6  # a cut sentence must keep this share of its words' value (numbers, names)
    pool_targets: int = 4  # the best 4 targets' worth of sentences compete...
    pool_min: int = 16  # ...at least 16 of them
    compact_sentences: bool = True  # each sentence compacted first (text_compact.compact)
    # --- extraction (model.py, factshare.py) -------------------------------------------------
    attitude_discount: int = 1  # a feeling, wish or intention ranks this much below an event
    fact_share: float = 0.2  # a batch's facts: at most a fifth of the characters it read...
    min_fact_room: int = 400  # ...but always this many (a short batch's one long fact is kept)
    told_share: float = 1.0  # one person telling the agent: their lines' facts may restate all they said
    profile_importance: int = 7  # a fact this important (a job, a home, a partner) takes the room first


DEFAULTS = OfflineSettings()
