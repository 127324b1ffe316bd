"""``python -m simulators apiserver``: a ticket's mock cluster as a Kubernetes API on loopback."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simulators.cluster.sample import minimal_kubelet, sample_cluster
from simulators.cluster.server import World, make_server, start_ticker, write_kubeconfig
from simulators.cluster.store import MockCluster

SAMPLE = "sample"


def build_world(ticket: str, seed: int, scheduler: str = "internal") -> World:
    """The ticket's cluster as the lab builds it, stepped by the lab's controllers, with the
    ticket's checklist.

    ``sample`` is the store's own small cluster (simulators.cluster.sample), stepped by a
    minimal kubelet; it needs nothing from the lab.
    """
    if ticket == SAMPLE:
        return World(sample_cluster(seed), step=minimal_kubelet)
    # The lab sits above the cluster package: imported only to serve a lab ticket.
    from simulators.lab import checks, tickets
    from simulators.lab import nvidia_smi as _nvidia_smi  # noqa: F401  (its exec handler)
    from simulators.lab.world import build_world as build_lab_world

    definition = tickets.load_ticket(ticket)
    lab = build_lab_world(ticket, seed)

    def step(api: MockCluster) -> None:
        if scheduler == "internal":
            lab.tick()
            return
        # --scheduler external: every controller but the engine, so runai-scheduler pods stay
        # Pending until an external scheduler binds them.
        from simulators.controllers.manager import CONTROLLERS

        lab.state.step += 1
        api.clock.advance()
        for name, controller in CONTROLLERS:
            if name != "runai-scheduler":
                controller(api)

    def items(api: MockCluster) -> list[dict[str, Any]]:
        del api
        return [
            {"id": item.id, "text": item.text, "done": bool(checks.evaluate(ticket, item.id, lab))}
            for item in definition.checklist
        ]

    return World(lab.api, step=step, checklist=items)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m simulators apiserver",
        description="Serve a lab ticket's mock cluster as a Kubernetes API on 127.0.0.1.",
    )
    parser.add_argument("--ticket", required=True, help="ticket id, or 'sample'")
    parser.add_argument("--port", type=int, default=8080, help="port (0: any free port)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kubeconfig", type=Path, help="write a kubeconfig for this server here")
    parser.add_argument(
        "--scheduler",
        choices=("internal", "external"),
        default="internal",
        help="external: no built-in runai-scheduler (python -m simulators scheduler binds)",
    )
    args = parser.parse_args(argv)
    try:
        world = build_world(args.ticket, args.seed, args.scheduler)
    except Exception as error:  # an unknown ticket or a broken world: one line, no traceback
        print(f"error: cannot serve ticket {args.ticket!r}: {error}", file=sys.stderr)
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
