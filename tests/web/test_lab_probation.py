"""A line thrown away past its probation and run again in the annex builds the world the same
line run whole builds: random sequences of the lab's own commands (test_lab_isolation's), each
on probation (most of them overrun it, at a few ms or none) and, when it overruns, run again as
the annex runs it (store.apply without a probation), against the same lines run whole."""

from __future__ import annotations

import json
import secrets

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession, budget
from studysite.lab import store
from studysite.lab.saved import new_lab
from tests.unit.lab.test_lab_isolation import COMMANDS, TICKET


def world_json(lab: LabSession) -> str:
    return json.dumps(lab.world.to_json(), sort_keys=True)


def run_whole(lab: LabSession, lines: list[str]) -> None:
    for line in lines:
        with budget.metered(budget.Meter(store.limits(), pace=store.PACE)):
            lab.run(line)


@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    lines=st.lists(COMMANDS, min_size=1, max_size=6),
    probation=st.sampled_from([0.0, 0.001, 0.004]),
)
def test_a_line_moved_past_its_probation_builds_the_world_the_line_run_whole_builds(
    lines: list[str], probation: float
) -> None:
    key = secrets.token_hex(16)
    whole = new_lab(key, TICKET)  # the same seed as the saved lab's (lab_seed)
    run_whole(whole, lines)
    opened = store.open_lab(key, TICKET)
    overran = 0
    for line in lines:
        try:
            store.apply(opened, line, share=None, probation=probation)
        except store.Overran:
            overran += 1
            store.apply(opened, line, share=None)  # as the annex runs it
    if probation == 0.0:
        assert overran == len(lines)  # every line's world step checks its time
    assert opened.version == len(lines)  # each line kept once
    assert world_json(opened.lab) == world_json(whole)
    store.kept.clear()  # and as reloaded from the database
    assert world_json(store.open_lab(key, TICKET).lab) == world_json(whole)
