"""Why the engine's numbers are what they are, in the engine's own working.

The fair shares come from `simulators.engine.fair_share`; asked again with the
inputs the engine recorded in its fair-share table, and a `FairShareTrace`, it
reports each step it took: quota first (up to demand and limit), each
water-filling round with what was left, the rounding and the remembered
fractions, the leftovers and who got them. This module only puts that trace into
sentences; a test checks that the traced shares are the ones the engine used.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulators.engine import (
    Division,
    FairShareRow,
    FairShareTrace,
    PoolOutcome,
    ShareQueue,
    fair_share,
)
from simulators.engine.fairshare import EPSILON
from studysite.simulator.format import gpus, num


@dataclass(frozen=True)
class WhyStep:
    title: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class WhyDivision:
    title: str
    steps: tuple[WhyStep, ...]
    result: str


@dataclass(frozen=True)
class WhyView:
    divisions: tuple[WhyDivision, ...]
    oversubscribed: WhyStep | None


def pool_trace(pool: PoolOutcome) -> FairShareTrace:
    """The engine's fair-share division of this pool, with its working recorded."""
    trace = FairShareTrace()
    fair_share(
        float(pool.gpus),
        [
            ShareQueue(
                name=row.queue,
                parent=row.parent,
                deserved=row.deserved,
                over_quota_weight=row.over_quota_weight,
                limit=row.limit,
                priority=row.priority,
                request=row.request if row.is_project else 0.0,
            )
            for row in pool.fair_share_table
        ],
        trace=trace,
    )
    return trace


def _quota_step(division: Division) -> WhyStep:
    lines = []
    for grant in division.deserved:
        quota = "no quota set" if grant.deserved is None else f"quota {num(grant.deserved)}"
        asks = f"{grant.queue}: {quota}, asks for {gpus(grant.requestable)}"
        if grant.deserved is not None and grant.given < grant.deserved - EPSILON:
            lines.append(f"{asks}: gets {num(grant.given)}.")
        else:
            lines.append(f"{asks}: gets its quota, {num(grant.given)}.")
    handed = sum(grant.given for grant in division.deserved)
    if division.oversubscribed:
        lines.append(
            f"These add up to {gpus(handed)}, more than the {num(division.amount)} there are: "
            "the quotas over-promise, so nothing is left to share."
        )
    else:
        lines.append(
            f"Handed out {num(handed)} of {num(division.amount)}; "
            f"{gpus(division.after_deserved)} left to share by over-quota weight."
        )
    return WhyStep("Quota first, up to demand", tuple(lines))


def _rounds_steps(division: Division) -> list[WhyStep]:
    steps = []
    levels = {r.priority for r in division.rounds}
    for number, fill in enumerate(division.rounds, start=1):
        lines = []
        for offer in fill.offers:
            share = (
                f"{num(fill.available)} × {num(offer.weight)}/{num(fill.weight_sum)} "
                f"= {num(offer.offered)}"
            )
            if offer.wanted <= offer.offered + EPSILON:
                lines.append(
                    f"{offer.queue}: {share}; it wants only {num(offer.wanted)}, "
                    f"takes {num(offer.given)}."
                )
            elif offer.remembered > 0:
                lines.append(
                    f"{offer.queue}: {share}; rounded down to whole GPUs it takes "
                    f"{num(offer.given)}, and {num(offer.remembered)} is remembered "
                    "for the leftovers."
                )
            else:
                lines.append(f"{offer.queue}: {share}; takes {num(offer.given)}.")
        lines.append(f"Left after this round: {gpus(fill.left)}.")
        level = f", priority {fill.priority}" if len(levels) > 1 else ""
        title = (
            f"Round {number}{level}: {gpus(fill.available)} to share, "
            f"weights add up to {num(fill.weight_sum)}"
        )
        steps.append(WhyStep(title, tuple(lines)))
    return steps


def _leftover_step(division: Division) -> WhyStep | None:
    if not division.leftovers:
        return None
    lines = tuple(
        f"{grant.queue} gets {gpus(grant.given)} (remembered fraction {num(grant.fraction)})."
        for grant in division.leftovers
    )
    return WhyStep("Leftovers from rounding, largest remembered fraction first", lines)


def _division_view(division: Division) -> WhyDivision:
    if division.parent is None:
        title = f"The pool's {gpus(division.amount)}"
    else:
        title = f"Department {division.parent}'s share of {gpus(division.amount)}"
    steps = [_quota_step(division)]
    if not division.oversubscribed and division.after_deserved > EPSILON:
        steps += _rounds_steps(division)
        leftover = _leftover_step(division)
        if leftover:
            steps.append(leftover)
    shares = ", ".join(f"{name} {num(share)}" for name, share in division.shares.items())
    result = f"Fair shares: {shares}."
    if division.unused > EPSILON and not division.oversubscribed:
        result += f" {gpus(division.unused)} nobody asks for (or a limit stops)."
    return WhyDivision(title, tuple(steps), result)


def allocatable(row: FairShareRow) -> float:
    """What KAI's queue order divides a queue's allocation by: the larger of its quota and its
    fair share, capped by its limit (`ResourceShare.GetAllocatableShare` in KAI's proportion
    plugin; the engine's `QState.capped_share`)."""
    share = max(row.deserved or 0.0, row.fair_share)
    return share if row.limit is None else min(row.limit, share)


def _percent(part: float, whole: float) -> str:
    return f"{round(100 * part / whole)}%" if whole > EPSILON else "all"


def _oversubscribed(pool: PoolOutcome, trace: FairShareTrace) -> WhyStep | None:
    top = trace.division(None)
    if top is None or not top.oversubscribed:
        return None
    promised = sum(grant.given for grant in top.deserved)
    quotas = sum(grant.deserved or 0.0 for grant in top.deserved)
    running = {p.project: p.quota_backed + p.over_quota for p in pool.projects}
    rows = {row.queue: row for row in pool.fair_share_table}
    if quotas > promised + EPSILON:
        asked = (
            f"The quotas add up to {gpus(quotas)}; each capped at what its project asks for, "
            f"they promise {gpus(promised)}"
        )
    else:
        asked = f"The quotas add up to {gpus(promised)}"
    lines = [
        f"{asked}, but node pool {pool.pool} has {num(pool.gpus)}: "
        f"{gpus(promised - pool.gpus)} of guarantees can't be met at once.",
        "The engine starts jobs one at a time. Each time it serves, among projects still "
        "within their quota, the one with the higher priority, then the one using the "
        "smallest part of its quota (or of its fair share, when that is larger), so projects "
        "of the same priority end up using about the same part of their quotas.",
    ]
    for p in pool.projects:
        row = rows.get(p.project)
        whole = allocatable(row) if row is not None else p.fair_share
        used = running[p.project]
        line = (
            f"{p.project}: quota {num(p.quota)}, fair share {num(p.fair_share)}, "
            f"running {num(used)} ({_percent(used, whole)} of {num(whole)})"
        )
        lines.append(line + (f", {num(p.unmet)} waiting." if p.unmet else "."))
    return WhyStep("Why not every guarantee holds: the pool is over-subscribed", tuple(lines))


def why_view(pool: PoolOutcome) -> WhyView:
    trace = pool_trace(pool)
    divisions = tuple(_division_view(d) for d in trace.divisions or ())
    return WhyView(divisions, _oversubscribed(pool, trace))
