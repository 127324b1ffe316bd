"""The annex beside a real server: a session that spends a lot has its commands run on a thread
of idle priority in a child process, and comes back to the web process with its lab whole."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.server import Server, running_server
from tests.reliability.test_server import command

pytestmark = [pytest.mark.reliability, pytest.mark.own_server]

# Stopped at its 250 ms of CPU time.
EXPENSIVE = "kubectl get pods -A -o yaml" + " | sed 's/./&&&&&&&&/g'" * 6
SCHED_IDLE = 5
SCALE = "kubectl scale deployment coredns -n kube-system --replicas=600"
REPLICAS = "kubectl get deploy coredns -n kube-system -o jsonpath={.spec.replicas}"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    # A share of 200 ms a second (a 2 s burst): three expensive commands, none refused.
    with running_server(LAB_SESSION_CPU_MS_PER_SECOND="200") as live:
        yield live


def the_annex(server: Server) -> tuple[int, int]:
    """The server's annex and its thread of idle priority, once it has one."""
    for _ in range(600):
        for pid in server.pids():
            try:
                if b"labannex" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                    continue
                for task in Path(f"/proc/{pid}/task").iterdir():
                    if os.sched_getscheduler(int(task.name)) == SCHED_IDLE:
                        return pid, int(task.name)
            except OSError:
                continue  # gone meanwhile
        time.sleep(0.1)
    raise AssertionError("the server started no annex with a thread of idle priority")


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    stat = Path(f"/proc/{pid}/task/{thread}/stat" if thread else f"/proc/{pid}/stat")
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_expensive_commands_run_in_an_idle_priority_annex_and_the_lab_comes_back_whole(
    server: Server,
) -> None:
    cookie = server.new_session()

    async def scenario() -> None:
        socket_ = await server.open_terminal(cookie)
        annex, idle = the_annex(server)
        # The main thread saves, holding the lock every learner's save waits for: never idle.
        assert os.sched_getscheduler(annex) != SCHED_IDLE
        # In the web process: the session has now spent 200 ms more than its share gave back.
        await command(socket_, EXPENSIVE)
        before = cpu_seconds(annex, idle)
        await command(socket_, EXPENSIVE)
        await command(socket_, EXPENSIVE)
        assert cpu_seconds(annex, idle) - before >= 0.15
        assert await command(socket_, "kubectl cordon gpu-node2") == "node/gpu-node2 cordoned"
        await asyncio.sleep(8)  # the session's share comes back: the web process again
        nodes = await command(socket_, "kubectl get nodes")
        assert "gpu-node2   Ready,SchedulingDisabled" in nodes
        await socket_.close()

    asyncio.run(scenario())
    assert server.saved_lines(cookie)[-5:] == [
        *[EXPENSIVE] * 3,
        "kubectl cordon gpu-node2",
        "kubectl get nodes",
    ]


def dead_to_its_parent(pid: int) -> bool:
    """Killed, and every thread of it gone, so that its parent's poll() sees it has exited.

    The first thread of a killed process shows as a zombie at once, but its parent cannot
    collect it until the others have exited too, and a thread of idle priority on a busy
    machine may wait a while for a core to exit on.
    """
    try:
        threads = list(Path(f"/proc/{pid}/task").iterdir())
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True  # already collected
    return state == "Z" and len(threads) == 1


def test_a_killed_annex_is_replaced_and_the_session_goes_on(server: Server) -> None:
    cookie = server.new_session()

    async def scenario() -> None:
        socket_ = await server.open_terminal(cookie)
        await command(socket_, EXPENSIVE)
        first, _ = the_annex(server)
        os.kill(first, signal.SIGKILL)
        while not dead_to_its_parent(first):
            await asyncio.sleep(0.05)
        # The next command finds it gone and starts another (in the background if it runs
        # in the web process: the session may no longer be heavy by then).
        assert await command(socket_, "kubectl cordon gpu-node1") == "node/gpu-node1 cordoned"
        assert the_annex(server)[0] != first
        await socket_.close()

    asyncio.run(scenario())
    assert server.saved_lines(cookie)[-1] == "kubectl cordon gpu-node1"


def test_a_new_labs_first_command_costs_the_web_process_nothing_and_runs_in_the_annex(
    server: Server,
) -> None:
    """A first command nobody can price runs in the annex: on its main thread for the
    probation, then (a scale to 600 goes past it) on its idle thread. In the web process it
    would cost each its 50 ms of probation first."""

    async def scenario() -> None:
        waking = await server.open_terminal(server.new_session())  # the annex starts
        annex, idle = the_annex(server)
        await waking.close()
        sockets = [await server.open_terminal(server.new_session()) for _ in range(3)]
        web = server.process.pid
        here, runner = cpu_seconds(web), cpu_seconds(annex, idle)
        for socket_ in sockets:
            assert (await command(socket_, SCALE)).startswith("deployment.apps/coredns scaled")
        assert cpu_seconds(web) - here < 0.1  # 0.15 s of probation here before the change
        assert cpu_seconds(annex, idle) - runner >= 0.3
        for socket_ in sockets:  # the next command sees the lab the annex kept
            # (Its pods may still be coming: past its budget, the cluster carries on, and
            # says so on a line of its own.)
            assert (await command(socket_, REPLICAS)).splitlines()[0] == "600"
            await socket_.close()

    asyncio.run(scenario())
