"""The engine's answer for a checked setup, shaped for the page.

Every number here comes from `simulators.engine` (`simulate_quota`, `step_demand`):
this module only lays the engine's outcome out as bars, table rows, plain
sentences and a timeline.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulators.engine import (
    PoolOutcome,
    QuotaOutcome,
    QuotaScenario,
    QuotaStep,
    TimelineEntry,
    simulate_quota,
    step_demand,
)
from studysite.simulator.format import gpus, num
from studysite.simulator.state import Step
from studysite.simulator.why import WhyView, why_view

BAR_WIDTH = 600  # the bars' viewBox width; they stretch to the column


def run_engine(scenario: QuotaScenario, step: Step | None) -> tuple[QuotaOutcome, QuotaStep | None]:
    """The outcome to draw, and the step that led to it (if the setup asks for one)."""
    if step is None:
        return simulate_quota(scenario), None
    stepped = step_demand(scenario, step.project, step.pool, step.extra)
    return stepped.after, stepped


# ---------------------------------------------------------------------------- shapes


@dataclass(frozen=True)
class Segment:
    kind: str  # "quota", "borrowed", "unmet", "idle"
    x: str
    width: str
    owner: int | None = None  # in the whole pool's bar: the project's position (its colour)


@dataclass(frozen=True)
class Scale:
    """The GPU axis under the bars: `intervals` equal steps from 0 to `ticks[-1]`."""

    ticks: tuple[str, ...]

    @property
    def intervals(self) -> int:
        return len(self.ticks) - 1


@dataclass(frozen=True)
class Holder:
    """One project's part of the whole pool, for the key under the pool's bar."""

    owner: int
    name: str
    text: str


@dataclass(frozen=True)
class Bar:
    id: str
    label: str
    segments: tuple[Segment, ...]
    quota_x: str | None = None


@dataclass(frozen=True)
class ProjectRow:
    name: str
    department: str
    quota: str
    demand: str
    weight: str
    limit: str
    priority: str
    fair_share: str
    quota_backed: str
    over_quota: str
    unmet: str
    running: str
    borrowing: bool
    text: str
    bar: Bar
    owner: int = 0


@dataclass(frozen=True)
class DepartmentRow:
    name: str
    quota: str
    weight: str
    limit: str
    request: str
    fair_share: str
    allocated: str


@dataclass(frozen=True)
class PoolView:
    index: int
    name: str
    gpus: str
    idle: str
    quota_backed: str
    borrowed: str
    unmet: str
    rows: tuple[ProjectRow, ...]
    bar: Bar
    departments: tuple[DepartmentRow, ...]
    summary: str
    scale: Scale
    holders: tuple[Holder, ...]
    why: WhyView
    quick: str


@dataclass(frozen=True)
class TimelineItem:
    cycle: int
    kind: str
    label: str
    message: str


@dataclass(frozen=True)
class Change:
    project: str
    pool: str
    before: str
    after: str
    note: str


@dataclass(frozen=True)
class StepView:
    project: str
    pool: str
    extra: str
    headline: str
    items: tuple[TimelineItem, ...]
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class ResultView:
    pools: tuple[PoolView, ...]
    warnings: tuple[str, ...]
    step: StepView | None
    summary: str
    has_departments: bool
    has_limits: bool

    @property
    def owners(self) -> range:
        """The project colours the page defines (one hatch pattern each)."""
        return range(max(len(pool.rows) for pool in self.pools))

    @property
    def quick(self) -> str:
        """The result in one line, for beside the controls on a small screen."""
        parts = ([self.step.headline] if self.step else []) + [p.quick for p in self.pools]
        return " ".join(parts)


def _segments(
    parts: list[tuple[str, float]], scale: float, owners: list[int | None] | None = None
) -> tuple[Segment, ...]:
    segments, x = [], 0.0
    for index, (kind, amount) in enumerate(parts):
        if amount > 0:
            owner = owners[index] if owners else None
            segments.append(Segment(kind, f"{x * scale:.2f}", f"{amount * scale:.2f}", owner))
            x += amount
    return tuple(segments)


_STEPS = (1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, 128, 200, 250, 256, 500, 512, 1000)
MAX_INTERVALS = 8


def axis(extent: float) -> Scale:
    """A GPU axis covering `extent` in at most eight equal, round steps."""
    step = next(
        (s for s in _STEPS if s * MAX_INTERVALS >= extent),
        1000 * (int(extent) // (1000 * MAX_INTERVALS) + 1),
    )
    intervals = max(1, -(-int(extent) // step))
    return Scale(tuple(num(step * k) for k in range(intervals + 1)))


def _project_text(quota_backed: float, over: float, unmet: float) -> str:
    running = quota_backed + over
    if running == 0 and unmet == 0:
        return "no work (demand 0)"
    parts = [f"{gpus(running)} running"]
    if over:
        parts.append(f"{num(quota_backed)} within quota + {num(over)} borrowed (reclaimable)")
    elif running:
        parts.append("all within quota")
    if unmet:
        parts.append(f"{num(unmet)} waiting")
    return ", ".join(parts) + f" (demand {num(running + unmet)})"


def _pool_view(index: int, pool: PoolOutcome, scenario: QuotaScenario) -> PoolView:
    projects = {p.name: p for p in scenario.projects}
    extent = max(
        [float(pool.gpus), 1.0]
        + [max(p.demand, p.quota, p.quota_backed + p.over_quota) for p in pool.projects]
    )
    gpu_axis = axis(extent)
    scale = BAR_WIDTH / float(gpu_axis.ticks[-1])
    rows = []
    for owner, p in enumerate(pool.projects):
        spec = projects[p.project]
        text = _project_text(p.quota_backed, p.over_quota, p.unmet)
        label = f"{p.project}: {text}; quota {num(p.quota)}, fair share {num(p.fair_share)}"
        parts = [("quota", p.quota_backed), ("borrowed", p.over_quota), ("unmet", p.unmet)]
        bar = Bar(f"sim-bar-{index}-{p.project}", label, _segments(parts, scale))
        rows.append(
            ProjectRow(
                name=p.project,
                department=spec.department or "",
                quota=num(p.quota),
                demand=num(p.demand),
                weight=num(spec.over_quota_weight),
                limit="none" if p.limit is None else num(p.limit),
                priority=str(spec.priority),
                fair_share=num(p.fair_share),
                quota_backed=num(p.quota_backed),
                over_quota=num(p.over_quota),
                unmet=num(p.unmet),
                running=num(p.quota_backed + p.over_quota),
                borrowing=p.over_quota > 0,
                text=text,
                bar=Bar(bar.id, bar.label, bar.segments, f"{p.quota * scale:.2f}"),
                owner=owner,
            )
        )
    quota_backed = sum(p.quota_backed for p in pool.projects)
    borrowed = sum(p.over_quota for p in pool.projects)
    unmet = sum(p.unmet for p in pool.projects)
    pool_text = (
        f"{num(quota_backed)} within quota, {num(borrowed)} borrowed (reclaimable), "
        f"{num(pool.idle)} idle"
    )
    held: list[tuple[str, float]] = []
    owners: list[int | None] = []
    holders = []
    for owner, p in enumerate(pool.projects):
        held += [("quota", p.quota_backed), ("borrowed", p.over_quota)]
        owners += [owner, owner]
        running = p.quota_backed + p.over_quota
        text = gpus(running) + (f" ({num(p.over_quota)} borrowed)" if p.over_quota else "")
        holders.append(Holder(owner, p.project, text))
    held.append(("idle", pool.idle))
    owners.append(None)
    held_text = "; ".join(f"{h.name} {h.text}" for h in holders)
    pool_bar = Bar(
        f"sim-bar-{index}-pool",
        f"Whole pool {pool.pool}, {gpus(pool.gpus)}: {held_text}; {num(pool.idle)} idle",
        _segments(held, scale, owners),
    )
    departments = tuple(
        DepartmentRow(
            name=row.queue,
            quota="none" if row.deserved is None else num(row.deserved),
            weight=num(row.over_quota_weight),
            limit="none" if row.limit is None else num(row.limit),
            request=num(row.request),
            fair_share=num(row.fair_share),
            allocated=num(row.allocated),
        )
        for row in pool.fair_share_table
        if not row.is_project
    )
    summary = (
        f"Node pool {pool.pool} ({gpus(pool.gpus)}): {pool_text}; {gpus(unmet)} of demand waiting."
    )
    quick = (
        f"{pool.pool}: "
        + ", ".join(f"{p.project} {num(p.quota_backed + p.over_quota)}" for p in pool.projects)
        + f", idle {num(pool.idle)}."
    )
    return PoolView(
        index=index,
        name=pool.pool,
        gpus=num(pool.gpus),
        idle=num(pool.idle),
        quota_backed=num(quota_backed),
        borrowed=num(borrowed),
        unmet=num(unmet),
        rows=tuple(rows),
        bar=pool_bar,
        departments=departments,
        summary=summary,
        scale=gpu_axis,
        holders=tuple(holders),
        why=why_view(pool),
        quick=quick,
    )


_KIND_LABELS = {
    "reclaimed": "Reclaimed",
    "preempted": "Preempted",
    "pipelined": "Waiting for the freed GPUs",
    "scheduled": "Started",
    "moved": "Moved",
}
_KIND_ORDER = {"reclaimed": 0, "preempted": 1, "moved": 2, "pipelined": 3, "scheduled": 4}


def _timeline(entries: tuple[TimelineEntry, ...]) -> tuple[TimelineItem, ...]:
    ordered = sorted(entries, key=lambda e: (e.cycle, _KIND_ORDER.get(e.kind, 9)))
    return tuple(
        TimelineItem(e.cycle, e.kind, _KIND_LABELS.get(e.kind, e.kind.capitalize()), e.message)
        for e in ordered
    )


def _step_view(step: QuotaStep, asked: Step) -> StepView:
    changes = []
    for before_pool, after_pool in zip(step.before.pools, step.after.pools, strict=True):
        for before, after in zip(before_pool.projects, after_pool.projects, strict=True):
            was = before.quota_backed + before.over_quota
            now = after.quota_backed + after.over_quota
            if was == now and before.demand == after.demand:
                continue
            delta = now - was
            note = (
                f"{gpus(-delta)} fewer" if delta < 0 else f"{gpus(delta)} more" if delta else "same"
            )
            if before.demand != after.demand:
                note += f"; demand {num(before.demand)} → {num(after.demand)}"
            changes.append(Change(after.project, after_pool.pool, num(was), num(now), note))
    items = _timeline(step.timeline)
    reclaimed = sum(e.gpus for e in step.timeline if e.kind in ("reclaimed", "preempted"))
    who = f"{asked.project}'s demand in node pool {asked.pool} grew by"
    if reclaimed:
        headline = f"{who} {gpus(asked.extra)}: {gpus(reclaimed)} reclaimed."
    elif items:
        headline = f"{who} {gpus(asked.extra)}: the new work started, nothing reclaimed."
    else:
        headline = f"{who} {gpus(asked.extra)}: the engine moved nothing; the new work waits."
    return StepView(
        project=asked.project,
        pool=asked.pool,
        extra=num(asked.extra),
        headline=headline,
        items=items,
        changes=tuple(changes),
    )


def result_view(
    scenario: QuotaScenario, asked: Step | None, outcome: QuotaOutcome, step: QuotaStep | None
) -> ResultView:
    pools = tuple(_pool_view(i, pool, scenario) for i, pool in enumerate(outcome.pools))
    step_view = _step_view(step, asked) if step and asked else None
    parts = ([step_view.headline] if step_view else []) + [pool.summary for pool in pools]
    return ResultView(
        pools=pools,
        warnings=outcome.warnings,
        step=step_view,
        summary=" ".join(parts),
        has_departments=bool(scenario.departments),
        has_limits=any(p.limit is not None for p in scenario.projects),
    )
