"""The proportion plugin's checks: quota gates, the reclaimable rule and the ratio rule.

Fair shares themselves are computed in `simulators.engine.fairshare`; this module holds
the rules that read them (docs/engine.md, "Reclaim", steps 1 and 5).
"""

from __future__ import annotations

from simulators.engine import messages as msg
from simulators.engine.fairshare import EPSILON
from simulators.engine.messages import Reason
from simulators.engine.state import INF, JobState, QState


def quota_block(
    job: JobState, units: float, freed: dict[int, float] | None = None
) -> tuple[Reason, str] | None:
    """NonPreemptibleOverQuota and limits: the only gates of the allocate step.

    `freed` holds GPUs (by queue id) that victims chosen so far would give back.
    """
    for queue in job.queue.path:
        kind = "project" if queue.is_leaf else "department"
        taken = freed.get(id(queue), 0.0) if freed else 0.0
        # Only the project's quota gates non-preemptible work here (the reclaim check adds
        # the ancestors); victims are preemptible, so evicting them never makes room.
        if (
            not job.preemptible
            and queue.is_leaf
            and queue.allocated_non_preemptible + units > queue.deserved + EPSILON
        ):
            return (
                Reason.NON_PREEMPTIBLE_OVER_QUOTA,
                msg.non_preemptible_over_quota(kind, queue.name, queue.deserved),
            )
        if queue.limit is not None and queue.allocated - taken + units > queue.limit + EPSILON:
            return Reason.OVER_LIMIT, msg.over_limit(kind, queue.name, queue.limit)
    return None


def reclaimable(
    victim_side: QState,
    reclaimer_side: QState,
    taken: list[float],
    capped: list[float],
    units: float,
) -> bool:
    """The check for one victim (step 5): its side is above its capped share, or the
    reclaimer's side stays within deserved while the victim's side is above its own.

    `taken` holds what earlier victims took from each queue (by rank), `capped` each
    queue's min(limit, max(deserved, fair share)).
    """
    victim_alloc = victim_side.allocated - taken[victim_side.rank]
    if victim_alloc > capped[victim_side.rank] + EPSILON:
        return True
    reclaimer_alloc = reclaimer_side.allocated - taken[reclaimer_side.rank]
    return (
        reclaimer_alloc + units <= reclaimer_side.deserved + EPSILON
        and victim_alloc > victim_side.deserved + EPSILON
    )


def ratio_ok(job: JobState, units: float, taken: list[float], top_level: list[QState]) -> bool:
    """The ratio rule at every level, then the non-preemptible quota on every ancestor."""
    for queue in job.queue.path:
        share = queue.fair_share
        after = queue.allocated - taken[queue.rank] + units
        ratio = after / share if share > EPSILON else (INF if after > EPSILON else 0.0)
        if ratio <= 1 + EPSILON:
            continue
        siblings = queue.parent.children if queue.parent else top_level
        for sibling in siblings:
            lost = taken[sibling.rank]
            if sibling is queue or lost <= EPSILON or sibling.fair_share <= EPSILON:
                continue
            sibling_ratio = (sibling.allocated - lost) / sibling.fair_share
            if ratio >= sibling_ratio - EPSILON:
                return False
    if not job.preemptible:
        for queue in job.queue.path:
            if queue.allocated_non_preemptible + units > queue.deserved + EPSILON:
                return False
    return True
