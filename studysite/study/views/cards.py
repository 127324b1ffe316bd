"""Flashcards with spaced repetition: study the next card, grade it, undo, shuffle, filter."""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import urlencode

from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from studysite.htmx import HtmxHttpRequest
from studysite.sessions import existing_key, session_key
from studysite.study import cards, store
from studysite.study.content import load_study
from studysite.study.flash import flash, pop_flash
from studysite.study.views.common import form_error_status, is_partial, page

TEMPLATE = "study/cards/home.html"
SHUFFLE_KEY = "study_cards_shuffle"


def _section(slug: str) -> tuple[str, str]:
    """The section filter to use and a note if the one asked for doesn't exist."""
    if not slug or any(link.slug == slug for link in load_study().card_sections):
        return slug, ""
    return "", "There are no cards for that section, so every card is shown."


def _deck(request: HtmxHttpRequest, slug: str, focus: str = "", note: str = "") -> dict[str, Any]:
    study, now = load_study(), timezone.now()
    section, problem = _section(slug)
    pool = [card for card in study.cards if not section or card.section.slug == section]
    states = store.card_states(existing_key(request))
    order = cards.queue(pool, states, now, request.session.get(SHUFFLE_KEY))
    current = study.card_by_id.get(focus) or (order[0] if order else None)
    upcoming = cards.next_due(states, [card.id for card in pool], now)
    waits = cards.next_intervals(states.get(current.id), now) if current else {}
    return {
        "study_tool": "cards",
        "current": current,
        "counts": cards.counts(pool, states, now),
        "wait": cards.describe_wait(upcoming - now) if upcoming else "",
        "sections": study.card_sections,
        "section": section,
        "shuffled": SHUFFLE_KEY in request.session,
        "can_undo": store.can_undo(existing_key(request)),
        "ratings": [
            (value, label, cards.short_wait(waits[value]) if waits else "")
            for value, (_r, label) in cards.RATINGS.items()
        ],
        "note": problem or note,
    }


def _answer(request: HtmxHttpRequest, section: str, note: str, focus: str = "") -> HttpResponse:
    """After a change: the new deck for htmx, else a redirect back to the deck."""
    if is_partial(request):
        return page(request, TEMPLATE, _deck(request, section, focus, note), "deck")
    flash(request, note)
    query = {key: value for key, value in (("section", section), ("card", focus)) if value}
    return redirect(reverse("study:cards") + (f"?{urlencode(query)}" if query else ""))


@require_safe
def cards_home(request: HtmxHttpRequest) -> HttpResponse:
    message = pop_flash(request)
    context = _deck(request, request.GET.get("section", ""), request.GET.get("card", ""))
    context["note"] = context["note"] or (message["text"] if message else "")
    return page(request, TEMPLATE, context, "deck")


@require_POST
def cards_grade(request: HtmxHttpRequest) -> HttpResponse:
    card = load_study().card_by_id.get(request.POST.get("card", ""))
    rating = request.POST.get("rating", "")
    section = request.POST.get("section", "")
    if card is None or rating not in {"1", "2", "3", "4"}:
        note = "That grade didn't match a card and a grade from 1 to 4. Nothing was saved."
        context = _deck(request, section, note=note)
        return page(request, TEMPLATE, context, "deck", form_error_status(request))
    now = timezone.now()
    state = store.grade_card(session_key(request), card, int(rating), now)
    label = cards.RATINGS[int(rating)][1]
    wait = cards.describe_wait(cards.due_at(state) - now)
    return _answer(request, section, f"Graded “{label}”. That card comes back {wait}.")


@require_POST
def cards_undo(request: HtmxHttpRequest) -> HttpResponse:
    card_id = store.undo_last_grade(session_key(request))
    section = request.POST.get("section", "")
    if card_id is None:
        return _answer(request, section, "There's no grade to undo.")
    return _answer(request, section, "Undid your last grade; here is that card again.", card_id)


@require_POST
def cards_shuffle(request: HtmxHttpRequest) -> HttpResponse:
    if request.session.pop(SHUFFLE_KEY, None) is None:
        request.session[SHUFFLE_KEY] = random.Random().randrange(2**31)
        note = "Cards shuffled."
    else:
        note = "Cards back in order: due cards first, then new ones in guide order."
    return _answer(request, request.POST.get("section", ""), note)
