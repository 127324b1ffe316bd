"""The lab world's state: plain dataclasses that serialise to JSON and back.

Everything a session needs to continue after a reconnect lives here: the
Kubernetes objects (in the mock backend's ClusterState), the home folder, the
simulated controllers' memory (MIG Manager phases, DaemonSet generations), the
Kubernetes Jobs, Run:ai projects and workloads, Helm releases and the clock.
Nothing here reads the wall clock or a global random generator: time is the
step counter and names come from the session seed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from simulators.backends.mock import ClusterState
from simulators.engine.mig import mig_profile
from simulators.engine.model import GpuRequest

# One command = one step of simulated time.
STEP_SECONDS = 10
# Simulated second 0 (the session start) on the calendar the guide's samples use.
EPOCH = datetime(2026, 11, 10, 9, 40, 0, tzinfo=UTC)
# Objects that existed before the session: the cluster is 31 days old.
CLUSTER_BIRTH = -31 * 86400

# Kubernetes' pod-name suffix alphabet (no vowels, no look-alike characters).
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def name_suffix(seed: int, *parts: object, length: int = 5) -> str:
    """A deterministic pod-name suffix for (seed, parts), like k8s' random ones."""
    digest = hashlib.sha256("|".join([str(seed), *map(str, parts)]).encode()).digest()
    return "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:length])


def fake_uuid(seed: int, *parts: object) -> str:
    digest = hashlib.sha256("|".join(["uuid", str(seed), *map(str, parts)]).encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


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


@dataclass
class MigManagerState:
    """The MIG Manager on one node: what it last acted on and where it is now."""

    node: str
    # The nvidia.com/mig.config value it last applied (or failed on).
    observed: str
    # idle, or applying (the GPU clients are shut down and the layout goes on).
    phase: str = "idle"
    target: str = ""
    countdown: int = 0


@dataclass
class KubeJob:
    """A plain Kubernetes Job (not Run:ai): its controller keeps one pod alive."""

    name: str
    namespace: str
    image: str
    gpus: int
    created: int
    generation: int = 0
    # Where its first pod runs when the world is built.
    initial_node: str | None = None


@dataclass
class RunaiProject:
    name: str
    department: str = "default"
    quota: float = 0.0
    over_quota_weight: float = 1.0
    limit: float | None = None
    created: int = CLUSTER_BIRTH


@dataclass
class RunaiPod:
    """One pod of a Run:ai workload as the lab remembers it between engine cycles."""

    name: str
    status: str = "Pending"
    node: str | None = None
    devices: list[int] = field(default_factory=list)
    portion: float = 0.0
    extended_resource: str | None = None
    started: int | None = None
    # When the workload's container finishes (quickstart images), counted in steps.
    run_steps: int = 0


@dataclass
class RunaiEvent:
    time: int
    type: str
    reason: str
    message: str
    pod: str = ""
    source: str = "runai-scheduler"
    count: int = 1


@dataclass
class RunaiWorkload:
    name: str
    project: str
    # workspace, training, distributed, inference (the engine's WorkloadKind values)
    kind: str
    image: str
    pod_count: int = 1
    gpus: float = 1.0
    gpu_memory: str | None = None
    mig_profile: str | None = None
    priority: int = 50
    preemptible: bool = True
    created: int = 0
    creation_rank: int = 0
    user: str = "admin"
    # "" while live; Succeeded when its containers finished; Suspended when stopped.
    final_status: str = ""
    # Steps a container runs before it completes; None runs until stopped.
    duration: int | None = None
    # Shown by describe, so a story can point at an abandoned notebook.
    last_activity: int | None = None
    cli: str = "v2"
    pods: list[RunaiPod] = field(default_factory=list)
    events: list[RunaiEvent] = field(default_factory=list)
    # Facts the checks read: every (step, pods running) the gang started with,
    # and every reclaim or preemption it suffered.
    gang_starts: list[int] = field(default_factory=list)
    evictions: list[str] = field(default_factory=list)

    @property
    def namespace(self) -> str:
        return f"runai-{self.project}"

    @property
    def type_label(self) -> str:
        return {
            "workspace": "Workspace",
            "training": "Training",
            "distributed": "Training",
            "inference": "Inference",
        }.get(self.kind, self.kind.title())

    @property
    def gpu_units_per_pod(self) -> float:
        if self.mig_profile:
            return mig_profile(self.mig_profile).gpu_fraction
        if self.gpu_memory:
            return GpuRequest.memory(self.gpu_memory).units()
        return self.gpus

    @property
    def status(self) -> str:
        if self.final_status:
            return self.final_status
        statuses = {p.status for p in self.pods}
        if not statuses:
            return "Pending"
        if len(statuses) == 1:
            return next(iter(statuses))
        for candidate in ("Running", "Pipelined", "Releasing", "Pending"):
            if candidate in statuses:
                return candidate
        return "Pending"

    @property
    def running_pods(self) -> int:
        return sum(1 for p in self.pods if p.status == "Running")

    @property
    def gpus_allocated(self) -> float:
        return self.gpu_units_per_pod * self.running_pods


@dataclass
class RunaiState:
    installed: bool = True
    logged_in: bool = True
    default_project: str = ""
    cluster: str = "dgx-cluster"
    projects: list[RunaiProject] = field(default_factory=list)
    workloads: list[RunaiWorkload] = field(default_factory=list)
    next_rank: int = 0


@dataclass
class HelmRelease:
    name: str
    namespace: str
    chart: str
    revision: int
    deployed: int
    values: dict[str, str] = field(default_factory=dict)


@dataclass
class WorldState:
    seed: int
    step: int = 0
    cluster: ClusterState = field(default_factory=ClusterState)
    files: dict[str, str] = field(default_factory=dict)
    mig_managers: list[MigManagerState] = field(default_factory=list)
    # DaemonSet pod generations per "node/component": a deleted pod comes back renamed.
    ds_generations: dict[str, int] = field(default_factory=dict)
    strategy_seen: str = "single"
    jobs: list[KubeJob] = field(default_factory=list)
    runai: RunaiState = field(default_factory=RunaiState)
    helm: list[HelmRelease] = field(default_factory=list)
