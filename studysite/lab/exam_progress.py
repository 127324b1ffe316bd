"""The lab exam's share of the progress file: every attempt, finished or not.

A finished attempt carries its tasks' results (what the report shows); an unfinished one each
task's lab as well, checked on import as the lab part checks a saved lab (studysite.lab.progress).
An imported attempt gets a new token, so its labs never meet the exported browser's.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from django.db import transaction
from django.http import HttpRequest

from simulators.lab import LabSession, list_tickets
from simulators.lab.session import MAX_TRANSCRIPT
from studysite.lab import exam, progress, store
from studysite.lab.models import ExamAttempt, ExamTask, SavedLab
from studysite.sessions import existing_key, session_key
from studysite.study.progress import ProgressDataError, register_progress_part

MAX_ATTEMPTS = 200


def _when(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def export(request: HttpRequest) -> list[dict[str, Any]]:
    out = []
    for attempt in ExamAttempt.objects.filter(session_key=existing_key(request)):
        tasks = []
        for task in attempt.tasks.all():
            entry: dict[str, Any] = {
                "position": task.position,
                "ticket": task.ticket,
                "seed": task.seed,
                "first_command": _when(task.first_command),
                "last_command": _when(task.last_command),
                "result": task.result,
            }
            if attempt.finished is None:
                key = exam.lab_key(attempt, task.position)
                saved = SavedLab.objects.filter(session_key=key, ticket=task.ticket).first()
                if saved is not None:
                    entry["state"] = store.restore(saved)[0].to_json()
            tasks.append(entry)
        out.append(
            {
                "started": attempt.started.isoformat(),
                "deadline": attempt.deadline.isoformat(),
                "finished": _when(attempt.finished),
                "tasks": tasks,
            }
        )
    return out


def _date(value: Any, *, optional: bool = False) -> datetime | None:
    if value is None and optional:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise ProgressDataError("An exam attempt in that file has a damaged date.") from None
    if moment.tzinfo is None:
        raise ProgressDataError("An exam attempt in that file has a date without a time zone.")
    return moment


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _result(value: Any) -> dict[str, Any] | None:
    """A task's result as the report reads it, or ProgressDataError."""
    if value is None:
        return None
    checks = value.get("checks") if isinstance(value, dict) else None
    if (
        not isinstance(value, dict)
        or not isinstance(checks, list)
        or not all(
            isinstance(check, dict)
            and isinstance(check.get("id"), str)
            and isinstance(check.get("text"), str)
            and isinstance(check.get("done"), bool)
            for check in checks
        )
        or not _texts(value.get("commands"))
        or not _texts(value.get("answer_key"))
        or len(value["commands"]) > MAX_TRANSCRIPT
        or not isinstance(value.get("solved"), bool)
        or not isinstance(value.get("title", ""), str)
    ):
        raise ProgressDataError("An exam task's result in that file is damaged.")
    return {
        "title": value.get("title", ""),
        "checks": [{k: check[k] for k in ("id", "text", "done")} for check in checks],
        "solved": value["solved"],
        "commands": value["commands"],
        "answer_key": value["answer_key"],
    }


def _lab(entry: dict[str, Any], ticket: str) -> LabSession | None:
    if entry.get("state") is None:
        return None
    try:
        lab = LabSession.from_json(entry["state"], trusted=False)
    except Exception:  # whatever a damaged document makes the decoder raise
        raise ProgressDataError(f"The exam's lab for ticket {ticket} is damaged.") from None
    if lab.ticket_id != ticket:
        raise ProgressDataError(f"The exam's lab for ticket {ticket} is another ticket's.")
    problem = (
        progress.over_limits(lab)
        or progress.invalid_object(lab)
        or progress.fails_to_run(entry["state"])
    )
    if problem:
        raise ProgressDataError(f"The exam's lab for ticket {ticket} {problem}.")
    return lab


Checked = tuple[dict[str, Any], list[tuple[dict[str, Any], LabSession | None]]]


def checked(data: Any) -> list[Checked]:
    if not isinstance(data, list) or len(data) > MAX_ATTEMPTS:
        raise ProgressDataError(
            f"The lab exam part of that file should be a list of at most {MAX_ATTEMPTS} attempts."
        )
    known = {ticket.id for ticket in list_tickets()}
    rows: list[Checked] = []
    for raw in data:
        tasks = raw.get("tasks") if isinstance(raw, dict) else None
        if not isinstance(tasks, list) or not 1 <= len(tasks) <= exam.TASKS:
            raise ProgressDataError("An exam attempt in that file has no usable tasks.")
        attempt = {
            "started": _date(raw.get("started")),
            "deadline": _date(raw.get("deadline")),
            "finished": _date(raw.get("finished"), optional=True),
        }
        checked_tasks: list[tuple[dict[str, Any], LabSession | None]] = []
        for entry in tasks:
            if not isinstance(entry, dict):
                raise ProgressDataError("An exam task in that file is damaged.")
            ticket, position, seed = entry.get("ticket"), entry.get("position"), entry.get("seed")
            if (
                not isinstance(ticket, str)
                or (attempt["finished"] is None and ticket not in known)
                or len(ticket) > 64
                or not isinstance(position, int)
                or not 1 <= position <= exam.TASKS
                or not isinstance(seed, int)
                or not 0 <= seed < 2**32
            ):
                raise ProgressDataError("An exam task in that file names no ticket of this site.")
            if any(task["position"] == position for task, _ in checked_tasks):
                raise ProgressDataError("An exam attempt in that file lists a task twice.")
            task = {
                "position": position,
                "ticket": ticket,
                "seed": seed,
                "first_command": _date(entry.get("first_command"), optional=True),
                "last_command": _date(entry.get("last_command"), optional=True),
                "result": _result(entry.get("result")),
            }
            if attempt["finished"] is not None and task["result"] is None:
                raise ProgressDataError("A finished exam attempt in that file has no results.")
            lab = _lab(entry, ticket) if attempt["finished"] is None else None
            checked_tasks.append((task, lab))
        rows.append((attempt, checked_tasks))
    return rows


def import_(request: HttpRequest, data: Any) -> None:
    rows, key = checked(data), session_key(request)
    _delete(key)
    for fields, tasks in rows:
        attempt = ExamAttempt.objects.create(session_key=key, token=secrets.token_hex(12), **fields)
        for task_fields, lab in tasks:
            task = ExamTask.objects.create(attempt=attempt, **task_fields)
            if attempt.finished is None:
                seeded = lab or LabSession.new(task.ticket, seed=task.seed)
                where = exam.lab_key(attempt, task.position)
                store.create(where, task.ticket, seeded, exam_mode=True)


def _delete(key: str) -> None:
    with transaction.atomic():
        for attempt in ExamAttempt.objects.filter(session_key=key):
            exam.delete_labs(attempt)
            attempt.delete()


def reset(request: HttpRequest) -> None:
    _delete(existing_key(request))


def summary(request: HttpRequest) -> str:
    count = ExamAttempt.objects.filter(session_key=existing_key(request)).count()
    return f"{count} lab exam attempt{'' if count == 1 else 's'}"


def register() -> None:
    register_progress_part(
        "lab-exam", export, import_, reset, label="Lab exam attempts", summary=summary
    )
