"""The simulator's form, both ways: reading its fields and buttons into the state,
and building the fields (each with its value and message) from a state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from simulators.engine import (
    MAX_DEMAND,
    MAX_DEPARTMENTS,
    MAX_POOL_GPUS,
    MAX_POOLS,
    MAX_PRIORITY,
    MAX_PROJECTS,
    MAX_WEIGHT,
)
from studysite.simulator.state import (
    DEFAULT_STEP,
    DEPARTMENT_NAMES,
    POOL_GPUS,
    POOL_NAMES,
    PROJECT_NAMES,
    Parsed,
    Query,
    RawDepartment,
    RawPool,
    RawProject,
    RawStep,
    SimState,
    StepChoice,
    canon,
    clean,
    default_state,
    first,
)

_ACTION_RE = re.compile(r"^(add|remove)-(project|pool|department)(?:-(\d{1,2}))?$", re.ASCII)


# ---------------------------------------------------------------------------- reading


def _indices(query: Query, prefix: str, limit: int) -> list[int]:
    pattern = re.compile(rf"^{prefix}-(\d{{1,2}})-", re.ASCII)
    found = {int(m.group(1)) for key in query if (m := pattern.match(key))}
    return sorted(found)[:limit]


def read_form(query: Query) -> tuple[SimState, StepChoice, str]:
    def get(key: str, default: str = "") -> str:
        return clean(first(query, key, default))

    pool_ids = _indices(query, "pool", MAX_POOLS) or [0]
    pools = tuple(
        RawPool(get(f"pool-{i}-name", POOL_NAMES[n]), get(f"pool-{i}-gpus", POOL_GPUS[n]))
        for n, i in enumerate(pool_ids)
    )
    count = len(pools)
    dept_ids = _indices(query, "d", MAX_DEPARTMENTS)
    departments = tuple(
        RawDepartment(
            name=get(f"d-{i}-name"),
            quota=tuple(get(f"d-{i}-quota-{k}", "0") for k in range(count)),
            weight=get(f"d-{i}-weight", "1"),
            limit=canon(first(query, f"d-{i}-limit")),
        )
        for i in dept_ids
    )
    dept_by_field = {str(i): dept.name for i, dept in zip(dept_ids, departments, strict=True)}
    projects = (
        tuple(
            RawProject(
                name=get(f"p-{i}-name"),
                quota=tuple(get(f"p-{i}-quota-{k}", "0") for k in range(count)),
                demand=tuple(get(f"p-{i}-demand-{k}", "0") for k in range(count)),
                weight=get(f"p-{i}-weight", "1"),
                limit=canon(first(query, f"p-{i}-limit")),
                priority=canon(first(query, f"p-{i}-priority"), "0"),
                department=dept_by_field.get(first(query, f"p-{i}-dept"), ""),
            )
            for i in _indices(query, "p", MAX_PROJECTS)
        )
        or default_state(count).projects
    )
    choice = StepChoice(
        project=_position(first(query, "step-project"), len(projects)),
        pool=_position(first(query, "step-pool"), count),
        extra=get("step-extra", DEFAULT_STEP),
    )
    action = first(query, "action")
    state = SimState(pools, projects, departments)
    if action == "step":
        state = replace(
            state,
            step=RawStep(
                projects[choice.project].name,
                choice.extra,
                pools[choice.pool].name if choice.pool else "",
            ),
        )
    return state, choice, action


def _position(text: str, count: int) -> int:
    # Bounded before int(): Python refuses more than 4,300 digits with a ValueError.
    digits = text.isascii() and text.isdigit() and len(text) < 10
    return int(text) if digits and int(text) < count else 0


def choice_for(state: SimState) -> StepChoice:
    if state.step is None:
        return StepChoice()
    names = [p.name for p in state.projects]
    pools = [p.name for p in state.pools]
    return StepChoice(
        project=names.index(state.step.project) if state.step.project in names else 0,
        pool=pools.index(state.step.pool) if state.step.pool in pools else 0,
        extra=state.step.extra,
    )


# ---------------------------------------------------------------------------- buttons


def apply_button(read: tuple[SimState, StepChoice, str], embed: bool) -> Parsed:
    state, choice, action = read
    if action == "step":
        return Parsed(state, choice, "step", "sim-step-button", True, embed)
    match = _ACTION_RE.match(action)
    if not match:
        return Parsed(state, choice, from_form=True, embed=embed)
    verb, noun, number = match.groups()
    index = int(number) if number is not None else -1
    state, focus = _RESHAPE[(verb, noun)](state, index)
    return Parsed(state, _fit(choice, state), action, focus, True, embed)


def _fit(choice: StepChoice, state: SimState) -> StepChoice:
    return StepChoice(
        project=min(choice.project, len(state.projects) - 1),
        pool=min(choice.pool, len(state.pools) - 1),
        extra=choice.extra,
    )


def _unused(taken: set[str], candidates: Sequence[str], stem: str) -> str:
    for name in candidates:
        if name not in taken:
            return name
    number = 1
    while f"{stem}-{number}" in taken:
        number += 1
    return f"{stem}-{number}"


def _names(state: SimState) -> set[str]:
    return {p.name for p in state.projects} | {d.name for d in state.departments}


def add_project(state: SimState, _: int = -1) -> tuple[SimState, str]:
    if len(state.projects) >= MAX_PROJECTS:
        return state, "sim-add-project"
    count = len(state.pools)
    name = _unused(_names(state), PROJECT_NAMES, "team")
    project = RawProject(name, ("0",) * count, ("4",) + ("0",) * (count - 1), "1")
    focus = f"p-{len(state.projects)}-name"
    return replace(state, projects=(*state.projects, project), step=None), focus


def remove_project(state: SimState, index: int) -> tuple[SimState, str]:
    if len(state.projects) <= 1 or not 0 <= index < len(state.projects):
        return state, "sim-add-project"
    projects = state.projects[:index] + state.projects[index + 1 :]
    return replace(state, projects=projects, step=None), "sim-add-project"


def add_pool(state: SimState, _: int = -1) -> tuple[SimState, str]:
    if len(state.pools) >= MAX_POOLS:
        return state, "sim-add-pool"
    name = _unused({p.name for p in state.pools}, POOL_NAMES, "pool")
    return (
        SimState(
            (*state.pools, RawPool(name, POOL_GPUS[1])),
            tuple(
                replace(p, quota=(*p.quota, "0"), demand=(*p.demand, "0")) for p in state.projects
            ),
            tuple(replace(d, quota=(*d.quota, "0")) for d in state.departments),
        ),
        f"pool-{len(state.pools)}-name",
    )


def remove_pool(state: SimState, index: int) -> tuple[SimState, str]:
    if len(state.pools) <= 1 or not 0 <= index < len(state.pools):
        return state, "sim-add-pool"

    def drop[T](values: tuple[T, ...]) -> tuple[T, ...]:
        return values[:index] + values[index + 1 :]

    return (
        SimState(
            drop(state.pools),
            tuple(replace(p, quota=drop(p.quota), demand=drop(p.demand)) for p in state.projects),
            tuple(replace(d, quota=drop(d.quota)) for d in state.departments),
        ),
        "sim-add-pool",
    )


def add_department(state: SimState, _: int = -1) -> tuple[SimState, str]:
    if len(state.departments) >= MAX_DEPARTMENTS:
        return state, "sim-add-department"
    name = _unused(_names(state), DEPARTMENT_NAMES, "dept")
    department = RawDepartment(name, ("0",) * len(state.pools), "1")
    focus = f"d-{len(state.departments)}-name"
    return replace(state, departments=(*state.departments, department), step=None), focus


def remove_department(state: SimState, index: int) -> tuple[SimState, str]:
    if not 0 <= index < len(state.departments):
        return state, "sim-add-department"
    gone = state.departments[index].name
    return (
        SimState(
            state.pools,
            tuple(replace(p, department="") if p.department == gone else p for p in state.projects),
            state.departments[:index] + state.departments[index + 1 :],
        ),
        "sim-add-department",
    )


_RESHAPE: dict[tuple[str, str], Callable[[SimState, int], tuple[SimState, str]]] = {
    ("add", "project"): add_project,
    ("remove", "project"): remove_project,
    ("add", "pool"): add_pool,
    ("remove", "pool"): remove_pool,
    ("add", "department"): add_department,
    ("remove", "department"): remove_department,
}


@dataclass(frozen=True)
class Field:
    id: str
    label: str
    value: str
    group: str
    error: str = ""
    kind: str = "whole"  # "whole", "weight", "name", "select"
    maximum: int = MAX_POOL_GPUS
    pool: int | None = None  # the label ends "in <pool name>" (kept in step by the JS)
    pool_name: str = ""
    options: tuple[tuple[str, str], ...] = ()
    placeholder: str = ""
    hint: str = ""

    @property
    def full_label(self) -> str:
        return f"{self.label} in {self.pool_name}" if self.pool is not None else self.label


@dataclass(frozen=True)
class PoolFields:
    index: int
    number: int
    name: Field
    gpus: Field
    removable: bool


@dataclass(frozen=True)
class ProjectFields:
    index: int
    number: int
    name: Field
    quotas: tuple[Field, ...]
    demands: tuple[Field, ...]
    weight: Field
    limit: Field
    priority: Field
    department: Field
    more_open: bool
    removable: bool


@dataclass(frozen=True)
class DepartmentFields:
    index: int
    number: int
    name: Field
    quotas: tuple[Field, ...]
    weight: Field
    limit: Field


@dataclass(frozen=True)
class StepFields:
    project: Field
    pool: Field | None
    extra: Field


@dataclass(frozen=True)
class FormView:
    pools: tuple[PoolFields, ...]
    projects: tuple[ProjectFields, ...]
    departments: tuple[DepartmentFields, ...]
    step: StepFields
    fields: tuple[Field, ...]  # every field, for the messages sent with each update

    @property
    def can_add_project(self) -> bool:
        return len(self.projects) < MAX_PROJECTS

    @property
    def can_add_pool(self) -> bool:
        return len(self.pools) < MAX_POOLS

    @property
    def can_add_department(self) -> bool:
        return len(self.departments) < MAX_DEPARTMENTS


# ---------------------------------------------------------------------------- building


class _Fields:
    """Makes the fields of one group ("Project 2"), each with its message, if any."""

    def __init__(self, state: SimState, errors: dict[str, str], group: str) -> None:
        self.state, self.errors, self.group = state, errors, group

    def __call__(
        self, id: str, label: str, value: str, kind: str = "whole", **more: object
    ) -> Field:
        error = self.errors.get(id, "")
        return Field(id, label, value, self.group, error, kind, **more)  # type: ignore[arg-type]

    def per_pool(
        self, prefix: str, label: str, values: tuple[str, ...], maximum: int = MAX_POOL_GPUS
    ) -> tuple[Field, ...]:
        several = len(self.state.pools) > 1
        return tuple(
            self(
                f"{prefix}-{k}",
                label,
                value,
                maximum=maximum,
                pool=k if several else None,
                pool_name=self.state.pools[k].name,
            )
            for k, value in enumerate(values)
        )


def _project_fields(index: int, state: SimState, errors: dict[str, str]) -> ProjectFields:
    raw = state.projects[index]
    key, field = f"p-{index}", _Fields(state, errors, f"Project {index + 1}")
    dept_names = [d.name for d in state.departments]
    dept_value = str(dept_names.index(raw.department)) if raw.department in dept_names else ""
    more = (
        field(
            f"{key}-limit", "Limit", raw.limit, placeholder="none",
            hint="The most GPUs it may use; empty for no limit.",
        ),
        field(
            f"{key}-priority", "Priority", raw.priority, maximum=MAX_PRIORITY, placeholder="0",
            hint="Higher priority takes idle GPUs first.",
        ),
        field(
            f"{key}-dept", "Department", dept_value, "select",
            options=(("", "none"), *((str(i), name) for i, name in enumerate(dept_names))),
        ),
    )  # fmt: skip
    return ProjectFields(
        index=index,
        number=index + 1,
        name=field(f"{key}-name", "Name", raw.name, "name"),
        quotas=field.per_pool(f"{key}-quota", "Quota", raw.quota),
        demands=field.per_pool(f"{key}-demand", "Demand", raw.demand, MAX_DEMAND),
        weight=field(
            f"{key}-weight", "Over-quota weight", raw.weight, "weight", maximum=MAX_WEIGHT
        ),
        limit=more[0],
        priority=more[1],
        department=more[2],
        more_open=any(f.value or f.error for f in more),
        removable=len(state.projects) > 1,
    )


def _department_fields(index: int, state: SimState, errors: dict[str, str]) -> DepartmentFields:
    raw = state.departments[index]
    key, field = f"d-{index}", _Fields(state, errors, f"Department {index + 1}")
    return DepartmentFields(
        index=index,
        number=index + 1,
        name=field(f"{key}-name", "Name", raw.name, "name"),
        quotas=field.per_pool(f"{key}-quota", "Quota", raw.quota),
        weight=field(
            f"{key}-weight", "Over-quota weight", raw.weight, "weight", maximum=MAX_WEIGHT
        ),
        limit=field(f"{key}-limit", "Limit", raw.limit, placeholder="none"),
    )


def _step_fields(state: SimState, choice: StepChoice, errors: dict[str, str]) -> StepFields:
    field = _Fields(state, errors, "What happens next")
    projects = tuple((str(i), p.name) for i, p in enumerate(state.projects))
    pools = tuple((str(i), p.name) for i, p in enumerate(state.pools))
    return StepFields(
        project=field("step-project", "Project", str(choice.project), "select", options=projects),
        pool=(
            field("step-pool", "Node pool", str(choice.pool), "select", options=pools)
            if len(pools) > 1
            else None
        ),
        extra=field("step-extra", "Extra demand (GPUs)", choice.extra, maximum=MAX_DEMAND),
    )


def form_view(state: SimState, errors: dict[str, str], choice: StepChoice) -> FormView:
    pools = []
    for i, pool in enumerate(state.pools):
        field = _Fields(state, errors, f"Node pool {i + 1}")
        pools.append(
            PoolFields(
                index=i,
                number=i + 1,
                name=field(f"pool-{i}-name", "Name", pool.name, "name"),
                gpus=field(f"pool-{i}-gpus", "GPUs", pool.gpus),
                removable=i > 0,
            )
        )
    projects = tuple(_project_fields(i, state, errors) for i in range(len(state.projects)))
    departments = tuple(_department_fields(i, state, errors) for i in range(len(state.departments)))
    step = _step_fields(state, choice, errors)
    fields: list[Field] = []
    for p in pools:
        fields += [p.name, p.gpus]
    for d in departments:
        fields += [d.name, *d.quotas, d.weight, d.limit]
    for pr in projects:
        fields += [pr.name, *pr.quotas, *pr.demands, pr.weight, pr.limit, pr.priority]
        fields.append(pr.department)
    fields += [f for f in (step.project, step.pool, step.extra) if f is not None]
    return FormView(tuple(pools), projects, departments, step, tuple(fields))
