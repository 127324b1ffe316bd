"""The question bank: pick sections, topics or weak spots, answer one at a time, see how it went.

The set being practised lives in the session (it is only a list of ids and a seed);
every answer is kept in the database (BankAnswer), which is what the topic scores
and "my weak spots" read. Answers are marked here, against content the page
never carried before the learner answered.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from studysite.htmx import HtmxHttpRequest
from studysite.sessions import existing_key, session_key
from studysite.study import bank, quiz, store
from studysite.study.content import Question, load_study
from studysite.study.flash import flash, pop_flash
from studysite.study.parts import BANK_SET_KEY
from studysite.study.views.common import Problem, form_error_status, friendly, is_partial, page

TOOL = {"study_tool": "quiz"}
SET_KEY = BANK_SET_KEY
PAGE = "study/bank/practice.html"
COUNTS = {"10": 10, "20": 20, "all": None}


def _set(request: HtmxHttpRequest) -> dict[str, Any] | None:
    found = request.session.get(SET_KEY)
    known = bank.load().by_id
    if not isinstance(found, dict) or not isinstance(found.get("ids"), list):
        return None
    if not found["ids"] or not all(qid in known for qid in found["ids"]):
        return None  # the bank changed under a saved set: start afresh
    return found


def clear_set(request: HtmxHttpRequest) -> None:
    request.session.pop(SET_KEY, None)


@require_safe
def bank_home(request: HtmxHttpRequest) -> HttpResponse:
    found = bank.load()
    latest = store.latest_bank_results(existing_key(request))
    current = _set(request)
    context: dict[str, Any] = {
        **TOOL,
        "bank": found,
        "topics": bank.topic_tallies(found, latest),
        "sections": bank.section_tallies(found, latest),
        "answered": len([qid for qid in latest if qid in found.by_id]),
        "right": sum(1 for qid, ok in latest.items() if ok and qid in found.by_id),
        "weak": len(bank.weak_spots(found, latest)),
        "current": current,
        "current_left": _left(current),
        "message": pop_flash(request),
    }
    return render(request, "study/bank/home.html", context)


def _left(current: dict[str, Any] | None) -> int:
    return len(current["ids"]) - len(current.get("answers", {})) if current else 0


def _plan(request: HtmxHttpRequest) -> tuple[list[str], str]:
    """The questions of a new practice set and its title; raises AnswerError."""
    found, form = bank.load(), request.POST
    by = form.get("by", "")
    if by == "weak":
        ids = bank.weak_spots(found, store.latest_bank_results(existing_key(request)))
        if not ids:
            raise quiz.AnswerError(
                "No weak spots yet: answer some questions first, and any you get wrong "
                "(and the topics where you score lowest) will gather here."
            )
        return ids, "My weak spots"
    if by == "sections":
        known = {link.slug for link in found.sections}
        slugs = [slug for slug in form.getlist("section") if slug in known]
        if not slugs:
            raise quiz.AnswerError("Choose at least one section to practise.")
        labels = [link.label for link in found.sections if link.slug in slugs]
        return found.select(sections=slugs), "Sections: " + "; ".join(labels)
    if by == "topics":
        topics = [topic for topic in form.getlist("topic") if topic in found.topic_ids]
        if not topics:
            raise quiz.AnswerError("Choose at least one topic to practise.")
        labels = [found.topic_label(topic) for topic in found.topic_ids if topic in topics]
        return found.select(topics=topics), "Topics: " + "; ".join(labels)
    raise quiz.AnswerError("Choose sections, topics or your weak spots to practise.")


@require_POST
def bank_start(request: HtmxHttpRequest) -> HttpResponse:
    try:
        ids, title = _plan(request)
    except quiz.AnswerError as error:
        flash(request, str(error), "error")
        return redirect("study:bank")
    rng = random.Random()
    # Weak spots keep their order (last answered wrong first); other sets are shuffled.
    order = ids if request.POST.get("by") == "weak" else bank.shuffled(ids, rng)
    limit = COUNTS.get(request.POST.get("count", "10"), 10)
    session_key(request)
    request.session[SET_KEY] = {
        "ids": order[:limit] if limit else order,
        "seed": quiz.new_seed(rng),
        "answers": {},
        "title": title,
    }
    return redirect("study:bank-practice")


def _current(request: HtmxHttpRequest) -> dict[str, Any]:
    current = _set(request)
    if current is None:
        raise Problem(
            "There's no practice set in this browser yet. Choose what to practise.",
            reverse("study:bank"),
            "Choose questions",
        )
    return current


def _asking(
    current: dict[str, Any], item: Question, error: str = "", chosen: Sequence[str] = ()
) -> dict[str, Any]:
    return {
        **TOOL,
        "set": current,
        "item": item,
        "question": item,
        "options": quiz.shown(item, current["seed"]),
        "position": current["ids"].index(item.id) + 1,
        "total": len(current["ids"]),
        "action": reverse("study:bank-answer"),
        "error": error,
        "chosen": chosen,
        "topic_label": bank.load().topic_label(item.topic),
    }


def _summary(current: dict[str, Any]) -> dict[str, Any]:
    found = bank.load()
    answers: dict[str, bool] = current.get("answers", {})
    items = [found.by_id[qid] for qid in current["ids"]]
    topics = [(topic, found.topic_label(topic)) for topic in found.topic_ids]
    return {
        **TOOL,
        "set": current,
        "finished": True,
        "right": sum(answers.values()),
        "total": len(current["ids"]),
        "by_topic": [t for t in bank.tallies(topics, items, lambda i: i.topic, answers) if t.total],
        "missed": [item for item in items if answers.get(item.id) is False],
    }


@require_safe
@friendly
def bank_practice(request: HtmxHttpRequest) -> HttpResponse:
    current = _current(request)
    answers = current.get("answers", {})
    next_id = next((qid for qid in current["ids"] if qid not in answers), None)
    if next_id is None:
        return page(request, PAGE, _summary(current), "region")
    return page(request, PAGE, _asking(current, bank.load().by_id[next_id]), "region")


def _feedback(current: dict[str, Any], item: Question, chosen: Sequence[str]) -> Any:
    verdict = quiz.Verdict(item, tuple(chosen))
    done = all(qid in current.get("answers", {}) for qid in current["ids"])
    return {
        **_asking(current, item),
        "verdict": verdict,
        "rows": quiz.review(verdict, current["seed"]),
        "next_url": reverse("study:bank-practice"),
        "next_label": "See how it went" if done else "Next question",
    }


def _known(current: dict[str, Any], question_id: str) -> Question:
    if question_id not in current["ids"]:
        raise Problem(
            "That question isn't part of your practice set.",
            reverse("study:bank-practice"),
            "Back to your practice",
            status=400,
        )
    return bank.load().by_id[question_id]


@require_POST
@friendly
def bank_answer(request: HtmxHttpRequest) -> HttpResponse:
    current = _current(request)
    item = _known(current, request.POST.get("question", ""))
    answers: dict[str, bool] = current.setdefault("answers", {})
    if item.id in answers:
        return redirect("study:bank-answered", item.id)
    try:
        chosen = quiz.parse_shown(item, current["seed"], request.POST.getlist("option"))
    except quiz.AnswerError as error:
        context = _asking(current, item, str(error))
        return page(request, PAGE, context, "region", form_error_status(request))
    correct, made_due = store.record_bank_answer(session_key(request), item, chosen, timezone.now())
    answers[item.id] = correct
    current.setdefault("chosen", {})[item.id] = list(chosen)
    request.session[SET_KEY] = current
    if not is_partial(request):
        return redirect("study:bank-answered", item.id)
    context = _feedback(current, item, chosen)
    context["made_due"] = [load_study().card_by_id[card_id] for card_id in made_due]
    return page(request, PAGE, context, "region")


@require_safe
@friendly
def bank_answered(request: HtmxHttpRequest, question_id: str) -> HttpResponse:
    current = _current(request)
    item = _known(current, question_id)
    chosen = current.get("chosen", {}).get(item.id)
    if chosen is None:
        return redirect("study:bank-practice")
    return page(request, PAGE, _feedback(current, item, chosen), "region")
