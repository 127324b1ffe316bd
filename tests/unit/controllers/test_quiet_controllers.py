"""A controller whose inputs did not change is not run again, and nobody can tell.

The lab runs every controller once per command. Skipping those that have nothing to do makes a
command about twice as cheap; these tests hold the skipping to its promise: the same cluster,
the same outputs, the same events (counts included), command after command, as when every
controller runs every step.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from simulators.cluster import changes as changes_module
from simulators.cluster.clock import StepClock, format_time
from simulators.cluster.store import MockCluster
from simulators.controllers import engine, events, manager
from simulators.lab import LabError, LabSession
from simulators.lab import world as world_module
from tests.unit.lab.test_lab_tickets import TICKETS

# Between the answer key's lines: what a learner looks at, and time passing.
LOOKS = ["kubectl get events -A", "kubectl get pods -A -o wide", "kubectl get nodes"]


class WithoutChangeCounts:
    """The store as a cluster that keeps no change counts: every controller runs every step."""

    def __init__(self, api: MockCluster) -> None:
        self._api = api

    def __getattr__(self, name: str) -> Any:
        if name == "changes":
            raise AttributeError(name)
        return getattr(self._api, name)


@pytest.fixture
def every_step() -> Iterator[dict[str, bool]]:
    """Switch: while on, the lab's world runs all its controllers on every step."""
    switch = {"on": False}
    real = world_module.run_controllers

    def run(api: Any, clock: object | None = None, **options: Any) -> bool:
        return bool(real(WithoutChangeCounts(api) if switch["on"] else api, clock, **options))

    world_module.run_controllers = run  # type: ignore[assignment]
    try:
        yield switch
    finally:
        world_module.run_controllers = real


def _counting(name: str, calls: dict[str, int], body: Any) -> tuple[str, Any]:
    def controller(api: MockCluster) -> None:
        calls[name] = calls.get(name, 0) + 1
        body(api)

    return name, controller


def test_a_controller_that_changed_nothing_runs_again_only_when_what_it_read_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api = MockCluster()
    api.create("nodes", {"metadata": {"name": "gpu-node1"}})
    calls: dict[str, int] = {}
    controllers = (
        _counting("reads-nodes", calls, lambda a: list(a.iter_objects("nodes"))),
        _counting("reads-the-clock", calls, lambda a: a.now()),
    )
    monkeypatch.setattr(manager, "CONTROLLERS", controllers)
    for _ in range(3):
        manager.step(api)
    assert calls == {"reads-nodes": 1, "reads-the-clock": 3}
    api.create("configmaps", {"metadata": {"name": "unrelated"}}, "default")
    manager.step(api)
    assert calls["reads-nodes"] == 1
    api.patch("nodes", "gpu-node1", {"metadata": {"labels": {"a": "b"}}})
    manager.step(api)
    manager.step(api)
    assert calls["reads-nodes"] == 2


def test_a_controller_that_wrote_runs_again_next_step(monkeypatch: pytest.MonkeyPatch) -> None:
    api = MockCluster()
    calls: dict[str, int] = {}

    def make_once(a: MockCluster) -> None:
        names = {c["metadata"]["name"] for c in a.iter_objects("configmaps", "default")}
        if "made" not in names:
            a.create("configmaps", {"metadata": {"name": "made"}}, "default")

    monkeypatch.setattr(manager, "CONTROLLERS", (_counting("maker", calls, make_once),))
    for _ in range(4):
        manager.step(api)
    # It wrote on the first step, found nothing to do on the second, then rested.
    assert calls == {"maker": 2}


def test_a_node_heartbeat_wakes_no_controller_but_a_condition_change_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api = MockCluster()
    ready = {"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-11-10T09:40:00Z"}
    api.create("nodes", {"metadata": {"name": "gpu-node1"}, "status": {"conditions": [ready]}})
    calls: dict[str, int] = {}
    controllers = (_counting("reads-nodes", calls, lambda a: list(a.iter_objects("nodes"))),)
    monkeypatch.setattr(manager, "CONTROLLERS", controllers)
    manager.step(api)

    def post(condition: dict[str, str]) -> None:
        api.patch(
            "nodes", "gpu-node1", {"status": {"conditions": [condition]}}, subresource="status"
        )

    post({**ready, "lastHeartbeatTime": "2026-11-10T09:45:00Z"})
    manager.step(api)
    assert calls["reads-nodes"] == 1
    post({**ready, "status": "False", "lastHeartbeatTime": "2026-11-10T09:50:00Z"})
    manager.step(api)
    assert calls["reads-nodes"] == 2


@pytest.mark.parametrize("ticket", TICKETS)
def test_skipping_quiet_controllers_and_restoring_the_lab_change_nothing_a_learner_sees(
    ticket: str, every_step: dict[str, bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three copies of a ticket's lab take the same commands: the lab as kept (skipping quiet
    controllers), the same lab running every controller every step, and the kept lab saved and
    opened again before each command, as the site does. All three answer alike and stay the
    same cluster, and the restored lab skips exactly the controllers the kept one skips.

    One walk through the answer key serves both promises: the kept lab is the reference of
    both comparisons, and worlds are compared without copying them (World.to_json(copy=False)).
    """
    ran: dict[int, list[str]] = {}

    def counted(name: str, body: Any) -> tuple[str, Any]:
        def controller(api: MockCluster) -> None:
            ran.setdefault(id(api), []).append(name)
            body(api)

        return name, controller

    monkeypatch.setattr(
        manager, "CONTROLLERS", tuple(counted(name, body) for name, body in manager.CONTROLLERS)
    )
    kept = LabSession.new(ticket, seed=7)
    every_step["on"] = True
    full = LabSession.new(ticket, seed=7)
    every_step["on"] = False
    assert kept.world.to_json(copy=False) == full.world.to_json(copy=False)
    lines = [line for key_line in kept.answer_key() for line in (key_line, *LOOKS)]
    restored_lines = len(lines) + 10
    lines += ["kubectl get nodes"] * 35  # past the node status' 5-minute report
    for index, line in enumerate(lines):
        if index < restored_lines:
            # As the site does: the lab saved and opened again, then the next command.
            restored = LabSession.from_json(kept.encode())
        ran.clear()
        expected = kept.run(line)
        every_step["on"] = True
        everything = full.run(line)
        every_step["on"] = False
        assert everything.output == expected.output, line
        world = kept.world.to_json(copy=False)
        assert full.world.to_json(copy=False) == world, line
        if index < restored_lines:
            seen = restored.run(line)
            assert seen.output == expected.output, line
            assert ran[id(restored.world.api)] == ran[id(kept.world.api)], line
            assert restored.world.to_json(copy=False) == world, line
            assert restored.world.controllers_to_json() == kept.world.controllers_to_json()
        if index == restored_lines - 1:  # the whole saved form too: transcript, history, ...
            assert restored.to_json() == kept.to_json()
    assert kept.is_complete()


def test_a_lab_from_an_imported_file_runs_every_controller_once() -> None:
    saved = LabSession.new("mig-single", seed=7).to_json()
    trusted = LabSession.from_json(saved)
    imported = LabSession.from_json(saved, trusted=False)
    assert trusted.world.api.changes.quiet
    assert not imported.world.api.changes.quiet
    assert imported.run("kubectl get nodes").output == trusted.run("kubectl get nodes").output


@pytest.mark.parametrize(
    "controllers",
    [
        {"count": 3, "at": {"nodes": 4}, "quiet": {}},
        {"count": 3, "at": {}, "quiet": {"kubelet": {"resources": ["pods"], "at": -1}}},
        {"count": "3", "at": {}, "quiet": {}},
        {"count": 3, "at": [], "quiet": {}},
        {"count": 3, "at": {}, "quiet": {"event-ttl": {"resources": [], "at": 1, "until": 5}}},
    ],
)
def test_saved_change_counts_that_make_no_sense_are_a_damaged_lab(
    controllers: dict[str, Any],
) -> None:
    saved = {**LabSession.new("mig-single", seed=7).to_json(), "controllers": controllers}
    with pytest.raises(LabError, match="damaged"):
        LabSession.from_json(saved)


def test_event_expiry_rests_until_an_event_falls_due_and_deletes_it_on_the_same_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Event expiry asks the time at every step, but only to compare it with the events' stamps:
    while they stay as they are, it is not run again before the oldest one's hour is up, and
    deletes it at the step a run at every step would."""

    def cluster() -> MockCluster:
        api = MockCluster(clock=StepClock(0, 600))  # ten minutes a step
        stamp = format_time(api.now())
        involved = {"kind": "Pod", "name": "p", "namespace": "default"}
        event = {"metadata": {"name": "p.1"}, "involvedObject": involved, "reason": "Test"}
        api.create("events", {**event, "firstTimestamp": stamp, "lastTimestamp": stamp}, "default")
        return api

    calls: dict[str, int] = {}
    monkeypatch.setattr(manager, "CONTROLLERS", (_counting("event-ttl", calls, events.run),))
    resting, every = cluster(), cluster()
    left: list[int] = []
    for _ in range(9):
        manager.step(resting)
        manager.step(WithoutChangeCounts(every))  # type: ignore[arg-type]
        names = [e["metadata"]["name"] for e in resting.list("events", "default")["items"]]
        assert names == [e["metadata"]["name"] for e in every.list("events", "default")["items"]]
        left.append(len(names))
    assert left == [1] * 6 + [0] * 3  # past the hour at the seventh step
    # Every step for the cluster that counts no changes: 9. Here: the first step; the sixth, at
    # the hour to the second (not yet past it); the seventh, which deletes it; the eighth, as
    # the events changed. Then none are left to expire.
    assert calls["event-ttl"] == 9 + 4


def test_the_schedulers_quiet_cycle_keeps_its_events_references_not_whole_objects() -> None:
    # A workload that cannot be placed: every cycle records its Unschedulable event again.
    lab = LabSession.new("pending-workspace", seed=0)
    for _ in range(2):
        lab.run("kubectl get nodes")
    quiet = engine._quiet[lab.world.api]
    assert quiet.events
    for involved, _, reason, _ in quiet.events:
        assert reason == "Unschedulable"
        assert set(involved) == {"kind", "apiVersion", "metadata"}
        assert set(involved["metadata"]) == {"name", "namespace", "uid", "resourceVersion"}


def test_labs_hold_one_copy_of_each_set_of_resources_their_quiet_runs_read() -> None:
    first, second = LabSession.new("mig-mixed", seed=0), LabSession.new("mig-mixed", seed=3)
    for line in first.answer_key():
        first.run(line)
    second.run("kubectl get nodes")
    reopened = LabSession.from_json(first.to_json())
    runs = [
        run
        for lab in (first, second, reopened)
        for run in lab.world.api.changes.quiet.values()  # type: ignore[attr-defined]
    ]
    by_names: dict[frozenset[str], set[int]] = {}
    for run in runs:
        by_names.setdefault(run.resources, set()).add(id(run.resources))
    assert len(runs) > 3 * len(by_names)
    assert all(len(objects) == 1 for objects in by_names.values())


def test_a_saved_lab_naming_many_sets_of_resources_does_not_grow_the_shared_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(changes_module, "_RESOURCE_SETS", {})
    for n in range(changes_module.RESOURCE_SETS_KEPT + 50):
        assert changes_module.resource_set([f"made-up-{n}"]) == {f"made-up-{n}"}
    assert len(changes_module._RESOURCE_SETS) == changes_module.RESOURCE_SETS_KEPT
