"""Allocate: place pending jobs on idle GPUs, in the allocate order (docs/engine.md)."""

from __future__ import annotations

from simulators.engine import messages as msg
from simulators.engine.messages import Reason
from simulators.engine.model import DEFAULT_POOL, Pod, PodStatus
from simulators.engine.ordering import JobPicker
from simulators.engine.scheduler.proportion import quota_block
from simulators.engine.scheduler.records import SCHEDULED
from simulators.engine.scheduler.session import PoolSession
from simulators.engine.scheduler.statement import Statement
from simulators.engine.state import JobState


def allocate(session: PoolSession, jobs: list[JobState] | None = None) -> None:
    """Place pending jobs (all of them, or only `jobs`) in the allocate order."""
    pending = session.pending_jobs()
    if jobs is not None:
        pending = [j for j in pending if j in jobs]
    picker = JobPicker(pending)
    # One statement for the action: each job commits or discards its own binds.
    statement = session.statement()
    while (job := picker.next()) is not None:
        _try_allocate(session, job, statement)


def _try_allocate(session: PoolSession, job: JobState, statement: Statement) -> None:
    pods = job.pending_pods()
    units = job.pod_units * len(pods)
    block = quota_block(job, units)
    if block is not None:
        code, message = block
        if code == Reason.NON_PREEMPTIBLE_OVER_QUOTA and session.pool != DEFAULT_POOL:
            # Quotas are per node pool: say which one, or "quota of 0" reads as a contradiction
            # beside a project list that shows the project's total.
            message += f" in node pool {session.pool}"
        session.set_reason(job, code, message)
        return
    placed: list[Pod] = []
    for pod in pods:
        seat = session.index.find(job.workload)
        if seat is None:
            break
        statement.bind(pod, seat, PodStatus.RUNNING)
        placed.append(pod)
    minimum = job.workload.min_available
    # Pods missing for the gang minimum, counted before the binds (which made `placed`
    # Running); never more than the minimum, so a job that placed that many is done.
    if len(placed) < minimum and len(placed) < minimum - (job.active_pods() - len(placed)):
        # Gang: all missing pods in one transaction, or none.
        statement.discard()
        job.workload.reason_code = ""
        return
    statement.commit()
    for pod in placed:
        session.charge(job, job.pod_units)
        record_scheduled(session, job, pod)


def record_scheduled(session: PoolSession, job: JobState, pod: Pod) -> None:
    assert pod.node is not None
    message = msg.scheduled(pod.namespace, pod.name, pod.node)
    session.record(job, pod, SCHEDULED, pod.node, message)
    session.set_reason(job, Reason.SCHEDULED, message, record=False)
