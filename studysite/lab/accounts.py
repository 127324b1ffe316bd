"""Whose processor share a lab's commands spend: the learner's, whichever lab they type in.

A practice lab is saved under its learner's session key. A lab-exam task's lab is saved under
a key of its own (`EXAM_PREFIX`, the attempt's token, the task's position), so that it stays
apart from the practice lab of the same ticket; its commands still spend the share of the
learner who took the exam, so five tasks don't earn five shares. `exam.lab_key` remembers
whose each task key is when it makes one (every path to a task's lab goes through it), so
`account` never reads the database: the terminal asks it on the event loop.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

EXAM_PREFIX = "exam-"
# Task keys remembered per process; the oldest are forgotten first (a forgotten task's
# commands spend a share of their own until its page or socket is opened again).
MAX_REMEMBERED = 20_000

_lock = threading.Lock()
_takers: OrderedDict[str, str] = OrderedDict()


def remember(lab_key: str, taker: str) -> None:
    """`lab_key` is a lab of the learner whose session key is `taker`."""
    with _lock:
        _takers[lab_key] = taker
        _takers.move_to_end(lab_key)
        while len(_takers) > MAX_REMEMBERED:
            _takers.popitem(last=False)


def account(lab_key: str) -> str:
    """The key a lab's processor time is charged to: its learner's session key."""
    if not lab_key.startswith(EXAM_PREFIX):
        return lab_key
    with _lock:
        return _takers.get(lab_key, lab_key)
