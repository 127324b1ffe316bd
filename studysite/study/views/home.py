"""The home page: where this browser left off, a way into every tool, and the contents."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_safe

from simulators.lab import list_tickets
from studysite.guide.progress import continue_reading, last_section, read_sections
from studysite.guide.sections import load_guide
from studysite.htmx import HtmxHttpRequest
from studysite.lab import store as lab_store
from studysite.sessions import existing_key
from studysite.study import bank, cards, store
from studysite.study.content import load_study

# (URL name, tool, one sentence on what a learner does there)
TOOLS = (
    ("guide:search", "Search", "Find any command, term or error message across all 27 sections."),
    (
        "simulator:page",
        "Quota simulator",
        "Set quotas, demand and weights for a node pool and watch fair share and reclaim.",
    ),
    (
        "lab:index",
        "Lab tickets",
        "Fix real-looking tickets with kubectl and runai in a terminal on a simulated DGX cluster.",
    ),
    (
        "study:quiz",
        "Practice quiz",
        "28 exam-style questions, one at a time with explanations or as a timed exam.",
    ),
    (
        "study:bank",
        "Question bank",
        "More questions to practise by guide section, by topic or on your weak spots.",
    ),
    (
        "study:cards",
        "Flashcards",
        "Spaced repetition that brings each card back just before you would forget it.",
    ),
    (
        "study:scenarios",
        "Scenarios",
        "Troubleshooting stories: guess the cause, take hints, then see the fix.",
    ),
    ("study:reference", "Reference", "Every term and command in one filterable list."),
    ("study:traps", "Exam traps", "The 13 mistakes the exam likes to test, each with a question."),
    (
        "study:progress",
        "Progress",
        "Export, import or reset what this browser has done; no account needed.",
    ),
)


def _lab_in_progress(found: dict[str, tuple[int, int]]) -> list[dict[str, Any]]:
    return [
        {"ticket": ticket, "done": found[ticket.id][0], "total": found[ticket.id][1]}
        for ticket in list_tickets()
        if ticket.id in found and found[ticket.id][0] < found[ticket.id][1]
    ]


def continue_context(request: HtmxHttpRequest) -> dict[str, Any]:
    """What this browser has under way, for the "continue where you left off" panel."""
    key, guide, study, now = existing_key(request), load_guide(), load_study(), timezone.now()
    read, last_read = read_sections(request), last_section(request)
    states = store.card_states(key) if key else {}
    finished = store.finished_attempts(key) if key else []
    last = max(finished, key=lambda attempt: attempt.finished_at or now, default=None)
    latest_bank = store.latest_bank_results(key) if key else {}
    opened = lab_store.progress(key) if key else {}
    open_attempt = store.open_attempt(key) if key else None
    return {
        "next_section": continue_reading(guide.sections, read, last_read),
        "continuing": last_read is not None,
        "read_count": len(read),
        "card_counts": cards.counts(study.cards, states, now),
        "cards_started": bool(states),
        "last_attempt": last,
        "open_attempt": open_attempt,
        "bank_answered": len(latest_bank),
        "bank_total": len(bank.load().questions),
        "labs_in_progress": _lab_in_progress(opened),
        "first_visit": not (
            read or last_read or states or finished or open_attempt or latest_bank or opened
        ),
    }


@require_safe
def home(request: HtmxHttpRequest) -> HttpResponse:
    context = continue_context(request)
    context["tools"] = [(reverse(name), label, text) for name, label, text in TOOLS]
    context["read"] = read_sections(request)
    return render(request, "home.html", context)
