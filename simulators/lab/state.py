"""Time on the lab's step clock, as the tools print it.

The world itself lives in the cluster API's store (simulators.cluster) and on kadmin
(simulators.lab.world.HostState); these helpers only turn the clock's seconds into dates and
kubectl-style ages.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from simulators.cluster.clock import EPOCH, STEP_SECONDS

__all__ = ["EPOCH", "STEP_SECONDS", "sim_datetime"]


def sim_datetime(seconds: int) -> datetime:
    return EPOCH + timedelta(seconds=seconds)
