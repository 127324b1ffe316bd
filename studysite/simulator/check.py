"""Checking the simulator's values: the text in the state becomes the engine's own
scenario (`simulators.engine.QuotaScenario`), or a message beside each value that
needs fixing. The limits are the engine's, imported, never restated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation

from simulators.engine import (
    MAX_DEMAND,
    MAX_POOL_GPUS,
    MAX_PRIORITY,
    MAX_TOTAL_DEMAND,
    MAX_WEIGHT,
    DepartmentSpec,
    PoolSpec,
    ProjectSpec,
    QuotaScenario,
)
from studysite.simulator.state import RawProject, RawStep, SimState

NAME_RE = re.compile(r"^[a-z](?:[a-z0-9-]{0,28}[a-z0-9])?$")
# Plain decimal numbers only: Decimal() alone would also take "1_000", "NaN" or "Infinity".
_NUMBER_RE = re.compile(r"^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,4})?$", re.ASCII)


@dataclass(frozen=True)
class Step:
    """Raise `project`'s demand in `pool` by `extra` GPUs (the engine's `step_demand`)."""

    project: str
    pool: str
    extra: int


@dataclass(frozen=True)
class Checked:
    """The state with its numbers; `scenario` is None while a value needs fixing.

    `errors` maps a form field's id to its message; `form_errors` are about several
    fields at once. A bad step value only drops the step, not the result.
    """

    state: SimState
    scenario: QuotaScenario | None
    step: Step | None = None
    errors: Mapping[str, str] = field(default_factory=dict)
    form_errors: tuple[str, ...] = ()


class _Checker:
    def __init__(self) -> None:
        self.errors: dict[str, str] = {}

    def number(self, raw: str, key: str, unit: str, maximum: int, whole: bool) -> Decimal | None:
        kind = f"a whole number of {unit}" if whole and unit else "a whole number"
        if not whole:
            kind = "a number"
        if raw == "":
            self.errors[key] = f"Enter {kind}."
            return None
        try:
            value = Decimal(raw) if _NUMBER_RE.match(raw) else None
        except InvalidOperation:
            value = None
        if value is None or not value.is_finite():
            self.errors[key] = f"“{raw}” is not a number. Enter {kind}."
            return None
        if value < 0:
            self.errors[key] = f"Can't be negative ({raw}). Enter 0 or more."
            return None
        if value > maximum:
            self.errors[key] = f"Too large: at most {maximum}{' ' + unit if unit else ''}."
            return None
        if whole and value != value.to_integral_value():
            self.errors[key] = f"Use {kind}: {raw} is not whole."
            return None
        return value

    def whole(self, raw: str, key: str, maximum: int, unit: str = "GPUs") -> int | None:
        value = self.number(raw, key, unit, maximum, whole=True)
        return None if value is None else int(value)

    def optional(self, raw: str, key: str, maximum: int, unit: str = "GPUs") -> int | None:
        return None if raw == "" else self.whole(raw, key, maximum, unit)

    def weight(self, raw: str, key: str) -> float | None:
        value = self.number(raw, key, "", MAX_WEIGHT, whole=False)
        return None if value is None else float(value)

    def name(self, raw: str, key: str, what: str, taken: set[str], clash: str) -> str:
        if raw == "":
            self.errors[key] = f"Give the {what} a name."
        elif not NAME_RE.match(raw):
            self.errors[key] = (
                "Use lowercase letters, digits and hyphens, starting with a letter "
                "(at most 30 characters)."
            )
        elif raw in taken:
            self.errors[key] = f"Another {clash} already has this name."
        taken.add(raw)
        return raw


_CLASH = "project or department"


def _per_pool(
    c: _Checker, raws: tuple[str, ...], key: str, maximum: int, pools: list[str]
) -> dict[str, int]:
    """One whole number per pool (`{key}-{k}` names pool k's field), by pool name."""
    values = [c.whole(raw, f"{key}-{k}", maximum) or 0 for k, raw in enumerate(raws)]
    return dict(zip(pools, values, strict=True))


def check(state: SimState) -> Checked:
    """Turn the text into the engine's scenario, with a message for each value to fix."""
    c = _Checker()
    pool_names: set[str] = set()
    pools = []
    for i, raw in enumerate(state.pools):
        name = c.name(raw.name, f"pool-{i}-name", "node pool", pool_names, "node pool")
        pools.append(PoolSpec(name, c.whole(raw.gpus, f"pool-{i}-gpus", MAX_POOL_GPUS) or 0))
    order = [pool.name for pool in pools]
    names: set[str] = set()
    departments = [
        DepartmentSpec(
            name=c.name(raw.name, f"d-{i}-name", "department", names, _CLASH),
            quota=_per_pool(c, raw.quota, f"d-{i}-quota", MAX_POOL_GPUS, order),
            over_quota_weight=c.weight(raw.weight, f"d-{i}-weight") or 0.0,
            limit=c.optional(raw.limit, f"d-{i}-limit", MAX_POOL_GPUS),
        )
        for i, raw in enumerate(state.departments)
    ]
    dept_names = {d.name for d in departments}
    projects = []
    for i, rp in enumerate(state.projects):
        if rp.department and rp.department not in dept_names:
            c.errors[f"p-{i}-dept"] = f"There is no department called “{rp.department}”."
        projects.append(
            ProjectSpec(
                name=c.name(rp.name, f"p-{i}-name", "project", names, _CLASH),
                quota=_per_pool(c, rp.quota, f"p-{i}-quota", MAX_POOL_GPUS, order),
                demand=_per_pool(c, rp.demand, f"p-{i}-demand", MAX_DEMAND, order),
                over_quota_weight=c.weight(rp.weight, f"p-{i}-weight") or 0.0,
                limit=c.optional(rp.limit, f"p-{i}-limit", MAX_POOL_GPUS),
                priority=c.optional(rp.priority, f"p-{i}-priority", MAX_PRIORITY, unit="") or 0,
                department=rp.department or None,
            )
        )
    form_errors = tuple(
        f"All projects' demand in node pool {pool.name} adds up to {total} GPUs; the "
        f"simulator takes at most {MAX_TOTAL_DEMAND} in one pool."
        for pool in pools
        if (total := sum(p.demand.get(pool.name, 0) for p in projects)) > MAX_TOTAL_DEMAND
    )
    if c.errors or form_errors:
        return Checked(state, None, None, dict(c.errors), form_errors)
    scenario = QuotaScenario(tuple(pools), tuple(projects), tuple(departments))
    step = _check_step(state.step, scenario, c)
    return Checked(state, scenario, step, dict(c.errors))


def _check_step(raw: RawStep | None, scenario: QuotaScenario, c: _Checker) -> Step | None:
    if raw is None:
        return None
    names = [p.name for p in scenario.projects]
    pools = [p.name for p in scenario.pools]
    if raw.project not in names:
        c.errors["step-project"] = "Choose one of the projects."
    pool = raw.pool or pools[0]
    if pool not in pools:
        c.errors["step-pool"] = "Choose one of the node pools."
    extra = c.whole(raw.extra, "step-extra", MAX_DEMAND)
    if extra == 0:
        c.errors["step-extra"] = "Raise the demand by at least 1 GPU."
    if c.errors or extra is None:
        return None
    project = scenario.projects[names.index(raw.project)]
    total = sum(p.demand[pool] for p in scenario.projects) + extra
    if project.demand[pool] + extra > MAX_DEMAND or total > MAX_TOTAL_DEMAND:
        c.errors["step-extra"] = (
            f"Too large: demand in one pool can add up to at most {MAX_TOTAL_DEMAND} GPUs."
        )
        return None
    return Step(raw.project, pool, extra)


def after_step(state: SimState, step: Step) -> SimState:
    """The state with the step's extra demand added: the form shows this after a step."""
    k = next(i for i, pool in enumerate(state.pools) if pool.name == step.pool)

    def raised(project: RawProject) -> RawProject:
        if project.name != step.project:
            return project
        demand = list(project.demand)
        demand[k] = str(int(Decimal(demand[k])) + step.extra)
        return replace(project, demand=tuple(demand))

    return SimState(state.pools, tuple(raised(p) for p in state.projects), state.departments)
