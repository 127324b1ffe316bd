"""Time on the lab's step clock, as the tools print it.

The world itself lives in the cluster API's store (simulators.cluster) and on kadmin
(simulators.lab.world.HostState); these helpers only turn the clock's seconds into dates and
kubectl-style ages.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from simulators.cluster.clock import EPOCH, STEP_SECONDS

__all__ = ["EPOCH", "STEP_SECONDS", "format_age", "sim_datetime"]


def sim_datetime(seconds: int) -> datetime:
    return EPOCH + timedelta(seconds=seconds)


def format_age(seconds: int) -> str:
    """kubectl's AGE column: 45s, 5m30s, 42m, 3h12m, 31d."""
    s = max(0, seconds)
    if s < 120:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        rest = s % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 8:
        rest_m = minutes % 60
        return f"{hours}h{rest_m}m" if rest_m else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if days < 8:
        rest_h = hours % 24
        return f"{days}d{rest_h}h" if rest_h else f"{days}d"
    return f"{days}d"
