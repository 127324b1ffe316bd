"""A class opens a lab at once: N learners arrive within W seconds (an instructor said "open
the MIG ticket"), each loading the ticket's page, opening its terminal and typing one command.

The server is granian with two worker processes over SQLite, as `scripts/serve-production`
runs it (tests.reliability.server). Each learner is new: no cookie, so the page sets the
session; then the websocket, its replay, and `kubectl get nodes`. Prints, per class size, p50,
p95 and max of the page's time, of the first answer's round trip (command sent to its output),
and of click to answer (page requested to the answer), the errors, and the server's RSS and
processor time. Goals (issue 30): 120 learners in 10 s with the first answer's p95 at most
1 s, 300 in 10 s at most 2 s, no errors. Prints, never asserts.

    .venv/bin/python -m tests.benchmarks.bench_class [--learners 120 300] [--within 10]
        [--ticket mig-single] [--workers 2] [--line "kubectl get nodes"]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import random
import time
from dataclasses import dataclass, field

import websockets

from tests.benchmarks.bench_load import percentile
from tests.reliability.server import Server, running_server

COMMAND = "kubectl get nodes"


@dataclass
class Tally:
    page: list[float] = field(default_factory=list)
    answer: list[float] = field(default_factory=list)
    click_to_answer: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def load_page(server: Server, ticket: str) -> tuple[float, str]:
    """The ticket page as a new learner loads it: its time (ms) and the session cookie."""
    began = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    conn.request("GET", f"/lab/{ticket}/")
    response = conn.getresponse()
    response.read()
    elapsed = (time.perf_counter() - began) * 1000
    if response.status != 200:
        raise RuntimeError(f"page answered {response.status}")
    for name, value in response.getheaders():
        if name.lower() == "set-cookie" and value.startswith("sessionid="):
            return elapsed, value.split(";", 1)[0]
    raise RuntimeError("the page set no session cookie")


async def learner(
    server: Server, ticket: str, delay: float, tally: Tally, line: str = COMMAND
) -> None:
    await asyncio.sleep(delay)
    clicked = time.perf_counter()
    try:
        page_ms, cookie = await asyncio.to_thread(load_page, server, ticket)
        tally.page.append(page_ms)
        async with websockets.connect(
            server.url(f"/ws/lab/{ticket}/"),
            additional_headers={"Origin": server.origin, "Cookie": cookie},
            open_timeout=60,
            max_size=None,
        ) as socket_:
            await socket_.recv()  # the replay
            sent = time.perf_counter()
            await socket_.send(json.dumps({"type": "line", "data": line}))
            reply = json.loads(await asyncio.wait_for(socket_.recv(), timeout=60))
            if reply.get("type") != "output":
                raise RuntimeError(f"answered {reply.get('type')}")
            now = time.perf_counter()
            tally.answer.append((now - sent) * 1000)
            tally.click_to_answer.append((now - clicked) * 1000)
    except Exception as error:  # counted and named, never raised: the class goes on
        tally.errors.append(type(error).__name__)


def row(label: str, values: list[float]) -> str:
    return (
        f"  {label:16} p50 {percentile(values, 0.5):8.0f}  p95 {percentile(values, 0.95):8.0f}"
        f"  max {max(values, default=float('nan')):8.0f}  ms  ({len(values)})"
    )


async def one_class(
    server: Server, learners: int, within: float, ticket: str, line: str = COMMAND
) -> None:
    rng = random.Random(learners)
    tally = Tally()
    rss, cpu = server.rss_kib(), server.cpu_seconds()
    began = time.monotonic()
    await asyncio.gather(
        *(learner(server, ticket, rng.uniform(0, within), tally, line) for _ in range(learners))
    )
    took = time.monotonic() - began
    print(f"{learners} learners within {within:.0f} s on {ticket} (all done in {took:.1f} s)")
    print(row("page", tally.page))
    print(row("first answer", tally.answer))
    print(row("click to answer", tally.click_to_answer))
    kinds = {kind: tally.errors.count(kind) for kind in sorted(set(tally.errors))}
    print(f"  errors {len(tally.errors)} {kinds if kinds else ''}")
    print(
        f"  server RSS {rss // 1024} -> {server.rss_kib() // 1024} MiB, "
        f"CPU {server.cpu_seconds() - cpu:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, nargs="+", default=[120, 300])
    parser.add_argument("--within", type=float, default=10.0)
    parser.add_argument("--ticket", default="mig-single")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--line", default=COMMAND, help="the one command each learner types")
    args = parser.parse_args()
    for learners in args.learners:
        # A fresh server per class: each class finds the workers as a new day would.
        with running_server(workers=args.workers) as server:
            for _ in range(4):  # both workers up, and their templates built
                load_page(server, args.ticket)
            asyncio.run(one_class(server, learners, args.within, args.ticket, args.line))


if __name__ == "__main__":
    main()
