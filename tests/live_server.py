"""A real daphne server on a free loopback port, for browser tests and benchmarks.

It gets its own SQLite file (migrated first) so that it never touches db.sqlite3.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from studysite.interpreter import SERVING_ENVIRONMENT

REPO_ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the server exited during start-up")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server did not listen on port {port}")


@contextlib.contextmanager
def daphne_server(settings: dict[str, str], log: Path | None = None) -> Iterator[int]:
    """Serve the site with these environment settings; yields the port."""
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            **SERVING_ENVIRONMENT,
            "DEBUG": "0",
            "PAGE_PROCESS": "1",
            "DATABASE_PATH": str(Path(folder) / "db.sqlite3"),
            **settings,
        }
        env.pop("DJANGO_SETTINGS_MODULE", None)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=REPO_ROOT,
            env=env,
            check=True,
        )
        port = free_port()
        command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
        with open(log or os.devnull, "wb") as output:
            process = subprocess.Popen(
                [*command, "studysite.asgi:application"],
                cwd=REPO_ROOT,
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
            try:
                wait_for_port(port, process)
                yield port
            finally:
                process.terminate()
                process.wait(timeout=10)
