"""Issue 33, finding 1: a step cut by the budget depends on CPU time, so a logged line (one that
ran within its budget, its cluster's step whole) replays with its step whole, whatever the
machine's speed, and builds the same world. (With only room to spare, ten times the budget, it
failed under coverage on a loaded machine: the replayed step was cut at another point.)"""

from __future__ import annotations

import dataclasses

import pytest

from studysite.lab import saved as lab_saved
from studysite.lab import store
from studysite.lab.models import SavedLab

pytestmark = [pytest.mark.reliability, pytest.mark.django_db]

TICKET = "mig-single"


def test_a_logged_command_replays_to_the_same_world_on_a_slower_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "replay0123456789abcdefghijklmnopqrstuv"
    opened = store.open_lab(key, TICKET)
    # Small enough to stay well inside its budget even under coverage's tracing on a busy
    # machine (40 replicas took ~50 ms alone and neared the 250 ms budget traced): it is logged.
    result = store.apply(opened, "kubectl scale deployment coredns -n kube-system --replicas=12")
    assert result.output == "deployment.apps/coredns scaled"
    expected = opened.lab.world.to_json()
    # The same line replayed where everything costs 400 times the CPU time: as if the budget it
    # replays against were 400 times tighter (0.6 ms, and 6 ms of room: less than the step took,
    # more than the line's own tools).
    normal = store.limits()
    tight = dataclasses.replace(normal, cpu_seconds=normal.cpu_seconds / 400)
    monkeypatch.setattr(lab_saved, "limits", lambda: tight)
    lab, logged = store.restore(SavedLab.objects.get(session_key=key, ticket=TICKET))
    assert logged == 1
    assert lab.world.to_json() == expected
