"""A checklist item ticks only when the cluster shows it.

The checklist is read from the cluster as the command's output showed it, never from the world
a step later: otherwise "Triton runs on gpu-node3" ticks while `kubectl get pod triton` on the
learner's screen still says ContainerCreating.
"""

from __future__ import annotations

from typing import Any

import pytest

from simulators.lab import LabSession, checks
from simulators.lab.world import World
from tests.unit.lab.lab_helpers import done
from tests.unit.lab.test_lab_tickets import TICKETS


def _record_worlds_before_each_step(session: LabSession) -> list[dict[str, Any]]:
    """The world's JSON each time it is about to step (what the last output was read from)."""
    seen: list[dict[str, Any]] = []
    world = session.world
    step = world.tick

    def recording_tick(**options: Any) -> bool:
        seen.append(world.to_json())
        return step(**options)

    world.tick = recording_tick  # type: ignore[method-assign]
    return seen


@pytest.mark.parametrize("ticket", TICKETS)
def test_every_item_holds_in_the_world_the_commands_output_was_read_from(ticket: str) -> None:
    session = LabSession.new(ticket, seed=0)
    key = session.answer_key()
    shown = _record_worlds_before_each_step(session)
    items = [item.id for item in session.ticket.checklist]
    for line in [*key, key[-1]]:
        result = session.run(line)
        read_from = World.from_json(shown[-1])
        assert {item.id: item.done for item in result.checklist} == {
            item: checks.evaluate(ticket, item, read_from) for item in items
        }, line
    assert session.is_complete()


def test_triton_is_not_ticked_while_kubectl_shows_it_container_creating() -> None:
    session = LabSession.new("mig-mixed", seed=0)
    key = session.answer_key()
    for line in key[:-2]:
        session.run(line)
    statuses = []
    for _ in range(3):
        output = session.run("kubectl get pod triton -o wide").output
        status = output.splitlines()[1].split()[2]
        statuses.append((status, done(session)["triton-on-slice"]))
    assert ("ContainerCreating", False) in statuses
    assert ("Running", True) in statuses
    assert all(ticked == (status == "Running") for status, ticked in statuses)
