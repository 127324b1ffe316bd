"""The scheduler's pieces in process, on the mock store (no HTTP): the Lease and the model."""

from __future__ import annotations

from typing import Any

from simulators.cluster.sample import sample_cluster
from simulators.cluster.store import MockCluster
from simulators.engine import PodStatus
from simulators.scheduler.lease import LEASES, LeaderElector
from simulators.scheduler.model import PodModel
from simulators.scheduler.runner import Scheduler


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def elector(api: MockCluster, identity: str, clock: FakeClock) -> LeaderElector:
    return LeaderElector(
        api, namespace="runai", name="runai-scheduler", identity=identity, monotonic=clock
    )


def test_a_second_replica_waits_until_the_lease_runs_out_by_its_own_clock() -> None:
    api, clock = sample_cluster(0), FakeClock()
    first, second = elector(api, "first", clock), elector(api, "second", clock)
    assert first.try_acquire_or_renew()
    assert not second.try_acquire_or_renew()
    assert second.holder == "first"
    clock.now += 14  # within the 15 s lease: still waiting
    assert not second.try_acquire_or_renew()
    clock.now += 2  # the first stopped renewing 16 s ago, as the second saw it
    assert second.try_acquire_or_renew()
    lease = api.get(LEASES, "runai-scheduler", "runai")
    assert lease["spec"]["holderIdentity"] == "second"
    assert lease["spec"]["leaseTransitions"] == 1
    # The old leader has stopped acting long before: its margin is two thirds of the lease.
    assert not first.is_leader()


def test_a_released_lease_is_taken_at_once() -> None:
    api, clock = sample_cluster(0), FakeClock()
    first, second = elector(api, "first", clock), elector(api, "second", clock)
    assert first.try_acquire_or_renew()
    assert not second.try_acquire_or_renew()
    first.release()
    assert second.try_acquire_or_renew()


def test_of_two_replicas_racing_for_an_expired_lease_one_wins() -> None:
    api, clock = sample_cluster(0), FakeClock()
    assert elector(api, "old", clock).try_acquire_or_renew()
    a, b = elector(api, "a", clock), elector(api, "b", clock)
    assert not a.try_acquire_or_renew() and not b.try_acquire_or_renew()
    clock.now += 30
    stale = api.get(LEASES, "runai-scheduler", "runai")
    assert a.try_acquire_or_renew()
    # b read the lease before a wrote it: its update carries the old resourceVersion (409).
    original_get = api.get

    def stale_get(resource: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        return stale if resource == LEASES else original_get(resource, name, namespace)

    api.get = stale_get  # type: ignore[method-assign]
    assert not b.try_acquire_or_renew()


def _queues(api: MockCluster, **teams: float) -> None:
    api.create(
        "queues.scheduling.run.ai",
        {"metadata": {"name": "dept"}, "spec": {"resources": {"gpu": {"quota": 24}}}},
    )
    for team, quota in teams.items():
        api.create(
            "queues.scheduling.run.ai",
            {
                "metadata": {"name": team},
                "spec": {"parentQueue": "dept", "resources": {"gpu": {"quota": quota}}},
            },
        )


def _pod(
    api: MockCluster,
    name: str,
    queue: str,
    *,
    gpus: int = 1,
    scheduler: str = "runai-scheduler",
    annotations: dict[str, str] | None = None,
) -> None:
    container: dict[str, Any] = {"name": "c", "image": "x"}
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    api.create(
        "pods",
        {
            "metadata": {
                "name": name,
                "labels": {"runai/queue": queue},
                "annotations": annotations or {},
            },
            "spec": {"schedulerName": scheduler, "containers": [container]},
        },
        "default",
    )


def test_gpus_held_by_other_schedulers_pods_are_not_handed_out() -> None:
    api = sample_cluster(0)
    _queues(api, team=24)
    for node in ("gpu-node1", "gpu-node2", "gpu-node3"):
        _pod(api, f"other-{node}", "", gpus=6, scheduler="default-scheduler")
        api.bind(f"other-{node}", "default", node)
    _pod(api, "wants-4", "team", gpus=4)
    model = PodModel(api)
    assert {n: node.gpus for n, node in model.cluster.nodes.items()} == {
        "gpu-node1": 2,
        "gpu-node2": 2,
        "gpu-node3": 2,
    }
    result = model.cluster.run_cycle()
    assert [e.reason for e in result.events if e.object_kind == "Pod"] == ["Unschedulable"]


def test_a_bound_pod_keeps_its_devices_and_a_fraction_its_share() -> None:
    api = sample_cluster(0)
    _queues(api, team=24)
    _pod(api, "whole", "team", gpus=2, annotations={"lab.kadmin/gpu-devices": "3,4"})
    api.bind("whole", "default", "gpu-node1")
    _pod(api, "half", "team", gpus=0, annotations={"gpu-fraction": "0.5"})
    model = PodModel(api)
    whole = model.cluster.workload("team", "whole").pods[0]
    assert (whole.status, whole.node, whole.devices) == (PodStatus.RUNNING, "gpu-node1", (3, 4))
    assert model.cluster.workload("team", "half").gpu.units() == 0.5


def test_a_cycle_binds_with_the_chosen_devices_and_the_api_names_in_events() -> None:
    api = sample_cluster(0)
    _queues(api, team=24)
    _pod(api, "train", "team", gpus=2)
    lines: list[str] = []
    leader = elector(api, "me", FakeClock())
    assert leader.try_acquire_or_renew()
    report = Scheduler(api, leader, log=lines.append).cycle()
    assert report.bound == ["default/train"]
    pod = api.get("pods", "train", "default")
    assert pod["spec"]["nodeName"] == "gpu-node1"
    assert pod["metadata"]["annotations"]["lab.kadmin/gpu-devices"] == "0,1"
    events = api.list("events", "default", field_selector="involvedObject.name=train")["items"]
    assert [e["message"] for e in events] == ["Successfully assigned default/train to gpu-node1"]
    # A second cycle sees the pod bound: nothing more.
    assert Scheduler(api, leader, log=lines.append).cycle().bound == []


def test_a_follower_binds_nothing() -> None:
    api = sample_cluster(0)
    _queues(api, team=24)
    _pod(api, "train", "team", gpus=1)
    clock = FakeClock()
    assert elector(api, "leader", clock).try_acquire_or_renew()
    follower = elector(api, "follower", clock)
    assert not follower.try_acquire_or_renew()
    assert Scheduler(api, follower, log=lambda line: None).cycle().bound == []
    assert not api.get("pods", "train", "default")["spec"].get("nodeName")


class Flaky:
    """The mock store behind an API that answers 503 while `down` is set."""

    def __init__(self, api: MockCluster) -> None:
        self.api = api
        self.down = True
        self.failures = 0

    def __getattr__(self, name: str) -> Any:
        target = getattr(self.api, name)
        if not callable(target) or name in ("now", "info", "resolve", "resources"):
            return target

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.down:
                from simulators.cluster.api import ApiError

                self.failures += 1
                raise ApiError(503, "ServiceUnavailable", "unavailable")
            return target(*args, **kwargs)

        return call


def test_the_scheduler_rides_out_an_api_that_is_down() -> None:
    import threading
    import time

    store = sample_cluster(0)
    _queues(store, team=24)
    _pod(store, "train", "team", gpus=1)
    api = Flaky(store)
    lines: list[str] = []
    leader = LeaderElector(
        api,  # type: ignore[arg-type]
        namespace="runai",
        name="runai-scheduler",
        identity="me",
        monotonic=time.monotonic,
        lease_seconds=3,
    )
    scheduler = Scheduler(api, leader, log=lines.append)  # type: ignore[arg-type]
    runner = threading.Thread(
        target=scheduler.run, kwargs={"resync_seconds": 0.2, "retry_seconds": 0.1}, daemon=True
    )
    runner.start()
    try:
        deadline = time.monotonic() + 30
        while api.failures < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert runner.is_alive()
        assert not store.get("pods", "train", "default")["spec"].get("nodeName")
        api.down = False
        while not store.get("pods", "train", "default")["spec"].get("nodeName"):
            assert time.monotonic() < deadline, lines
            time.sleep(0.05)
    finally:
        scheduler.stop.set()
        scheduler.wake.set()
        runner.join(timeout=10)
    assert "bound default/train to gpu-node1" in lines


def test_a_higher_priority_pod_preempts_and_binds_only_once_its_victim_is_gone() -> None:
    api = sample_cluster(0)
    _queues(api, team=24)
    for index in range(3):
        _pod(api, f"train-{index}", "team", gpus=8)
    leader = elector(api, "me", FakeClock())
    assert leader.try_acquire_or_renew()
    scheduler = Scheduler(api, leader, log=lambda line: None)
    assert len(scheduler.cycle().bound) == 3
    api.create(
        "podgroups.scheduling.run.ai",
        {"metadata": {"name": "serve"}, "spec": {"minMember": 1, "priorityClassName": "inference"}},
        "default",
    )
    _pod(api, "serve", "team", gpus=8, annotations={"pod-group-name": "serve"})
    first = scheduler.cycle()
    assert len(first.evicted) == 1 and first.bound == []
    victim = first.evicted[0].split("/")[1]
    evicted = api.list("events", "default", field_selector=f"involvedObject.name={victim}")
    assert [e["message"] for e in evicted["items"] if e["reason"] == "Evicted"] == [
        "Preempted by a higher-priority job: team/serve (priority 125) needs the GPUs; this job "
        "has priority 50"
    ]
    # The victim is Terminating and still holds its GPUs: nothing is bound onto them, and no
    # second pod is taken for the same need.
    second = scheduler.cycle()
    assert (second.bound, second.evicted) == ([], [])
    node = api.get("pods", victim, "default")["spec"]["nodeName"]
    api.delete("pods", victim, "default", grace_period=0)
    assert scheduler.cycle().bound == ["default/serve"]
    assert api.get("pods", "serve", "default")["spec"]["nodeName"] == node
