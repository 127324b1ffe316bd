"""The simulator's whole setup as plain data, read from and written to a URL.

Two spellings reach the page. The form sends one field per value (`p-0-quota-0=8`,
`action=add-project`); links, bookmarks and the address bar use the compact one:

    /simulator/?pool=24&p=team-a,8,4,1&p=team-b,8,16,2&p=team-c,8,10,1

    pool=24                      one node pool called "default" with 24 GPUs
    pool=default:24&pool=l40s:8  two node pools, name:GPUs
    p=NAME,QUOTA,DEMAND,WEIGHT   a project; with two pools QUOTA and DEMAND are a/b
      [,limit:N][,prio:N][,dept:NAME]   optional limit (GPUs), priority, department
    d=NAME,QUOTA,WEIGHT[,limit:N]       a department (QUOTA a/b with two pools)
    step=PROJECT,N[,POOL]        raise PROJECT's demand by N GPUs and show what the
                                 engine does about it (POOL defaults to the first)

Values are kept as the text the reader gave, so a bad one comes back beside its field
with a message while every other value stays; `check` turns the text into numbers.
Nothing here knows about Django or the engine.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from urllib.parse import quote

MAX_POOLS = 2
MAX_PROJECTS = 8
MAX_DEPARTMENTS = 4
# The largest setup these allow (2 pools of 1024 GPUs, 256 GPUs of demand in each, 8
# projects) answers in under 100 ms (bench_simulator); 4096 and 4096 took 1.1-1.5 s.
MAX_POOL_GPUS = 1024
MAX_DEMAND = 1024
# All projects' demand in one pool.
MAX_TOTAL_DEMAND = 256
MAX_WEIGHT = 100
MAX_PRIORITY = 100
MAX_RAW = 40
DEFAULT_STEP = "4"
POOL_NAMES = ("default", "l40s")
POOL_GPUS = ("24", "8")
PROJECT_NAMES = ("team-a", "team-b", "team-c", "team-d", "team-e", "team-f", "team-g", "team-h")
DEPARTMENT_NAMES = ("research", "product", "platform", "ops")

NAME_RE = re.compile(r"^[a-z](?:[a-z0-9-]{0,28}[a-z0-9])?$")
_SAFE = frozenset(string.ascii_letters + string.digits + "-._~")
_ACTION_RE = re.compile(r"^(add|remove)-(project|pool|department)(?:-(\d{1,2}))?$", re.ASCII)
_FORM_KEY_RE = re.compile(r"^(?:pool|p|d)-\d{1,2}-[a-z]+(?:-\d)?$|^step-[a-z]+$|^action$", re.ASCII)
# Plain decimal numbers only: Decimal() alone would also take "1_000", "NaN" or "Infinity".
_NUMBER_RE = re.compile(r"^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,4})?$", re.ASCII)

Query = Mapping[str, Sequence[str]]


@dataclass(frozen=True)
class RawPool:
    name: str
    gpus: str


@dataclass(frozen=True)
class RawProject:
    name: str
    quota: tuple[str, ...]
    demand: tuple[str, ...]
    weight: str = "1"
    limit: str = ""
    priority: str = ""
    department: str = ""


@dataclass(frozen=True)
class RawDepartment:
    name: str
    quota: tuple[str, ...]
    weight: str = "1"
    limit: str = ""


@dataclass(frozen=True)
class RawStep:
    project: str
    extra: str
    pool: str = ""


@dataclass(frozen=True)
class SimState:
    """Everything the URL holds, as text."""

    pools: tuple[RawPool, ...]
    projects: tuple[RawProject, ...]
    departments: tuple[RawDepartment, ...] = ()
    step: RawStep | None = None


DEFAULT_STATE = SimState(
    pools=(RawPool("default", "24"),),
    projects=(
        RawProject("team-a", ("8",), ("4",), "1"),
        RawProject("team-b", ("8",), ("16",), "2"),
        RawProject("team-c", ("8",), ("10",), "1"),
    ),
)


@dataclass(frozen=True)
class StepChoice:
    """What the step controls show: project and pool by position, and the +N text."""

    project: int = 0
    pool: int = 0
    extra: str = DEFAULT_STEP


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


# ---------------------------------------------------------------------------- reading


def clean(value: str) -> str:
    """Text as kept in the state: trimmed, at most MAX_RAW characters, URL-safe."""
    return "".join(ch if ch in _SAFE else "_" for ch in value.strip()[:MAX_RAW])


def _canon(value: str, blank: str = "") -> str:
    """Optional values ("" means none); priority 0 is spelled as nothing."""
    value = clean(value)
    return "" if value == blank else value


def _per_pool(text: str, pools: int) -> tuple[str, ...]:
    parts = [clean(part) for part in text.split("/")][:pools]
    return (*parts, *["0"] * (pools - len(parts)))


def _first(query: Query, key: str, default: str = "") -> str:
    values = query.get(key)
    return values[0] if values else default


def parse_query(query: Query) -> Parsed:
    """Read either spelling; apply the form's button, if one was pressed."""
    embed = _first(query, "embed") == "1"
    if any(_FORM_KEY_RE.match(key) for key in query):
        return _apply(_read_form(query), embed)
    if not any(key in query for key in ("pool", "p", "d", "step")):
        return Parsed(DEFAULT_STATE, embed=embed)
    state, notes = _read_compact(query)
    return Parsed(state, _choice_for(state), embed=embed, notes=notes)


def _read_compact(query: Query) -> tuple[SimState, tuple[str, ...]]:
    notes: list[str] = []
    pool_values = list(query.get("pool", [])) or ["24"]
    if len(pool_values) > MAX_POOLS:
        notes.append(f"Only the first {MAX_POOLS} node pools were kept.")
    pools = tuple(
        _compact_pool(value, index) for index, value in enumerate(pool_values[:MAX_POOLS])
    )
    count = len(pools)
    project_values = list(query.get("p", []))
    if len(project_values) > MAX_PROJECTS:
        notes.append(f"Only the first {MAX_PROJECTS} projects were kept.")
    projects = (
        tuple(_compact_project(value, count, notes) for value in project_values[:MAX_PROJECTS])
        or default_state(count).projects
    )
    dept_values = list(query.get("d", []))
    if len(dept_values) > MAX_DEPARTMENTS:
        notes.append(f"Only the first {MAX_DEPARTMENTS} departments were kept.")
    departments = tuple(
        _compact_department(value, count, notes) for value in dept_values[:MAX_DEPARTMENTS]
    )
    step = None
    if "step" in query:
        fields = _first(query, "step").split(",")
        pool = clean(fields[2]) if len(fields) > 2 else ""
        step = RawStep(
            clean(fields[0]),
            clean(fields[1]) if len(fields) > 1 else DEFAULT_STEP,
            "" if pool == pools[0].name else pool,
        )
    return SimState(pools, projects, departments, step), tuple(notes)


def default_state(pools: int = 1) -> SimState:
    """The guide's three projects, with zeros in any second pool."""
    return SimState(
        DEFAULT_STATE.pools,
        tuple(
            replace(p, quota=_pad(p.quota, pools), demand=_pad(p.demand, pools))
            for p in DEFAULT_STATE.projects
        ),
    )


def _pad(values: tuple[str, ...], pools: int) -> tuple[str, ...]:
    return (*values[:pools], *["0"] * (pools - len(values)))


def _compact_pool(value: str, index: int) -> RawPool:
    name, sep, gpus = value.rpartition(":")
    return RawPool(clean(name) if sep else POOL_NAMES[index], clean(gpus))


def _options(fields: Sequence[str], known: set[str], notes: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for option in fields:
        key, _, value = option.partition(":")
        key = {"priority": "prio", "department": "dept", "max": "limit"}.get(key, key)
        if key in known:
            options[key] = value
        elif option.strip():
            notes.append(f"“{clean(option)}” is not a setting the simulator knows: left out.")
    return options


def _compact_project(value: str, pools: int, notes: list[str]) -> RawProject:
    fields = value.split(",")
    options = _options(fields[4:], {"limit", "prio", "dept"}, notes)
    return RawProject(
        name=clean(fields[0]),
        quota=_per_pool(fields[1] if len(fields) > 1 else "0", pools),
        demand=_per_pool(fields[2] if len(fields) > 2 else "0", pools),
        weight=clean(fields[3]) if len(fields) > 3 else "1",
        limit=_canon(options.get("limit", "")),
        priority=_canon(options.get("prio", ""), "0"),
        department=_canon(options.get("dept", "")),
    )


def _compact_department(value: str, pools: int, notes: list[str]) -> RawDepartment:
    fields = value.split(",")
    options = _options(fields[3:], {"limit"}, notes)
    return RawDepartment(
        name=clean(fields[0]),
        quota=_per_pool(fields[1] if len(fields) > 1 else "0", pools),
        weight=clean(fields[2]) if len(fields) > 2 else "1",
        limit=_canon(options.get("limit", "")),
    )


def _indices(query: Query, prefix: str, limit: int) -> list[int]:
    pattern = re.compile(rf"^{prefix}-(\d{{1,2}})-", re.ASCII)
    found = {int(m.group(1)) for key in query if (m := pattern.match(key))}
    return sorted(found)[:limit]


def _read_form(query: Query) -> tuple[SimState, StepChoice, str]:
    def get(key: str, default: str = "") -> str:
        return clean(_first(query, key, default))

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
            limit=_canon(_first(query, f"d-{i}-limit")),
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
                limit=_canon(_first(query, f"p-{i}-limit")),
                priority=_canon(_first(query, f"p-{i}-priority"), "0"),
                department=dept_by_field.get(_first(query, f"p-{i}-dept"), ""),
            )
            for i in _indices(query, "p", MAX_PROJECTS)
        )
        or default_state(count).projects
    )
    choice = StepChoice(
        project=_position(_first(query, "step-project"), len(projects)),
        pool=_position(_first(query, "step-pool"), count),
        extra=get("step-extra", DEFAULT_STEP),
    )
    action = _first(query, "action")
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


def _choice_for(state: SimState) -> StepChoice:
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


def _apply(read: tuple[SimState, StepChoice, str], embed: bool) -> Parsed:
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


# ---------------------------------------------------------------------------- writing


def to_query(state: SimState) -> str:
    """The compact spelling: `pool=24&p=team-a,8,4,1&...` (readable, bookmarkable)."""
    pairs: list[tuple[str, str]] = []
    for index, pool in enumerate(state.pools):
        short = len(state.pools) == 1 and pool.name == POOL_NAMES[index] and pool.name
        pairs.append(("pool", pool.gpus if short else f"{pool.name}:{pool.gpus}"))
    for project in state.projects:
        fields = [project.name, "/".join(project.quota), "/".join(project.demand), project.weight]
        if project.limit:
            fields.append(f"limit:{project.limit}")
        if project.priority:
            fields.append(f"prio:{project.priority}")
        if project.department:
            fields.append(f"dept:{project.department}")
        pairs.append(("p", ",".join(fields)))
    for dept in state.departments:
        fields = [dept.name, "/".join(dept.quota), dept.weight]
        if dept.limit:
            fields.append(f"limit:{dept.limit}")
        pairs.append(("d", ",".join(fields)))
    if state.step is not None:
        fields = [state.step.project, state.step.extra]
        if state.step.pool and state.step.pool != state.pools[0].name:
            fields.append(state.step.pool)
        pairs.append(("step", ",".join(fields)))
    return "&".join(f"{key}={quote(value, safe=',:/')}" for key, value in pairs)


def to_url(state: SimState, path: str = "/simulator/") -> str:
    return f"{path}?{to_query(state)}"


# ---------------------------------------------------------------------------- checking


@dataclass(frozen=True)
class Pool:
    name: str
    gpus: int


@dataclass(frozen=True)
class Project:
    name: str
    quota: tuple[int, ...]
    demand: tuple[int, ...]
    weight: float
    limit: int | None = None
    priority: int = 0
    department: str | None = None


@dataclass(frozen=True)
class Department:
    name: str
    quota: tuple[int, ...]
    weight: float
    limit: int | None = None


@dataclass(frozen=True)
class Step:
    project: str
    pool: str
    extra: int


@dataclass(frozen=True)
class Setup:
    """The checked setup, in numbers: what the engine is given."""

    pools: tuple[Pool, ...]
    projects: tuple[Project, ...]
    departments: tuple[Department, ...] = ()
    step: Step | None = None


@dataclass(frozen=True)
class Checked:
    """The state with its numbers; `setup` is None while a value needs fixing.

    `errors` maps a form field's id to its message; `form_errors` are about several
    fields at once. A bad step value only drops the step, not the result.
    """

    state: SimState
    setup: Setup | None
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


def check(state: SimState) -> Checked:
    """Turn the text into numbers, with a message for each value that needs fixing."""
    c = _Checker()
    pool_names: set[str] = set()
    pools = []
    for i, raw in enumerate(state.pools):
        name = c.name(raw.name, f"pool-{i}-name", "node pool", pool_names, "node pool")
        pools.append(Pool(name, c.whole(raw.gpus, f"pool-{i}-gpus", MAX_POOL_GPUS) or 0))
    names: set[str] = set()
    departments = [
        Department(
            c.name(raw.name, f"d-{i}-name", "department", names, _CLASH),
            tuple(
                c.whole(q, f"d-{i}-quota-{k}", MAX_POOL_GPUS) or 0 for k, q in enumerate(raw.quota)
            ),
            c.weight(raw.weight, f"d-{i}-weight") or 0.0,
            c.optional(raw.limit, f"d-{i}-limit", MAX_POOL_GPUS),
        )
        for i, raw in enumerate(state.departments)
    ]
    dept_names = {d.name for d in departments}
    projects = []
    for i, rp in enumerate(state.projects):
        if rp.department and rp.department not in dept_names:
            c.errors[f"p-{i}-dept"] = f"There is no department called “{rp.department}”."
        projects.append(
            Project(
                c.name(rp.name, f"p-{i}-name", "project", names, _CLASH),
                tuple(
                    c.whole(q, f"p-{i}-quota-{k}", MAX_POOL_GPUS) or 0
                    for k, q in enumerate(rp.quota)
                ),
                tuple(
                    c.whole(d, f"p-{i}-demand-{k}", MAX_DEMAND) or 0
                    for k, d in enumerate(rp.demand)
                ),
                c.weight(rp.weight, f"p-{i}-weight") or 0.0,
                c.optional(rp.limit, f"p-{i}-limit", MAX_POOL_GPUS),
                c.optional(rp.priority, f"p-{i}-priority", MAX_PRIORITY, unit="") or 0,
                rp.department or None,
            )
        )
    form_errors = tuple(
        f"All projects' demand in node pool {pool.name} adds up to {total} GPUs; the "
        f"simulator takes at most {MAX_TOTAL_DEMAND} in one pool."
        for k, pool in enumerate(pools)
        if (total := sum(p.demand[k] for p in projects)) > MAX_TOTAL_DEMAND
    )
    if c.errors or form_errors:
        return Checked(state, None, dict(c.errors), form_errors)
    setup = Setup(tuple(pools), tuple(projects), tuple(departments))
    step = _check_step(state.step, setup, c)
    return Checked(state, replace(setup, step=step), dict(c.errors))


def _check_step(raw: RawStep | None, setup: Setup, c: _Checker) -> Step | None:
    if raw is None:
        return None
    names = [p.name for p in setup.projects]
    pools = [p.name for p in setup.pools]
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
    k = pools.index(pool)
    project = setup.projects[names.index(raw.project)]
    total = sum(p.demand[k] for p in setup.projects) + extra
    if project.demand[k] + extra > MAX_DEMAND or total > MAX_TOTAL_DEMAND:
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
