"""The progress parts this app keeps: guide reading, quiz history, flashcards, scenarios.

Every import checks the whole part before it writes anything (see progress.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from django.utils import timezone

from studysite.guide.progress import READ_KEY, read_sections
from studysite.guide.sections import load_guide
from studysite.sessions import existing_key, session_key
from studysite.study import bank, cards, quiz, store
from studysite.study.content import load_study
from studysite.study.models import (
    BankAnswer,
    CardProgress,
    CardReview,
    QuizAttempt,
    ScenarioProgress,
)
from studysite.study.progress import ProgressDataError, register_progress_part
from studysite.study.scenarios import ScenarioError, from_data, to_data

MAX_ATTEMPTS = 500
# the practice set in progress (studysite.study.views.bank)
BANK_SET_KEY = "study_bank_set"


def _when(value: Any, where: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise ProgressDataError(f"{where} must be a date and time with a time zone")
    return moment


def _mapping(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ProgressDataError(f"expected {what}")
    return data


# Guide reading (the guide app keeps it in the session)


def export_read(request: HttpRequest) -> list[str]:
    return sorted(read_sections(request))


def import_read(request: HttpRequest, data: Any) -> None:
    known = load_guide().by_slug
    if not isinstance(data, list) or not all(isinstance(s, str) and s in known for s in data):
        raise ProgressDataError("expected a list of guide section names")
    request.session[READ_KEY] = sorted(set(data))


def reset_read(request: HttpRequest) -> None:
    request.session[READ_KEY] = []


def summary_read(request: HttpRequest) -> str:
    return f"{len(read_sections(request))} of {len(load_guide().sections)} sections read"


# Quiz history


def export_quiz(request: HttpRequest) -> list[dict[str, Any]]:
    attempts = QuizAttempt.objects.filter(session_key=existing_key(request)).order_by("pk")
    return [
        {
            "mode": attempt.mode,
            "questions": attempt.question_ids,
            "seed": attempt.seed,
            "answers": attempt.answers,
            "started_at": attempt.started_at.isoformat(),
            "finished_at": attempt.finished_at.isoformat() if attempt.finished_at else None,
            "time_limit": attempt.time_limit,
        }
        for attempt in attempts
    ]


def _attempt(key: str, number: int, data: Any) -> QuizAttempt:
    where = f"attempt {number}"
    data = _mapping(data, f"{where} to be an object")
    study = load_study()
    ids, seed, answers = data.get("questions"), data.get("seed"), data.get("answers")
    if data.get("mode") not in quiz.MODES:
        raise ProgressDataError(f"{where}: 'mode' must be practice or exam")
    if not isinstance(ids, list) or not ids or len(set(map(str, ids))) != len(ids):
        raise ProgressDataError(f"{where}: 'questions' must be a list of question ids")
    if not all(isinstance(qid, str) and qid in study.question_by_id for qid in ids):
        raise ProgressDataError(f"{where}: 'questions' names a question this quiz doesn't have")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ProgressDataError(f"{where}: 'seed' must be a whole number")
    answers = _mapping(answers, f"{where}: 'answers' to be an object")
    checked: dict[str, list[str]] = {}
    for qid, chosen in answers.items():
        if qid not in ids or not isinstance(chosen, list):
            raise ProgressDataError(f"{where}: an answer doesn't match the attempt's questions")
        try:
            values = [value for value in chosen if isinstance(value, str)]
            if len(values) != len(chosen):
                raise quiz.AnswerError("option ids must be text")
            checked[qid] = list(quiz.parse_answer(study.question_by_id[qid], values))
        except quiz.AnswerError as error:
            raise ProgressDataError(f"{where}: {error}") from None
    finished = data.get("finished_at")
    limit = data.get("time_limit")
    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 600
    ):
        raise ProgressDataError(f"{where}: 'time_limit' must be minutes from 1 to 600, or null")
    return QuizAttempt(
        session_key=key,
        mode=data["mode"],
        question_ids=ids,
        seed=seed,
        answers=checked,
        started_at=_when(data.get("started_at"), f"{where}: 'started_at'"),
        finished_at=None if finished is None else _when(finished, f"{where}: 'finished_at'"),
        score=quiz.score(study, ids, checked).points if finished is not None else None,
        time_limit=limit,
    )


def import_quiz(request: HttpRequest, data: Any) -> None:
    if not isinstance(data, list) or len(data) > MAX_ATTEMPTS:
        raise ProgressDataError(f"expected a list of at most {MAX_ATTEMPTS} attempts")
    key = session_key(request)
    attempts = [_attempt(key, number, item) for number, item in enumerate(data, 1)]
    reset_quiz(request)
    QuizAttempt.objects.bulk_create(attempts)


def reset_quiz(request: HttpRequest) -> None:
    QuizAttempt.objects.filter(session_key=existing_key(request)).delete()


def summary_quiz(request: HttpRequest) -> str:
    done = store.finished_attempts(existing_key(request))
    if not done:
        return "No quiz attempts finished yet"
    best = max(done, key=lambda attempt: (attempt.score or 0) / attempt.total)
    plural = "" if len(done) == 1 else "s"
    return f"{len(done)} attempt{plural} finished; best score {best.score} / {best.total}"


# Flashcards


def export_cards(request: HttpRequest) -> dict[str, Any]:
    return {"states": store.card_states(existing_key(request))}


def import_cards(request: HttpRequest, data: Any) -> None:
    states = _mapping(_mapping(data, "an object").get("states"), "a 'states' object")
    known = load_study().card_by_id
    rows = []
    key = session_key(request)
    for card_id, state in states.items():
        if card_id not in known:
            raise ProgressDataError(f"card {card_id!r} isn't one of this site's cards")
        try:
            checked = cards.to_state(cards.to_card(state))
        except cards.CardStateError as error:
            raise ProgressDataError(f"card {card_id!r}: {error}") from None
        rows.append(
            CardProgress(session_key=key, card_id=card_id, state=checked, due=cards.due_at(checked))
        )
    reset_cards(request)
    CardProgress.objects.bulk_create(rows)


def reset_cards(request: HttpRequest) -> None:
    key = existing_key(request)
    CardProgress.objects.filter(session_key=key).delete()
    CardReview.objects.filter(session_key=key).delete()


def summary_cards(request: HttpRequest) -> str:
    study, states = load_study(), store.card_states(existing_key(request))
    found = cards.counts(study.cards, states, timezone.now())
    reviewed = sum(1 for state in states.values() if state.get("last_review"))
    return f"{reviewed} of {len(study.cards)} cards reviewed; {found.due} due now"


# Scenarios


def export_scenarios(request: HttpRequest) -> dict[str, Any]:
    found = store.all_scenario_progress(existing_key(request))
    return {scenario_id: to_data(progress) for scenario_id, progress in found.items()}


def import_scenarios(request: HttpRequest, data: Any) -> None:
    study = load_study()
    checked = []
    for scenario_id, item in _mapping(data, "an object").items():
        scenario = study.scenario_by_id.get(scenario_id)
        if scenario is None:
            raise ProgressDataError(f"scenario {scenario_id!r} isn't one of this site's")
        try:
            checked.append((scenario, from_data(scenario, _mapping(item, "an object"))))
        except ScenarioError as error:
            raise ProgressDataError(f"scenario {scenario_id!r}: {error}") from None
    reset_scenarios(request)
    key = session_key(request)
    for scenario, progress in checked:
        store.save_scenario(key, scenario, progress)


def reset_scenarios(request: HttpRequest) -> None:
    ScenarioProgress.objects.filter(session_key=existing_key(request)).delete()


def summary_scenarios(request: HttpRequest) -> str:
    found = store.all_scenario_progress(existing_key(request)).values()
    revealed = sum(1 for progress in found if progress.revealed)
    return f"{revealed} of {len(load_study().scenarios)} scenarios solved"


# Question bank

MAX_BANK_ANSWERS = 20_000


def export_bank(request: HttpRequest) -> list[dict[str, Any]]:
    rows = BankAnswer.objects.filter(session_key=existing_key(request)).order_by("pk")
    return [
        {
            "question": row.question_id,
            "chosen": row.chosen,
            "answered_at": row.answered_at.isoformat(),
        }
        for row in rows
    ]


def _bank_answer(key: str, number: int, data: Any) -> BankAnswer:
    where = f"answer {number}"
    data = _mapping(data, f"{where} to be an object")
    item = (
        bank.load().by_id.get(data.get("question"))
        if isinstance(data.get("question"), str)
        else None
    )
    if item is None:
        raise ProgressDataError(f"{where}: 'question' names a question the bank doesn't have")
    chosen = data.get("chosen")
    if not isinstance(chosen, list) or not all(isinstance(value, str) for value in chosen):
        raise ProgressDataError(f"{where}: 'chosen' must be a list of option ids")
    try:
        checked = quiz.parse_answer(item, chosen)
    except quiz.AnswerError as error:
        raise ProgressDataError(f"{where}: {error}") from None
    return BankAnswer(
        session_key=key,
        question_id=item.id,
        chosen=list(checked),
        correct=frozenset(checked) == item.correct_ids,
        answered_at=_when(data.get("answered_at"), f"{where}: 'answered_at'"),
    )


def import_bank(request: HttpRequest, data: Any) -> None:
    if not isinstance(data, list) or len(data) > MAX_BANK_ANSWERS:
        raise ProgressDataError(f"expected a list of at most {MAX_BANK_ANSWERS} answers")
    key = session_key(request)
    rows = [_bank_answer(key, number, item) for number, item in enumerate(data, 1)]
    reset_bank(request)
    BankAnswer.objects.bulk_create(rows)


def reset_bank(request: HttpRequest) -> None:
    BankAnswer.objects.filter(session_key=existing_key(request)).delete()
    request.session.pop(BANK_SET_KEY, None)


def summary_bank(request: HttpRequest) -> str:
    found = bank.load()
    latest = store.latest_bank_results(existing_key(request))
    answered = [ok for qid, ok in latest.items() if qid in found.by_id]
    return (
        f"{len(answered)} of {len(found.questions)} bank questions answered; "
        f"{sum(answered)} right on the latest try"
    )


def register() -> None:
    register_progress_part(
        "guide-read",
        export_read,
        import_read,
        reset_read,
        label="Guide sections read",
        summary=summary_read,
    )
    register_progress_part(
        "quiz", export_quiz, import_quiz, reset_quiz, label="Quiz history", summary=summary_quiz
    )
    register_progress_part(
        "cards", export_cards, import_cards, reset_cards, label="Flashcards", summary=summary_cards
    )
    register_progress_part(
        "scenarios",
        export_scenarios,
        import_scenarios,
        reset_scenarios,
        label="Scenarios",
        summary=summary_scenarios,
    )
    register_progress_part(
        "bank", export_bank, import_bank, reset_bank, label="Question bank", summary=summary_bank
    )
