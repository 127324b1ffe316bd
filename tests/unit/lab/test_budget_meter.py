"""The command meter charges a command for its own work, not the interpreter's."""

from __future__ import annotations

import gc
import time

import pytest

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


class Clock:
    """A command's processor time, set by the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_command_on_probation_runs_until_it_spends_past_it_and_is_then_moved() -> None:
    clock = Clock()
    meter = budget.Meter(clock=clock, probation=0.02)
    with budget.metered(meter):
        clock.now = 0.02
        budget.check_time()  # at its probation: still here
        clock.now = 0.021
        with pytest.raises(budget.Moved):
            budget.check_time()


def test_a_command_on_probation_is_moved_by_work_that_gives_way_without_a_pace() -> None:
    clock = Clock()
    with budget.metered(budget.Meter(clock=clock, probation=0.02)):
        clock.now = 0.05
        with pytest.raises(budget.Moved):
            budget.give_way()


def test_no_tool_or_controller_handler_takes_a_move_for_its_own_error() -> None:
    # Handlers of the lab catch Exception (or BudgetExceeded): a move must pass through them.
    assert not issubclass(budget.Moved, Exception)


def test_a_command_without_probation_is_never_moved_only_stopped_at_its_budget() -> None:
    clock = Clock()
    with budget.metered(budget.Meter(clock=clock)):
        clock.now = 0.2
        budget.give_way()
        budget.check_time()
        clock.now = 1.0
        assert budget.out_of_time()
