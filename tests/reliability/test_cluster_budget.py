"""Issue 33, finding 1: the cluster's own work after a command counts against its budget.

The controllers' step after a command, its events and the checklist are metered with the
command; the store's quota bounds how much there is to do (pods per namespace, namespaces,
objects in all), refused in kube-apiserver's words.
"""

from __future__ import annotations

import gc
import itertools
import time

import pytest

from simulators.cluster import limits
from simulators.lab import LabSession, budget

pytestmark = [pytest.mark.reliability]

TICKET = "mig-single"
SCALE = "kubectl scale deployment coredns -n kube-system --replicas={}"


# A command of 250 ms whose last controller's run may finish past it (each is bounded by the
# quota), no more: about 0.3 s alone, 0.9 s once under the suite's coverage tracing on a slow
# day. Unbounded, a scale to 1,000 cost 13 s.
ABOUT_ONE_BUDGET = 5 * 0.25


def run_metered(lab: LabSession, line: str, cpu_ms: int = 250) -> tuple[str, budget.Meter]:
    meter = budget.Meter(budget.Limits(cpu_seconds=cpu_ms / 1000))
    with budget.metered(meter):
        output = lab.run(line).output
    return output, meter


def coredns_pods(lab: LabSession) -> list[str]:
    pods = lab.world.api.list("pods", "kube-system")["items"]
    return [p["metadata"]["name"] for p in pods if p["metadata"]["name"].startswith("coredns-")]


def test_scaling_coredns_to_a_thousand_costs_about_one_command_budget() -> None:
    lab = LabSession.new(TICKET, seed=1)
    # Not a full collection of the test worker's heap in what is measured (a server's heap is
    # frozen and its collections scheduled: studysite.interpreter).
    gc.collect()
    started = time.thread_time()
    output, _ = run_metered(lab, SCALE.format(1000))
    spent = time.thread_time() - started
    assert output.splitlines()[0] == "deployment.apps/coredns scaled"
    assert spent < ABOUT_ONE_BUDGET, f"the command and its step cost {spent:.2f} s of CPU"
    assert len(coredns_pods(lab)) <= limits.PODS_PER_NAMESPACE
    started = time.thread_time()
    run_metered(lab, "kubectl get nodes")  # the cluster carries on: the same bound
    assert time.thread_time() - started < ABOUT_ONE_BUDGET


def test_a_step_cut_short_by_the_budget_says_so_in_one_line_and_catches_up_later() -> None:
    lab = LabSession.new(TICKET, seed=1)
    output, meter = run_metered(lab, SCALE.format(40), cpu_ms=20)
    assert output.splitlines() == [
        "deployment.apps/coredns scaled",
        "lab: the cluster stopped for this command at its 20 ms of CPU time;"
        " it carries on at your next commands",
    ]
    assert meter.exceeded, "a cut step must never be replayed (the store folds it)"
    for _ in range(6):
        lab.run("kubectl get nodes")
    assert len(coredns_pods(lab)) == 40
    phases = {p["status"].get("phase") for p in lab.world.api.list("pods", "kube-system")["items"]}
    assert phases <= {"Running", "Pending"}


def test_a_million_replicas_stop_at_the_quota_in_kube_apiservers_words() -> None:
    lab = LabSession.new(TICKET, seed=1)
    output, _ = run_metered(lab, SCALE.format(1_000_000))
    assert "internal error" not in output
    for _ in range(3):
        output, _ = run_metered(lab, "kubectl get nodes")
        assert "internal error" not in output
    pods = lab.world.api.list("pods", "kube-system")["items"]
    assert len(pods) == limits.PODS_PER_NAMESPACE
    events = lab.run(
        "kubectl get events -n kube-system --field-selector reason=FailedCreate"
        " -o jsonpath='{.items[0].message}'"
    ).output
    assert events.startswith('Error creating: pods "coredns-')
    assert events.endswith(
        " is forbidden: exceeded quota: lab-quota, requested: pods=1, used: pods=100,"
        " limited: pods=100"
    )


def test_namespaces_stop_at_the_quota_with_a_forbidden_error() -> None:
    lab = LabSession.new(TICKET, seed=1)
    existing = len(lab.world.api.list("namespaces")["items"])
    for i in range(limits.NAMESPACES - existing):
        assert lab.run(f"kubectl create ns extra{i}").exit_code == 0
    result = lab.run("kubectl create ns onemore")
    assert result.exit_code == 1
    assert result.output == (
        'Error from server (Forbidden): namespaces "onemore" is forbidden: exceeded quota:'
        " lab-quota, requested: count/namespaces=1, used: count/namespaces=60,"
        " limited: count/namespaces=60"
    )


def test_events_of_a_busy_lab_never_use_up_the_room_for_pods(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "OBJECTS", 1000)  # a smaller lab quota: a shorter test
    lab = LabSession.new(TICKET, seed=1)
    api = lab.world.api
    for _ in range(2):
        for replicas in (90, 0):
            lab.run(SCALE.format(replicas))
            for _ in range(3):
                lab.run("kubectl get nodes")
    events = len(api.list("events")["items"])
    assert events > 800, "the test no longer makes a busy lab"
    lab.run(SCALE.format(10))
    for _ in range(4):
        lab.run("kubectl get nodes")
    assert len(coredns_pods(lab)) == 10, f"{events} events in the lab"


def test_a_long_step_gives_way_to_other_learners_write_by_write() -> None:
    """Commands share one interpreter: past 20 ms a command sleeps after each 2 ms slice of
    CPU (budget.Pace). The controllers' step after `scale --replicas=100` gives way as it
    writes, not only between controllers (one controller's run took 100 ms of CPU in one go)."""
    lab = LabSession.new(TICKET, seed=1)
    meter = budget.Meter(budget.Limits(cpu_seconds=10))
    gave_way: list[float] = []
    meter.pace = budget.Pace(sleep=lambda seconds: gave_way.append(meter.spent()))
    gc.disable()  # a collection of the test process's garbage would be a gap of its own
    try:
        with budget.metered(meter):
            lab.run(SCALE.format(100))
    finally:
        gc.enable()
    spent = meter.spent()
    gaps = [b - a for a, b in itertools.pairwise([0.02, *gave_way, spent])]
    assert spent > 0.05, "the test no longer makes a long step"
    assert max(gaps) < 0.02, f"held the interpreter {max(gaps) * 1000:.0f} ms in one go"
