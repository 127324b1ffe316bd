"""``python -m simulators apiserver``: a ticket's mock cluster as a Kubernetes API on loopback."""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from simulators.cluster.sample import minimal_kubelet, sample_cluster
from simulators.cluster.server import World, make_server, start_ticker, write_kubeconfig
from simulators.cluster.store import MockCluster

SAMPLE = "sample"


def _optional(module: str, name: str) -> Callable[..., Any] | None:
    """A function of another part of the lab, if that part is installed."""
    try:
        found = getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None
    return found if callable(found) else None


def build_world(ticket: str, seed: int) -> World:
    """The ticket's cluster, stepped by the lab's controllers, with the ticket's checklist.

    ``sample`` is the store's own small cluster (simulators.cluster.sample), stepped by a
    minimal kubelet; it needs nothing from the lab.
    """
    if ticket == SAMPLE:
        return World(sample_cluster(seed), step=minimal_kubelet)
    builder = _optional("simulators.lab.world", "build_cluster")
    if builder is None:
        raise SystemExit(
            f"error: ticket {ticket!r} needs the lab's world builder "
            "(simulators.lab.world.build_cluster), which is not available; try --ticket sample"
        )
    api = builder(ticket, seed)
    if not isinstance(api, MockCluster):
        raise SystemExit("error: the lab's world builder did not return a mock cluster")
    run_controllers = _optional("simulators.controllers.manager", "run_controllers")
    checklist = _optional("simulators.lab.checks", "checklist")

    def step(cluster: MockCluster) -> None:
        cluster.clock.advance()
        if run_controllers is not None:
            run_controllers(cluster, cluster.clock)

    def items(cluster: MockCluster) -> list[dict[str, Any]]:
        if checklist is None:
            return []
        return [dict(item) for item in checklist(ticket, cluster)]

    return World(api, step=step, checklist=items)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m simulators apiserver",
        description="Serve a lab ticket's mock cluster as a Kubernetes API on 127.0.0.1.",
    )
    parser.add_argument("--ticket", required=True, help="ticket id, or 'sample'")
    parser.add_argument("--port", type=int, default=8080, help="port (0: any free port)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kubeconfig", type=Path, help="write a kubeconfig for this server here")
    args = parser.parse_args(argv)
    try:
        world = build_world(args.ticket, args.seed)
    except SystemExit:
        raise
    except Exception as error:
        print(f"error: cannot build ticket {args.ticket!r}: {error}", file=sys.stderr)
        return 2
    try:
        server = make_server(world, args.port)
    except OSError as error:
        print(f"error: cannot listen on 127.0.0.1:{args.port}: {error.strerror}", file=sys.stderr)
        return 2
    url = f"http://127.0.0.1:{server.server_address[1]}"
    if args.kubeconfig:
        write_kubeconfig(args.kubeconfig, url)
    start_ticker(world, server)
    print(f"Serving ticket {args.ticket} at {url}", flush=True)
    if args.kubeconfig:
        print(f"export KUBECONFIG={args.kubeconfig}", flush=True)

    def stop(signum: int, frame: Any) -> None:
        del signum, frame
        server.stopping = True
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.stopping = True
        server.server_close()
    return 0
