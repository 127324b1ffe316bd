"""Preempt: within one project only, a higher-priority job evicts preemptible jobs of
strictly lower priority."""

from __future__ import annotations

from simulators.engine.messages import Reason
from simulators.engine.ordering import JobPicker
from simulators.engine.scheduler.actions.reclaim import commit_victims
from simulators.engine.scheduler.placement import Seat
from simulators.engine.scheduler.proportion import quota_block
from simulators.engine.scheduler.session import PoolSession
from simulators.engine.scheduler.solver import ReclaimTrial
from simulators.engine.scheduler.victims import VictimTake, victim_takes
from simulators.engine.state import JobState


def preempt(session: PoolSession) -> None:
    session.evicted_this_action = set()
    by_leaf: dict[int, list[JobState]] = {}
    for other in session.jobs:
        if other.preemptible and other.running_pods():
            by_leaf.setdefault(id(other.queue), []).append(other)
    lowest = {leaf: min(j.priority for j in jobs) for leaf, jobs in by_leaf.items()}
    # The priority test first: it is cheap, and it rules out most jobs of a busy cycle.
    pending = [
        j
        for j in session.jobs
        if lowest.get(id(j.queue), j.priority) < j.priority and j.pending_pods()
    ]
    picker = JobPicker(pending)
    while (job := picker.next()) is not None:
        if not job.pending_pods():
            continue
        candidates = [
            v
            for v in by_leaf.get(id(job.queue), [])
            if v.priority < job.priority
            and v.running_pods()
            and id(v) not in session.evicted_this_action
        ]
        if candidates:
            _try_preempt(session, job, candidates)


def _try_preempt(session: PoolSession, job: JobState, candidates: list[JobState]) -> None:
    pods = job.pending_pods()
    units = job.pod_units * len(pods)
    candidates.sort(key=lambda v: (v.priority, -v.workload.creation_rank))
    takes = victim_takes(candidates, session.node_by_name)
    trial = ReclaimTrial(session, job)
    victims: list[VictimTake] = []
    freed: dict[int, float] = {}
    plan: list[Seat] | None = None
    for count in range(1, len(pods) + 1):
        while True:
            if victims and trial.may_fit(count) and quota_block(job, units, freed) is None:
                plan = trial.place(pods[:count])
                if plan is not None:
                    break
            take = next(takes, None)
            if take is None:
                return
            victims.append(take)
            trial.add(take)
            for queue in take.job.queue.path:
                freed[id(queue)] = freed.get(id(queue), 0.0) + take.units
    assert plan is not None
    commit_victims(session, job, victims, plan, None, Reason.PREEMPTED)
