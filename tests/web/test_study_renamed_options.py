"""Answers saved before the answer keys were spread over a-d keep their meaning: the saved
ones are renamed by a migration, and a progress file of version 1 is read through the table."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from studysite.study.content import load_bank, load_study
from studysite.study.models import BankAnswer, QuizAttempt, ScenarioProgress
from studysite.study.renamed_options import QUESTIONS, SCENARIOS

BEFORE = [("study", "0002_bank_answers_and_exam_timer")]
AFTER = [("study", "0003_rename_option_ids")]
QUIZ_ID = next(qid for qid in QUESTIONS if qid in load_study().question_by_id)
BANK_ID = next(q.id for q in load_bank() if q.id in QUESTIONS)
SCENARIO_ID = next(iter(SCENARIOS))


def old_id(question_id: str, new: str) -> str:
    """The id an option had before the renaming."""
    return next((old for old, now in QUESTIONS[question_id].items() if now == new), new)


def old_right(question_id: str, questions: dict[str, object]) -> list[str]:
    question = questions[question_id]
    return sorted(old_id(question_id, new) for new in question.correct_ids)  # type: ignore[attr-defined]


@pytest.mark.django_db(transaction=True)
def test_answers_saved_before_the_renaming_still_name_the_options_chosen() -> None:
    study, bank = load_study().question_by_id, {q.id: q for q in load_bank()}
    old_choice = next(iter(SCENARIOS[SCENARIO_ID]))
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    now = datetime.now(UTC)
    try:
        apps.get_model("study", "QuizAttempt").objects.create(
            session_key="k" * 32,
            mode="exam",
            question_ids=[QUIZ_ID],
            seed=1,
            answers={QUIZ_ID: old_right(QUIZ_ID, study)},
            started_at=now,
        )
        apps.get_model("study", "BankAnswer").objects.create(
            session_key="k" * 32,
            question_id=BANK_ID,
            chosen=old_right(BANK_ID, bank),
            correct=True,
            answered_at=now,
        )
        apps.get_model("study", "ScenarioProgress").objects.create(
            session_key="k" * 32, scenario_id=SCENARIO_ID, choice_id=old_choice
        )
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(AFTER)
    attempt = QuizAttempt.objects.get()
    assert attempt.answers == {QUIZ_ID: sorted(study[QUIZ_ID].correct_ids)}
    assert BankAnswer.objects.get().chosen == sorted(bank[BANK_ID].correct_ids)
    assert ScenarioProgress.objects.get().choice_id == SCENARIOS[SCENARIO_ID][old_choice]


@pytest.mark.django_db
def test_a_version_1_progress_file_keeps_its_answers_meaning(client: Client) -> None:
    bank = {q.id: q for q in load_bank()}
    document = {
        "format": "runai-study-progress",
        "version": 1,
        "parts": {
            "bank": [
                {
                    "question": BANK_ID,
                    "chosen": old_right(BANK_ID, bank),
                    "answered_at": "2026-11-30T10:00:00+00:00",
                }
            ]
        },
    }
    content = json.dumps(document).encode()
    response = client.post("/progress/import", {"file": SimpleUploadedFile("p.json", content)})
    assert response.status_code == 302
    saved = BankAnswer.objects.get()
    assert saved.correct and saved.chosen == sorted(bank[BANK_ID].correct_ids)
