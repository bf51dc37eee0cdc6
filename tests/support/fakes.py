"""A fake model behind the project's model interface, for logic tests (counts its calls)."""

from __future__ import annotations

from consolidator.domain import estimate_tokens
from consolidator.model.schemas import (
    ClusterReply,
    ContactsReply,
    FactExtractionReply,
    SummaryReply,
    TasksReply,
)


class CountingModel:
    """Summaries are the first words of the inputs within budget; every call is recorded."""

    name = "counting"

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.largest_input = 0

    def summarize(self, request) -> SummaryReply:
        self.calls.append(f"{request.ladder}/{request.rung}/{request.window_label}")
        words = " ".join(i.text for i in request.inputs).split()
        text = ""
        for word in words:
            candidate = f"{text} {word}".strip()
            if estimate_tokens(candidate) > request.budget_tokens:
                break
            text = candidate
        return SummaryReply(text=text)

    def extract_facts(self, request) -> FactExtractionReply:
        return FactExtractionReply(facts=[])

    def judge_cluster(self, request) -> ClusterReply:
        return ClusterReply(merge=False)

    def update_contacts(self, request) -> ContactsReply:
        return ContactsReply(contacts=[])

    def update_tasks(self, request) -> TasksReply:
        return TasksReply(changes=[])

    def split_table(self, request):
        from consolidator.model.offline.tables import split_table
        return split_table(request)
