"""The apiserver's requests per second for `kubectl get pods -A` (a Table) via the official client.

Starts `python -m simulators apiserver` in a subprocess and, through the official `kubernetes`
client, lists every pod as the server-side Table kubectl asks for, then as the plain JSON list
beside it: sequentially, and from several client threads at once. Prints figures, never asserts.

    .venv/bin/python -m tests.benchmarks.bench_apiserver [--ticket sample] [--requests 300]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from kubernetes import client

from tests.cluster_server import start_cluster_server

TABLE = {"Accept": "application/json;as=Table;g=meta.k8s.io;v=v1"}


def timed(core: Any, headers: dict[str, str] | None) -> float:
    start = time.perf_counter()
    response = core.list_pod_for_all_namespaces(_headers=headers or {}, _preload_content=False)
    response.read()
    return time.perf_counter() - start


def run(
    core: Any, headers: dict[str, str] | None, count: int, threads: int
) -> tuple[float, list[float]]:
    start = time.perf_counter()
    if threads == 1:
        samples = [timed(core, headers) for _ in range(count)]
    else:
        with ThreadPoolExecutor(threads) as pool:
            samples = list(pool.map(lambda _: timed(core, headers), range(count)))
    return count / (time.perf_counter() - start), samples


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ticket", default="sample")
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as folder,
        start_cluster_server(args.ticket, Path(folder)) as server,
    ):
        core = client.CoreV1Api(server.client())
        pods = len(core.list_pod_for_all_namespaces().items)
        print(f"ticket {args.ticket}: {pods} pods; {args.requests} requests per row")
        for _ in range(20):
            timed(core, TABLE)
        print(f"{'request':<22}{'threads':>8}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}")
        rates: dict[tuple[str, int], float] = {}
        for label, headers in (("get pods -A (Table)", TABLE), ("list pods (JSON)", None)):
            for threads in (1, 4):
                rate, samples = run(core, headers, args.requests, threads)
                rates[(label, threads)] = rate
                ordered = sorted(samples)
                p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
                print(
                    f"{label:<22}{threads:>8}{rate:>10.0f}"
                    f"{statistics.median(samples) * 1000:>9.1f}{p99 * 1000:>9.1f}"
                )
        ratio = rates[("get pods -A (Table)", 1)] / rates[("list pods (JSON)", 1)]
        print(f"Table / JSON throughput, one thread: {ratio:.2f}")


if __name__ == "__main__":
    main()
