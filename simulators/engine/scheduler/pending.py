"""Why a job is still pending after the actions: the guide's reasons (section 20), left as
Unschedulable events on the job and its pods."""

from __future__ import annotations

from simulators.engine import messages as msg
from simulators.engine.fairshare import EPSILON
from simulators.engine.messages import Reason
from simulators.engine.mig import GPU_RESOURCE
from simulators.engine.model import Pod, Workload
from simulators.engine.scheduler.placement import fit_on
from simulators.engine.scheduler.records import Note
from simulators.engine.scheduler.session import PoolSession
from simulators.engine.state import JobState

# Outcomes the actions already explained; pending-reason classification leaves them be.
_SETTLED = (
    Reason.NON_PREEMPTIBLE_OVER_QUOTA.value,
    Reason.OVER_LIMIT.value,
    Reason.PIPELINED.value,
)


def explain_pending(session: PoolSession, jobs: list[JobState] | None = None) -> None:
    """Leave an Unschedulable event on every job (or each of `jobs`) still waiting, with the
    guide's reason."""
    free_total = sum(n.idle_total() for n in session.nodes if n.schedulable)
    for job in session.jobs if jobs is None else jobs:
        pods = job.pending_pods()
        if not pods:
            continue
        if id(job) in session.decided and job.workload.reason_code in _SETTLED:
            if job.workload.reason_code != Reason.PIPELINED.value:
                _pod_notes(session, job, pods)
            continue
        code, message = _classify(session, job, len(pods), free_total)
        job.workload.reason_code = code.value
        job.workload.reason_message = message
        session.recorder.notes.append(
            Note(job.workload, None, "Warning", "Unschedulable", message, code)
        )
        _pod_notes(session, job, pods)


def _pod_notes(session: PoolSession, job: JobState, pods: list[Pod]) -> None:
    code = Reason(job.workload.reason_code)
    for pod in pods:
        session.recorder.notes.append(
            Note(job.workload, pod, "Warning", "Unschedulable", job.workload.reason_message, code)
        )


def _classify(
    session: PoolSession, job: JobState, pending: int, free_total: float
) -> tuple[Reason, str]:
    workload = job.workload
    resource = workload.gpu.resource_name
    pool = session.pool
    if not session.nodes:
        return Reason.NO_NODES_IN_POOL, msg.no_nodes_in_pool(pool)
    advertising, largest, summary = _node_census(session, resource, workload.node_selector)
    need = workload.gpu.whole_gpus if workload.gpu.kind == "whole" else 1
    total = len(session.nodes)
    if advertising == 0:
        return Reason.NODES_ADVERTISE_NO_GPUS, msg.nodes_advertise_no_gpus(total, resource, pool)
    if largest < need and largest > 0 and workload.gpu.kind == "whole":
        return Reason.REQUEST_TOO_BIG, msg.request_too_big(resource, need, largest, pool)
    if largest == 0:
        return Reason.INSUFFICIENT_GPUS, msg.insufficient(summary)
    if workload.pod_count > 1 and workload.min_available > 1 and job.below_min:
        placed = _pods_that_fit_now(session, workload, pending)
        return Reason.GANG_CANNOT_FIT, msg.gang_cannot_fit(
            workload.name, workload.pod_count, job.pod_units, placed, pool
        )
    if workload.gpu.kind == "whole" and free_total + EPSILON >= job.pod_units:
        return Reason.FRAGMENTATION, msg.fragmentation(summary, free_total, job.pod_units, pool)
    leaf = job.queue
    if leaf.deserved <= EPSILON:
        return Reason.NO_QUOTA_IN_POOL, msg.no_quota_in_pool(leaf.name, pool, free_total)
    if leaf.allocated + EPSILON >= leaf.deserved:
        return Reason.OVER_QUOTA_NO_FREE_GPUS, msg.over_quota_no_free(
            leaf.name, leaf.deserved, leaf.allocated, free_total, pool
        )
    return Reason.INSUFFICIENT_GPUS, msg.insufficient(summary)


def _node_census(
    session: PoolSession, resource: str, selector: dict[str, str]
) -> tuple[int, int, str]:
    """Nodes advertising GPUs, the largest eligible node, and the per-node reasons as
    kube-scheduler sums them up; cached (every waiting job of a kind shares them)."""
    key = (resource, tuple(sorted(selector.items())))
    cached = session.census_cache.get(key)
    if cached is not None:
        return cached
    counts: dict[str, int] = {}
    advertising = 0
    largest = 0
    for node_state in session.nodes:
        capacity = (
            node_state.gpu_count
            if resource == GPU_RESOURCE
            else node_state.ext_capacity.get(resource, 0)
        )
        if node_state.advert.resources:
            advertising += 1
        if not node_state.schedulable:
            reason = "node(s) were unschedulable"
        elif not node_state.matches(selector):
            reason = "node(s) didn't match Pod's node affinity/selector"
        else:
            largest = max(largest, capacity)
            reason = f"Insufficient {resource}"
        counts[reason] = counts.get(reason, 0) + 1
    census = (advertising, largest, msg.node_summary(len(session.nodes), counts))
    session.census_cache[key] = census
    return census


def _pods_that_fit_now(session: PoolSession, workload: Workload, pending: int) -> int:
    # Count on scratch copies: the question is how many pods would fit together now.
    idle = {n.index: [d.idle for d in n.devices] for n in session.nodes if n.schedulable}
    placed = 0
    for _ in range(pending):
        spot = None
        for node_state in session.nodes:
            if node_state.index not in idle or not node_state.matches(workload.node_selector):
                continue
            free = idle[node_state.index]
            spot = fit_on(workload, node_state, free, free, None, session.placement)
            if spot is not None:
                for device in spot.devices:
                    free[device] -= spot.portion
                break
        if spot is None:
            break
        placed += 1
    return placed
