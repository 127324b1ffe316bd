"""The README's first command, `make serve`, serves the whole site as a learner uses it.

It runs granian with one worker process (scripts/serve-production with WEB_WORKERS=1 and
STATIC_MANIFEST=0), on SQLite and the in-memory channel layer: pages, static files from their
folders, and the lab's terminal over a websocket. Ctrl-C stops it and every process it started.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets

from tests.live_server import REPO_ROOT, free_port, wait_for_port

pytestmark = [pytest.mark.own_server]


def processes_with(variable: str) -> list[int]:
    """The processes whose environment holds this exact variable: the server and its children."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if variable.encode() in environ.read_bytes().split(b"\0"):
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[int, subprocess.Popen[bytes], str]]:
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        log = Path(folder) / "console.log"
        env = {**os.environ, "DATABASE_PATH": str(Path(folder) / "db.sqlite3")}
        for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "DEBUG"):
            env.pop(name, None)
        with log.open("wb") as out:
            process = subprocess.Popen(
                ["make", "-s", "serve", f"PORT={port}"],
                cwd=REPO_ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            wait_for_port(port, process, timeout=120)
            yield port, process, str(log)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


def get(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    """Status, headers (Set-Cookie headers joined by newlines) and body of a GET."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    headers: dict[str, str] = {}
    for name, value in response.getheaders():
        key = name.lower()
        headers[key] = f"{headers[key]}\n{value}" if key in headers else value
    return response.status, headers, body


def test_make_serve_says_where_it_listens(served: tuple[int, subprocess.Popen[bytes], str]) -> None:
    port, _, log = served
    deadline = time.monotonic() + 30
    while f"Listening at: http://127.0.0.1:{port}" not in Path(log).read_text():
        assert time.monotonic() < deadline, Path(log).read_text()
        time.sleep(0.2)


def test_make_serve_serves_pages_and_their_static_files_from_the_folders(
    served: tuple[int, subprocess.Popen[bytes], str],
) -> None:
    port = served[0]
    status, _, page = get(port, "/")
    assert status == 200
    scripts = re.findall(rb'src="(/static/[^"]+\.js)"', page)
    assert scripts, "the home page loads its scripts"
    for script in scripts:
        status, headers, body = get(port, script.decode())
        assert status == 200, script
        assert "javascript" in headers["content-type"]
        # Unhashed names: a file edited while the server runs is served as it is now.
        assert body == (REPO_ROOT / "static" / script.decode()[len("/static/") :]).read_bytes()
        assert "max-age=31536000" not in headers.get("cache-control", "")


async def one_command(port: int, cookie: str, line: str) -> str:
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/ws/lab/mig-single/",
        additional_headers={"Origin": f"http://127.0.0.1:{port}", "Cookie": cookie},
        open_timeout=60,
        max_size=None,
    ) as socket_:
        await socket_.recv()  # the replay
        await socket_.send(json.dumps({"type": "line", "data": line}))
        frame = json.loads(await asyncio.wait_for(socket_.recv(), 60))
        assert frame["type"] == "output", frame
        return str(frame["data"])


def test_make_serve_runs_the_lab_terminal_over_a_websocket(
    served: tuple[int, subprocess.Popen[bytes], str],
) -> None:
    port = served[0]
    status, headers, _ = get(port, "/lab/mig-single/")
    assert status == 200
    cookie = next(
        value.split(";", 1)[0]
        for value in headers["set-cookie"].splitlines()
        if value.startswith("sessionid=")
    )
    output = asyncio.run(one_command(port, cookie, "kubectl get nodes"))
    assert output.splitlines()[0].split()[:2] == ["NAME", "STATUS"]
    assert " Ready " in output


def test_ctrl_c_stops_make_serve_and_every_process_it_started(
    served: tuple[int, subprocess.Popen[bytes], str],
) -> None:
    _, process, log = served
    database = f"DATABASE_PATH={Path(log).parent / 'db.sqlite3'}"
    assert len(processes_with(database)) >= 3  # make, granian, its worker (and their children)
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=30)
    deadline = time.monotonic() + 30
    while processes_with(database):
        assert time.monotonic() < deadline, "a process of make serve outlived Ctrl-C"
        time.sleep(0.2)
