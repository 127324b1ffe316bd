"""ASGI servers side by side: a guide page, a static file, a lab round trip, memory.

For daphne (one process), uvicorn and granian (--workers each) it prints, measured with
wrk from Debian: requests per second for a guide page (a learner with a session) and
for the same bytes as a static file through whitenoise, and for granian also through
its own static mount (what production uses); the page against the best static path of
the same server (goal: at least 0.5); the learner's part that the page loads beside it
(`/guide/<slug>/read` by htmx: read state, CSRF token, contents marks); the p50 of a lab
command's websocket round trip; and the resident memory of the server's processes after
the load. This is how the production server was chosen (README "Deploying"). Prints,
never asserts.

    .venv/bin/python -m tests.benchmarks.bench_server [--seconds 8] [--workers 2]
        [--servers daphne,uvicorn,granian] [--connections 64]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import websockets

from tests.benchmarks.bench_lab import TICKET, new_session
from tests.live_server import REPO_ROOT, free_port, wait_for_port

PAGE = "/guide/mig-gpu-operator/"


def command_for(server: str, port: int, workers: int, static_root: str) -> list[str]:
    address = ["127.0.0.1", str(port)]
    if server == "daphne":
        return [sys.executable, "-m", "daphne", "-b", address[0], "-p", address[1]]
    if server == "uvicorn":
        return [
            *[sys.executable, "-m", "uvicorn", "--host", address[0], "--port", address[1]],
            *["--workers", str(workers), "--log-level", "warning", "--no-access-log"],
        ]
    return [
        *[sys.executable, "-m", "granian", "--interface", "asginl"],
        *["--host", address[0], "--port", address[1], "--workers", str(workers)],
        *["--log-level", "warning", "--static-path-route", "/mount"],
        *["--static-path-mount", static_root],
    ]


@contextlib.contextmanager
def serve(server: str, workers: int, static_root: str, database: str) -> Iterator[tuple[int, int]]:
    """The server on a free port, its pid; whitenoise serves static_root at /."""
    env = {
        **os.environ,
        "DEBUG": "0",
        "DATABASE_PATH": database,
        "WHITENOISE_ROOT": static_root,
        "LAB_MAX_FRAMES_PER_SECOND": "1000",
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.pop("DATABASE_URL", None)
    port = free_port()
    command = [*command_for(server, port, workers, static_root), "studysite.asgi:application"]
    process = subprocess.Popen(
        command, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port, process)
        time.sleep(1.0)  # every worker up, not only the first
        yield port, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def tree_rss_mib(pid: int) -> float:
    """Resident memory of a process and all its descendants."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    total_kib, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo.extend(children.get(current, []))
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{current}/status").read_text()
            found = re.search(r"VmRSS:\s+(\d+) kB", status)
            total_kib += int(found.group(1)) if found else 0
    return total_kib / 1024


def wrk(
    port: int, path: str, seconds: float, connections: int, cookie: str = "", htmx: bool = False
) -> str:
    """Requests per second, with errors noted."""
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s"]
    if cookie:
        command += ["-H", f"Cookie: {cookie}"]
    if htmx:
        command += ["-H", "HX-Request: true"]
    result = subprocess.run(
        [*command, f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True
    )
    rate = re.search(r"Requests/sec:\s+([\d.]+)", result.stdout)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", result.stdout)
    text = f"{float(rate.group(1)) if rate else 0:8.0f}"
    return text + (f" ({bad.group(1)} bad)" if bad else "")


async def lab_round_trips(port: int, cookie: str, count: int) -> float:
    """p50 in ms of one lab command's answer over the websocket, one learner."""
    headers = {"Origin": f"http://127.0.0.1:{port}", "Cookie": cookie}
    url = f"ws://127.0.0.1:{port}/ws/lab/{TICKET}/"
    times: list[float] = []
    async with websockets.connect(url, additional_headers=headers, max_size=2**22) as socket:
        await socket.recv()  # the replay
        for _ in range(count):
            start = time.perf_counter()
            await socket.send(json.dumps({"type": "line", "data": "kubectl get nodes"}))
            await socket.recv()
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--servers", default="daphne,uvicorn,granian")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install -y wrk")
    seconds = max(1, round(args.seconds))

    with tempfile.TemporaryDirectory() as root:
        database = str(Path(root) / "db.sqlite3")
        env = {**os.environ, "DATABASE_PATH": database}
        env.pop("DATABASE_URL", None)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=REPO_ROOT,
            env=env,
            check=True,
        )
        static = Path(root) / "static"
        static.mkdir()
        with serve("daphne", 1, str(static), database) as (port, _):
            conn = http.client.HTTPConnection("127.0.0.1", port)
            conn.request("GET", PAGE)
            (static / "page.html").write_bytes(conn.getresponse().read())
        size = (static / "page.html").stat().st_size
        print(f"{PAGE}: {size} bytes; wrk -t2 -c{args.connections} -d{seconds}s, req/s")
        print(
            f"{'server':<18} {'guide page':>10} {'whitenoise':>10} {'own static':>10} "
            f"{'page/static':>11} {'learner':>8} {'lab p50':>8} {'RSS':>8}"
        )
        for server in args.servers.split(","):
            workers = 1 if server == "daphne" else args.workers
            with serve(server, workers, str(static), database) as (port, pid):
                cookie = new_session(port)
                wrk(port, PAGE, 1, 8, cookie)  # warm every worker
                page = wrk(port, PAGE, seconds, args.connections, cookie)
                whitenoise = wrk(port, "/page.html", seconds, args.connections)
                own = (
                    wrk(port, "/mount/page.html", seconds, args.connections)
                    if server == "granian"
                    else "       -"
                )
                learner = wrk(port, f"{PAGE}read", seconds, args.connections, cookie, htmx=True)
                p50 = asyncio.run(lab_round_trips(port, cookie, 200))
                rss = tree_rss_mib(pid)
            best_static = float((own if server == "granian" else whitenoise).split()[0])
            ratio = float(page.split()[0]) / best_static
            label = f"{server} x{workers}"
            print(
                f"{label:<18} {page:>10} {whitenoise:>10} {own:>10} {ratio:>11.2f} "
                f"{learner:>8} {p50:>6.1f}ms {rss:>5.0f}MiB"
            )
    print("page/static: the guide page against the server's own static path (granian's mount,")
    print("whitenoise for the others). Goal: at least 0.5. learner: the page's htmx request for")
    print("this learner's read state, made once per page view, through the whole Django stack.")


if __name__ == "__main__":
    main()
