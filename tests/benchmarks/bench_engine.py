"""Benchmark the scheduler engine. Run: python -m tests.benchmarks.bench_engine

Prints times and growth ratios; asserts nothing (timings depend on the machine).
Goals: one whole cycle on 500 nodes (4,000 GPUs, 5,000 pending pods) under 1 s in CPython; on
5,000 nodes with 50,000 pending pods under 3 s, at least 16,000 pods placed per second
(kube-scheduler's published figure at 5,000 nodes is 680-810 pods/s).

`--nodes 5000` runs only the pending cycles of those sizes; `--repeat 3` runs each that
many times and keeps the fastest (on a shared machine the slower runs measure the others).
Each line also gives the process's CPU time for the cycle, which other work on the machine
disturbs less than the wall-clock time.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

from simulators.engine import (
    Cluster,
    GpuRequest,
    Node,
    PoolQuota,
    ShareQueue,
    TickingClock,
    fair_share,
)


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def fair_share_queues(projects: int, departments: int) -> list[ShareQueue]:
    queues = [
        ShareQueue(f"dept-{d:02d}", None, deserved=40, over_quota_weight=1 + d % 3, priority=d % 2)
        for d in range(departments)
    ]
    for p in range(projects):
        queues.append(
            ShareQueue(
                f"proj-{p:04d}",
                f"dept-{p % departments:02d}",
                deserved=p % 5,
                over_quota_weight=1 + p % 4,
                limit=None if p % 7 else 12,
                priority=p % 3,
                request=(p * 7) % 23,
            )
        )
    return queues


def build_cluster(nodes: int, projects: int = 50, departments: int = 5) -> Cluster:
    cluster = Cluster(clock=TickingClock())
    for n in range(nodes):
        cluster.add_node(Node(f"node-{n:04d}", gpus=8))
    total = nodes * 8
    per_project = total // projects
    for d in range(departments):
        cluster.add_department(
            f"dept-{d}", quotas={"default": PoolQuota(deserved=total / departments)}
        )
    for p in range(projects):
        cluster.add_project(
            f"proj-{p:03d}",
            department=f"dept-{p % departments}",
            quotas={"default": PoolQuota(deserved=per_project * 0.8, over_quota_weight=1 + p % 3)},
        )
    return cluster


def timed_cpu(action: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of the action."""
    cpu = time.process_time()
    seconds = timed(action)
    return seconds, time.process_time() - cpu


def pending_cycle(nodes: int) -> tuple[float, int]:
    """10 pending pods per node: mostly 1-GPU jobs, some 2- and 4-GPU ones; returns the
    cycle's time and the pods it placed."""
    seconds, _cpu, placed = pending_cycle_cpu(nodes)
    return seconds, placed


def pending_cycle_cpu(nodes: int) -> tuple[float, float, int]:
    """As `pending_cycle`, with the cycle's CPU seconds."""
    cluster = build_cluster(nodes)
    sizes = (1, 1, 1, 2, 1, 4, 1, 1, 2, 1)
    for i in range(nodes * 10):
        cluster.submit(
            f"job-{i:05d}",
            f"proj-{i % 50:03d}",
            gpu=GpuRequest.whole(sizes[i % len(sizes)]),
        )
    seconds, cpu = timed_cpu(cluster.run_cycle)
    assert cluster.last_result is not None
    placed = sum(1 for a in cluster.last_result.actions if a.kind == "scheduled")
    return seconds, cpu, placed


def reclaim_cycle(nodes: int) -> tuple[float, int]:
    """Departments 0-1 borrowed the whole pool; departments 2-4 then submit large gangs."""
    cluster = build_cluster(nodes)
    borrowers = [p for p in range(50) if p % 5 in (0, 1)]
    owners = [p for p in range(50) if p % 5 not in (0, 1)]
    for i in range(nodes * 8):
        cluster.submit(
            f"borrow-{i:05d}", f"proj-{borrowers[i % len(borrowers)]:03d}", gpu=GpuRequest.whole(1)
        )
    cluster.run_cycle()
    for i in range(nodes // 4):
        cluster.submit(
            f"big-{i:04d}",
            f"proj-{owners[i % len(owners)]:03d}",
            kind="distributed",
            gpu=GpuRequest.whole(8),
            pods=2,
        )
    seconds = timed(cluster.run_cycle)
    assert cluster.last_result is not None
    evicted = sum(1 for a in cluster.last_result.actions if a.kind == "evicted")
    return seconds, evicted


def pending_cycles(sizes: Sequence[int], repeat: int) -> None:
    previous: tuple[int, float] | None = None
    for nodes in sizes:
        seconds, cpu, placed = min(pending_cycle_cpu(nodes) for _ in range(repeat))
        growth = ""
        if previous is not None:
            growth = f"  (x{seconds / previous[1]:.2f} time for x{nodes / previous[0]:.0f} nodes)"
        print(
            f"whole cycle, {nodes:>5} nodes x 8 GPUs, {nodes * 10:>6} pending pods: "
            f"{seconds * 1000:8.1f} ms ({cpu * 1000:.0f} ms CPU), "
            f"{placed / seconds:8.0f} pods placed/s{growth}"
        )
        previous = (nodes, seconds)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Benchmark the scheduler engine.")
    parser.add_argument("--nodes", type=int, nargs="+", help="only pending cycles of these sizes")
    parser.add_argument("--repeat", type=int, default=1, help="runs per size; the fastest counts")
    args = parser.parse_args(argv)
    if args.nodes:
        pending_cycles(args.nodes, max(1, args.repeat))
        return

    queues = fair_share_queues(1000, 50)
    seconds = timed(lambda: fair_share(40_000, queues))
    print(f"fair share, 1,000 projects in 50 departments: {seconds * 1000:8.1f} ms")

    pending_cycles((100, 500, 1000, 5000), max(1, args.repeat))

    seconds, evicted = reclaim_cycle(500)
    print(
        f"reclaim-heavy cycle, 500 nodes, 125 distributed 2x8-GPU jobs: {seconds * 1000:8.1f} ms"
        f"  ({evicted} pods evicted)"
    )


if __name__ == "__main__":
    main()
