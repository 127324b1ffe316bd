"""runai-scheduler over HTTP beside the engine's in-process cycle, for the same pods.

Starts `python -m simulators apiserver --ticket sample --scheduler external` (three nodes of 8
GPUs), creates one queue and N single-GPU pods, and lets the scheduler (the same code as
`python -m simulators scheduler`, in this process) bind them through the official client on
loopback: pods bound per second. Beside it, the engine alone schedules the same pods in one
in-process cycle. Then, with the scheduler running, pods are created one at a time and the time
from each creation to its binding (seen on a watch) gives p50 and p99. Prints, never asserts.

    .venv/bin/python -m tests.benchmarks.bench_scheduler [--pods 24] [--latency-pods 40]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from simulators.cluster.kube import KubernetesCluster
from simulators.engine import Cluster, GpuRequest, Node, PoolQuota
from simulators.scheduler.lease import LeaderElector
from simulators.scheduler.runner import Scheduler
from tests.cluster_server import start_cluster_server


def pod(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": {"runai/queue": "team-a"}},
        "spec": {
            "schedulerName": "runai-scheduler",
            "containers": [
                {"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
            ],
        },
    }


def engine_rate(pods: int, repeats: int = 20) -> float:
    """Pods placed per second by one in-process cycle of the engine (best of `repeats`)."""
    best = float("inf")
    now = datetime.now(UTC)
    for _ in range(repeats):
        cluster = Cluster(clock=lambda: now)
        for index in range(3):
            cluster.add_node(Node(f"gpu-node{index + 1}", gpus=8))
        cluster.add_department("research", {"default": PoolQuota(deserved=24)})
        cluster.add_project("team-a", "research", {"default": PoolQuota(deserved=24)})
        for index in range(pods):
            cluster.submit(f"p-{index}", "team-a", gpu=GpuRequest.whole(1))
        start = time.perf_counter()
        cluster.run_cycle()
        best = min(best, time.perf_counter() - start)
    return pods / best


class BindWatch:
    """When each pod was first seen bound, on a watch of its own (the client's view)."""

    def __init__(self, api: KubernetesCluster) -> None:
        self.api = api
        self.bound: dict[str, float] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        version = str(self.api.list("pods", "default")["metadata"].get("resourceVersion", ""))
        while not self.stop.is_set():
            for event in self.api.stream(
                "pods", "default", resource_version=version, timeout_seconds=2
            ):
                meta = event.object.get("metadata", {})
                version = str(meta.get("resourceVersion") or version)
                name = str(meta.get("name", ""))
                if (event.object.get("spec") or {}).get("nodeName") and name not in self.bound:
                    self.bound[name] = time.perf_counter()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pods", type=int, default=24)
    parser.add_argument("--latency-pods", type=int, default=40)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as folder,
        start_cluster_server("sample", Path(folder), args=("--scheduler", "external")) as server,
    ):
        api = KubernetesCluster(server.client())
        for name, parent in (("research", None), ("team-a", "research")):
            spec: dict[str, Any] = {"resources": {"gpu": {"quota": 24, "limit": -1}}}
            if parent:
                spec["parentQueue"] = parent
            api.create("queues.scheduling.run.ai", {"metadata": {"name": name}, "spec": spec})
        elector = LeaderElector(
            api, namespace="runai", name="bench", identity="bench", monotonic=time.monotonic
        )
        scheduler = Scheduler(api, elector, log=lambda line: None)
        assert elector.try_acquire_or_renew()

        # Throughput: N pending pods, cycles until every one is bound.
        for index in range(args.pods):
            api.create("pods", pod(f"batch-{index}"), "default")
        start = time.perf_counter()
        bound = 0
        cycles = 0
        while bound < args.pods and cycles < 20:
            bound += len(scheduler.cycle().bound)
            cycles += 1
        http_rate = bound / (time.perf_counter() - start)
        in_process = engine_rate(args.pods)
        print(f"{args.pods} single-GPU pods on 3 nodes of 8 GPUs")
        print(f"{'path':<34}{'pods/s':>10}")
        print(f"{'runai-scheduler via HTTP (loopback)':<34}{http_rate:>10.1f}  ({cycles} cycles)")
        print(f"{'engine cycle in process':<34}{in_process:>10.1f}")
        print(f"ratio in-process / HTTP: {in_process / http_rate:.1f}x")

        # Latency: the scheduler running, pods created one at a time (each freed right after).
        watch = BindWatch(api)
        watch.thread.start()
        runner = threading.Thread(target=scheduler.run, kwargs={"resync_seconds": 5.0}, daemon=True)
        for index in range(args.pods):
            api.delete("pods", f"batch-{index}", "default", grace_period=0)
        runner.start()
        created: dict[str, float] = {}
        for index in range(args.latency_pods):
            name = f"late-{index}"
            api.create("pods", pod(name), "default")
            created[name] = time.perf_counter()
            deadline = time.perf_counter() + 30
            while name not in watch.bound and time.perf_counter() < deadline:
                time.sleep(0.002)
            api.delete("pods", name, "default", grace_period=0)
        scheduler.stop.set()
        scheduler.wake.set()
        watch.stop.set()
        runner.join(timeout=10)
        latencies = sorted(
            (watch.bound[n] - created[n]) * 1000 for n in created if n in watch.bound
        )
        if latencies:
            p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
            print(
                f"creation to binding, {len(latencies)} pods one at a time: "
                f"p50 {statistics.median(latencies):.0f} ms, p99 {p99:.0f} ms"
            )


if __name__ == "__main__":
    main()
