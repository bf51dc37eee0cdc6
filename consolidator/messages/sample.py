"""A generated, deterministic conversation history in the import format.

For the README's first command, the tests and the benchmarks: uneven activity (busy days,
quiet weekends, silent stretches), interactions with and without session ids, action and
tool records beside what people say, and life events the stores should pick up (moves,
jobs, pets, allergies, tasks opened and closed). Same seed, same history.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from typing import Iterator

CITIES = ["London", "Paris", "Lisbon", "Berlin", "Madrid", "Oslo", "Vienna"]
JOBS = ["a nurse", "a teacher", "an architect", "a baker", "a pilot", "an engineer"]
RELATION_OF = {"Ana": "sister", "Tom": "brother", "Lea": "friend", "Omar": "colleague", "Ines": "neighbour"}
PETS = [("cat", "Miso"), ("dog", "Rex"), ("cat", "Pixel"), ("rabbit", "Bun")]
TASKS = [
    "book the dentist", "call the bank", "renew my passport", "send the report to Tom",
    "buy a birthday gift for Ana", "pay the electricity bill", "water the plants", "fix the bike",
]
SMALL_TALK = [
    "The weather was lovely this morning.", "I watched a documentary about whales last night.",
    "Work was busy today, lots of meetings.", "I tried a new recipe with lentils and it was great.",
    "The train was late again.", "I went for a long walk by the river.", "I'm reading a novel about sailors.",
    "We played board games in the evening.", "My back hurts a little after the gym.",
    "I finally cleaned the kitchen.", "The new cafe near the office has good coffee.",
]
REPLIES = [
    "That sounds nice.", "Thanks for telling me.", "Noted.", "How did that go?", "Good to hear.",
    "I'll remember that.", "Anything else I can help with?",
]
ACTIONS = ["calendar.lookup ok", "search: 3 results", "email.draft created", "weather.fetch ok"]


def _event(rng: random.Random, name: str, state: dict) -> str:
    kind = rng.choice(["move", "job", "pet", "relation", "diet", "task", "done", "plan"])
    if kind == "move":
        new = rng.choice([c for c in CITIES if c != state["city"]])
        text, state["city"] = f"I moved from {state['city']} to {new} last month.", new
        return text
    if kind == "job":
        return f"I started working as {rng.choice(JOBS)}."
    if kind == "pet":
        animal, pet = rng.choice(PETS)
        return f"I adopted a {animal} named {pet}."
    if kind == "relation":
        person = rng.choice(sorted(RELATION_OF))
        if rng.random() < 0.2 or person not in state["jobs"]:
            state["jobs"][person] = rng.choice(JOBS)
        return f"My {RELATION_OF[person]} {person} is {state['jobs'][person]}."
    if kind == "diet":
        return rng.choice(["I am vegetarian now.", "I'm allergic to peanuts.", "I stopped eating meat."])
    if kind == "task":
        task = rng.choice(TASKS)
        state["open"].append(task)
        return f"Remind me to {task}."
    if kind == "done" and state["open"]:
        return f"Done: {state['open'].pop(0)}."
    return f"I'm training for the {rng.choice(CITIES)} marathon in September."


def generate(
    scope: str = "demo",
    start: datetime = datetime(2025, 1, 6, tzinfo=timezone.utc),
    days: int = 90,
    seed: int = 1,
    rate: float = 1.0,
    speaker: str = "Maya",
) -> Iterator[dict]:
    """Yield import records for `days` days from `start` (messages per active day scale with `rate`)."""
    rng = random.Random(seed)
    state = {"city": "London", "open": [], "jobs": {}}
    silent_until = -1
    counter = 0
    for day in range(days):
        if day <= silent_until:
            continue
        if rng.random() < 0.04:
            silent_until = day + rng.randint(3, 20)
            continue
        weekday = (start + timedelta(days=day)).weekday()
        sessions = rng.choice([0, 1, 1, 2, 3]) if weekday < 5 else rng.choice([0, 0, 1])
        for s in range(sessions):
            at = start + timedelta(days=day, hours=8 + 4 * s + rng.random() * 3)
            session = f"s{day}-{s}" if rng.random() < 0.5 else None
            turns = max(2, int(rng.randint(2, 24) * rate))
            for t in range(turns):
                counter += 1
                if t % 2 == 0:
                    text = _event(rng, speaker, state) if rng.random() < 0.15 else rng.choice(SMALL_TALK)
                    record = {"role": "user", "speaker": speaker, "text": text}
                elif rng.random() < 0.1:
                    record = {"role": rng.choice(["action", "tool"]), "text": rng.choice(ACTIONS)}
                else:
                    record = {"role": "assistant", "speaker": "assistant", "text": rng.choice(REPLIES)}
                record.update(scope=scope, at=at.isoformat(), id=f"{scope}-{seed}-{counter}")
                if session is not None:
                    record["session"] = session
                yield record
                at += timedelta(seconds=20 + rng.random() * 100)
