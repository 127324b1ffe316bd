"""Whose processor share a lab's commands spend: the learner's, whichever lab they type in.

A practice lab is saved under its learner's session key. A lab-exam task's lab is saved under
a key of its own (`EXAM_PREFIX`, the attempt's token, the task's position), so that it stays
apart from the practice lab of the same ticket; its commands still spend the share of the
learner who took the exam, so five tasks don't earn five shares.
"""

from __future__ import annotations

import functools

from studysite.lab.models import ExamAttempt

EXAM_PREFIX = "exam-"


@functools.lru_cache(maxsize=4096)
def _taker_of(token: str) -> str:
    taker = ExamAttempt.objects.filter(token=token).values_list("session_key", flat=True).first()
    # An attempt gone (cleaned up) keeps its tasks together under the attempt's own name.
    return taker or f"{EXAM_PREFIX}{token}"


def account(lab_key: str) -> str:
    """The key a lab's processor time is charged to: its learner's session key."""
    if not lab_key.startswith(EXAM_PREFIX):
        return lab_key
    token = lab_key.removeprefix(EXAM_PREFIX).rsplit("-", 1)[0]
    return _taker_of(token)
