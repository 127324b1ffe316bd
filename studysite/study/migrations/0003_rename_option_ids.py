"""Saved answers follow their options to the ids they were given when the answer keys were
spread evenly over a-d (studysite.study.renamed_options); going back renames them back."""

from __future__ import annotations

from typing import Any

from django.db import migrations

from studysite.study.renamed_options import QUESTIONS, SCENARIOS

Table = dict[str, dict[str, str]]


def _inverse(table: Table) -> Table:
    return {item: {new: old for old, new in renamed.items()} for item, renamed in table.items()}


def _rename(apps: Any, questions: Table, scenarios: Table) -> None:
    attempts = apps.get_model("study", "QuizAttempt")
    for attempt in attempts.objects.all():
        answers = {
            qid: sorted(questions.get(qid, {}).get(choice, choice) for choice in chosen)
            for qid, chosen in attempt.answers.items()
        }
        if answers != attempt.answers:
            attempt.answers = answers
            attempt.save(update_fields=["answers"])
    bank = apps.get_model("study", "BankAnswer")
    for answer in bank.objects.filter(question_id__in=list(questions)):
        renamed = questions[answer.question_id]
        answer.chosen = sorted(renamed.get(choice, choice) for choice in answer.chosen)
        answer.save(update_fields=["chosen"])
    progress = apps.get_model("study", "ScenarioProgress")
    for row in progress.objects.filter(scenario_id__in=list(scenarios)).exclude(choice_id=""):
        row.choice_id = scenarios[row.scenario_id].get(row.choice_id, row.choice_id)
        row.save(update_fields=["choice_id"])


def forwards(apps: Any, schema_editor: Any) -> None:
    _rename(apps, QUESTIONS, SCENARIOS)


def backwards(apps: Any, schema_editor: Any) -> None:
    _rename(apps, _inverse(QUESTIONS), _inverse(SCENARIOS))


class Migration(migrations.Migration):
    dependencies = [
        ("study", "0002_bank_answers_and_exam_timer"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
