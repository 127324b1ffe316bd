"""``python -m simulators apiserver``: a ticket's mock cluster as a Kubernetes API on loopback.

The composition lives in the lab's layer: it serves a lab world (``simulators.lab.world``),
stepped by the world's own ``tick`` and checked by the ticket's checks, over the cluster
package's HTTP server (``simulators.cluster.server``), which knows nothing of the lab.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simulators.cluster.sample import minimal_kubelet, sample_cluster
from simulators.cluster.served import ServedCluster
from simulators.cluster.server import make_server, start_ticker, write_kubeconfig
from simulators.cluster.store import MockCluster
from simulators.controllers import manager
from simulators.lab import checks, tickets
from simulators.lab.world import build_world as build_lab_world

SAMPLE = "sample"
ENGINE_CONTROLLER = "runai-scheduler"


def build_world(ticket: str, seed: int, scheduler: str = "internal") -> ServedCluster:
    """The ticket's cluster as the lab builds it, stepped by the lab world's own ``tick``, with
    the ticket's checklist.

    ``scheduler="external"`` leaves the scheduler engine out of every step, so that a scheduler
    outside (binding and evicting through this API) places the Run:ai pods instead.
    ``sample`` is the store's own small cluster (simulators.cluster.sample), stepped by a
    minimal kubelet; it needs nothing from the lab.
    """
    if ticket == SAMPLE:
        return ServedCluster(sample_cluster(seed), step=minimal_kubelet)
    definition = tickets.load_ticket(ticket)
    lab = build_lab_world(ticket, seed)
    if scheduler == "external":
        if ENGINE_CONTROLLER not in {name for name, _ in manager.CONTROLLERS}:
            raise ValueError(f"no {ENGINE_CONTROLLER!r} controller to leave out")
        lab.left_out = frozenset({ENGINE_CONTROLLER})

    def step(api: MockCluster) -> None:
        del api
        lab.tick()

    def items(api: MockCluster) -> list[dict[str, Any]]:
        del api
        return [
            {"id": item.id, "text": item.text, "done": bool(checks.evaluate(ticket, item.id, lab))}
            for item in definition.checklist
        ]

    served = ServedCluster(lab.api, step=step, checklist=items)
    served.files = dict(lab.state.files)
    return served


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
        "--files", type=Path, help="write the ticket's home-folder files (manifests) here"
    )
    parser.add_argument(
        "--scheduler",
        choices=("internal", "external"),
        default="internal",
        help="external: the scheduler engine does not run here; a scheduler outside binds",
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
    if args.files:
        args.files.mkdir(parents=True, exist_ok=True)
        for name, text in world.files.items():
            # Ticket file names are plain names; anything else stays unwritten.
            if name and "/" not in name and not name.startswith("."):
                (args.files / name).write_text(text, encoding="utf-8")
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
