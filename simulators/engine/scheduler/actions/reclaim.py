"""Reclaim: a pending job takes GPUs that other projects borrowed beyond what they deserve
(docs/engine.md, "Reclaim", steps 1-9). `commit_victims` is shared with preempt."""

from __future__ import annotations

from simulators.engine import messages as msg
from simulators.engine.fairshare import EPSILON
from simulators.engine.messages import Reason
from simulators.engine.model import Pod, PodStatus
from simulators.engine.ordering import JobPicker
from simulators.engine.scheduler.placement import Seat
from simulators.engine.scheduler.proportion import quota_block, ratio_ok
from simulators.engine.scheduler.records import MOVED, evicted, pipelined
from simulators.engine.scheduler.session import PoolSession
from simulators.engine.scheduler.solver import ReclaimTrial
from simulators.engine.scheduler.victims import VictimIndex, VictimTake
from simulators.engine.state import JobState, NodeState, QState


def reclaim(session: PoolSession) -> None:
    session.evicted_this_action = set()
    pending = session.pending_jobs()
    if not any(_may_reclaim(job) for job in pending):
        # Nothing changes until a job passes the gates, so none ever would: skip the order.
        return
    picker = JobPicker(pending)
    index: VictimIndex | None = None
    while (job := picker.next()) is not None:
        if not _may_reclaim(job):
            continue
        if index is None:
            # Built for the first job that gets this far: until then nothing has changed,
            # and in a busy cycle most jobs never do (their projects are at their share).
            index = VictimIndex(session, session.jobs)
        for victim_queue in _try_reclaim(session, job, index):
            picker.refresh(victim_queue)


def _may_reclaim(job: JobState) -> bool:
    """The job stays within its fair share and its quota gates (steps 1 and 2)."""
    units = job.pod_units * len(job.pending_pods())
    leaf = job.queue
    if leaf.allocated + units > leaf.fair_share + EPSILON:
        return False
    return quota_block(job, units) is None


def _try_reclaim(session: PoolSession, job: JobState, index: VictimIndex) -> list[QState]:
    """Try one reclaimer that passed `_may_reclaim`; returns the queues that lost victims
    (their order keys changed)."""
    pods = job.pending_pods()
    units = job.pod_units * len(pods)
    leaf = job.queue
    if units > index.available_outside(leaf) + session.index.future_free_total + EPSILON:
        return []
    picker = index.picker_for(job)
    trial = ReclaimTrial(session, job)
    victims: list[VictimTake] = []
    plan: list[Seat] | None = None
    for count in range(1, len(pods) + 1):
        while True:
            if victims and trial.may_fit(count):
                plan = trial.place(pods[:count])
                if plan is not None and ratio_ok(job, units, picker.taken, session.top_level):
                    break
            picked = picker.next(units)
            if picked is None or not picked[1]:
                # A failing victim stays in the set, so no larger set can pass either.
                return []
            victims.append(picked[0])
            trial.add(picked[0])
    assert plan is not None
    commit_victims(session, job, victims, plan, index, Reason.RECLAIMED)
    # Each queue once: the allocate order re-keys a queue from its current numbers.
    return list(dict.fromkeys(take.job.queue for take in victims))


def commit_victims(
    session: PoolSession,
    job: JobState,
    victims: list[VictimTake],
    plan: list[Seat],
    index: VictimIndex | None,
    reason: Reason,
) -> None:
    """Pipeline the job's pods on the plan and evict (or move) the victims' pods."""
    statement = session.statement()
    for seat in plan:
        statement.bind(seat.pod, seat, PodStatus.PIPELINED)
        session.charge(job, job.pod_units)
        message = msg.pipelined(seat.node.name)
        session.record(job, seat.pod, pipelined(reason), seat.node.name, message)
    session.set_reason(job, Reason.PIPELINED, msg.pipelined(plan[0].node.name), record=False)
    for take in victims:
        if len(take.pods) == 1:
            # Most victims of a long search sit on nodes the reclaimer did not use: a lone
            # pod that is not Running, or whose GPUs stay free enough, is left as it is.
            pod = take.pods[0]
            if pod.status != PodStatus.RUNNING or (
                pod.node is not None and _untouched(pod, session.node_by_name[pod.node])
            ):
                continue
        victim = take.job
        queue = victim.queue
        shown_alloc = queue.allocated
        lost_pods = False
        for pod in take.pods:
            if pod.status != PodStatus.RUNNING:
                continue
            # Consolidating reclaim: a victim that fits back on its node, or on idle GPUs
            # elsewhere, is kept or moved instead of being evicted.
            assert pod.node is not None
            home = session.node_by_name[pod.node]
            # Only a single-pod take can stay or move: a gang victim leaves whole.
            single = len(take.pods) == 1
            if single and _untouched(pod, home):
                continue
            statement.evict(pod)
            lost_pods = True
            elsewhere = session.index.find(victim.workload, exclude=home) if single else None
            if elsewhere is not None:
                statement.undo_last()
                elsewhere.pod = pod
                old = statement.move(pod, elsewhere)
                message = msg.consolidated(old, elsewhere.node.name, job.name)
                session.record(victim, pod, MOVED, elsewhere.node.name, message, by=job)
                continue
            session.charge(victim, -victim.pod_units)
            if reason == Reason.RECLAIMED:
                message = msg.reclaimed(
                    job.workload.project,
                    job.name,
                    queue.name,
                    shown_alloc,
                    queue.fair_share,
                    session.pool,
                )
            else:
                message = msg.preempted(
                    f"{job.workload.project}/{job.name}", job.priority, victim.priority
                )
            victim.workload.evicted_by = f"{job.workload.project}/{job.name}"
            victim.workload.eviction_message = message
            victim.workload.reason_code = reason.value
            victim.workload.reason_message = message
            session.record(victim, pod, evicted(reason), pod.node, message, by=job)
        if lost_pods:
            session.evicted_this_action.add(id(victim))
            if index is not None:
                index.remove(victim)
    statement.commit()


def _untouched(pod: Pod, home: NodeState) -> bool:
    """Did the reclaimer's pods leave this running victim's own GPUs alone?"""
    if pod.extended_resource is not None:
        return home.ext_future(pod.extended_resource) >= -EPSILON
    futures = home.future_list()
    return min([futures[d] for d in pod.devices], default=0.0) >= -EPSILON
