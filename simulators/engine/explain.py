"""Why a workload is Pending, Running or was evicted, with the fair-share table behind it."""

from __future__ import annotations

from dataclasses import dataclass

from simulators.engine.cluster import Cluster
from simulators.engine.messages import Reason, gpus, plural
from simulators.engine.model import Event, PodStatus, Workload
from simulators.engine.scheduler import FairShareRow


@dataclass(frozen=True)
class PodLine:
    name: str
    status: str
    node: str | None


@dataclass(frozen=True)
class Explanation:
    """A structured answer for the web page and `runai describe`; `to_text()` renders it."""

    workload: str
    project: str
    namespace: str
    kind: str
    status: str
    node_pool: str
    priority: int
    preemptible: bool
    gpus_requested: float
    gpus_allocated: float
    reason_code: str
    reason_message: str
    summary: str
    details: tuple[str, ...]
    pods: tuple[PodLine, ...]
    events: tuple[Event, ...]
    fair_share: tuple[FairShareRow, ...]

    @property
    def project_row(self) -> FairShareRow | None:
        return next((r for r in self.fair_share if r.queue == self.project), None)

    def as_dict(self) -> dict[str, object]:
        return {
            "workload": self.workload,
            "project": self.project,
            "namespace": self.namespace,
            "kind": self.kind,
            "status": self.status,
            "node_pool": self.node_pool,
            "priority": self.priority,
            "preemptible": self.preemptible,
            "gpus_requested": self.gpus_requested,
            "gpus_allocated": self.gpus_allocated,
            "reason_code": self.reason_code,
            "reason_message": self.reason_message,
            "summary": self.summary,
            "details": list(self.details),
            "pods": [{"name": p.name, "status": p.status, "node": p.node} for p in self.pods],
            "events": [e.as_dict() for e in self.events],
            "fair_share": [r.as_dict() for r in self.fair_share],
        }

    def to_text(self) -> str:
        lines = [
            f"Workload {self.workload} ({self.kind}) in project {self.project}: {self.status}",
            self.summary,
        ]
        lines.extend(f"  - {d}" for d in self.details)
        lines.append("")
        lines.append(f"Fair share in node pool {self.node_pool} (GPUs):")
        header = (
            f"  {'Queue':<20} {'Quota':>6} {'Weight':>6} {'Limit':>6} {'Prio':>5} "
            f"{'Request':>8} {'Alloc':>7} {'Fair':>7} {'Over':>6}"
        )
        lines.append(header)
        for row in self.fair_share:
            name = ("  " if row.parent else "") + row.queue
            marker = " <" if row.queue == self.project else ""
            limit = "-" if row.limit is None else gpus(row.limit)
            quota = "-" if row.deserved is None else gpus(row.deserved)
            lines.append(
                f"  {name:<20} {quota:>6} {gpus(row.over_quota_weight):>6} {limit:>6} "
                f"{row.priority:>5} {gpus(row.request):>8} {gpus(row.allocated):>7} "
                f"{gpus(row.fair_share):>7} {gpus(row.over_quota):>6}{marker}"
            )
        if self.events:
            lines.append("")
            lines.append("Events:")
            for event in self.events:
                count = f" (x{event.count})" if event.count > 1 else ""
                lines.append(f"  {event.type:<8} {event.reason:<14} {event.message}{count}")
        return "\n".join(lines)


def _pool_choice(workload: Workload) -> list[str]:
    """Which of the workload's node pools it is in, and why not the ones before it."""
    if len(workload.node_pools) < 2:
        return []
    lines = [f"Node pools in order of preference: {', '.join(workload.node_pools)}."]
    for pool in workload.node_pools:
        if pool == workload.node_pool:
            break
        reason = workload.pool_reasons.get(pool, "")
        lines.append(f"Not node pool {pool}: {reason or 'it could not place the workload'}")
    placed = workload.status != PodStatus.PENDING.value
    lines.append(
        f"{'It landed in' if placed else 'It is waiting in'} node pool {workload.node_pool}."
    )
    return lines


def explain(cluster: Cluster, project: str, name: str) -> Explanation:
    """Explain one workload from the latest cycle's decisions and fair-share table."""
    workload = cluster.workload(project, name)
    table = tuple(cluster.fair_share_table(workload.node_pool))
    row = next((r for r in table if r.queue == project), None)
    status = workload.status
    details: list[str] = []
    if row is not None:
        quota = "no quota set" if row.deserved is None else f"a quota of {plural(row.deserved)}"
        details.append(
            f"Project {project} has {quota} in node pool "
            f"{workload.node_pool}, a fair share of {gpus(row.fair_share)}, and "
            f"{gpus(row.allocated)} allocated ({gpus(row.over_quota)} of them over quota)."
        )
    details.append(
        f"The workload asks for {plural(workload.gpus_requested)} with priority "
        f"{workload.priority}; it is "
        f"{'preemptible' if workload.preemptible else 'non-preemptible'}."
    )
    if workload.evicted_by:
        details.append(f"It lost GPUs before: {workload.eviction_message}")
    details.extend(_pool_choice(workload))

    if status == PodStatus.PENDING.value:
        summary = f"Pending: {workload.reason_message or 'waiting for the next scheduling cycle'}"
        details.extend(_pending_advice(workload.reason_code))
    elif status == PodStatus.RELEASING.value:
        summary = f"Being evicted: {workload.eviction_message}"
        details.append(
            "Over-quota GPUs are borrowed: the owner's demand called them back. "
            "Checkpoint training so it can resume when GPUs are free again."
        )
    elif status == PodStatus.PIPELINED.value:
        summary = (
            "Pipelined: the scheduler reserved GPUs that other pods are releasing; "
            "the pods start when those pods are gone."
        )
    elif status == PodStatus.RUNNING.value:
        nodes = sorted({p.node for p in workload.pods if p.node})
        summary = f"Running on {', '.join(nodes)}."
        if row is not None and row.over_quota > 0 and workload.preemptible:
            details.append(
                "The project runs over its quota, so this preemptible workload may be "
                "reclaimed if another project needs its quota back."
            )
        elif not workload.preemptible:
            details.append("Non-preemptible work runs within quota and is never reclaimed.")
    else:
        summary = f"{status}."
    events = tuple(cluster.events_for(project, name))
    return Explanation(
        workload=workload.name,
        project=project,
        namespace=workload.namespace,
        kind=workload.kind.label,
        status=status,
        node_pool=workload.node_pool,
        priority=workload.priority,
        preemptible=workload.preemptible,
        gpus_requested=workload.gpus_requested,
        gpus_allocated=workload.gpus_allocated,
        reason_code=workload.reason_code,
        reason_message=workload.reason_message,
        summary=summary,
        details=tuple(details),
        pods=tuple(PodLine(p.name, p.status.value, p.node) for p in workload.pods),
        events=events,
        fair_share=table,
    )


_ADVICE: dict[str, str] = {
    Reason.NON_PREEMPTIBLE_OVER_QUOTA.value: (
        "Non-preemptible work (workspaces, inference) must fit within quota. Give the project "
        "more quota, stop an idle workspace, or use a preemptible training workload."
    ),
    Reason.OVER_LIMIT.value: "The project's limit is a hard ceiling, even when GPUs are idle.",
    Reason.INSUFFICIENT_GPUS.value: "No node has enough free GPUs of that resource right now.",
    Reason.REQUEST_TOO_BIG.value: "Use a distributed workload (for example 2 x 8 GPUs) instead.",
    Reason.FRAGMENTATION.value: (
        "Enough GPUs are free in total but not on one node: bin-pack placement and "
        "consolidation reduce this; draining small work helps."
    ),
    Reason.GANG_CANNOT_FIT.value: (
        "Gang scheduling starts all pods together or none: free capacity, reduce workers, "
        "or wait for a quieter window."
    ),
    Reason.OVER_QUOTA_NO_FREE_GPUS.value: (
        "The project is at or above its quota and nothing is idle to borrow: wait, "
        "raise the quota, or reduce the request."
    ),
    Reason.NO_QUOTA_IN_POOL.value: "Choose the right node pool, or add quota in this one.",
    Reason.NO_NODES_IN_POOL.value: "Choose a node pool that has nodes.",
    Reason.NODES_ADVERTISE_NO_GPUS.value: (
        "Fix the GPU Operator (device plugin, driver) or the GPU itself (DCGM)."
    ),
}


def _pending_advice(code: str) -> list[str]:
    advice = _ADVICE.get(code)
    return [advice] if advice else []
