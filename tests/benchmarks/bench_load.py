"""Many learners at once on one server, alone and beside a hostile one, round after round.

N new sessions connect at once, then each sends a command a second for T seconds
(commands a learner types: get, describe, label, a grep). Prints errors, handshake
failures, the round trip's p50/p99/max and the server's processor time per reply.
Then the same again, with another N new sessions, while one more session sends issue
11's worst commands back to back (catastrophic regexes, jsonpath and sed amplifiers).

Every run has its own class of new learners, each of whose labs runs one command before
the clock starts, so no run pays for building worlds and every run's labs are the same
age: a lab's snapshot grows with its transcript (350 KB new, 800 KB after a few hundred
commands), and with it what its saves cost, so runs that reused the labs of earlier runs
would compare older labs with younger ones. The two runs alternate for `--rounds` rounds
(alone first, then beside first, and so on), so a drift of this shared machine's speed
falls on both, and each round prints its own ratio. Prints the server's RSS before and
after each run, each run's growth over the first measurement and the growth per lab the
server keeps (goal, issue 30: within 20% of the first measurement over seven runs).
`--windows S` also prints each run's p50/p99 per S seconds, to watch the latency as the labs
age through a long run (`--rounds 1 --seconds 300 --windows 20`).
Goals (issue 11): 0 errors, 0 handshake failures, p99 under 100 ms, and the p99 beside
the worst commands within 20% of the p99 alone. Prints, never asserts.

The server is daphne (one process, as `manage.py runserver` serves), or with `--workers N`
granian with N worker processes as `scripts/serve-production` runs it; both over SQLite.
`--annex both` runs everything twice, on a server with the lab annex and on one without
(`LAB_ANNEX=0`), to show what the annex buys.

    .venv/bin/python -m tests.benchmarks.bench_load [--sessions 300] [--seconds 60]
        [--workers 2] [--rounds 2] [--annex on|off|both] [--windows SECONDS]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import websockets

from studysite.lab.kept import KEPT_LABS
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
    # When each of `times` ended, for --windows.
    ended: list[float] = field(default_factory=list)
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
                tally.ended.append(time.monotonic())
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
    await warm(server, cookies)
    terminals = await connect_all(server, cookies, tally)
    bad = asyncio.create_task(attacker(server, hostile, stop, tally)) if hostile else None
    cpu = server.cpu_seconds()
    await asyncio.gather(*(learner(socket_, seconds, tally) for socket_ in terminals))
    tally.server_cpu = server.cpu_seconds() - cpu
    stop.set()
    if bad is not None:
        await bad
    return tally


def report(label: str, tally: Tally, sessions: int, window: float = 0.0) -> float:
    p99 = percentile(tally.times, 0.99)
    print(
        f"{label:28} {sessions:>8} {len(tally.times):>8} {tally.errors:>7} "
        f"{tally.handshake_failures:>10} {percentile(tally.times, 0.5):>8.1f} {p99:>8.1f} "
        f"{max(tally.times, default=float('nan')):>8.1f} "
        f"{tally.server_cpu * 1000 / max(1, len(tally.times)):>8.2f}"
        + (f"   (worst commands sent: {tally.worst_sent})" if tally.worst_sent else "")
    )
    if window and tally.ended:
        start = min(tally.ended)
        buckets: dict[int, list[float]] = {}
        for ended, ms in zip(tally.ended, tally.times, strict=True):
            buckets.setdefault(int((ended - start) // window), []).append(ms)
        for number, times in sorted(buckets.items()):
            print(
                f"{'':4}{number * window:>5.0f} s to {(number + 1) * window:>4.0f} s:"
                f" p50 {percentile(times, 0.5):6.1f}  p99 {percentile(times, 0.99):6.1f}"
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


def measure(
    workers: int, sessions: int, seconds: float, rounds: int, annex: bool, window: float
) -> list[float]:
    """Print every run on one fresh server; return each round's p99 ratio."""
    ratios = []
    with running_server(workers=workers, LAB_ANNEX="1" if annex else "0") as server:
        hostile = server.new_session()
        asyncio.run(warm(server, [hostile]))
        rss = [server.rss_kib()]
        warm_split = ", ".join(f"{name} {kib / 1024:.0f}" for name, kib in by_process(server))
        print(f"  after warming, by process (MiB): {warm_split}")
        where = f"granian, {workers} workers" if workers else "daphne, one process"
        print(f"\n{sessions} sessions, a command a second each for {seconds:.0f} s ({where}),")
        print(f"lab annex {'on' if annex else 'off (LAB_ANNEX=0)'}")
        print(HEADER)
        for number in range(1, rounds + 1):
            p99 = {}
            # Alone first in odd rounds, beside first in even ones: the server's database grows
            # through the run, and neither side always gets the younger server.
            for hostile_or_none in (None, hostile) if number % 2 else (hostile, None):
                label = "learners only" if hostile_or_none is None else "beside the worst"
                cookies = [server.new_session() for _ in range(sessions)]
                p99[label] = report(
                    f"{number}: {label}",
                    asyncio.run(run_once(server, cookies, seconds, hostile_or_none)),
                    sessions,
                    window,
                )
                rss.append(server.rss_kib())
            calm, busy = p99["learners only"], p99["beside the worst"]
            ratios.append(busy / calm)
            print(f"{number}: p99 beside the worst commands / alone: {busy / calm:.2f}")
        print(
            "server RSS (MiB) after warming, then after each run: "
            + ", ".join(f"{kib / 1024:.0f}" for kib in rss)
        )
        growth = ", ".join(f"{(kib / rss[0] - 1) * 100:+.1f}%" for kib in rss[1:])
        print(f"  over the first: {growth} (goal, issue 30: within 20% over seven runs)")
        # Every run's sessions' labs and the hostile one's, up to what a process keeps.
        kept = min(1 + sessions * (len(rss) - 1), KEPT_LABS)
        print(f"  per lab the server keeps ({kept}): {(rss[-1] - rss[0]) / kept:.0f} KB of RSS")
        listed = ", ".join(f"{name} {kib / 1024:.0f}" for name, kib in by_process(server))
        print(f"  by process (MiB): {listed}")
    return ratios


def by_process(server: Server) -> list[tuple[str, int]]:
    """Each of the server's processes (the web process or workers, the annexes, jq) and its RSS."""
    found = []
    for pid in server.pids():
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            status = Path(f"/proc/{pid}/status").read_text().splitlines()
        except OSError:
            continue
        words = [word.decode(errors="replace") for word in command if word]
        name = next((w for w in words if w in ("labannex", "daphne", "granian")), None)
        name = name or ("jq" if any("jq_worker" in w for w in words) else Path(words[0]).name)
        kib = next((int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0)
        found.append((f"{name}[{pid}]", kib))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--workers", type=int, default=0, help="granian workers (0: daphne)")
    parser.add_argument("--rounds", type=int, default=2, help="alone/beside pairs per server")
    parser.add_argument("--annex", choices=("on", "off", "both"), default="on")
    parser.add_argument(
        "--windows", type=float, default=0.0, help="also print p50/p99 per this many seconds"
    )
    args = parser.parse_args()
    settings = {"on": [True], "off": [False], "both": [True, False]}[args.annex]
    summary = {
        annex: measure(args.workers, args.sessions, args.seconds, args.rounds, annex, args.windows)
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
