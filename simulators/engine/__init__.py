"""The scheduler engine: Run:ai / KAI Scheduler rules in plain Python (no Django).

See API.md in this folder for how to build a cluster, submit workloads, run a
cycle, read statuses and events, and explain a workload.
"""

from __future__ import annotations

from simulators.engine.cluster import Cluster, CycleResult, NodeUsage
from simulators.engine.errors import EngineError, MigStrategyError
from simulators.engine.explain import Explanation, PodLine, explain
from simulators.engine.fairshare import (
    DeservedGrant,
    Division,
    FairShareTrace,
    FillRound,
    LeftoverGrant,
    RoundOffer,
    ShareQueue,
    fair_share,
)
from simulators.engine.messages import Reason
from simulators.engine.mig import (
    GPU_RESOURCE,
    H100_PROFILES,
    NAMED_LAYOUTS,
    MigAdvertisement,
    MigDeviceConfig,
    MigLayout,
    MigProfile,
    MigStrategy,
    advertised_resources,
    mig_advertisement,
    mig_layout,
    mig_profile,
)
from simulators.engine.model import (
    DEFAULT_POOL,
    DEFAULT_PRIORITY,
    Clock,
    Event,
    GpuRequest,
    Node,
    NodePool,
    Placement,
    Pod,
    PodStatus,
    PoolQuota,
    Queue,
    TickingClock,
    Workload,
    WorkloadKind,
)
from simulators.engine.quota import (
    MAX_DEMAND,
    MAX_DEPARTMENTS,
    MAX_POOL_GPUS,
    MAX_POOLS,
    MAX_PRIORITY,
    MAX_PROJECTS,
    MAX_TOTAL_DEMAND,
    MAX_WEIGHT,
    DepartmentSpec,
    PoolOutcome,
    PoolSpec,
    ProjectOutcome,
    ProjectSpec,
    QuotaOutcome,
    QuotaScenario,
    QuotaStep,
    TimelineEntry,
    simulate_quota,
    step_demand,
)
from simulators.engine.scheduler import ACTIONS, Action, FairShareRow


def run_cycle(cluster: Cluster) -> CycleResult:
    """Run one scheduling cycle (allocate, consolidate, reclaim, preempt) on the cluster."""
    return cluster.run_cycle()


__all__ = [
    "ACTIONS",
    "DEFAULT_POOL",
    "DEFAULT_PRIORITY",
    "GPU_RESOURCE",
    "H100_PROFILES",
    "MAX_DEMAND",
    "MAX_DEPARTMENTS",
    "MAX_POOLS",
    "MAX_POOL_GPUS",
    "MAX_PRIORITY",
    "MAX_PROJECTS",
    "MAX_TOTAL_DEMAND",
    "MAX_WEIGHT",
    "NAMED_LAYOUTS",
    "Action",
    "Clock",
    "Cluster",
    "CycleResult",
    "DepartmentSpec",
    "DeservedGrant",
    "Division",
    "EngineError",
    "Event",
    "Explanation",
    "FairShareRow",
    "FairShareTrace",
    "FillRound",
    "GpuRequest",
    "LeftoverGrant",
    "MigAdvertisement",
    "MigDeviceConfig",
    "MigLayout",
    "MigProfile",
    "MigStrategy",
    "MigStrategyError",
    "Node",
    "NodePool",
    "NodeUsage",
    "Placement",
    "Pod",
    "PodLine",
    "PodStatus",
    "PoolOutcome",
    "PoolQuota",
    "PoolSpec",
    "ProjectOutcome",
    "ProjectSpec",
    "Queue",
    "QuotaOutcome",
    "QuotaScenario",
    "QuotaStep",
    "Reason",
    "RoundOffer",
    "ShareQueue",
    "TickingClock",
    "TimelineEntry",
    "Workload",
    "WorkloadKind",
    "advertised_resources",
    "explain",
    "fair_share",
    "mig_advertisement",
    "mig_layout",
    "mig_profile",
    "run_cycle",
    "simulate_quota",
    "step_demand",
]
