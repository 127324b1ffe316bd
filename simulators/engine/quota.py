"""The quota simulator page's facade: a scenario in, the engine's outcome out.

There is no second implementation of fairness here: the scenario becomes a
`Cluster` (nodes, departments, projects, 1-GPU preemptible training jobs) and the
engine's own cycles decide. Pools are cut into nodes of 8 GPUs, plus one smaller
node for the remainder (20 GPUs → 8 + 8 + 4), so every GPU is usable by 1-GPU jobs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from simulators.engine.cluster import Cluster, CycleResult
from simulators.engine.errors import EngineError
from simulators.engine.messages import gpus, plural
from simulators.engine.model import (
    GpuRequest,
    Node,
    PodStatus,
    PoolQuota,
    TickingClock,
    WorkloadKind,
)
from simulators.engine.scheduler import FairShareRow

MAX_PROJECTS = 8
MAX_POOLS = 2
NODE_SIZE = 8
# Enough for any scenario to settle: each cycle either places work or reclaims it.
MAX_CYCLES = 30
MAX_POOL_GPUS = 1024
MAX_DEMAND = 1024
MAX_DEPARTMENTS = 4
# The largest setup these allow (2 pools of 1024 GPUs, 256 GPUs of demand in each, 8 projects)
# answers well inside an expensive view's budget; four times the demand did not
# (bench_simulator; figures in docs/performance.md).
MAX_TOTAL_DEMAND = 256
MAX_WEIGHT = 100
MAX_PRIORITY = 100


@dataclass(frozen=True)
class PoolSpec:
    name: str
    gpus: int


@dataclass(frozen=True)
class DepartmentSpec:
    name: str
    quota: Mapping[str, float] = field(default_factory=dict)
    over_quota_weight: float = 1.0
    limit: float | None = None


@dataclass(frozen=True)
class ProjectSpec:
    """A project: per-pool quota and demand (GPUs of 1-GPU preemptible training jobs)."""

    name: str
    quota: Mapping[str, float] = field(default_factory=dict)
    demand: Mapping[str, int] = field(default_factory=dict)
    over_quota_weight: float = 1.0
    limit: float | None = None
    priority: int = 0
    department: str | None = None


@dataclass(frozen=True)
class QuotaScenario:
    pools: tuple[PoolSpec, ...]
    projects: tuple[ProjectSpec, ...]
    departments: tuple[DepartmentSpec, ...] = ()


@dataclass(frozen=True)
class ProjectOutcome:
    project: str
    quota: float
    demand: int
    limit: float | None
    fair_share: float
    quota_backed: float
    over_quota: float
    unmet: float


@dataclass(frozen=True)
class PoolOutcome:
    pool: str
    gpus: int
    idle: float
    projects: tuple[ProjectOutcome, ...]
    fair_share_table: tuple[FairShareRow, ...]

    def project(self, name: str) -> ProjectOutcome:
        for outcome in self.projects:
            if outcome.project == name:
                return outcome
        raise EngineError(f"project: {name!r} is not in node pool {self.pool}")


@dataclass(frozen=True)
class QuotaOutcome:
    pools: tuple[PoolOutcome, ...]
    warnings: tuple[str, ...]

    def pool(self, name: str) -> PoolOutcome:
        for outcome in self.pools:
            if outcome.pool == name:
                return outcome
        raise EngineError(f"pool: {name!r} is not in the scenario")


@dataclass(frozen=True)
class TimelineEntry:
    """One thing the engine did during a step, in plain words."""

    cycle: int
    kind: str  # "reclaimed", "preempted", "pipelined", "scheduled", "moved"
    pool: str
    project: str
    gpus: float
    from_project: str
    message: str


@dataclass(frozen=True)
class QuotaStep:
    before: QuotaOutcome
    after: QuotaOutcome
    timeline: tuple[TimelineEntry, ...]


# ---------------------------------------------------------------------------- validation


def _number(value: object, where: str, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EngineError(f"{where}: must be a number")
    if not math.isfinite(value) or value < 0:
        raise EngineError(f"{where}: must be 0 or more")


def _validate(scenario: QuotaScenario) -> None:
    if not 1 <= len(scenario.pools) <= MAX_POOLS:
        raise EngineError(f"pools: give 1 or {MAX_POOLS} node pools")
    pool_names = set()
    for i, pool in enumerate(scenario.pools):
        if not pool.name or pool.name in pool_names:
            raise EngineError(f"pools[{i}].name: must be a unique, non-empty name")
        pool_names.add(pool.name)
        if isinstance(pool.gpus, bool) or not isinstance(pool.gpus, int) or pool.gpus < 0:
            raise EngineError(f"pools[{i}].gpus: must be a whole number, 0 or more")
        if pool.gpus > MAX_POOL_GPUS:
            raise EngineError(f"pools[{i}].gpus: at most {MAX_POOL_GPUS}")
    if not scenario.projects:
        raise EngineError("projects: give at least one project")
    if len(scenario.projects) > MAX_PROJECTS:
        raise EngineError(f"projects: at most {MAX_PROJECTS} projects")
    if len(scenario.departments) > MAX_DEPARTMENTS:
        raise EngineError(f"departments: at most {MAX_DEPARTMENTS} departments")
    names: set[str] = set()
    departments = set()
    for i, dept in enumerate(scenario.departments):
        if not dept.name or dept.name in names:
            raise EngineError(f"departments[{i}].name: must be a unique, non-empty name")
        names.add(dept.name)
        departments.add(dept.name)
        _check_pool_map(dept.quota, pool_names, f"departments[{i}].quota")
        _weight(dept.over_quota_weight, f"departments[{i}].over_quota_weight")
        _number(dept.limit, f"departments[{i}].limit", allow_none=True)
    for i, project in enumerate(scenario.projects):
        if not project.name or project.name in names:
            raise EngineError(f"projects[{i}].name: must be a unique, non-empty name")
        names.add(project.name)
        _check_pool_map(project.quota, pool_names, f"projects[{i}].quota")
        _check_pool_map(project.demand, pool_names, f"projects[{i}].demand")
        for pool_name, demand in project.demand.items():
            if isinstance(demand, bool) or not isinstance(demand, int) or demand > MAX_DEMAND:
                raise EngineError(
                    f"projects[{i}].demand[{pool_name}]: must be a whole number of GPUs "
                    f"up to {MAX_DEMAND}"
                )
        _weight(project.over_quota_weight, f"projects[{i}].over_quota_weight")
        _number(project.limit, f"projects[{i}].limit", allow_none=True)
        if isinstance(project.priority, bool) or not isinstance(project.priority, int):
            raise EngineError(f"projects[{i}].priority: must be a whole number")
        if abs(project.priority) > MAX_PRIORITY:
            raise EngineError(f"projects[{i}].priority: at most {MAX_PRIORITY}")
        if project.department is not None and project.department not in departments:
            raise EngineError(
                f"projects[{i}].department: {project.department!r} is not a department"
            )
    _total_demand(scenario)


def _weight(value: object, where: str) -> None:
    _number(value, where)
    if isinstance(value, int | float) and value > MAX_WEIGHT:
        raise EngineError(f"{where}: at most {MAX_WEIGHT}")


def _total_demand(scenario: QuotaScenario) -> None:
    for pool in scenario.pools:
        total = sum(project.demand.get(pool.name, 0) for project in scenario.projects)
        if total > MAX_TOTAL_DEMAND:
            raise EngineError(
                f"projects: demand in node pool {pool.name} adds up to {total}, "
                f"at most {MAX_TOTAL_DEMAND}"
            )


def _check_pool_map(values: Mapping[str, float], pools: set[str], where: str) -> None:
    for pool, value in values.items():
        if pool not in pools:
            raise EngineError(f"{where}[{pool}]: no node pool of that name")
        _number(value, f"{where}[{pool}]")


# ---------------------------------------------------------------------------- building


def _build(scenario: QuotaScenario) -> Cluster:
    cluster = Cluster(clock=TickingClock())
    for pool in scenario.pools:
        cluster.add_node_pool(pool.name)
        full, rest = divmod(pool.gpus, NODE_SIZE)
        sizes = [NODE_SIZE] * full + ([rest] if rest else [])
        for index, size in enumerate(sizes, start=1):
            cluster.add_node(Node(f"{pool.name}-node{index:03d}", gpus=size, pool=pool.name))
    for dept in scenario.departments:
        cluster.add_department(
            dept.name,
            quotas={
                p.name: PoolQuota(
                    deserved=float(dept.quota.get(p.name, 0)),
                    over_quota_weight=float(dept.over_quota_weight),
                    limit=None if dept.limit is None else float(dept.limit),
                )
                for p in scenario.pools
            },
        )
    for project in scenario.projects:
        cluster.add_project(
            project.name,
            department=project.department,
            priority=project.priority,
            quotas={
                p.name: PoolQuota(
                    deserved=float(project.quota.get(p.name, 0)),
                    over_quota_weight=float(project.over_quota_weight),
                    limit=None if project.limit is None else float(project.limit),
                )
                for p in scenario.pools
            },
        )
    for project in scenario.projects:
        for pool in scenario.pools:
            _add_demand(cluster, project.name, pool.name, project.demand.get(pool.name, 0))
    return cluster


def _add_demand(cluster: Cluster, project: str, pool: str, count: int) -> None:
    existing = sum(1 for w in cluster.workloads(project) if w.node_pool == pool)
    for index in range(existing, existing + count):
        cluster.submit(
            f"{pool}-job-{index + 1:04d}",
            project,
            kind=WorkloadKind.TRAINING,
            gpu=GpuRequest.whole(1),
            node_pool=pool,
        )


def _settle(cluster: Cluster) -> list[CycleResult]:
    results = []
    for _ in range(MAX_CYCLES):
        result = cluster.run_cycle()
        results.append(result)
        in_flight = any(
            p.status in (PodStatus.RELEASING, PodStatus.PIPELINED) for p in cluster.pods()
        )
        if not result.actions and not in_flight:
            break
    return results


def _outcome(cluster: Cluster, scenario: QuotaScenario) -> QuotaOutcome:
    pools = []
    for pool in scenario.pools:
        table = tuple(cluster.fair_share_table(pool.name))
        rows = {row.queue: row for row in table}
        projects = []
        used = 0.0
        for project in scenario.projects:
            allocated = sum(
                w.gpus_allocated
                for w in cluster.workloads(project.name)
                if w.node_pool == pool.name
            )
            used += allocated
            quota = float(project.quota.get(pool.name, 0))
            demand = project.demand.get(pool.name, 0)
            projects.append(
                ProjectOutcome(
                    project=project.name,
                    quota=quota,
                    demand=demand,
                    limit=project.limit,
                    fair_share=rows[project.name].fair_share,
                    quota_backed=min(allocated, quota),
                    over_quota=max(0.0, allocated - quota),
                    unmet=max(0.0, demand - allocated),
                )
            )
        pools.append(
            PoolOutcome(pool.name, pool.gpus, max(0.0, pool.gpus - used), tuple(projects), table)
        )
    return QuotaOutcome(tuple(pools), tuple(_warnings(scenario)))


def _warnings(scenario: QuotaScenario) -> list[str]:
    warnings = []
    for pool in scenario.pools:
        total = sum(float(p.quota.get(pool.name, 0)) for p in scenario.projects)
        if total > pool.gpus:
            warnings.append(
                f"In node pool {pool.name} the project quotas add up to {plural(total)}, but the "
                f'pool has {plural(pool.gpus)}: "guaranteed" cannot be honoured for everyone '
                "at once."
            )
    for project in scenario.projects:
        if project.over_quota_weight == 0:
            warnings.append(
                f"Project {project.name} has over-quota weight 0: its fair share stops at its "
                "quota, so it gets no share of idle GPUs that others want; GPUs it borrows "
                "while nobody else wants them are reclaimed first."
            )
        for pool in scenario.pools:
            demand = project.demand.get(pool.name, 0)
            if project.limit is not None and demand > project.limit:
                warnings.append(
                    f"Project {project.name} wants {plural(demand)} in node pool {pool.name}, "
                    f"above its limit of {gpus(project.limit)}: "
                    f"at most {gpus(project.limit)} can run."
                )
            if demand > 0 and float(project.quota.get(pool.name, 0)) == 0:
                warnings.append(
                    f"Project {project.name} has no quota in node pool {pool.name}: its work there "
                    "runs only on borrowed GPUs, which can be reclaimed."
                )
    return warnings


# ---------------------------------------------------------------------------- public


def simulate_quota(scenario: QuotaScenario) -> QuotaOutcome:
    """Run the engine until the scenario settles; report each pool's outcome."""
    _validate(scenario)
    cluster = _build(scenario)
    _settle(cluster)
    return _outcome(cluster, scenario)


def step_demand(scenario: QuotaScenario, project: str, pool: str, extra: int) -> QuotaStep:
    """Raise one project's demand by `extra` GPUs and show what the engine does about it."""
    _validate(scenario)
    if project not in {p.name for p in scenario.projects}:
        raise EngineError(f"project: {project!r} is not in the scenario")
    if pool not in {p.name for p in scenario.pools}:
        raise EngineError(f"pool: {pool!r} is not in the scenario")
    if isinstance(extra, bool) or not isinstance(extra, int) or not 0 < extra <= MAX_DEMAND:
        raise EngineError(f"extra: must be a whole number of GPUs from 1 to {MAX_DEMAND}")
    cluster = _build(scenario)
    _settle(cluster)
    before = _outcome(cluster, scenario)
    _add_demand(cluster, project, pool, extra)
    results = _settle(cluster)
    raised = tuple(
        ProjectSpec(
            name=p.name,
            quota=p.quota,
            demand={**p.demand, pool: p.demand.get(pool, 0) + extra}
            if p.name == project
            else p.demand,
            over_quota_weight=p.over_quota_weight,
            limit=p.limit,
            priority=p.priority,
            department=p.department,
        )
        for p in scenario.projects
    )
    after_scenario = QuotaScenario(scenario.pools, raised, scenario.departments)
    after = _outcome(cluster, after_scenario)
    return QuotaStep(before, after, tuple(_timeline(results)))


def _timeline(results: list[CycleResult]) -> list[TimelineEntry]:
    entries: list[TimelineEntry] = []
    for step, result in enumerate(results, start=1):
        grouped: dict[tuple[str, str, str, str], tuple[float, str]] = {}
        for action in result.actions:
            kind = {
                "evicted": "reclaimed" if action.reason.value == "Reclaimed" else "preempted",
                "pipelined": "pipelined",
                "scheduled": "scheduled",
                "moved": "moved",
            }[action.kind]
            key = (kind, action.pool, action.project, action.by_project)
            total, message = grouped.get(key, (0.0, action.message))
            grouped[key] = (total + action.gpus, message)
        for (kind, pool, project, by_project), (amount, message) in grouped.items():
            if kind in ("reclaimed", "preempted"):
                entries.append(
                    TimelineEntry(
                        step,
                        kind,
                        pool,
                        by_project,
                        amount,
                        project,
                        f"{plural(amount)} {kind} from {project} for {by_project}. {message}",
                    )
                )
            else:
                verb = {
                    "pipelined": "pipelined (start once the reclaimed GPUs are released)",
                    "scheduled": "started on idle GPUs",
                    "moved": "moved by consolidation",
                }[kind]
                entries.append(
                    TimelineEntry(
                        step,
                        kind,
                        pool,
                        project,
                        amount,
                        "",
                        f"{plural(amount)} of {project} {verb}.",
                    )
                )
    return entries
