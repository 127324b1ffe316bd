"""``python -m simulators scheduler``: the engine as ``runai-scheduler`` on a cluster."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from simulators.cluster.api import ApiError
from simulators.cluster.kube import KubeError, KubernetesCluster
from simulators.scheduler.lease import LeaderElector
from simulators.scheduler.runner import Scheduler


def parser() -> argparse.ArgumentParser:
    result = argparse.ArgumentParser(
        prog="python -m simulators scheduler",
        description=(
            "Schedule pods with schedulerName runai-scheduler on a Kubernetes cluster with the "
            "Run:ai engine: binds through pods/binding, evicts through pods/eviction, one "
            "leader at a time through a Lease."
        ),
    )
    result.add_argument(
        "--kubeconfig", help="kubeconfig file (default: $KUBECONFIG, else in-cluster config)"
    )
    result.add_argument("--lease-namespace", default="runai", help="namespace of the Lease")
    result.add_argument("--lease-name", default="runai-scheduler", help="name of the Lease")
    result.add_argument("--lease-seconds", type=int, default=15, help="lease duration")
    result.add_argument("--identity", help="this replica's name (default: host name and pid)")
    result.add_argument(
        "--resync-seconds", type=float, default=5.0, help="a full cycle at least this often"
    )
    result.add_argument("--once", action="store_true", help="run one cycle and exit")
    # Test hook for crash recovery: exit abruptly after this many bindings.
    result.add_argument("--crash-after-binds", type=int, help=argparse.SUPPRESS)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    identity = args.identity or f"{socket.gethostname()}_{os.getpid()}"

    def log(line: str) -> None:
        stamp = datetime.now(UTC).strftime("%H:%M:%S.%f")[:-3]
        print(f"{stamp} {identity}: {line}", flush=True)

    try:
        api = KubernetesCluster.from_config(args.kubeconfig)
    except KubeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    elector = LeaderElector(
        api,
        namespace=args.lease_namespace,
        name=args.lease_name,
        identity=identity,
        lease_seconds=args.lease_seconds,
        monotonic=time.monotonic,
        wall=api.now,
    )
    scheduler = Scheduler(api, elector, log=log, crash_after_binds=args.crash_after_binds)
    if args.once:
        try:
            if not elector.try_acquire_or_renew():
                log(f"not leading: the lease is held by {elector.holder}")
                return 1
            report = scheduler.cycle()
        except ApiError as error:
            print(f"error: {error.message}", file=sys.stderr)
            return 1
        finally:
            elector.release()
        log(f"cycle: {len(report.bound)} bound, {len(report.evicted)} evicted")
        return 0

    def stop(signum: int, frame: Any) -> None:
        del signum, frame
        scheduler.stop.set()
        scheduler.wake.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log("starting")
    scheduler.run(resync_seconds=args.resync_seconds)
    log("stopped")
    return 0
