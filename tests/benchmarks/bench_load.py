"""Many learners at once on one server, alone and beside a hostile one, round after round.

N sessions connect at once, then each sends a command a second for T seconds
(commands a learner types: get, describe, label, a grep). Prints errors, handshake
failures, the round trip's p50/p99/max and the server's processor time per reply.
Then the same again while one more session sends issue 11's worst commands back to
back (catastrophic regexes, jsonpath and sed amplifiers). Every lab runs one command
before the first round, so no round pays for building the learners' worlds. The two
runs alternate for `--rounds` rounds (alone first, then beside first, and so on), so a
drift of this shared machine's speed or of the labs' age falls on both, and each round
prints its own ratio. Prints the server's RSS before and after
each run.
Goals (issue 11): 0 errors, 0 handshake failures, p99 under 100 ms, and the p99 beside
the worst commands within 20% of the p99 alone. Prints, never asserts.

The server is daphne (one process, as `manage.py runserver` serves), or with `--workers N`
granian with N worker processes as `scripts/serve-production` runs it; both over SQLite.
`--annex both` runs everything twice, on a server with the lab annex and on one without
(`LAB_ANNEX=0`), to show what the annex buys.

    .venv/bin/python -m tests.benchmarks.bench_load [--sessions 300] [--seconds 60]
        [--workers 2] [--rounds 2] [--annex on|off|both]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from dataclasses import dataclass, field

import websockets

from tests.reliability.server import Server, running_server

TICKET = "mig-single"
COMMANDS = [
    "kubectl get nodes",
    "kubectl get pods -A",
    "kubectl describe node gpu-node2",
    "kubectl get nodes | grep gpu",
    "kubectl label node gpu-node1 bench=yes --overwrite",
]
WORST = [
    "kubectl get nodes | sed 's/.*/aaaaaaaaaaaaaaaaaaaaaaaaaaaa/' | grep -E '(a|a)*b'",
    "kubectl get nodes | sed 's/.*/aaaaaaaaaaaaaaaaaaaaaaaaaaaa/' | sed -E 's/(a|a)*b/x/'",
    "kubectl get pods -A -o yaml | grep 'a.*a.*a.*a.*a.*a.*x'",
    "kubectl get pods -A -o jsonpath='" + "{@}" * 1300 + "'",
    "kubectl get pods -A -o yaml" + " | sed 's/./&&&&&&&&/g'" * 6,
]


@dataclass
class Tally:
    times: list[float] = field(default_factory=list)
    errors: int = 0
    handshake_failures: int = 0
    worst_sent: int = 0
    server_cpu: float = 0.0


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


Terminal = websockets.ClientConnection


async def open_terminal(server: Server, cookie: str) -> Terminal:
    socket_ = await websockets.connect(
        server.url(f"/ws/lab/{TICKET}/"),
        additional_headers={"Origin": server.origin, "Cookie": cookie},
        open_timeout=60,
        max_size=None,
    )
    await socket_.recv()  # replay
    return socket_


async def round_trip(socket_: Terminal, line: str) -> bool:
    await socket_.send(json.dumps({"type": "line", "data": line}))
    output = json.loads(await socket_.recv())
    return bool(output.get("type") == "output")


async def connect_all(server: Server, cookies: list[str], tally: Tally) -> list[Terminal]:
    """Every session opens its terminal at the same moment."""
    results = await asyncio.gather(
        *(open_terminal(server, cookie) for cookie in cookies), return_exceptions=True
    )
    tally.handshake_failures += sum(isinstance(r, BaseException) for r in results)
    return [r for r in results if not isinstance(r, BaseException)]


async def learner(socket_: Terminal, seconds: float, tally: Tally) -> None:
    rng = random.Random()
    await asyncio.sleep(rng.uniform(0, 1))  # connected at once; their typing is not in step
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            began = time.perf_counter()
            if await round_trip(socket_, rng.choice(COMMANDS)):
                tally.times.append((time.perf_counter() - began) * 1000)
            else:
                tally.errors += 1
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - began)))
    except Exception:
        tally.errors += 1
    finally:
        await socket_.close()


async def attacker(server: Server, cookie: str, stop: asyncio.Event, tally: Tally) -> None:
    """Back to back, reconnecting whenever the server closes the socket."""
    while not stop.is_set():
        try:
            socket_ = await open_terminal(server, cookie)
            while not stop.is_set():
                await round_trip(socket_, WORST[tally.worst_sent % len(WORST)])
                tally.worst_sent += 1
        except Exception:
            await asyncio.sleep(0.1)


async def run_once(
    server: Server, cookies: list[str], seconds: float, hostile: str | None
) -> Tally:
    tally, stop = Tally(), asyncio.Event()
    terminals = await connect_all(server, cookies, tally)
    bad = asyncio.create_task(attacker(server, hostile, stop, tally)) if hostile else None
    cpu = server.cpu_seconds()
    await asyncio.gather(*(learner(socket_, seconds, tally) for socket_ in terminals))
    tally.server_cpu = server.cpu_seconds() - cpu
    stop.set()
    if bad is not None:
        await bad
    return tally


def report(label: str, tally: Tally, sessions: int) -> float:
    p99 = percentile(tally.times, 0.99)
    print(
        f"{label:28} {sessions:>8} {len(tally.times):>8} {tally.errors:>7} "
        f"{tally.handshake_failures:>10} {percentile(tally.times, 0.5):>8.1f} {p99:>8.1f} "
        f"{max(tally.times, default=float('nan')):>8.1f} "
        f"{tally.server_cpu * 1000 / max(1, len(tally.times)):>8.2f}"
        + (f"   (worst commands sent: {tally.worst_sent})" if tally.worst_sent else "")
    )
    return p99


async def warm(server: Server, cookies: list[str]) -> None:
    """One command in every lab, a few at a time, before anything is timed."""
    gate = asyncio.Semaphore(20)

    async def one(cookie: str) -> None:
        async with gate:
            socket_ = await open_terminal(server, cookie)
            await round_trip(socket_, COMMANDS[0])
            await socket_.close()

    await asyncio.gather(*(one(cookie) for cookie in cookies))
    # The annexes start on the first connections; let them finish before any clock runs.
    for _ in range(60):
        spent = server.cpu_seconds()
        await asyncio.sleep(0.5)
        if server.cpu_seconds() - spent < 0.05:
            break


HEADER = (
    f"{'run':28} {'sessions':>8} {'replies':>8} {'errors':>7} {'handshake':>10} "
    f"{'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'cpu ms':>8}"
)


def measure(workers: int, sessions: int, seconds: float, rounds: int, annex: bool) -> list[float]:
    """Print every run on one fresh server; return each round's p99 ratio."""
    ratios = []
    with running_server(workers=workers, LAB_ANNEX="1" if annex else "0") as server:
        cookies = [server.new_session() for _ in range(sessions)]
        hostile = server.new_session()
        asyncio.run(warm(server, [*cookies, hostile]))
        rss = [server.rss_kib()]
        where = f"granian, {workers} workers" if workers else "daphne, one process"
        print(f"\n{sessions} sessions, a command a second each for {seconds:.0f} s ({where}),")
        print(f"lab annex {'on' if annex else 'off (LAB_ANNEX=0)'}")
        print(HEADER)
        for number in range(1, rounds + 1):
            p99 = {}
            # Alone first in odd rounds, beside first in even ones: the labs grow older (longer
            # transcripts, larger snapshots) through the run, and neither side always gets the
            # younger labs.
            for hostile_or_none in (None, hostile) if number % 2 else (hostile, None):
                label = "learners only" if hostile_or_none is None else "beside the worst"
                p99[label] = report(
                    f"{number}: {label}",
                    asyncio.run(run_once(server, cookies, seconds, hostile_or_none)),
                    sessions,
                )
                rss.append(server.rss_kib())
            calm, busy = p99["learners only"], p99["beside the worst"]
            ratios.append(busy / calm)
            print(f"{number}: p99 beside the worst commands / alone: {busy / calm:.2f}")
        print(
            "server RSS (MiB) after warming, then after each run: "
            + ", ".join(f"{kib / 1024:.0f}" for kib in rss)
        )
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--workers", type=int, default=0, help="granian workers (0: daphne)")
    parser.add_argument("--rounds", type=int, default=2, help="alone/beside pairs per server")
    parser.add_argument("--annex", choices=("on", "off", "both"), default="on")
    args = parser.parse_args()
    settings = {"on": [True], "off": [False], "both": [True, False]}[args.annex]
    summary = {
        annex: measure(args.workers, args.sessions, args.seconds, args.rounds, annex)
        for annex in settings
    }
    print()
    for annex, ratios in summary.items():
        print(
            f"annex {'on ' if annex else 'off'}: p99 ratio per round "
            + ", ".join(f"{ratio:.2f}" for ratio in ratios)
            + f"; median {statistics.median(ratios):.2f} (goal: at most 1.20)"
        )
    print(
        "cpu ms: the server's processor time per reply, so one process on a core of its own"
        " takes about 1000 / cpu ms commands a second"
    )


if __name__ == "__main__":
    main()
