"""Requests per second for a guide page beside the same bytes as a static file.

Both are served by the same daphne process, measured one after the other in one
run with the same client, so the ratio is what matters, not the absolute figures.
Goal: the page reaches at least 0.5 of the static figure. Prints; never asserts.

    .venv/bin/python -m tests.benchmarks.bench_guide [--seconds 5] [--connections 8]
"""

from __future__ import annotations

import argparse
import http.client
import tempfile
import threading
import time
from pathlib import Path

from tests.live_server import daphne_server

PAGE = "/guide/mig-gpu-operator/"


def hammer(port: int, path: str, seconds: float, connections: int) -> tuple[float, int]:
    counts = [0] * connections
    deadline = time.monotonic() + seconds
    errors: list[str] = []

    def worker(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.monotonic() < deadline:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                errors.append(f"{path}: {response.status}")
                return
            counts[index] += 1
        conn.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(connections)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise SystemExit(errors[0])
    elapsed = time.monotonic() - start
    return sum(counts) / elapsed, sum(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=8)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as root:
        with daphne_server({}) as port:
            conn = http.client.HTTPConnection("127.0.0.1", port)
            conn.request("GET", PAGE)
            body = conn.getresponse().read()
        (Path(root) / "page.html").write_bytes(body)
        # whitenoise indexes its root at start-up, so this server sees the page's bytes.
        with daphne_server({"WHITENOISE_ROOT": root}) as port:
            for path in (PAGE, "/page.html"):  # warm up both
                hammer(port, path, 0.5, 2)
            page_rps, page_n = hammer(port, PAGE, args.seconds, args.connections)
            static_rps, static_n = hammer(port, "/page.html", args.seconds, args.connections)
    print(f"guide page   {PAGE:<28} {page_rps:8.0f} req/s  ({page_n} requests, {len(body)} bytes)")
    print(
        f"static file  {'/page.html (same bytes)':<28} {static_rps:8.0f} req/s"
        f"  ({static_n} requests)"
    )
    print(f"ratio page/static: {page_rps / static_rps:.2f}  (goal: at least 0.50)")


if __name__ == "__main__":
    main()
