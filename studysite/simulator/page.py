"""Everything the simulator's template shows, built from a parsed query.

`build_page` is the whole pipeline below the view: check the values, ask the engine
(`results.run_engine`), and lay out the form (each field with its value and message)
beside the result. The form shows the state *after* a step, so stepping again builds
on it, while the shared link keeps the state before the step plus the step itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from simulators.engine import EngineError
from studysite.simulator.presets import PRESETS, Preset
from studysite.simulator.results import ResultView, result_view, run_engine
from studysite.simulator.state import (
    MAX_DEMAND,
    MAX_DEPARTMENTS,
    MAX_POOL_GPUS,
    MAX_POOLS,
    MAX_PRIORITY,
    MAX_PROJECTS,
    MAX_WEIGHT,
    Parsed,
    SimState,
    StepChoice,
    after_step,
    check,
    to_url,
)


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


@dataclass(frozen=True)
class ErrorLink:
    target: str
    text: str


@dataclass(frozen=True)
class SimPage:
    form: FormView
    result: ResultView | None
    error_links: tuple[ErrorLink, ...]
    form_errors: tuple[str, ...]
    notes: tuple[str, ...]
    share_url: str
    live: str
    embed: bool = False
    focus: str = ""
    presets: tuple[Preset, ...] = PRESETS

    @property
    def h(self) -> int:
        """The level of the simulator's own headings (2 on its page, 3 in the guide)."""
        return 3 if self.embed else 2

    @property
    def hsub(self) -> int:
        return self.h + 1

    @property
    def problem_count(self) -> int:
        return len(self.error_links) + len(self.form_errors)


# ---------------------------------------------------------------------------- the form


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


# ---------------------------------------------------------------------------- the page


def _lower_first(label: str) -> str:
    """ "Quota" → "quota", but "GPUs" stays "GPUs"."""
    return label[0].lower() + label[1:] if label[1:2].islower() else label


def build_page(parsed: Parsed) -> SimPage:
    checked = check(parsed.state)
    errors = dict(checked.errors)
    form_errors = list(checked.form_errors)
    form_state = replace(parsed.state, step=None)
    result = None
    if checked.setup is not None:
        try:
            outcome, step = run_engine(checked.setup)
        except EngineError as error:
            form_errors.append(f"The simulator could not run this setup: {error}.")
        else:
            result = result_view(checked.setup, outcome, step)
            if checked.setup.step is not None:
                form_state = after_step(parsed.state, checked.setup.step)
    form = form_view(form_state, errors, parsed.choice)
    links = tuple(
        ErrorLink(f.id, f"{f.group}, {_lower_first(f.full_label)}: {f.error}")
        for f in form.fields
        if f.error
    )
    problems = len(links) + len(form_errors)
    if problems:
        first = links[0].text if links else form_errors[0]
        live = f"{problems} {'value needs' if problems == 1 else 'values need'} fixing. {first}"
    else:
        live = result.summary if result else ""
    return SimPage(
        form=form,
        result=result,
        error_links=links,
        form_errors=tuple(form_errors),
        notes=parsed.notes,
        share_url=to_url(parsed.state),
        live=live,
        embed=parsed.embed,
        focus=parsed.focus,
    )
