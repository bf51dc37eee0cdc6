"""When a scope's ladders next have work: the recorded facts read in one pass, then hierarchy.ladder_due.

`LadderStage.run_scope` looks first and returns at once when nothing is due, so an idle
scope costs one read transaction of a few indexed queries and writes nothing. A daemon that
runs only the scopes that are due (a queue ordered by due time) calls `LadderStage.next_due`
after running a scope: a scope that said something once is due when its week, 4 weeks,
12 weeks and 52 weeks close, then never again until a new message (which the append marks
due itself).
"""

from __future__ import annotations

from zoneinfo import ZoneInfo

from consolidator.ladders.propagate import last_content_day
from hierarchy.ladder_due import LadderFacts
from hierarchy.tiling import LadderSpec
from stores.engine import Session
from stores.holds import scope_holds
from stores.interactions import last_times, max_number
from stores.ladder_state import scope_dirty_windows, scope_progress
from stores.message_windows import has_messages_after
from stores.summaries import newest_announcements


def scope_facts(session: Session, scope: str, specs: dict[str, LadderSpec], tz: ZoneInfo) -> dict[str, LadderFacts]:
    """ladder -> what the stage has recorded for it, for the ladders in `specs` (about seven queries in all)."""
    return scope_reads(session, scope, specs, tz)[0]


def scope_reads(session: Session, scope: str, specs: dict[str, LadderSpec],
                tz: ZoneInfo) -> tuple[dict[str, LadderFacts], bool]:
    """`scope_facts`, and whether the scope logged messages the ladders in `specs` have not all
    seen (so that the stage's run reads it once, not once more per ladder)."""
    states = scope_progress(session, scope)
    seen_seq = min((states[kind].seen_seq if kind in states else 0) for kind in specs)
    new_messages = has_messages_after(session, scope, seen_seq)
    announced = newest_announcements(session, scope)
    dirty = scope_dirty_windows(session, scope)
    held = scope_holds(session, scope)
    facts = {}
    for kind, spec in specs.items():
        state = states.get(kind)
        unseen = new_messages or announced.get(kind, 0) > (state.seen_announcement if state else 0)
        windows, holds = dirty.get(kind, {}), held.get(kind, {})
        if kind == "time":
            facts[kind] = LadderFacts(spec, unseen, windows, holds, woken_through=state.through_unit if state else None,
                                      last_content=last_content_day(session, scope, spec, tz))
        else:  # an interaction completes from its own last message, which a late arrival may not be
            facts[kind] = LadderFacts(spec, unseen, last_times(session, scope, windows) if windows else {}, holds,
                                      newest_interaction=max_number(session, scope))
    return facts, new_messages
