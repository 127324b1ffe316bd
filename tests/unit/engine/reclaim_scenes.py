"""Deterministic medium-size scenes whose reclaim and preempt decisions the tests record.

`readable_outcome(seed)` builds a cluster from `random.Random(seed)`: borrowers fill the
pool, then owners (and higher-priority jobs of the borrowers) arrive, and a few whole
cycles run; it returns the decisions as lines a reader can check.

The engine module is a parameter so the same scenes can be replayed on an older copy of
the engine when checking that a rewrite changed no decision.
"""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import simulators.engine as default_engine

CYCLES_AFTER_ARRIVAL = 3


def _gpu_request(eng: ModuleType, rng: random.Random, mig: bool, big: bool) -> Any:
    roll = rng.random()
    if mig and roll < 0.2:
        return eng.GpuRequest.mig(rng.choice(["1g.10gb", "2g.20gb", "3g.40gb"]))
    if roll < 0.12:
        return eng.GpuRequest.portion(rng.choice([0.25, 0.5, 0.75]))
    if roll < 0.2:
        return eng.GpuRequest.memory(rng.choice(["10G", "20G", "40G"]))
    sizes = [1, 1, 1, 2, 4, 8] if big else [1, 1, 1, 1, 2]
    return eng.GpuRequest.whole(rng.choice(sizes))


def _build(
    eng: ModuleType, rng: random.Random, scale: int
) -> tuple[Any, list[str], list[str], bool]:
    mig = rng.random() < 0.2
    cluster = eng.Cluster(clock=eng.TickingClock(), mig_strategy="mixed" if mig else "single")
    placement = "spread" if rng.random() < 0.25 else "binpack"
    cluster.add_node_pool("default", placement=placement)
    node_count = rng.randint(4, 20) * scale
    total = 0
    for n in range(node_count):
        gpus = rng.choice([8, 8, 8, 4, 2])
        layout = "all-disabled"
        if mig and rng.random() < 0.4:
            layout = rng.choice(["all-1g.10gb", "all-balanced", "all-3g.40gb"])
        rack = rng.choice(["a", "b"])
        cluster.add_node(
            eng.Node(f"node-{n:02d}", gpus=gpus, mig_layout=layout, labels={"rack": rack})
        )
        total += gpus
        if rng.random() < 0.05:
            cluster.node(f"node-{n:02d}").cordoned = True
    if rng.random() < 0.2:
        cluster.add_node_pool("other", placement="binpack")
        for n in range(rng.randint(1, 3)):
            cluster.add_node(eng.Node(f"other-{n}", gpus=8, pool="other"))
    projects: list[str] = []
    departments = rng.randint(1, 4)
    parents: list[str] = []
    for d in range(departments):
        dept = f"dept-{d}"
        limit = None if rng.random() < 0.8 else float(rng.randint(total // 4, total))
        # Now and then a department sits under an earlier one (a deeper queue tree).
        parent = rng.choice(parents) if parents and rng.random() < 0.25 else None
        parents.append(dept)
        cluster.add_department(
            dept,
            parent=parent,
            quotas={
                "default": eng.PoolQuota(
                    deserved=float(rng.randint(0, max(1, 2 * total // departments))),
                    over_quota_weight=float(rng.choice([0, 1, 1, 2, 3])),
                    limit=limit,
                ),
                "other": eng.PoolQuota(deserved=4.0),
            },
            priority=rng.choice([0, 0, 0, 1]),
        )
        for p in range(rng.randint(1, 4)):
            name = f"p{d}{p}"
            limit = None if rng.random() < 0.85 else float(rng.randint(2, total))
            cluster.add_project(
                name,
                department=dept,
                quotas={
                    "default": eng.PoolQuota(
                        deserved=float(rng.choice([0, 0, 1, 2, 4, 8, total // 4])),
                        over_quota_weight=float(rng.choice([0, 1, 1, 2, 3])),
                        limit=limit,
                    ),
                    "other": eng.PoolQuota(deserved=2.0),
                },
                priority=rng.choice([0, 0, 0, 1]),
            )
            projects.append(name)
    if rng.random() < 0.3:
        cluster.add_project(
            "loose", quotas={"default": eng.PoolQuota(deserved=float(rng.randint(0, 8)))}
        )
        projects.append("loose")
    rng.shuffle(projects)
    cut = max(1, len(projects) // 2)
    return cluster, projects[:cut], projects[cut:] or projects[:1], mig


def _submit(
    eng: ModuleType,
    rng: random.Random,
    cluster: Any,
    name: str,
    project: str,
    mig: bool,
    big: bool,
) -> None:
    gpu = _gpu_request(eng, rng, mig, big)
    kind = rng.choice(["training", "training", "training", "distributed", "workspace"])
    extra: dict[str, Any] = {}
    pods = 1
    if kind == "distributed" and gpu.kind == "whole":
        pods = rng.choice([2, 2, 3, 4])
    elif kind == "distributed":
        kind = "training"
    if kind == "training" and rng.random() < 0.15:
        pods = rng.randint(2, 4)
        extra["min_available"] = rng.randint(1, pods)
    if kind == "workspace" and rng.random() < 0.5:
        extra["priority"] = 75
    if rng.random() < 0.1:
        extra["priority"] = rng.choice([40, 60, 80])
    pool = "other" if "other" in cluster.pools and rng.random() < 0.1 else "default"
    if pool == "default" and rng.random() < 0.1:
        extra["node_selector"] = {"rack": rng.choice(["a", "b"])}
    cluster.submit(name, project, kind=kind, gpu=gpu, pods=pods, node_pool=pool, **extra)


def _statuses(cluster: Any) -> dict[str, str]:
    statuses: dict[str, str] = {}
    for workload in cluster.workloads():
        nodes = ",".join(sorted({p.node for p in workload.pods if p.node}))
        statuses[f"{workload.project}/{workload.name}"] = f"{workload.status}@{nodes}"
    return statuses


def bench_shaped_scene(nodes: int, gangs: int, eng: ModuleType = default_engine) -> dict[str, str]:
    """The benchmark's reclaim-heavy cycle at a smaller size."""
    cluster = eng.Cluster(clock=eng.TickingClock())
    for n in range(nodes):
        cluster.add_node(eng.Node(f"node-{n:04d}", gpus=8))
    total = nodes * 8
    per_project = total // 50
    for d in range(5):
        cluster.add_department(f"dept-{d}", quotas={"default": eng.PoolQuota(deserved=total / 5)})
    for p in range(50):
        cluster.add_project(
            f"proj-{p:03d}",
            department=f"dept-{p % 5}",
            quotas={
                "default": eng.PoolQuota(deserved=per_project * 0.8, over_quota_weight=1 + p % 3)
            },
        )
    borrowers = [p for p in range(50) if p % 5 in (0, 1)]
    owners = [p for p in range(50) if p % 5 not in (0, 1)]
    for i in range(total):
        cluster.submit(
            f"borrow-{i:05d}",
            f"proj-{borrowers[i % len(borrowers)]:03d}",
            gpu=eng.GpuRequest.whole(1),
        )
    cluster.run_cycle()
    for i in range(gangs):
        cluster.submit(
            f"big-{i:04d}",
            f"proj-{owners[i % len(owners)]:03d}",
            kind="distributed",
            gpu=eng.GpuRequest.whole(8),
            pods=2,
        )
    cluster.run_cycle()
    return _statuses(cluster)


def _action_line(action: Any) -> str:
    by = f" by {action.by_project}/{action.by_workload}" if action.by_workload else ""
    return f"{action.kind} {action.project}/{action.pod} on {action.node}{by} ({action.reason})"


def readable_outcome(seed: int, eng: ModuleType = default_engine) -> tuple[str, ...]:
    """What the first cycle after the owners arrive did (one line per action, in order),
    then every workload's status and nodes after the last cycle."""
    rng = random.Random(seed)
    cluster, borrowers, owners, mig = _build(eng, rng, 1)
    capacity = sum(n.gpus for n in cluster.nodes.values())
    for i in range(rng.randint(capacity // 2, capacity + capacity // 2)):
        _submit(eng, rng, cluster, f"b{i:03d}", rng.choice(borrowers), mig, big=False)
    cluster.run_cycle()
    cluster.run_cycle()
    if rng.random() < 0.2:
        cluster.node(
            rng.choice(sorted(n for n in cluster.nodes if n.startswith("node-")))
        ).cordoned = True
    for i in range(rng.randint(2, max(3, capacity // 6))):
        _submit(eng, rng, cluster, f"o{i:03d}", rng.choice(owners), mig, big=True)
    for i in range(rng.randint(0, 3)):
        cluster.submit(
            f"h{i}",
            rng.choice(borrowers),
            kind="training",
            gpu=eng.GpuRequest.whole(rng.choice([1, 2])),
            priority=rng.choice([70, 90]),
        )
    first = cluster.run_cycle()
    lines = [_action_line(a) for a in first.actions if a.kind != "scheduled"]
    for _ in range(CYCLES_AFTER_ARRIVAL - 1):
        cluster.run_cycle()
    for workload in cluster.workloads():
        if workload.name.startswith("b") and workload.status == "Running":
            continue  # borrowers left running: the lines above say who lost what
        nodes = ",".join(sorted({p.node for p in workload.pods if p.node}))
        lines.append(f"{workload.project}/{workload.name}: {workload.status} {nodes}".rstrip())
    return tuple(lines)


def bench_shaped_summary(nodes: int, gangs: int, eng: ModuleType = default_engine) -> str:
    """The benchmark-shaped reclaim in one line: how many pods each decision touched."""
    statuses = bench_shaped_scene(nodes, gangs, eng)
    counts: dict[str, int] = {}
    for value in statuses.values():
        status = value.split("@")[0]
        counts[status] = counts.get(status, 0) + 1
    return ", ".join(f"{status} {count}" for status, count in sorted(counts.items()))
