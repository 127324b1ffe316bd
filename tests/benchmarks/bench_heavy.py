"""Quiet learners beside issue 33's heaviest commands, on one server.

N quiet learners (sessions with history: a dozen commands each before the clock starts) send
a command a second for T seconds, alone and then beside:
- six fresh sessions, over and over (a new session each time, as a page load makes one),
  each scaling coredns to 600 (`kubectl scale deployment coredns -n kube-system --replicas=600`);
- one session sending the 313-byte YAML alias bomb (`kubectl patch node gpu-node1 -p ...`);
- one session sending `kubectl get pods -A -o custom-columns=` with 300 `..` columns.
Or, as a control, "newcomers": six fresh sessions that each send `kubectl get nodes` and pause.
Prints each run's p50/p99/max, the p99 beside over the p99 alone (issue 33's goal: at most
1.2) per round, their median, and the ratio of the p99s of all rounds' replies pooled, the
hostile commands answered, and the server's RSS before and after each run. The
runs alternate (alone first in odd rounds), as in bench_load. Prints, never asserts.

The hostile sessions are clients of their own, in a child process at the lowest priority: the
quiet learners' client never decodes a 512 KiB reply or waits on a page load between two of its
own round trips, and the attackers' client never takes a core from the server, as clients on
other machines never do.

With `--blocks N` (issue 33, round 62) each server has one run instead: the quiet learners
send for the whole of it, and the hostile sessions (one client process) are switched on and
off in N blocks of T seconds, in the order alone, beside, beside, alone, and so on. A beside
block's clock starts `--settle` seconds after the switch; an alone block's, that long after
the last hostile command was answered. Rounds of separate runs compared a p99 alone from one
minute with a p99 beside from the next, and the p99 alone moved from 7.4 to 11.3 ms from one
batch to the next (round 61): more than the heaviest commands add. Blocks interleaved this
finely put any drift of the machine or of the labs on both sides alike, and resampling whole
blocks gives the pooled ratio a 90% interval.

    .venv/bin/python -m tests.benchmarks.bench_heavy [--sessions 20] [--seconds 15]
        [--workers 1[,2,0,...]] [--rounds 1] [--windows 0]
        [--heavy scale,alias bomb,300 columns|newcomers] [--page-process 1]
        [--blocks 0] [--settle 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import random
import signal
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.benchmarks.bench_load import (
    COMMANDS,
    HEADER,
    Tally,
    Terminal,
    connect_all,
    learner,
    open_terminal,
    percentile,
    report,
    round_trip,
    warm,
)
from tests.reliability.server import Server, running_server
from tests.reliability.test_documents import alias_bomb

SCALE = "kubectl scale deployment coredns -n kube-system --replicas=600"
QUIET = "kubectl get nodes"
FRESH_SCALERS = 6


ALIAS_BOMB = f"kubectl patch node gpu-node1 -p '{alias_bomb()}'"
COLUMNS = "kubectl get pods -A -o custom-columns=" + ",".join(f"C{i}:.." for i in range(300))


class Switch:
    """The hostile sessions' switch, in their process: they send only while `on` (a
    multiprocessing Event) is set, and `drained` is set while it is clear and nothing they sent
    is still unanswered (`--blocks`: an alone block's clock starts only then). In asyncio's one
    thread a session passes `wait_on` and enters `sending` with no await between, so `watch`
    never sees a command about to be sent as drained."""

    def __init__(self, on: Any, drained: Any, stop: asyncio.Event) -> None:
        self.on, self.drained, self.stop = on, drained, stop
        self.in_flight = 0

    async def wait_on(self) -> bool:
        """True once the sessions may send; False once they are to stop."""
        while not self.on.is_set() and not self.stop.is_set():
            await asyncio.sleep(0.02)
        return not self.stop.is_set()

    @contextlib.contextmanager
    def sending(self) -> Iterator[None]:
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1

    async def watch(self) -> None:
        while not self.stop.is_set():
            if not self.on.is_set() and not self.in_flight:
                self.drained.set()
            else:
                self.drained.clear()
            await asyncio.sleep(0.02)


async def fresh_session(
    server: Server, line: str, name: str, pause: float, switch: Switch, sent: list[str]
) -> None:
    """Over and over: a new session's page, its socket, one line; then `pause` seconds."""
    while await switch.wait_on():
        try:
            with switch.sending():
                cookie = await asyncio.to_thread(server.new_session)
                socket_ = await open_terminal(server, cookie)
                try:
                    await round_trip(socket_, line)
                    sent.append(name)
                finally:
                    await socket_.close()
            await asyncio.sleep(pause)
        except Exception:
            await asyncio.sleep(0.1)


async def repeater(
    server: Server, cookie: str, line: str, name: str, switch: Switch, sent: list[str]
) -> None:
    """One session's line back to back on one socket, kept open while the switch is off."""
    while not switch.stop.is_set():
        try:
            socket_ = await open_terminal(server, cookie)
            try:
                while await switch.wait_on():
                    with switch.sending():
                        await round_trip(socket_, line)
                    sent.append(name)
            finally:
                await socket_.close()
        except Exception:
            await asyncio.sleep(0.1)


HEAVY = ("scale", "alias bomb", "300 columns")
# Not one of the heaviest, and not run unless named: six fresh sessions that each load a page,
# open a socket and send `kubectl get nodes`, then wait NEWCOMER_PAUSE, about the pace the fresh
# scalers reach (24-30 scales in 15 s, round 39). What a newcomer costs the others, whatever
# the command: beside it, the scalers' ratio shows what their command itself still costs.
NEWCOMERS = "newcomers"
NEWCOMER_PAUSE = 3.0


async def hostile_sessions(
    port: int, heavy: list[str], stop_when: Any, on: Any, drained: Any
) -> dict[str, int]:
    server = Server(port, None, Path(), {})  # type: ignore[arg-type]  # only its addresses
    stop, sent = asyncio.Event(), list[str]()
    switch = Switch(on, drained, stop)
    hostile = [asyncio.create_task(switch.watch())]
    for line, name, pause in ((SCALE, "scale", 0.0), (QUIET, NEWCOMERS, NEWCOMER_PAUSE)):
        if name in heavy:
            hostile += [
                asyncio.create_task(fresh_session(server, line, name, pause, switch, sent))
                for _ in range(FRESH_SCALERS)
            ]
    for line, name in ((ALIAS_BOMB, "alias bomb"), (COLUMNS, "300 columns")):
        if name in heavy:
            cookie = await asyncio.to_thread(server.new_session)
            hostile.append(asyncio.create_task(repeater(server, cookie, line, name, switch, sent)))
    while not stop_when.is_set():
        await asyncio.sleep(0.05)
    stop.set()
    await asyncio.gather(*hostile)
    return {name: sent.count(name) for name in heavy}


def hostile_client(
    port: int,
    heavy: list[str],
    ready: Any,
    go: Any,
    stop_when: Any,
    counts: Any,
    on: Any,
    drained: Any,
) -> None:
    """The child process's body: once `go` is set, the hostile sessions until `stop_when` is.

    At the lowest priority: it stands for clients on other machines, so its own work (opening
    sessions, reading 512 KiB replies) should not take a core from the server it measures or
    from the quiet learners' client; it still gets every core they leave idle. For the same
    reason it starts (a new interpreter importing this module) before the clock runs, and says
    `ready`."""
    os.nice(19)
    ready.set()
    go.wait()
    counts.put(asyncio.run(hostile_sessions(port, heavy, stop_when, on, drained)))


async def run_once(
    server: Server, seconds: float, sessions: int, beside: bool, heavy: list[str]
) -> Tally:
    tally = Tally()
    spawn = multiprocessing.get_context("spawn")
    ready, go, stop_when, counts = spawn.Event(), spawn.Event(), spawn.Event(), spawn.Queue()
    on, drained = spawn.Event(), spawn.Event()
    on.set()
    child = spawn.Process(
        target=hostile_client,
        args=(server.port, heavy, ready, go, stop_when, counts, on, drained),
    )
    if beside:
        child.start()
    cookies = [server.new_session() for _ in range(sessions)]
    await warm(server, cookies)
    terminals = await connect_all(server, cookies, tally)
    for socket_ in terminals:  # a dozen commands each: learners with history
        for _ in range(11):
            await round_trip(socket_, "kubectl get nodes")
    if beside:
        await asyncio.to_thread(ready.wait)
        go.set()
    cpu = server.cpu_seconds()
    await asyncio.gather(*(learner(socket_, seconds, tally) for socket_ in terminals))
    tally.server_cpu = server.cpu_seconds() - cpu
    if beside:
        stop_when.set()
        answered = await asyncio.to_thread(counts.get)
        await asyncio.to_thread(child.join)
        print(
            "    hostile commands answered: " + ", ".join(f"{k} {v}" for k, v in answered.items())
        )
    for socket_ in terminals:
        await socket_.close()
    return tally


def server_name(workers: int) -> str:
    return f"granian, {workers} worker{'s' if workers > 1 else ''}" if workers else "daphne"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument(
        "--workers",
        default="1",
        help="comma-separated servers, measured in turn each round: N is granian with N "
        "workers (1 as `make serve` runs it, 2 as scripts/serve-production does on a 2-core "
        "machine), 0 is daphne (`manage.py runserver`'s)",
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--windows", type=float, default=0.0, help="also print p50/p99 per window of N seconds"
    )
    parser.add_argument(
        "--heavy",
        default=",".join(HEAVY),
        help="which of them, comma-separated: " + ", ".join((*HEAVY, NEWCOMERS)),
    )
    parser.add_argument(
        "--page-process", default="1", choices=("0", "1"), help="PAGE_PROCESS for the server"
    )
    parser.add_argument(
        "--blocks",
        type=int,
        default=0,
        help="instead of rounds of two runs: one run per server of N blocks of --seconds, the "
        "heaviest switched on and off (alone, beside, beside, alone, ...)",
    )
    parser.add_argument(
        "--settle", type=float, default=3.0, help="seconds between a switch and a block's clock"
    )
    args = parser.parse_args()
    # Stopped (kill, Ctrl-C), it stops the servers it started: each is a context manager, and
    # a SIGTERM would otherwise leave them running, idle, beside the next run.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    heavy = [name.strip() for name in args.heavy.split(",") if name.strip() in (*HEAVY, NEWCOMERS)]
    workers = [int(item) for item in args.workers.split(",")]
    ratios: dict[int, list[float]] = {count: [] for count in workers}
    pooled: dict[int, dict[bool, list[float]]] = {c: {False: [], True: []} for c in workers}
    with contextlib.ExitStack() as servers:
        # Every server started and warmed (each seed's starting world, the annexes) before any
        # clock runs; those not being measured sit idle.
        started = {
            count: servers.enter_context(
                running_server(workers=count, PAGE_PROCESS=args.page_process)
            )
            for count in workers
        }
        for server in started.values():
            asyncio.run(warm(server, [server.new_session() for _ in range(24)]))
        print(f"\n{args.sessions} quiet learners, a command a second for {args.seconds:.0f} s")
        print(f"beside: {', '.join(heavy)}; servers: {', '.join(map(server_name, workers))}")
        if args.blocks:
            for count, server in started.items():
                before = server.rss_kib()
                print(f"\n{server_name(count)}: {args.blocks} blocks")
                done = asyncio.run(
                    run_blocks(server, args.sessions, args.blocks, args.seconds, args.settle, heavy)
                )
                block_summary(server_name(count), done)
                print(
                    f"  server RSS {before / 1024:.0f} MiB before, "
                    f"{server.rss_kib() / 1024:.0f} MiB after"
                )
            return
        print(HEADER)
        for number in range(1, args.rounds + 1):
            for count, server in started.items():
                name = f"{number}"
                if len(workers) > 1:
                    print(f"{number}: {server_name(count)}")
                p99 = {}
                for beside in (False, True) if number % 2 else (True, False):
                    label = "beside the heaviest" if beside else "quiet learners only"
                    before = server.rss_kib()
                    tally = asyncio.run(
                        run_once(server, args.seconds, args.sessions, beside, heavy)
                    )
                    p99[beside] = report(f"{name}: {label}", tally, args.sessions, args.windows)
                    pooled[count][beside] += tally.times
                    print(
                        f"    server RSS {before / 1024:.0f} MiB before, "
                        f"{server.rss_kib() / 1024:.0f} MiB after"
                    )
                ratios[count].append(p99[True] / p99[False])
                print(f"{name}: p99 beside the heaviest / alone: {ratios[count][-1]:.2f}")
    for count in workers:
        summary(server_name(count), ratios[count], pooled[count])


def summary(name: str, ratios: list[float], pooled: dict[bool, list[float]]) -> None:
    print(f"\n{name}: p99 ratio median {statistics.median(ratios):.2f} (goal: at most 1.20)")
    # A run's p99 is its 3rd-slowest of 300 replies (20 sessions, 15 s), and the ratio of two
    # such figures swings with one slow reply either side. All rounds' replies together give
    # the p99 from four times as many.
    alone, beside_ = (percentile(pooled[flag], 0.99) for flag in (False, True))
    print(
        f"{name}: p99 of every round's replies: {beside_:.1f} ms beside, {alone:.1f} ms alone, "
        f"ratio {beside_ / alone:.2f} ({len(pooled[True])} and {len(pooled[False])} replies)"
    )


# --blocks: one run, the hostile sessions switched on and off in blocks.
@dataclass
class Block:
    beside: bool
    start: float
    end: float
    waited: float  # from the switch to the clock: the drain (alone) and the settle
    times: list[float] = field(default_factory=list)


def beside_in(number: int) -> bool:
    """Blocks in the order alone, beside, beside, alone, alone, beside, ...: a drift of the
    machine's speed (or of the labs, which grow through the run) that is linear over four blocks
    falls on both sides alike."""
    return number % 4 in (1, 2)


async def steady_learner(
    socket_: Terminal, stop: asyncio.Event, replies: list[tuple[float, float]]
) -> None:
    """A command a second until `stop`: each reply as (when it was sent, when it came), by
    time.monotonic()."""
    rng = random.Random()
    await asyncio.sleep(rng.uniform(0, 1))
    while not stop.is_set():
        began = time.monotonic()
        if await round_trip(socket_, rng.choice(COMMANDS)):
            replies.append((began, time.monotonic()))
        await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - began)))


async def run_blocks(
    server: Server, sessions: int, blocks: int, seconds: float, settle: float, heavy: list[str]
) -> list[Block]:
    """The quiet learners for the whole run; the hostile sessions (one client process, started
    before the clock) switched on for the beside blocks. A beside block's clock starts `settle`
    seconds after they are switched on; an alone block's, `settle` seconds after everything
    they sent has been answered. A reply counts in a block when it was sent and answered within
    the block's clock."""
    spawn = multiprocessing.get_context("spawn")
    ready, go, stop_when, counts = spawn.Event(), spawn.Event(), spawn.Event(), spawn.Queue()
    on, drained = spawn.Event(), spawn.Event()
    child = spawn.Process(
        target=hostile_client,
        args=(server.port, heavy, ready, go, stop_when, counts, on, drained),
    )
    child.start()
    cookies = [server.new_session() for _ in range(sessions)]
    await warm(server, cookies)
    terminals = await connect_all(server, cookies, Tally())
    for socket_ in terminals:
        for _ in range(11):
            await round_trip(socket_, "kubectl get nodes")
    await asyncio.to_thread(ready.wait)
    go.set()
    stop, replies = asyncio.Event(), list[tuple[float, float]]()
    learners = [asyncio.create_task(steady_learner(t, stop, replies)) for t in terminals]
    done: list[Block] = []
    for number in range(blocks):
        beside, switched = beside_in(number), time.monotonic()
        if beside:
            on.set()
        else:
            on.clear()
            await asyncio.sleep(0.1)  # the child's watch sees the switch
            await asyncio.to_thread(drained.wait, 300)
        await asyncio.sleep(settle)
        start = time.monotonic()
        await asyncio.sleep(seconds)
        done.append(Block(beside, start, time.monotonic(), start - switched))
    on.clear()
    stop.set()
    stop_when.set()
    await asyncio.gather(*learners)
    answered = await asyncio.to_thread(counts.get)
    await asyncio.to_thread(child.join)
    print("hostile commands answered: " + ", ".join(f"{k} {v}" for k, v in answered.items()))
    for socket_ in terminals:
        await socket_.close()
    for sent, came in replies:
        for block in done:
            if block.start <= sent and came <= block.end:
                block.times.append((came - sent) * 1000)
    return done


def block_summary(name: str, done: list[Block]) -> float:
    """Each block's p50/p99, then the p99 of every reply per side and its ratio, with a 90%
    interval from resampling whole blocks (each side's blocks drawn with replacement)."""
    for number, block in enumerate(done, 1):
        side = "beside the heaviest" if block.beside else "alone"
        print(
            f"  block {number:>2} {side:20} {len(block.times):>5} replies"
            f"  p50 {percentile(block.times, 0.5):6.1f}  p99 {percentile(block.times, 0.99):6.1f}"
            f"  (clock from {block.waited:4.1f} s after the switch)"
        )
    sides = {flag: [b.times for b in done if b.beside is flag] for flag in (False, True)}

    def ratio(picked: dict[bool, list[list[float]]]) -> float:
        beside_, alone = (
            percentile([ms for times in picked[flag] for ms in times], 0.99)
            for flag in (True, False)
        )
        return beside_ / alone

    pooled = ratio(sides)
    rng = random.Random(0)
    draws = sorted(
        ratio({flag: rng.choices(blocks_, k=len(blocks_)) for flag, blocks_ in sides.items()})
        for _ in range(2000)
    )
    alone, beside_ = (
        percentile([ms for times in sides[flag] for ms in times], 0.99) for flag in (False, True)
    )
    replies = {flag: sum(map(len, sides[flag])) for flag in (False, True)}
    print(
        f"{name}: p99 {beside_:.1f} ms beside ({replies[True]} replies), {alone:.1f} ms alone "
        f"({replies[False]}), ratio {pooled:.2f}, 90% interval {draws[100]:.2f}-{draws[1899]:.2f}"
        " (goal: at most 1.20)"
    )
    return pooled


if __name__ == "__main__":
    main()
