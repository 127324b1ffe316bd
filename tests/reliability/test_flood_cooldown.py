"""A session that flooded is refused on every worker of the server until its cooldown ends.

Its cooldown was kept only in the process that closed the flood, so on two workers (as
scripts/serve-production runs them) the client's next socket landed on the other worker half
the time and was let in: a session sending lines back to back got a burst of commands in each
process, twice one worker's (docs/performance.md, round 64). studysite.lab.cooldowns keeps it
where every process sees it.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from collections.abc import Iterator

import pytest
import websockets

from studysite.lab.cooldowns import Cooldowns
from tests.reliability.server import Server, running_server

pytestmark = [pytest.mark.reliability]

TICKET = "mig-single"
ATTEMPTS = 12


def test_a_cooldown_started_by_one_process_is_seen_by_another_that_never_heard_of_it() -> None:
    suffix = f"cooldowns-test-{uuid.uuid4().hex}"
    closing, other = Cooldowns(suffix), Cooldowns(suffix)  # two processes' memories
    now = time.time()
    closing.start("the-flooding-session", 5.0, now)
    assert other.active("the-flooding-session", now + 4.9)
    assert not other.active("the-flooding-session", now + 5.1)
    assert not other.active("a-neighbouring-session", now)
    other.prune(now + 6)
    assert not list(os.scandir(other.directory()))


@pytest.fixture(scope="module")
def two_workers() -> Iterator[Server]:
    with running_server(workers=2) as live:
        yield live


async def flood(server: Server, cookie: str) -> int | None:
    socket_ = await server.open_terminal(cookie)
    try:
        for n in range(60):
            await socket_.send(json.dumps({"type": "line", "data": f"echo {n}"}))
        async for _ in socket_:
            pass
    except websockets.ConnectionClosed:
        pass
    return socket_.close_code


async def reconnects(server: Server, cookie: str) -> list[int | None]:
    """The close code of each of ATTEMPTS new sockets (None: let in)."""
    codes: list[int | None] = []
    for _ in range(ATTEMPTS):
        try:
            await (await server.open_terminal(cookie)).close()
            codes.append(None)
        except websockets.InvalidStatus as refused:
            codes.append(refused.response.status_code)
        except websockets.ConnectionClosed as closed:
            codes.append(closed.rcvd.code if closed.rcvd else -1)
    return codes


@pytest.mark.own_server
def test_a_session_that_flooded_is_refused_by_both_workers_until_its_cooldown_ends(
    two_workers: Server,
) -> None:
    cookie = two_workers.new_session()
    assert asyncio.run(flood(two_workers, cookie)) == 4429
    refused = asyncio.run(reconnects(two_workers, cookie))
    assert None not in refused, f"let in {refused.count(None)} of {ATTEMPTS} times"
    time.sleep(5.5)
    assert asyncio.run(reconnects(two_workers, cookie)) == [None] * ATTEMPTS
