"""What a learner has done, per browser: there are no accounts, so every row
carries the session key of the browser that made it."""

from __future__ import annotations

from django.db import models


class QuizAttempt(models.Model):
    MODES = {"practice": "Practice", "exam": "Exam"}

    session_key = models.CharField(max_length=64, db_index=True)
    mode = models.CharField(max_length=10, choices=MODES)
    question_ids = models.JSONField()
    seed = models.BigIntegerField()
    # question id -> the option ids chosen, sorted
    answers = models.JSONField(default=dict)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    # exam mode's optional timer, in minutes; None is untimed
    time_limit = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"{self.mode} attempt {self.pk} ({len(self.question_ids)} questions)"

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    @property
    def total(self) -> int:
        return len(self.question_ids)


class CardProgress(models.Model):
    session_key = models.CharField(max_length=64)
    card_id = models.CharField(max_length=100)
    # the fsrs Card as a dict (studysite.study.cards.to_state)
    state = models.JSONField()
    due = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session_key", "card_id"], name="one_state_per_card")
        ]
        indexes = [models.Index(fields=["session_key", "due"])]

    def __str__(self) -> str:
        return f"{self.card_id} due {self.due:%Y-%m-%d %H:%M}"


class CardReview(models.Model):
    """One grade, with the state before it, so that the last grade can be undone."""

    session_key = models.CharField(max_length=64, db_index=True)
    card_id = models.CharField(max_length=100)
    rating = models.PositiveSmallIntegerField()
    previous_state = models.JSONField(null=True, blank=True)
    reviewed_at = models.DateTimeField()

    class Meta:
        ordering = ["-reviewed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.card_id} graded {self.rating}"


class ScenarioProgress(models.Model):
    session_key = models.CharField(max_length=64)
    scenario_id = models.CharField(max_length=100)
    choice_id = models.CharField(max_length=20, blank=True, default="")
    guess_text = models.TextField(blank=True, default="")
    hints_shown = models.PositiveSmallIntegerField(default=0)
    revealed = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["session_key", "scenario_id"], name="one_progress_per_scenario"
            )
        ]

    def __str__(self) -> str:
        return f"{self.scenario_id} ({'revealed' if self.revealed else 'open'})"


class BankAnswer(models.Model):
    """One answer to a question-bank question; the latest per question is what counts."""

    session_key = models.CharField(max_length=64)
    question_id = models.CharField(max_length=100)
    chosen = models.JSONField()
    correct = models.BooleanField()
    answered_at = models.DateTimeField()

    class Meta:
        ordering = ["-answered_at", "-id"]
        indexes = [models.Index(fields=["session_key", "question_id"])]

    def __str__(self) -> str:
        return f"{self.question_id} {'right' if self.correct else 'wrong'}"
