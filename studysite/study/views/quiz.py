"""The practice quiz: start, answer (practice) or submit (exam), results, retake."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from studysite.htmx import HtmxHttpRequest
from studysite.sessions import existing_key, session_key
from studysite.study import quiz, store
from studysite.study.content import Question, load_study
from studysite.study.flash import flash, pop_flash
from studysite.study.models import QuizAttempt
from studysite.study.views.common import Problem, form_error_status, friendly, is_partial, page

TOOL = {"study_tool": "quiz"}
PRACTICE_PAGE = "study/quiz/practice.html"
SINGLE_PAGE = "study/quiz/single.html"


def _attempt(request: HtmxHttpRequest, attempt_id: int) -> QuizAttempt:
    attempt = store.find_attempt(existing_key(request), attempt_id)
    if attempt is None:
        raise Problem(
            "That quiz attempt isn't in this browser's history. Start a new one.",
            reverse("study:quiz"),
            "Back to the quiz",
        )
    return attempt


def _question(attempt: QuizAttempt, question_id: str) -> Question:
    if question_id not in attempt.question_ids:
        raise Problem(
            "That question isn't part of this quiz attempt.",
            reverse("study:quiz-attempt", args=[attempt.pk]),
            "Back to your attempt",
            status=400,
        )
    return load_study().question_by_id[question_id]


def _plan(form: QueryDict, key: str) -> tuple[str, list[str]]:
    """The mode and questions of a new attempt, or a retake of a finished one."""
    mode, source = form.get("mode", ""), form.get("retake", "")
    if mode not in quiz.MODES:
        raise quiz.AnswerError("Choose practice or exam mode to start.")
    if not source:
        return mode, [question.id for question in load_study().questions]
    # Bounded before int(): Python refuses more than 4,300 digits with a ValueError.
    number = int(source) if source.isascii() and source.isdigit() and len(source) < 10 else None
    attempt = store.find_attempt(key, number) if number is not None else None
    if attempt is None or not attempt.finished:
        raise quiz.AnswerError("That attempt isn't in this browser's quiz history.")
    only_wrong = form.get("which") == "wrong"
    ids = quiz.retake_ids(load_study(), attempt.question_ids, attempt.answers, only_wrong)
    if not ids:
        raise quiz.AnswerError("You got every question right: there's nothing wrong to retake.")
    return mode, ids


def _asking(
    attempt: QuizAttempt, question: Question, error: str = "", chosen: Sequence[str] = ()
) -> dict[str, Any]:
    return {
        **TOOL,
        "attempt": attempt,
        "question": question,
        "options": quiz.shown(question, attempt.seed),
        "position": attempt.question_ids.index(question.id) + 1,
        "action": reverse("study:quiz-answer", args=[attempt.pk]),
        "error": error,
        "chosen": chosen,
    }


def _feedback(attempt: QuizAttempt, question: Question) -> dict[str, Any]:
    verdict = quiz.verdict(question, attempt.answers)
    # A wrong answer put the question's cards in the due pile (store.record_answer).
    made_due = () if verdict.correct else question.cards
    done = attempt.finished
    return {
        **TOOL,
        "attempt": attempt,
        "verdict": verdict,
        "rows": quiz.review(verdict, attempt.seed),
        "position": attempt.question_ids.index(question.id) + 1,
        "made_due": [load_study().card_by_id[card_id] for card_id in made_due],
        "next_url": reverse(f"study:quiz-{'results' if done else 'attempt'}", args=[attempt.pk]),
        "next_label": "See your score" if done else "Next question",
        "next_swaps": not done,
    }


@require_safe
def quiz_home(request: HtmxHttpRequest) -> HttpResponse:
    key = existing_key(request)
    context: dict[str, Any] = {**TOOL, "history": store.finished_attempts(key)}
    context |= {"open": store.open_attempt(key), "total": len(load_study().questions)}
    context |= {"pass_percent": quiz.PASS_PERCENT, "time_limits": quiz.TIME_LIMITS}
    context["message"] = pop_flash(request)
    return render(request, "study/quiz/home.html", context)


@require_POST
def quiz_start(request: HtmxHttpRequest) -> HttpResponse:
    key = session_key(request)
    try:
        mode, question_ids = _plan(request.POST, key)
    except quiz.AnswerError as error:
        flash(request, str(error), "error")
        return redirect("study:quiz")
    try:
        limit = (
            quiz.parse_time_limit(request.POST.get("time_limit", "")) if mode == quiz.EXAM else None
        )
    except quiz.AnswerError as error:
        flash(request, str(error), "error")
        return redirect("study:quiz")
    attempt = store.start_attempt(
        key, mode, question_ids, random.Random(), timezone.now(), time_limit=limit
    )
    return redirect("study:quiz-attempt", attempt.pk)


@require_safe
@friendly
def quiz_attempt(request: HtmxHttpRequest, attempt_id: int) -> HttpResponse:
    attempt = _attempt(request, attempt_id)
    if attempt.finished:
        return redirect("study:quiz-results", attempt.pk)
    if attempt.mode == quiz.EXAM:
        return render(request, "study/quiz/exam.html", _exam(attempt))
    current = quiz.next_unanswered(attempt.question_ids, attempt.answers) or ""
    return page(request, PRACTICE_PAGE, _asking(attempt, _question(attempt, current)), "region")


@require_POST
@friendly
def quiz_answer(request: HtmxHttpRequest, attempt_id: int) -> HttpResponse:
    attempt = _attempt(request, attempt_id)
    question = _question(attempt, request.POST.get("question", ""))
    if attempt.mode != quiz.PRACTICE or attempt.finished or question.id in attempt.answers:
        return redirect("study:quiz-attempt", attempt.pk)
    try:
        chosen = quiz.parse_shown(question, attempt.seed, request.POST.getlist("option"))
    except quiz.AnswerError as error:
        context = _asking(attempt, question, str(error))
        return page(request, PRACTICE_PAGE, context, "region", form_error_status(request))
    store.record_answer(attempt, question, chosen, timezone.now())
    if is_partial(request):
        return page(request, PRACTICE_PAGE, _feedback(attempt, question), "region")
    return redirect("study:quiz-feedback", attempt.pk, question.id)


@require_safe
@friendly
def quiz_feedback(request: HtmxHttpRequest, attempt_id: int, question_id: str) -> HttpResponse:
    attempt = _attempt(request, attempt_id)
    question = _question(attempt, question_id)
    if question.id not in attempt.answers:
        return redirect("study:quiz-attempt", attempt.pk)
    return page(request, PRACTICE_PAGE, _feedback(attempt, question), "region")


def _exam(
    attempt: QuizAttempt, error: str = "", chosen: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    study = load_study()
    chosen = chosen or {}
    items = [
        (question, quiz.shown(question, attempt.seed), chosen.get(f"q-{question.id}", []))
        for question in (study.question_by_id[qid] for qid in attempt.question_ids)
    ]
    context = {**TOOL, "attempt": attempt, "items": items, "error": error}
    deadline = quiz.deadline(attempt.started_at, attempt.time_limit)
    if deadline is not None:
        left = max(0, int((deadline - timezone.now()).total_seconds()))
        context |= {"deadline": deadline, "seconds_left": left}
    return context


@require_POST
@friendly
def quiz_submit(request: HtmxHttpRequest, attempt_id: int) -> HttpResponse:
    attempt = _attempt(request, attempt_id)
    if not quiz.in_time(attempt.started_at, attempt.time_limit, timezone.now()):
        # Too late for any of them to count (store.submit_exam): not even checked.
        store.submit_exam(attempt, {}, timezone.now())
        return redirect("study:quiz-results", attempt.pk)
    questions = [load_study().question_by_id[qid] for qid in attempt.question_ids]
    form = {key: request.POST.getlist(key) for key in request.POST}
    try:
        answers = quiz.parse_exam(questions, form, attempt.seed)
    except quiz.AnswerError as error:
        return render(request, "study/quiz/exam.html", _exam(attempt, str(error), form), status=400)
    if attempt.mode == quiz.EXAM:
        store.submit_exam(attempt, answers, timezone.now())
    return redirect("study:quiz-results", attempt.pk)


@require_POST
@friendly
def quiz_finish(request: HtmxHttpRequest, attempt_id: int) -> HttpResponse:
    attempt = _attempt(request, attempt_id)
    store.finish_now(attempt, timezone.now())
    return redirect("study:quiz-results", attempt.pk)


@require_safe
@friendly
def quiz_results(request: HtmxHttpRequest, attempt_id: int) -> HttpResponse:
    attempt = _attempt(request, attempt_id)
    if not attempt.finished:
        return redirect("study:quiz-attempt", attempt.pk)
    result = quiz.score(load_study(), attempt.question_ids, attempt.answers)
    reviewed = [
        (position, item, quiz.review(item, attempt.seed))
        for position, item in enumerate(result.verdicts, 1)
    ]
    context = {
        **TOOL,
        "attempt": attempt,
        "result": result,
        "reviewed": reviewed,
        "wrong_count": len(result.wrong),
        "percent": quiz.percent(result),
        "pass_percent": quiz.PASS_PERCENT,
        "passed": quiz.passed(result),
        "needed": quiz.needed(result),
        "by_topic": quiz.breakdown(result.verdicts, "topic"),
        "by_section": quiz.breakdown(result.verdicts, "section"),
        **_timing(attempt),
    }
    return render(request, "study/quiz/results.html", context)


def _timing(attempt: QuizAttempt) -> dict[str, Any]:
    if attempt.finished_at is None:
        return {}
    taken = attempt.finished_at - attempt.started_at
    over = 0
    late = not quiz.in_time(attempt.started_at, attempt.time_limit, attempt.finished_at)
    if late and attempt.time_limit:
        past = taken - timedelta(minutes=attempt.time_limit)
        over = max(1, round(past.total_seconds() / 60))
    return {
        "minutes_taken": max(1, round(taken.total_seconds() / 60)),
        "minutes_over": over,
        # Only an exam's submit carries answers; a practice attempt's were each kept in time.
        "late_exam": late and attempt.mode == quiz.EXAM,
    }


def _single(question: Question, seed: int, error: str = "") -> dict[str, Any]:
    return {
        **TOOL,
        "question": question,
        "options": quiz.shown(question, seed),
        "seed": seed,
        "action": reverse("study:quiz-question-answer", args=[question.id]),
        "error": error,
        "chosen": (),
    }


def _known_question(question_id: str) -> Question:
    question = load_study().question_by_id.get(question_id)
    if question is None:
        raise Problem("There's no quiz question with that name.", reverse("study:traps"), "Traps")
    return question


@require_safe
@friendly
def quiz_question(request: HtmxHttpRequest, question_id: str) -> HttpResponse:
    question = _known_question(question_id)
    context = _single(question, quiz.new_seed(random.Random()))
    return page(request, SINGLE_PAGE, context, "region")


def _single_feedback(request: HtmxHttpRequest, verdict: quiz.Verdict, seed: int) -> dict[str, Any]:
    made_due = []
    if not verdict.correct:
        key = session_key(request)
        made_due = store.make_cards_due(key, verdict.question.cards, timezone.now())
    return {
        **TOOL,
        "verdict": verdict,
        "rows": quiz.review(verdict, seed),
        "question": verdict.question,
        "made_due": [load_study().card_by_id[card_id] for card_id in made_due],
    }


@require_POST
@friendly
def quiz_question_answer(request: HtmxHttpRequest, question_id: str) -> HttpResponse:
    question = _known_question(question_id)
    seed_text = request.POST.get("seed", "")
    seed = int(seed_text) if seed_text.isdecimal() and len(seed_text) < 12 else 0
    try:
        chosen = quiz.parse_shown(question, seed, request.POST.getlist("option"))
    except quiz.AnswerError as error:
        context = _single(question, seed, str(error))
        return page(request, SINGLE_PAGE, context, "region", form_error_status(request))
    context = _single_feedback(request, quiz.Verdict(question, chosen), seed)
    return page(request, SINGLE_PAGE, context, "region")
