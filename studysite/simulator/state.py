"""The simulator's whole setup as plain data, and what its buttons do to it.

The setup is kept as the text the reader gave, one row per node pool, department and
project, each row keyed by its form field's name (`name`, `quota-0`, `weight`, ...), so a
bad value comes back beside its field with a message while every other value stays.
A project's department and the step's project and pool are held by *name* here (the
form chooses them by position). `query` reads and writes the URL, `forms` checks the
rows as Django forms. Nothing here knows about Django.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from simulators.engine import MAX_DEPARTMENTS, MAX_POOLS, MAX_PROJECTS

MAX_RAW = 40
DEFAULT_STEP = "4"
POOL_NAMES = ("default", "l40s")
POOL_GPUS = ("24", "8")
PROJECT_NAMES = ("team-a", "team-b", "team-c", "team-d", "team-e", "team-f", "team-g", "team-h")
DEPARTMENT_NAMES = ("research", "product", "platform", "ops")

_SAFE = frozenset(string.ascii_letters + string.digits + "-._~")

Query = Mapping[str, Sequence[str]]
Row = Mapping[str, str]

# Each row's optional settings: how a link spells one (`limit:8`), and its form field.
# A new optional field is one entry here and one field on its form (`forms.py`).
PROJECT_OPTIONS = {"limit": "limit", "prio": "priority", "dept": "dept"}
DEPARTMENT_OPTIONS = {"limit": "limit"}


@dataclass(frozen=True)
class SimState:
    """Everything the URL holds, as text.

    A pool row has `name` and `gpus`; a department row `name`, `quota-K` per pool,
    `weight`, `limit`; a project row also `demand-K`, `priority` and `dept`; the step
    `project`, `extra` and `pool` ("" for the first pool).
    """

    pools: tuple[Row, ...]
    projects: tuple[Row, ...]
    departments: tuple[Row, ...] = ()
    step: Row | None = None


@dataclass(frozen=True)
class StepChoice:
    """What the step controls show: project and pool by position, and the +N text."""

    project: int = 0
    pool: int = 0
    extra: str = DEFAULT_STEP


@dataclass(frozen=True)
class Step:
    """Raise `project`'s demand in `pool` by `extra` GPUs (the engine's `step_demand`)."""

    project: str
    pool: str
    extra: int


@dataclass(frozen=True)
class Parsed:
    """A request's query, read: the state after any button's action, and how it came."""

    state: SimState
    choice: StepChoice = StepChoice()
    action: str = ""
    focus: str = ""
    from_form: bool = False
    embed: bool = False
    notes: tuple[str, ...] = ()

    @property
    def reshapes(self) -> bool:
        """True when a button changed the form itself (so the whole simulator is redrawn)."""
        return bool(self.action)

    @property
    def anchor(self) -> str:
        """Where a page without JavaScript lands after a button: the step's story, or focus."""
        return "sim-step-result" if self.action == "step" else self.focus


# ---------------------------------------------------------------------------- rows


def clean(value: str) -> str:
    """Text as kept in the state: trimmed, at most MAX_RAW characters, URL-safe."""
    return "".join(ch if ch in _SAFE else "_" for ch in value.strip()[:MAX_RAW])


def first(query: Query, key: str, default: str = "") -> str:
    values = query.get(key)
    return values[0] if values else default


def pool_row(name: str, gpus: str) -> Row:
    return {"name": name, "gpus": gpus}


def department_row(pools: int, **values: str) -> Row:
    """A department's row: every field present, text cleaned, optional ones canonical."""
    defaults = {"name": "", **_per_pool("quota", pools), "weight": "1"}
    return _row(defaults | dict.fromkeys(DEPARTMENT_OPTIONS.values(), ""), values)


def project_row(pools: int, **values: str) -> Row:
    defaults = {"name": "", **_per_pool("quota", pools), **_per_pool("demand", pools)}
    defaults |= {"weight": "1"} | dict.fromkeys(PROJECT_OPTIONS.values(), "")
    return _row(defaults, values)


def _per_pool(key: str, pools: int) -> dict[str, str]:
    return {f"{key}-{k}": "0" for k in range(pools)}


def _row(defaults: dict[str, str], values: Mapping[str, str]) -> Row:
    row = {key: clean(values.get(key, default)) for key, default in defaults.items()}
    if row.get("priority") == "0":
        row["priority"] = ""  # priority 0 is spelled as nothing
    return row


DEFAULT_STATE = SimState(
    pools=(pool_row("default", "24"),),
    projects=tuple(
        project_row(1, name=name, **{"quota-0": "8", "demand-0": demand}, weight=weight)
        for name, demand, weight in (
            ("team-a", "4", "1"),
            ("team-b", "16", "2"),
            ("team-c", "10", "1"),
        )
    ),
)


def default_projects(pools: int) -> tuple[Row, ...]:
    """The guide's three projects, with zeros in any second pool."""
    return tuple(project_row(pools, **p) for p in DEFAULT_STATE.projects)


# ---------------------------------------------------------------------------- buttons


def press(state: SimState, action: str) -> tuple[SimState, str]:
    """The state after a reshaping button (`add-project`, `remove-pool-1`, ...), and the
    id to focus next; an unknown action changes nothing (and focuses nothing)."""
    verb, _, rest = action.partition("-")
    noun, _, number = rest.partition("-")
    button = _BUTTONS.get((verb, noun))
    if button is None or (number and not (number.isdigit() and len(number) <= 2)):
        return state, ""
    return button(state, int(number) if number else -1)


def _unused(taken: set[str], candidates: Sequence[str], stem: str) -> str:
    for name in candidates:
        if name not in taken:
            return name
    number = 1
    while f"{stem}-{number}" in taken:
        number += 1
    return f"{stem}-{number}"


def _names(state: SimState) -> set[str]:
    return {p["name"] for p in state.projects} | {d["name"] for d in state.departments}


def _add_project(state: SimState, _: int) -> tuple[SimState, str]:
    if len(state.projects) >= MAX_PROJECTS:
        return state, "sim-add-project"
    name = _unused(_names(state), PROJECT_NAMES, "team")
    project = project_row(len(state.pools), name=name, **{"demand-0": "4"})
    focus = f"p-{len(state.projects)}-name"
    return replace(state, projects=(*state.projects, project), step=None), focus


def _remove_project(state: SimState, index: int) -> tuple[SimState, str]:
    if len(state.projects) <= 1 or not 0 <= index < len(state.projects):
        return state, "sim-add-project"
    projects = state.projects[:index] + state.projects[index + 1 :]
    return replace(state, projects=projects, step=None), "sim-add-project"


def _add_pool(state: SimState, _: int) -> tuple[SimState, str]:
    if len(state.pools) >= MAX_POOLS:
        return state, "sim-add-pool"
    k = len(state.pools)
    name = _unused({p["name"] for p in state.pools}, POOL_NAMES, "pool")
    return (
        SimState(
            (*state.pools, pool_row(name, POOL_GPUS[1])),
            tuple(project_row(k + 1, **p) for p in state.projects),
            tuple(department_row(k + 1, **d) for d in state.departments),
        ),
        f"pool-{k}-name",
    )


def _drop_pool(row: Row, index: int, count: int) -> dict[str, str]:
    """The row without pool `index`'s values, the later pools' values moved down."""
    kept = {key: value for key, value in row.items() if not key[-1:].isdigit()}
    for key in ("quota", "demand"):
        values = [row[f"{key}-{k}"] for k in range(count) if k != index and f"{key}-{k}" in row]
        kept |= {f"{key}-{k}": value for k, value in enumerate(values)}
    return kept


def _remove_pool(state: SimState, index: int) -> tuple[SimState, str]:
    count = len(state.pools)
    if count <= 1 or not 0 <= index < count:
        return state, "sim-add-pool"
    return (
        SimState(
            state.pools[:index] + state.pools[index + 1 :],
            tuple(_drop_pool(p, index, count) for p in state.projects),
            tuple(_drop_pool(d, index, count) for d in state.departments),
        ),
        "sim-add-pool",
    )


def _add_department(state: SimState, _: int) -> tuple[SimState, str]:
    if len(state.departments) >= MAX_DEPARTMENTS:
        return state, "sim-add-department"
    name = _unused(_names(state), DEPARTMENT_NAMES, "dept")
    department = department_row(len(state.pools), name=name)
    focus = f"d-{len(state.departments)}-name"
    return replace(state, departments=(*state.departments, department), step=None), focus


def _remove_department(state: SimState, index: int) -> tuple[SimState, str]:
    if not 0 <= index < len(state.departments):
        return state, "sim-add-department"
    gone = state.departments[index]["name"]
    return (
        SimState(
            state.pools,
            tuple({**p, "dept": ""} if p["dept"] == gone else p for p in state.projects),
            state.departments[:index] + state.departments[index + 1 :],
        ),
        "sim-add-department",
    )


_BUTTONS: dict[tuple[str, str], Callable[[SimState, int], tuple[SimState, str]]] = {
    ("add", "project"): _add_project,
    ("remove", "project"): _remove_project,
    ("add", "pool"): _add_pool,
    ("remove", "pool"): _remove_pool,
    ("add", "department"): _add_department,
    ("remove", "department"): _remove_department,
}


def after_step(state: SimState, step: Step) -> SimState:
    """The state with the step's extra demand added: the form shows this after a step."""
    k = next(i for i, pool in enumerate(state.pools) if pool["name"] == step.pool)

    def raised(project: Row) -> Row:
        if project["name"] != step.project:
            return project
        key = f"demand-{k}"
        return {**project, key: str(int(float(project[key])) + step.extra)}

    return SimState(state.pools, tuple(raised(p) for p in state.projects), state.departments)
