"""Consolidate (bin-pack only): move preemptible running pods so that a fragmented pending
job fits, only when every moved pod is placed again on another node's idle GPUs."""

from __future__ import annotations

from simulators.engine import messages as msg
from simulators.engine.messages import Reason
from simulators.engine.model import Pod, PodStatus
from simulators.engine.ordering import JobPicker
from simulators.engine.scheduler.placement import Seat, fit_on
from simulators.engine.scheduler.proportion import quota_block
from simulators.engine.scheduler.records import MOVED, pipelined
from simulators.engine.scheduler.session import PoolSession
from simulators.engine.scheduler.statement import Statement
from simulators.engine.state import JobState, NodeState

Move = tuple[Pod, str, Seat]


def consolidate(session: PoolSession) -> None:
    if session.placement != "binpack":
        return
    idle = _idle_whole(session)
    if idle == 0:
        return
    for job in ordered_pending(session):
        if id(job) in session.decided and job.workload.reason_code != Reason.SCHEDULED.value:
            continue
        if job.workload.gpu.kind != "whole" or job.workload.node_selector:
            continue
        pods = job.pending_pods()
        per_pod = job.workload.gpu.whole_gpus
        if not pods or idle < per_pod * len(pods):
            continue
        if quota_block(job, job.pod_units * len(pods)) is not None:
            continue
        if _consolidate_job(session, job, pods, per_pod):
            idle = _idle_whole(session)


def ordered_pending(session: PoolSession) -> list[JobState]:
    """Every pending job, in the allocate order."""
    picker = JobPicker(session.pending_jobs())
    ordered: list[JobState] = []
    while (job := picker.next()) is not None:
        ordered.append(job)
    return ordered


def _idle_whole(session: PoolSession) -> int:
    return sum(n.idle_whole for n in session.nodes if n.schedulable)


def _movable_by_node(session: PoolSession, job: JobState) -> dict[str, list[Pod]]:
    by_node: dict[str, list[Pod]] = {}
    for other in session.jobs:
        if other is job or not other.preemptible or other.workload.gpu.kind != "whole":
            continue
        for pod in other.running_pods():
            if pod.node is not None:
                by_node.setdefault(pod.node, []).append(pod)
    return by_node


def _consolidate_job(session: PoolSession, job: JobState, pods: list[Pod], per_pod: int) -> bool:
    statement = session.statement()
    moves: list[Move] = []
    movable = _movable_by_node(session, job)
    for pod in pods:
        if not _consolidate_pod(session, statement, job, pod, per_pod, moves, movable):
            statement.discard()
            return False
    statement.commit()
    for pod in pods:
        session.charge(job, job.pod_units)
        assert pod.node is not None
        message = msg.pipelined(pod.node)
        session.record(job, pod, pipelined(Reason.CONSOLIDATED), pod.node, message)
        session.set_reason(job, Reason.PIPELINED, message, record=False)
    for moved, old_node, seat in moves:
        owner = session.job_of(moved)
        message = msg.consolidated(old_node, seat.node.name, job.name)
        session.record(owner, moved, MOVED, seat.node.name, message, by=job)
    return True


def _consolidate_pod(
    session: PoolSession,
    statement: Statement,
    job: JobState,
    pod: Pod,
    per_pod: int,
    moves: list[Move],
    movable: dict[str, list[Pod]],
) -> bool:
    targets = [n for n in session.nodes if n.schedulable and n.gpu_count >= per_pod]
    targets.sort(key=lambda n: (-n.idle_whole, n.index))
    for target in targets:
        candidates = [p for p in movable.get(target.name, []) if p.status == PodStatus.RUNNING]
        candidates.sort(key=lambda p: (len(p.devices), p.name))
        chosen: list[Pod] = []
        freed = target.idle_whole
        for candidate in candidates:
            if freed >= per_pod:
                break
            chosen.append(candidate)
            freed += len(candidate.devices)
        if freed < per_pod or not chosen:
            continue
        checkpoint = statement.checkpoint()
        local: list[Move] = []
        for candidate in chosen:
            owner = session.job_of(candidate)
            spot = session.index.find(owner.workload, exclude=target)
            if spot is None:
                break
            spot.pod = candidate
            local.append((candidate, statement.move(candidate, spot), spot))
        else:
            fit = _fit_future(session, job, target)
            if fit is not None:
                fit.pod = pod
                statement.bind(pod, fit, PodStatus.PIPELINED)
                moves.extend(local)
                return True
        statement.discard(checkpoint)
    return False


def _fit_future(session: PoolSession, job: JobState, node_state: NodeState) -> Seat | None:
    """Fit on the GPUs that will be free once the moved pods have left."""
    free = [d.future for d in node_state.devices]
    idle = [d.idle for d in node_state.devices]
    return fit_on(job.workload, node_state, free, idle, None, session.placement)
