"""300 learners typing lab commands: one worker beside two, over PostgreSQL and Redis.

Each learner holds a lab websocket and sends `kubectl get nodes` about once a second
(jittered), waiting for its answer. The same load runs against granian with one
worker, then with two, both over the same PostgreSQL and Redis. It prints commands
answered per second, errors (refused or dropped sockets, answers later than 10 s), the
p50 and p99 of the round trip, and the two-worker/one-worker throughput ratio
(goal: at least 1.7 on 2 cores). Prints, never asserts.

At a command a second, 300 learners no longer keep even one worker busy (round 56 in
docs/performance.md): `--pace 0.1` has each learner send a command every 0.1 s instead, ten
times the load, so that the commands answered per second are what each server can serve rather
than what the class asks for. A socket sending more than LAB_MAX_FRAMES_PER_SECOND (20) frames
a second is closed as a flood, so the pace is at least 0.05 s.

PostgreSQL and Redis come from the environment (`scripts/services run ...`, as
`make bench` does) or are started here when installed.

    .venv/bin/python -m tests.benchmarks.bench_scale [--learners 300] [--seconds 20] [--pace 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from dataclasses import dataclass, field

import websockets

from tests.benchmarks.bench_lab import TICKET, new_session
from tests.multiproc.servers import (
    Services,
    fresh_database,
    granian_servers,
    missing_services,
    running_services,
)

COMMAND = json.dumps({"type": "line", "data": "kubectl get nodes"})
ANSWER_TIMEOUT = 10.0


@dataclass
class Tally:
    times: list[float] = field(default_factory=list)
    errors: int = 0


async def learner(port: int, cookie: str, seconds: float, pace: float, tally: Tally) -> None:
    headers = {"Origin": f"http://127.0.0.1:{port}", "Cookie": cookie}
    rng = random.Random(cookie)
    await asyncio.sleep(rng.uniform(0, 1))  # a class does not press Enter in step
    deadline = time.monotonic() + seconds
    try:
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws/lab/{TICKET}/",
            additional_headers=headers,
            max_size=2**22,
            open_timeout=ANSWER_TIMEOUT,
        ) as socket:
            await asyncio.wait_for(socket.recv(), ANSWER_TIMEOUT)  # the replay
            while time.monotonic() < deadline:
                sent = time.monotonic()
                await socket.send(COMMAND)
                await asyncio.wait_for(socket.recv(), ANSWER_TIMEOUT)
                tally.times.append((time.monotonic() - sent) * 1000)
                wait = rng.uniform(0.8 * pace, 1.2 * pace) - (time.monotonic() - sent)
                await asyncio.sleep(max(0.0, wait))
    except (OSError, TimeoutError, websockets.WebSocketException):
        tally.errors += 1


async def class_of(port: int, cookies: list[str], seconds: float, pace: float) -> Tally:
    tally = Tally()
    await asyncio.gather(*(learner(port, cookie, seconds, pace, tally) for cookie in cookies))
    return tally


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(services: Services, workers: int, learners: int, seconds: float, pace: float) -> float:
    with (
        fresh_database(services) as url,
        granian_servers(Services(url, services.redis_url), count=1, workers=workers) as (port,),
    ):
        cookies = [new_session(port) for _ in range(learners)]
        start = time.monotonic()
        tally = asyncio.run(class_of(port, cookies, seconds, pace))
        elapsed = time.monotonic() - start
    rate = len(tally.times) / elapsed
    print(
        f"{workers:>7}  {rate:>12.0f}  {tally.errors:>6}  {percentile(tally.times, 0.5):>7.1f}ms"
        f"  {percentile(tally.times, 0.99):>7.1f}ms"
    )
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--pace", type=float, default=1.0, help="seconds between a learner's commands"
    )
    args = parser.parse_args()
    reason = missing_services()
    if reason:
        raise SystemExit(reason)
    if args.pace < 0.05:
        raise SystemExit("--pace must be at least 0.05 s: faster, a socket is closed as a flood")
    print(f"{args.learners} learners, a command every {args.pace:g} s each, for {args.seconds:g} s")
    print(f"{'workers':>7}  {'commands/s':>12}  {'errors':>6}  {'p50':>9}  {'p99':>9}")
    with running_services() as services:
        one = run(services, 1, args.learners, args.seconds, args.pace)
        two = run(services, 2, args.learners, args.seconds, args.pace)
    print(f"ratio two workers / one: {two / one:.2f}  (goal: at least 1.7)")


if __name__ == "__main__":
    main()
