"""The command meter charges a command for its own work, not the interpreter's."""

from __future__ import annotations

import gc
import time

from simulators.lab import budget


def test_a_full_garbage_collection_during_a_command_is_not_charged_to_it() -> None:
    heap = [{"n": [i]} for i in range(1_000_000)]
    started = time.thread_time()
    with budget.metered(budget.Meter()) as meter:
        gc.collect()
    collected = time.thread_time() - started
    del heap
    assert collected > 0.02
    assert meter.spent() < collected / 4


def test_the_commands_own_work_is_still_charged() -> None:
    with budget.metered(budget.Meter()) as meter:
        deadline = time.thread_time() + 0.05
        while time.thread_time() < deadline:
            pass
    assert meter.spent() >= 0.05
