from __future__ import annotations

from django.db import models


class SavedLab(models.Model):
    """One browser session's lab on one ticket.

    `state` is a snapshot of the whole world and transcript; the commands typed since
    then are rows of LoggedCommand. The lab is deterministic, so snapshot + replay
    gives back exactly the lab the learner left, while each command costs one small
    insert instead of rewriting the whole snapshot.
    """

    session_key = models.CharField(max_length=40, db_index=True)
    ticket = models.CharField(max_length=64)
    state = models.JSONField()
    exam_mode = models.BooleanField(default=False)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session_key", "ticket"], name="one_lab_per_ticket")
        ]

    def __str__(self) -> str:
        return f"{self.ticket} for {self.session_key[:8]}…"


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
