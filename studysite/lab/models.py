from __future__ import annotations

import json
import zlib
from typing import Any

from django.db import models


class SavedLab(models.Model):
    """One browser session's lab on one ticket.

    Its snapshot of the whole world and transcript is a LabSnapshot; the commands typed
    since then are rows of LoggedCommand. The lab is deterministic, so snapshot + replay
    gives back exactly the lab the learner left, while each command costs one small
    insert instead of rewriting the whole snapshot.

    `next_position` counts every change ever made; a writer applies its command only
    if the count is still the one it loaded (see store.apply), so tabs, the form
    and several server processes never lose or reorder each other's commands.
    `replay_cost` is the CPU time replaying the log costs, kept small by snapshots.
    `done_items`/`total_items` copy the checklist so lists need no replay (-1: not yet known).
    """

    session_key = models.CharField(max_length=40, db_index=True)
    ticket = models.CharField(max_length=64)
    exam_mode = models.BooleanField(default=False)
    updated = models.DateTimeField(auto_now=True)
    next_position = models.PositiveBigIntegerField(default=0)
    replay_cost = models.FloatField(default=0.0)
    done_items = models.SmallIntegerField(default=-1)
    total_items = models.SmallIntegerField(default=-1)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session_key", "ticket"], name="one_lab_per_ticket")
        ]

    def __str__(self) -> str:
        return f"{self.ticket} for {self.session_key[:8]}…"


class LabSnapshot(models.Model):
    """A lab's snapshot, in a table of its own.

    Every command updates its SavedLab row (the one-writer check); SQLite rewrites a whole row
    on update, so with the snapshot in that row each command rewrote it too, several times the
    cost of the update alone (tests/benchmarks/bench_snapshot_row.py). The snapshot is written only
    when the lab folds its log into it.

    `packed` is the snapshot's JSON text compressed with zlib (level 1): 260-800 KB of JSON,
    most of it the transcript's repeated outputs, in a tenth of that. Written whole at every
    fold while every other writer of the database waits, so smaller is faster for everyone.
    `state` is the JSON itself, as snapshots were saved before; a lab saved so is read from
    it, and packed at its next fold.
    """

    lab = models.OneToOneField(
        SavedLab, on_delete=models.CASCADE, primary_key=True, related_name="snapshot"
    )
    state = models.JSONField(null=True)
    packed = models.BinaryField(null=True)

    def __str__(self) -> str:
        return f"snapshot of {self.lab_id}"

    def data(self) -> Any:
        """The snapshot's JSON data, however it was saved."""
        if self.packed is not None:
            return json.loads(zlib.decompress(self.packed))
        return self.state

    @staticmethod
    def pack(text: str) -> bytes:
        return zlib.compress(text.encode("utf-8"), 1)


class LoggedCommand(models.Model):
    """A line typed after the lab's snapshot, replayed when the lab is opened."""

    lab = models.ForeignKey(SavedLab, on_delete=models.CASCADE, related_name="log")
    position = models.PositiveIntegerField()
    line = models.TextField()
    hints = models.BooleanField(default=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["lab", "position"], name="one_command_per_position")
        ]

    def __str__(self) -> str:
        return f"{self.position}: {self.line[:40]}"


class ExamAttempt(models.Model):
    """One lab exam taken by one browser session (studysite.lab.exam).

    `token` names the attempt's labs (exam.lab_key): random, so a task's lab is apart from the
    learner's practice lab of the same ticket and from any other attempt's. `deadline` is the
    one clock for every task; `finished` is set once the tasks are scored (their results kept).
    """

    session_key = models.CharField(max_length=40, db_index=True)
    token = models.CharField(max_length=24, unique=True)
    started = models.DateTimeField()
    deadline = models.DateTimeField()
    finished = models.DateTimeField(null=True)

    class Meta:
        ordering = ["-started"]

    def __str__(self) -> str:
        return f"exam {self.token} for {self.session_key[:8]}…"


class ExamTask(models.Model):
    """One ticket of an exam attempt: its lab's seed, when its commands were typed, and (once
    the attempt is finished) its `result`: the checklist as the checks saw it, the commands
    typed and the model answer (exam.score)."""

    attempt = models.ForeignKey(ExamAttempt, on_delete=models.CASCADE, related_name="tasks")
    position = models.PositiveSmallIntegerField()
    ticket = models.CharField(max_length=64)
    seed = models.PositiveBigIntegerField()
    first_command = models.DateTimeField(null=True)
    last_command = models.DateTimeField(null=True)
    result = models.JSONField(null=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["attempt", "position"], name="one_task_per_position")
        ]

    def __str__(self) -> str:
        return f"task {self.position} ({self.ticket})"
