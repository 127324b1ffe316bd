"""Server time per simulator update, in process (Django's test client, all middleware).

An "update" is what the browser sends 300 ms after a change: the whole form as a GET
with HX-Request, answered with the result partial. Each request changes one demand so
every answer is computed afresh. Prints p50 and p99 for 3 and 8 projects, for a full
page, an update and a reclaim step; never asserts.

    .venv/bin/python -m tests.benchmarks.bench_simulator [--requests 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studysite.settings")


def form(projects: int, pool: int, demand_bump: int, **extra: str) -> dict[str, str]:
    fields = {"pool-0-name": "default", "pool-0-gpus": str(pool)}
    for i in range(projects):
        fields |= {
            f"p-{i}-name": f"team-{chr(97 + i)}",
            f"p-{i}-quota-0": str(pool // (projects + 1)),
            f"p-{i}-demand-0": str(pool // 2 + (demand_bump + i) % 7),
            f"p-{i}-weight": str(1 + i % 3),
        }
    return fields | {"step-project": "0", "step-extra": "4"} | extra


def measure(send: Callable[[int], int], requests: int) -> tuple[float, float, float]:
    for i in range(5):  # warm up: templates, guide, engine imports
        send(i)
    times = []
    for i in range(requests):
        start = time.perf_counter()
        status = send(i)
        times.append((time.perf_counter() - start) * 1000)
        if status != 200:
            raise SystemExit(f"unexpected status {status}")
    times.sort()
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return statistics.median(times), p99, max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()

    import django

    django.setup()
    from django.test import Client

    client = Client(HTTP_HOST="localhost")
    hx = {"HX-Request": "true"}

    def update(projects: int, pool: int) -> Callable[[int], int]:
        return lambda i: client.get("/simulator/", form(projects, pool, i), headers=hx).status_code

    def step(projects: int, pool: int) -> Callable[[int], int]:
        return lambda i: (
            client.get(
                "/simulator/", form(projects, pool, i, action="step"), headers=hx
            ).status_code
        )

    def full_page(projects: int, pool: int) -> Callable[[int], int]:
        def send(i: int) -> int:
            response = client.get("/simulator/", form(projects, pool, i))  # → compact URL
            return client.get(response["Location"]).status_code

        return send

    print(f"simulator server time, {args.requests} requests each (ms)")
    print(f"{'case':44} {'p50':>8} {'p99':>8} {'max':>8}")
    for projects, pool in [(3, 24), (8, 24), (8, 64)]:
        for label, sender in [("update (htmx)", update), ("step (htmx)", step)]:
            p50, p99, top = measure(sender(projects, pool), args.requests)
            name = f"{label}, {projects} projects, {pool} GPUs"
            print(f"{name:44} {p50:8.1f} {p99:8.1f} {top:8.1f}")
        p50, p99, top = measure(full_page(projects, pool), max(20, args.requests // 4))
        name = f"full page (incl. redirect), {projects} projects"
        print(f"{name:44} {p50:8.1f} {p99:8.1f} {top:8.1f}")
    # The largest setups the input checks allow: one slow answer each, for the record.
    for label, query in [
        ("largest: 2 pools x 1024 GPUs, 8 x 32 demand", "pool=a:1024&pool=b:1024&" + "&".join(
            f"p=t{i},100/100,32/32,{1 + i % 3}" for i in range(8))),
        ("largest: 1024 GPUs, 8 x 32 demand", "pool=1024&" + "&".join(
            f"p=t{i},100,32,{1 + i % 3}" for i in range(8))),
        ("largest: 3 x 85 demand, 24 GPUs", "pool=24&" + "&".join(
            f"p=t{i},8,85,{1 + i % 3}" for i in range(3))),
    ]:  # fmt: skip
        for _ in range(3):
            start = time.perf_counter()
            response = client.get(f"/simulator/?{query}", headers=hx)
            took = (time.perf_counter() - start) * 1000
        fits = "no" if b"takes at most" in response.content else "yes"
        print(f"{label:44} {took:8.1f} ms (status {response.status_code}, allowed: {fits})")


if __name__ == "__main__":
    main()
