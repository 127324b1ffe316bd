"""The lab exam: TASKS tickets drawn at random, fresh seeds, one clock, scored at the end.

An attempt (models.ExamAttempt) draws its tickets from LAB_EXAM_TICKETS (every ticket when
empty), preferring those the learner's previous attempt did not have, and gives each task a
lab of its own: a saved lab (store) under `lab_key(attempt, position)`, never the learner's
practice lab of that ticket, created at the start with a fresh random seed and in exam mode
(no hints, no Tab completion). The pages show each task's story and goals, never its checks'
state, hints or answer key, until the end.

One clock: commands sent after `deadline` + GRACE are refused (`accepts`), as the quiz's timed
exam counts no answer after its deadline and grace, so a task's lab at any later time is the lab
as of the deadline. `finish` scores every task by its checklist and keeps, per task, what each
check saw, the commands typed, when (first and last command) and the model answer (the ticket's
answer key for that lab's world); the labs are then deleted.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from simulators.lab import LabSession, editor, list_tickets
from studysite.lab import accounts, store
from studysite.lab.accounts import EXAM_PREFIX
from studysite.lab.models import ExamAttempt, ExamTask, SavedLab

TASKS = 5
# As the quiz's timed exam (studysite.study.quiz.GRACE): a command already on its way counts.
GRACE = timedelta(seconds=15)
# A learner's own clock for one attempt, in minutes.
MIN_MINUTES = 0.25
MAX_MINUTES = 600.0
LAB_PREFIX = EXAM_PREFIX


def lab_key(attempt: ExamAttempt, position: int) -> str:
    """The saved-lab key of one task's lab (in place of a session key: at most 40 characters,
    and with a `-`, never a Django session key)."""
    key = f"{LAB_PREFIX}{attempt.token}-{position}"
    accounts.remember(key, attempt.session_key)
    return key


def pool() -> list[str]:
    """The ticket ids an exam draws from."""
    known = [ticket.id for ticket in list_tickets()]
    chosen = set(settings.LAB_EXAM_TICKETS)
    return [ticket for ticket in known if ticket in chosen] if chosen else known


def draw(tickets: list[str], previous: set[str], rng: random.Random) -> list[str]:
    """TASKS distinct tickets (all of them when fewer), those not in `previous` first."""
    fresh = [ticket for ticket in tickets if ticket not in previous]
    again = [ticket for ticket in tickets if ticket in previous]
    rng.shuffle(fresh)
    rng.shuffle(again)
    chosen = (fresh + again)[:TASKS]
    rng.shuffle(chosen)
    return chosen


def minutes_from(raw: str | None) -> float | None:
    """The minutes a start form asked for (the setting when blank), or None if unusable."""
    if raw is None or not raw.strip():
        return float(settings.LAB_EXAM_MINUTES)
    try:
        minutes = float(raw)
    except ValueError:
        return None
    return minutes if MIN_MINUTES <= minutes <= MAX_MINUTES else None


def start(session_key: str, minutes: float, now: datetime | None = None) -> ExamAttempt:
    """A new attempt: its tickets drawn, and each task's lab created with a fresh seed."""
    now = now or timezone.now()
    last = ExamAttempt.objects.filter(session_key=session_key).first()
    previous = set(last.tasks.values_list("ticket", flat=True)) if last else set()
    tickets = draw(pool(), previous, random.SystemRandom())
    seeds = [secrets.randbits(32) for _ in tickets]
    # Encoded before the transaction (store.Snapshot): the writes alone hold the database.
    snapshots = [
        store.Snapshot.of(LabSession.new(ticket, seed=seed))
        for ticket, seed in zip(tickets, seeds, strict=True)
    ]
    with store.one_writer(), transaction.atomic():
        attempt = ExamAttempt.objects.create(
            session_key=session_key,
            token=secrets.token_hex(12),
            started=now,
            deadline=now + timedelta(minutes=minutes),
        )
        for position, (ticket, seed, snapshot) in enumerate(
            zip(tickets, seeds, snapshots, strict=True), start=1
        ):
            ExamTask.objects.create(attempt=attempt, position=position, ticket=ticket, seed=seed)
            store.create(lab_key(attempt, position), ticket, snapshot, exam_mode=True)
    return attempt


def accepts(attempt: ExamAttempt, now: datetime | None = None) -> bool:
    """Whether a command sent at `now` counts: not finished, before the deadline plus GRACE."""
    return attempt.finished is None and (now or timezone.now()) <= attempt.deadline + GRACE


def time_up(attempt: ExamAttempt, now: datetime | None = None) -> bool:
    return (now or timezone.now()) >= attempt.deadline


TIME_UP = "exam: time is up; this command was not run (see your report)"


def commanded(task: ExamTask, now: datetime | None = None) -> None:
    """Note that a command of this task was kept now (its first and last command's times)."""
    now = now or timezone.now()
    ExamTask.objects.filter(pk=task.pk, first_command__isnull=True).update(first_command=now)
    ExamTask.objects.filter(pk=task.pk).update(last_command=now)


def typed(lab: LabSession) -> list[str]:
    """The commands the learner typed, as the transcript keeps them (an editor's save is
    shown as the file it wrote, never as its whole buffer)."""
    lines = []
    for entry in lab.transcript:
        line = entry.line
        if not line.strip():
            continue
        if editor.is_save(line):
            line = "(saved a file in the editor)"
        lines.append(line)
    return lines


def score(attempt: ExamAttempt, task: ExamTask) -> dict[str, Any]:
    """What the task's checks see in its lab now, the commands typed, and the model answer."""
    key = lab_key(attempt, task.position)
    if SavedLab.objects.filter(session_key=key, ticket=task.ticket).exists():
        # Read under the lab's lock: a command from another tab finishes first, and the kept
        # lab is not put to rest halfway through (studysite.lab.kept).
        with store.reading(store.open_lab(key, task.ticket)) as lab:
            return _scored(lab)
    # A lab lost (or an attempt imported without its labs): the task's untouched world.
    return _scored(LabSession.new(task.ticket, seed=task.seed))


def _scored(lab: LabSession) -> dict[str, Any]:
    items = lab.checklist()
    return {
        "title": lab.ticket.title,
        "checks": [item.to_dict() for item in items],
        "solved": bool(items) and all(item.done for item in items),
        "commands": typed(lab),
        "answer_key": lab.answer_key(),
    }


def finish(attempt: ExamAttempt, now: datetime | None = None) -> ExamAttempt:
    """Score every task (once) and delete the attempt's labs. A finish after the deadline
    scores the labs as of the deadline: no later command was run (`accepts`)."""
    if attempt.finished is not None:
        return attempt
    now = now or timezone.now()
    tasks = list(attempt.tasks.all())
    results = [score(attempt, task) for task in tasks]
    with store.one_writer(), transaction.atomic():
        claimed = ExamAttempt.objects.filter(pk=attempt.pk, finished__isnull=True).update(
            finished=min(now, attempt.deadline)
        )
        if claimed:
            for task, result in zip(tasks, results, strict=True):
                ExamTask.objects.filter(pk=task.pk).update(result=result)
            delete_labs(attempt)
    attempt.refresh_from_db()
    return attempt


def delete_labs(attempt: ExamAttempt) -> None:
    SavedLab.objects.filter(session_key__startswith=f"{LAB_PREFIX}{attempt.token}-").delete()


def finish_if_over(attempt: ExamAttempt) -> ExamAttempt:
    """The attempt, finished if its time is up."""
    if attempt.finished is None and time_up(attempt):
        return finish(attempt)
    return attempt


@dataclass(frozen=True)
class TaskReport:
    task: ExamTask
    title: str
    checks: list[dict[str, Any]]
    solved: bool
    commands: list[str]
    answer_key: list[str]
    spent: str


def duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


def report(attempt: ExamAttempt) -> list[TaskReport]:
    """Per task of a finished attempt, what its report shows."""
    rows = []
    for task in attempt.tasks.all():
        result = task.result or {}
        spent = 0.0
        if task.first_command and task.last_command:
            spent = (task.last_command - task.first_command).total_seconds()
        rows.append(
            TaskReport(
                task=task,
                title=str(result.get("title") or task.ticket),
                checks=list(result.get("checks") or []),
                solved=bool(result.get("solved")),
                commands=list(result.get("commands") or []),
                answer_key=list(result.get("answer_key") or []),
                spent=duration(spent),
            )
        )
    return rows


def delete_orphans() -> int:
    """Delete the attempts (and their labs) of sessions that no longer exist, and any lab a
    finished attempt still has (a command that raced its finish); returns the labs deleted."""
    from django.contrib.sessions.models import Session

    live = Session.objects.values("session_key")
    deleted = 0
    gone = ExamAttempt.objects.exclude(session_key__in=live)
    for attempt in [*gone, *ExamAttempt.objects.filter(finished__isnull=False)]:
        labs = SavedLab.objects.filter(session_key__startswith=f"{LAB_PREFIX}{attempt.token}-")
        deleted += labs.delete()[1].get("lab.SavedLab", 0)
    gone.delete()
    return deleted
