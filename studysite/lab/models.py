from __future__ import annotations

from django.db import models


class SavedLab(models.Model):
    """One browser session's lab on one ticket: the whole world and transcript as JSON."""

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
