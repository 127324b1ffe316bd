"""Reading and writing one browser's study records. The rules live in quiz.py,
cards.py and scenarios.py; this module only moves their results in and out of
the database, one transaction per change."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import transaction

from studysite.study import cards, quiz
from studysite.study.content import FlashCard, Question, Scenario, load_study
from studysite.study.models import (
    BankAnswer,
    CardProgress,
    CardReview,
    QuizAttempt,
    ScenarioProgress,
)
from studysite.study.scenarios import Progress

UNDO_DEPTH = 50

# Quiz


def start_attempt(
    key: str,
    mode: str,
    question_ids: Sequence[str],
    rng: random.Random,
    now: datetime,
    time_limit: int | None = None,
) -> QuizAttempt:
    return QuizAttempt.objects.create(
        session_key=key,
        mode=mode,
        question_ids=list(question_ids),
        seed=quiz.new_seed(rng),
        answers={},
        started_at=now,
        time_limit=time_limit,
    )


def find_attempt(key: str, attempt_id: int) -> QuizAttempt | None:
    if not key or not 0 < attempt_id < 2**63:
        return None
    return QuizAttempt.objects.filter(session_key=key, pk=attempt_id).first()


def finished_attempts(key: str) -> list[QuizAttempt]:
    return list(QuizAttempt.objects.filter(session_key=key, finished_at__isnull=False))


def open_attempt(key: str) -> QuizAttempt | None:
    return QuizAttempt.objects.filter(session_key=key, finished_at__isnull=True).first()


def _finish(attempt: QuizAttempt, now: datetime) -> None:
    result = quiz.score(load_study(), attempt.question_ids, attempt.answers)
    attempt.finished_at, attempt.score = now, result.points


def record_answer(
    attempt: QuizAttempt, question: Question, chosen: Sequence[str], now: datetime
) -> list[str]:
    """Keep a practice answer (the first one counts); returns the cards made due."""
    with transaction.atomic():
        attempt.refresh_from_db()
        if question.id in attempt.answers or attempt.finished:
            return []
        attempt.answers[question.id] = list(chosen)
        if quiz.next_unanswered(attempt.question_ids, attempt.answers) is None:
            _finish(attempt, now)
        attempt.save()
        wrong = not quiz.verdict(question, attempt.answers).correct
        return make_cards_due(attempt.session_key, question.cards, now) if wrong else []


def submit_exam(attempt: QuizAttempt, answers: dict[str, tuple[str, ...]], now: datetime) -> None:
    """Finish an exam with its answers; sent after its deadline (quiz.in_time), none count:
    the page sends them only at the end, so none of them is known to be answered in time."""
    with transaction.atomic():
        attempt.refresh_from_db()
        if attempt.finished:
            return
        if not quiz.in_time(attempt.started_at, attempt.time_limit, now):
            answers = {}
        attempt.answers = {qid: list(chosen) for qid, chosen in answers.items()}
        _finish(attempt, now)
        attempt.save()
        for item in quiz.score(load_study(), attempt.question_ids, attempt.answers).wrong:
            make_cards_due(attempt.session_key, item.question.cards, now)


def finish_now(attempt: QuizAttempt, now: datetime) -> None:
    with transaction.atomic():
        attempt.refresh_from_db()
        if not attempt.finished:
            _finish(attempt, now)
            attempt.save()


# Flashcards


def card_states(key: str) -> dict[str, cards.CardState]:
    rows = CardProgress.objects.filter(session_key=key).values_list("card_id", "state")
    return dict(rows)


def _save_state(key: str, card_id: str, state: cards.CardState) -> None:
    CardProgress.objects.update_or_create(
        session_key=key,
        card_id=card_id,
        defaults={"state": state, "due": cards.due_at(state)},
    )


def make_cards_due(key: str, card_ids: Iterable[str], now: datetime) -> list[str]:
    """Put these cards in the due pile now (a wrong quiz answer does this)."""
    states = card_states(key)
    made = []
    for card_id in card_ids:
        if card_id in load_study().card_by_id:
            _save_state(key, card_id, cards.make_due(states.get(card_id), now))
            made.append(card_id)
    return made


def grade_card(key: str, card: FlashCard, rating: int, now: datetime) -> cards.CardState:
    with transaction.atomic():
        previous = card_states(key).get(card.id)
        state = cards.review(previous, rating, now)
        _save_state(key, card.id, state)
        CardReview.objects.create(
            session_key=key,
            card_id=card.id,
            rating=rating,
            previous_state=previous,
            reviewed_at=now,
        )
        stale = CardReview.objects.filter(session_key=key).values_list("pk", flat=True)
        CardReview.objects.filter(pk__in=list(stale[UNDO_DEPTH:])).delete()
    return state


def undo_last_grade(key: str) -> str | None:
    """Put the last graded card back as it was; returns its id, or None if nothing to undo."""
    with transaction.atomic():
        last = CardReview.objects.filter(session_key=key).first()
        if last is None:
            return None
        if last.previous_state is None:
            CardProgress.objects.filter(session_key=key, card_id=last.card_id).delete()
        else:
            _save_state(key, last.card_id, last.previous_state)
        last.delete()
        return last.card_id


def can_undo(key: str) -> bool:
    return CardReview.objects.filter(session_key=key).exists()


# Scenarios


def scenario_progress(key: str, scenario: Scenario) -> Progress:
    row = ScenarioProgress.objects.filter(session_key=key, scenario_id=scenario.id).first()
    return _progress(row) if row else Progress()


def all_scenario_progress(key: str) -> dict[str, Progress]:
    rows = ScenarioProgress.objects.filter(session_key=key)
    return {row.scenario_id: _progress(row) for row in rows}


def _progress(row: ScenarioProgress) -> Progress:
    return Progress(row.choice_id, row.guess_text, row.hints_shown, row.revealed)


def save_scenario(key: str, scenario: Scenario, progress: Progress) -> None:
    if progress == Progress():
        ScenarioProgress.objects.filter(session_key=key, scenario_id=scenario.id).delete()
        return
    ScenarioProgress.objects.update_or_create(
        session_key=key,
        scenario_id=scenario.id,
        defaults={
            "choice_id": progress.choice_id,
            "guess_text": progress.guess_text,
            "hints_shown": progress.hints_shown,
            "revealed": progress.revealed,
        },
    )


# Question bank


def record_bank_answer(
    key: str, question: Question, chosen: Sequence[str], now: datetime
) -> tuple[bool, list[str]]:
    """Keep one bank answer; returns whether it was right and the cards it made due."""
    correct = frozenset(chosen) == question.correct_ids
    with transaction.atomic():
        BankAnswer.objects.create(
            session_key=key,
            question_id=question.id,
            chosen=list(chosen),
            correct=correct,
            answered_at=now,
        )
        made = [] if correct else make_cards_due(key, question.cards, now)
    return correct, made


def latest_bank_results(key: str) -> dict[str, bool]:
    """Question id -> whether this browser's latest answer to it was right."""
    latest: dict[str, bool] = {}
    rows = BankAnswer.objects.filter(session_key=key).values_list("question_id", "correct")
    for question_id, correct in rows:  # newest first
        latest.setdefault(question_id, correct)
    return latest
