"""Lab command round trip over the websocket beside a bare echo consumer, same server.

Sessions behave like learners at a keyboard: each sends a command, waits for its
output, thinks for a moment (--think seconds, jittered), and sends the next. For
1, 50 and 200 concurrent sessions it prints p50 and p99 of the round trip for a
lab command (`kubectl get nodes`, run through the simulated cluster and saved to
the database) and for an echo frame, and the ratio. Goal: lab p99 under 25 ms at
200 sessions on this 2-core machine, and at most 2x the echo's. Prints, never asserts.

    .venv/bin/python -m tests.benchmarks.bench_lab [--commands 10] [--think 5.0]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import random
import statistics
import time

import websockets

from tests.live_server import daphne_server

TICKET = "mig-single"
COMMAND = json.dumps({"type": "line", "data": "kubectl get nodes"})


def new_session(port: int) -> str:
    """A learner's first visit: the ticket page sets the session cookie."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", f"/lab/{TICKET}/")
    response = conn.getresponse()
    response.read()
    for name, value in response.getheaders():
        if name.lower() == "set-cookie" and value.startswith("sessionid="):
            return value.split(";", 1)[0]
    raise SystemExit("the lab page set no session cookie")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def learner(url: str, cookie: str, commands: int, think: float, lab: bool) -> list[float]:
    headers = {"Origin": url.replace("ws://", "http://").split("/ws/")[0], "Cookie": cookie}
    times: list[float] = []
    rng = random.Random(hash(cookie))
    # Learners arrive over a couple of seconds, as a class opening the page would.
    await asyncio.sleep(rng.uniform(0, 2 * think))
    async with websockets.connect(url, additional_headers=headers, max_size=2**22) as socket_:
        if lab:
            await socket_.recv()  # the replay
        await asyncio.sleep(rng.uniform(0, think))
        for _ in range(commands):
            start = time.perf_counter()
            await socket_.send(COMMAND)
            await socket_.recv()
            times.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
    return times


async def measure(
    port: int, cookies: list[str], commands: int, think: float, lab: bool
) -> list[float]:
    path = f"/ws/lab/{TICKET}/" if lab else "/ws/echo/"
    url = f"ws://127.0.0.1:{port}{path}"
    results = await asyncio.gather(*(learner(url, c, commands, think, lab) for c in cookies))
    return [t for times in results for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=10, help="commands per session")
    parser.add_argument("--think", type=float, default=5.0, help="seconds between commands")
    parser.add_argument("--sessions", default="1,50,200")
    args = parser.parse_args()
    levels = [int(n) for n in args.sessions.split(",")]

    settings = {"LAB_BENCH_ECHO": "1", "LAB_MAX_FRAMES_PER_SECOND": "1000"}
    with daphne_server(settings) as port:
        cookies = [new_session(port) for _ in range(max(levels))]
        print(f"{args.commands} commands per session, about {args.think:.1f} s apart")
        print(
            f"{'sessions':>8}  {'lab p50':>8}  {'lab p99':>8}  {'echo p50':>8}  "
            f"{'echo p99':>8}  {'p99 lab/echo':>12}"
        )
        for level in levels:
            chosen = cookies[:level]
            lab = asyncio.run(measure(port, chosen, args.commands, args.think, lab=True))
            echo = asyncio.run(measure(port, chosen, args.commands, args.think, lab=False))
            lab99, echo99 = percentile(lab, 0.99), percentile(echo, 0.99)
            print(
                f"{level:>8}  {statistics.median(lab):>6.1f}ms  {lab99:>6.1f}ms  "
                f"{statistics.median(echo):>6.1f}ms  {echo99:>6.1f}ms  "
                f"{lab99 / echo99:>12.2f}"
            )
    print("goal: lab p99 under 25 ms at 200 sessions, and at most 2x the echo's p99")


if __name__ == "__main__":
    main()
