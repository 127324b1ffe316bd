"""The page process beside a real server (studysite.pageserver): pages are rendered in a child
of the web process, so a crowd of new visitors costs the web process, which holds the
terminals, little; the form and the terminal still share one lab; and a page is answered while a
killed page process is replaced."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.server import Server, running_server
from tests.reliability.test_server import TICKET, command, form_command

pytestmark = [pytest.mark.reliability, pytest.mark.own_server]

MARK = b"studysite.pageserver"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with running_server(LAB_SESSION_CPU_MS_PER_SECOND="10000") as live:
        yield live


def listening(path: str) -> bool:
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(path)
        except OSError:
            return False
    return True


def listening_child(server: Server, not_this: int | None = None) -> int | None:
    """The server's page process (other than `not_this`) if one listens now."""
    for pid in server.pids():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        found = len(argv) > 3 and MARK in argv[2] and pid != not_this
        if found and listening(argv[-2].decode()):
            return pid
    return None


def page_process(server: Server, not_this: int | None = None) -> int:
    """The server's page process (other than `not_this`), once it answers."""
    for _ in range(300):
        if (pid := listening_child(server, not_this)) is not None:
            time.sleep(0.5)  # the web process reads its "ready" just after it listens
            return pid
        time.sleep(0.1)
    raise AssertionError("the server has no page process answering")


def test_the_page_process_listens_before_the_server_takes_its_first_visitor() -> None:
    with running_server() as server:
        assert listening_child(server) is not None


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_crowd_of_new_visitors_pages_are_rendered_in_the_page_process(server: Server) -> None:
    pages = page_process(server)
    web_before, pages_before = cpu_seconds(server.process.pid), cpu_seconds(pages)
    for _ in range(100):
        server.new_session()
    web, rendering = cpu_seconds(server.process.pid) - web_before, cpu_seconds(pages) - pages_before
    # In the web process a lab page cost about 8 ms of its processor time; relayed, about 1.4.
    assert rendering >= 0.2
    assert web < rendering / 2


def test_a_line_typed_in_the_form_and_one_typed_in_the_terminal_are_in_one_lab(
    server: Server,
) -> None:
    page_process(server)
    cookie = server.new_session()

    async def scenario() -> str:
        terminal = await server.open_terminal(cookie)
        try:
            await command(terminal, "kubectl create namespace alpha")
            status = await asyncio.to_thread(
                form_command, server, cookie, "kubectl create namespace beta"
            )
            assert status == 302
            return await command(terminal, "kubectl get namespaces")
        finally:
            await terminal.close()

    namespaces = asyncio.run(scenario())
    assert "alpha" in namespaces
    assert "beta" in namespaces
    assert server.saved_lines(cookie, TICKET) == [
        "kubectl create namespace alpha",
        "kubectl create namespace beta",
        "kubectl get namespaces",
    ]


def test_pages_are_answered_while_a_killed_page_process_is_replaced(server: Server) -> None:
    killed = page_process(server)
    os.kill(killed, signal.SIGKILL)
    for _ in range(20):
        assert server.new_session().startswith("sessionid=")
    assert page_process(server, not_this=killed) != killed


def test_the_page_process_ends_with_its_web_process() -> None:
    with running_server() as server:
        pages = page_process(server)
        server.kill()
        for _ in range(100):
            if not Path(f"/proc/{pages}").exists() or b"Z" in state(pages):
                return
            time.sleep(0.1)
        raise AssertionError("the page process outlived its web process")


def state(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return b"Z"
