"""Runs every controller once per step, in the order a settling cluster would.

The order matters only within a step (everything is level-triggered, so a later step fixes any
lag): the kubelet first (pods deleted by the last command go, pods bound last step start), node
lifecycle (cordon taints), then the operators that change what should exist (Run:ai queues, the
GPU Operator, MIG Manager, Run:ai workloads), the workload controllers that create pods, the two
schedulers that bind them, the kubelet again for the newly bound pods (ContainerCreating) and
the node's devices, the Services' endpoints, the aggregated ClusterRoles' rules, a deleted CRD's
objects, the kubelet's lease and heartbeat, and GPU Feature Discovery, which labels what the
kubelet now runs.

Like a real controller, which reconciles when its informers see a change, a controller is not
run again while nothing it read has changed since a run that changed nothing and never asked
the time, or asked it only to learn that a time it read has not come (event expiry:
`Changes.quiet_until`), until that time (`simulators.cluster.changes`). Skipping such a run
is exact: the controllers are functions of what they read, so the skipped run would have
changed nothing either. The
scheduler engine keeps its own, finer record (`controllers.engine`), since its quiet cycles
still record their events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulators.cluster.changes import QuietRun, resource_set
from simulators.cluster.clock import format_time
from simulators.controllers import (
    clusterrole_aggregation,
    crd_finalizer,
    endpoints,
    engine,
    events,
    gpu_operator,
    kube_scheduler,
    kubelet,
    mig_manager,
    node_lifecycle,
    node_status,
    runai,
    workloads,
)
from simulators.controllers.kubelet import KubeletAPI

Controller = Callable[[Any], object]

CONTROLLERS: tuple[tuple[str, Controller], ...] = (
    ("kubelet", kubelet.sync),
    ("node-lifecycle", node_lifecycle.run),
    ("runai-queues", runai.run_queues),
    ("gpu-operator", gpu_operator.run_operator),
    ("mig-manager", mig_manager.run),
    ("runai-workloads", runai.run_workloads),
    ("deployment", workloads.run_deployments),
    ("replicaset", workloads.run_replicasets),
    ("statefulset", workloads.run_statefulsets),
    ("job", workloads.run_jobs),
    ("daemonset", workloads.run_daemonsets),
    ("default-scheduler", kube_scheduler.run),
    ("runai-scheduler", engine.run),
    ("kubelet-admit", kubelet.admit),
    ("endpoints", endpoints.run),
    ("clusterrole-aggregation", clusterrole_aggregation.run),
    ("crd-finalizer", crd_finalizer.run),
    ("node-lease", node_status.heartbeat),
    ("gpu-feature-discovery", gpu_operator.run_gfd),
    ("event-ttl", events.run),
)


# Controllers whose quiet runs still write (and so keep their own record of what they read).
SELF_PACED = frozenset({"runai-scheduler"})


def run_controllers(
    api: KubeletAPI,
    clock: object | None = None,
    *,
    leave_out: frozenset[str] = frozenset(),
    stop: Callable[[], bool] | None = None,
) -> bool:
    """Run every controller once, but those named in `leave_out`. The caller advances the
    clock (one lab step) first.

    `stop` (a command's budget) is asked before each controller that would run: once it says
    so, the rest of the step's controllers wait for the next step, as a real controller's work
    waits in its queue; False is returned then. Each controller's run is whole and bounded (the
    store's quota, the workload controllers' burst), and everything is level-triggered, so a
    step cut short leaves a world the next steps carry on from.

    `clock` is accepted for symmetry with the store's step clock; time is read from `api.now()`.
    """
    del clock
    changes = getattr(api, "changes", None)
    if changes is None:  # a store that keeps no change counts: run everything
        for name, controller in CONTROLLERS:
            if name in leave_out:
                continue
            if stop is not None and stop():
                return False
            controller(api)
        return True
    quiet = changes.quiet

    def now() -> str:  # asked only for a quiet run that holds until a time (event expiry)
        return format_time(api.now())

    for name, controller in CONTROLLERS:
        if name in leave_out:
            continue
        last = quiet.get(name)
        if last is not None and last.still_holds(changes, now):
            continue
        if stop is not None and stop():
            return False
        if name in SELF_PACED:
            controller(api)
            continue
        before = changes.count
        with changes.tracking() as reads:
            controller(api)
        if changes.count == before and (not reads.clock or reads.until is not None):
            quiet[name] = QuietRun(resource_set(reads.resources), before, until=reads.until)
        else:
            quiet.pop(name, None)
    return True


def step(api: Any, steps: int = 1) -> None:
    """Advance the cluster's clock one step and let every controller reconcile, `steps` times."""
    for _ in range(steps):
        api.clock.advance()
        run_controllers(api)
