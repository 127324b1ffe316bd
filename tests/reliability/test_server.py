"""Issue 11's findings that need a real server process (daphne, as `manage.py runserver` runs it).

9: a 100 MB body costs the server at most a few MB; 14: kill -9 during a command
loses no acknowledged command; 3: two tabs and the form at once on one session
lose nothing; 13: 300 learners connecting at once all get in.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import random
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
import websockets

from tests.reliability.server import Server, running_server

pytestmark = [pytest.mark.reliability, pytest.mark.own_server]

TICKET = "mig-single"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    # These tests hammer one session on purpose; the per-session processor share has its own
    # test (test_findings), and a busy CI machine must not turn their commands into "wait".
    with running_server(LAB_SESSION_CPU_MS_PER_SECOND="10000") as live:
        yield live


async def command(socket_: websockets.ClientConnection, line: str) -> str:
    await socket_.send(json.dumps({"type": "line", "data": line}))
    output = json.loads(await socket_.recv())
    assert output["type"] == "output", output
    return str(output["data"])


def form_command(server: Server, cookie: str, line: str) -> int:
    """The no-JavaScript form, with the CSRF cookie and token a browser would send."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", f"/lab/{TICKET}/", headers={"Cookie": cookie})
    page = conn.getresponse()
    page.read()
    csrf = next(
        value.split(";", 1)[0].split("=", 1)[1]
        for name, value in page.getheaders()
        if name.lower() == "set-cookie" and value.startswith("csrftoken=")
    )
    conn.request(
        "POST",
        f"/lab/{TICKET}/command",
        body=urlencode({"line": line}),
        headers={
            "Cookie": f"{cookie}; csrftoken={csrf}",
            "X-CSRFToken": csrf,
            "Origin": server.origin,
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    response = conn.getresponse()
    response.read()
    conn.close()
    return response.status


# ---------------------------------------------------------------- 9. request bodies


def send_large_body(server: Server, size: int, chunked: bool) -> bytes:
    """Stream a multipart POST carrying a `size`-byte file; what the server answered."""
    boundary = "x" * 20
    opening = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.json"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    closing = f"\r\n--{boundary}--\r\n".encode()
    block = b"a" * (1 << 20)
    parts = [opening, *[block] * (size // len(block)), closing]
    length = sum(len(part) for part in parts)
    head = (
        f"POST /progress/import HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
        + ("Transfer-Encoding: chunked\r\n" if chunked else f"Content-Length: {length}\r\n")
        + "\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as conn:
        conn.sendall(head.encode())
        try:
            for part in parts:
                conn.sendall(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
            if chunked:
                conn.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server closed the connection after refusing the body
        try:
            return conn.recv(4096)
        except OSError:
            return b""


@pytest.mark.parametrize("chunked", [False, True])
def test_9_a_100_mb_body_costs_the_server_a_few_mb_at_most(server: Server, chunked: bool) -> None:
    server.new_session()  # warm: templates and the database connection are loaded
    before = server.rss_kib()
    answer = send_large_body(server, 100 << 20, chunked)
    grown_mib = (server.rss_kib() - before) / 1024
    assert grown_mib < 16, f"RSS grew {grown_mib:.0f} MiB"
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"Request body too large" in answer
    assert server.new_session().startswith("sessionid=")


# ---------------------------------------------------------------- 3. two tabs and the form


def test_3_two_tabs_and_the_form_at_once_lose_nothing(server: Server) -> None:
    cookie = server.new_session()
    sent: dict[str, list[str]] = {"tab-a": [], "tab-b": [], "form": []}

    async def tab(name: str) -> None:
        socket_ = await server.open_terminal(cookie)
        for n in range(12):
            line = f"kubectl label node gpu-node1 {name}-{n}=yes"
            assert "labeled" in await command(socket_, line)
            sent[name].append(line)
            await asyncio.sleep(0.12)  # two tabs together stay under 20 frames a second
        await socket_.close()

    def form() -> None:
        for n in range(8):
            line = f"kubectl label node gpu-node2 form-{n}=yes"
            assert form_command(server, cookie, line) == 302
            sent["form"].append(line)

    async def everyone() -> None:
        posting = asyncio.to_thread(form)
        await asyncio.gather(tab("tab-a"), tab("tab-b"), posting)

    asyncio.run(everyone())
    saved = server.saved_lines(cookie)
    assert len(saved) == len(set(saved)) == 32
    for lines in sent.values():
        assert [line for line in saved if line in lines] == lines


def test_3_simultaneous_form_posts_all_succeed(server: Server) -> None:
    cookie = server.new_session()
    statuses: list[int] = []

    def post(n: int) -> None:
        statuses.append(form_command(server, cookie, f"kubectl label node gpu-node3 at-once-{n}=y"))

    threads = [threading.Thread(target=post, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [302] * 6
    assert len(server.saved_lines(cookie)) == 6


# ---------------------------------------------------------------- 13. connecting at once


def test_13_three_hundred_learners_connecting_at_once_all_get_in(server: Server) -> None:
    # Issue 11's class: each socket is accepted before its lab opens, so none waits past
    # daphne's 5 s handshake limit however long the class takes to open.
    cookies = [server.new_session() for _ in range(300)]

    async def learner(cookie: str) -> str:
        socket_ = await server.open_terminal(cookie)
        output = await command(socket_, "kubectl get nodes")
        await socket_.close()
        return output

    async def everyone() -> list[str | BaseException]:
        return await asyncio.gather(*(learner(c) for c in cookies), return_exceptions=True)

    results = asyncio.run(everyone())
    failures = [r for r in results if not isinstance(r, str) or "gpu-node1" not in r]
    assert failures == []


# ---------------------------------------------------------------- 14. crash window


def test_14_kill_9_during_commands_loses_no_acknowledged_command() -> None:
    """Killed right after an answer arrives (the old crash window), or at a random moment."""
    with running_server() as server:
        cookie = server.new_session()
        acknowledged: list[str] = []
        rng = random.Random(14)
        for round_ in range(4):
            kill_after = rng.randint(3, 12) if round_ % 2 == 0 else None

            async def type_until_killed(
                round_: int = round_, kill_after: int | None = kill_after
            ) -> None:
                socket_ = await server.open_terminal(cookie)
                delay = rng.uniform(0.3, 0.8)
                killer = asyncio.get_running_loop().call_later(delay, server.process.kill)
                try:
                    for n in range(1000):
                        line = f"kubectl label node gpu-node1 r{round_}-{n}=yes"
                        await socket_.send(json.dumps({"type": "line", "data": line}))
                        frame = json.loads(await socket_.recv())
                        if frame["type"] == "output" and "labeled" in frame["data"]:
                            acknowledged.append(line)
                            if n + 1 == kill_after:
                                server.process.kill()
                        await asyncio.sleep(0.06)  # under 20 frames a second
                except websockets.ConnectionClosed:
                    pass
                finally:
                    killer.cancel()

            asyncio.run(type_until_killed())
            server.process.wait(timeout=10)
            server.start()
        saved = set(server.saved_lines(cookie))
        lost = [line for line in acknowledged if line not in saved]
        assert acknowledged and lost == []
