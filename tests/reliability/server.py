"""A real server process for the reliability tests: its port, its pid, its database.

Like tests.live_server, but it hands back the process so that a test can read its
memory or kill it, and the database file so that a test can read what was saved.
Daphne (one process, as `manage.py runserver` serves), or granian with worker processes as
`scripts/serve-production` runs it: memory and processor time then count every worker.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import websockets

from studysite.interpreter import SERVING_ENVIRONMENT
from tests.live_server import REPO_ROOT, free_port, wait_for_port


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    database: Path
    env: dict[str, str]
    workers: int = 0  # 0: daphne; otherwise granian with this many worker processes

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    def pids(self) -> list[int]:
        """The server's process and its descendants: workers and their lab annexes."""
        parents: dict[int, int] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(stat.parent.name)] = int(fields[1])
        found = [self.process.pid]
        for pid in found:  # grows as it goes: children, then theirs
            found.extend(child for child, parent in parents.items() if parent == pid)
        return found

    def rss_kib(self) -> int:
        total = 0
        for pid in self.pids():
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        return total

    def cpu_seconds(self) -> float:
        """Processor time the server's processes have used so far (user and system)."""
        ticks = 0
        for pid in self.pids():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def new_session(self, ticket: str = "mig-single") -> str:
        """A learner's first visit: the ticket page sets the session cookie."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("GET", f"/lab/{ticket}/")
        response = conn.getresponse()
        response.read()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith("sessionid="):
                return value.split(";", 1)[0]
        raise RuntimeError("the lab page set no session cookie")

    def saved_lines(self, cookie: str, ticket: str = "mig-single") -> list[str]:
        """The commands the database holds for this session's lab: transcript and log."""
        from studysite.lab.models import LabSnapshot

        key = cookie.split("=", 1)[1]
        with sqlite3.connect(self.database) as db:
            row = db.execute(
                "select id, packed from lab_savedlab join lab_labsnapshot on lab_id = id"
                " where session_key = ? and ticket = ?",
                (key, ticket),
            ).fetchone()
            if row is None:
                return []
            logged = [
                line
                for (line,) in db.execute(
                    "select line from lab_loggedcommand where lab_id = ? order by position",
                    (row[0],),
                )
            ]
        transcript = [entry["line"] for entry in LabSnapshot(packed=row[1]).data()["transcript"]]
        return transcript + logged

    async def open_terminal(
        self, cookie: str, ticket: str = "mig-single", open_timeout: float = 30
    ) -> websockets.ClientConnection:
        """A lab socket of this session, its replay read: `websockets.InvalidStatus` if refused
        at the handshake."""
        socket_ = await websockets.connect(
            self.url(f"/ws/lab/{ticket}/"),
            additional_headers={"Origin": self.origin, "Cookie": cookie},
            open_timeout=open_timeout,
            max_size=None,
        )
        assert json.loads(await socket_.recv())["replay"] is True
        return socket_

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)

    def start(self) -> None:
        """(Re)start the server on the same port and database."""
        command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port)]
        if self.workers:
            command = [
                *(sys.executable, "-m", "granian", "--interface", "asginl"),
                *("--host", "127.0.0.1", "--port", str(self.port)),
                *("--workers", str(self.workers), "--log-level", "warning"),
            ]
        self.process = subprocess.Popen(
            [*command, "studysite.asgi:application"],
            cwd=REPO_ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.process)


@contextlib.contextmanager
def running_server(workers: int = 0, **settings: str) -> Iterator[Server]:
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "db.sqlite3"
        env = {
            **os.environ,
            **SERVING_ENVIRONMENT,
            "DEBUG": "0",
            "PAGE_PROCESS": "1",
            "DATABASE_PATH": str(database),
            **settings,
        }
        # Its own SQLite file, which the tests read directly, even in the PostgreSQL pass.
        for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL"):
            env.pop(name, None)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=REPO_ROOT,
            env=env,
            check=True,
        )
        server = Server(free_port(), None, database, env, workers)  # type: ignore[arg-type]
        server.start()
        try:
            yield server
        finally:
            if server.process.poll() is None:
                server.process.terminate()
                server.process.wait(timeout=10)
