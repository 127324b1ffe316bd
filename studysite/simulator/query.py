"""Reading and writing the simulator's URL.

Two spellings reach the page. The form sends one field per value, named as Django's
formsets name them (`p-0-quota-0=8`, prefix `pool`, `d` or `p`, then the row, then the
field; `step-extra=4`; `action=add-project`); links, bookmarks and the address bar use
the compact one:

    /simulator/?pool=24&p=team-a,8,4,1&p=team-b,8,16,2&p=team-c,8,10,1

    pool=24                      one node pool called "default" with 24 GPUs
    pool=default:24&pool=l40s:8  two node pools, name:GPUs
    p=NAME,QUOTA,DEMAND,WEIGHT   a project; with two pools QUOTA and DEMAND are a/b
      [,limit:N][,prio:N][,dept:NAME]   optional limit (GPUs), priority, department
    d=NAME,QUOTA,WEIGHT[,limit:N]       a department (QUOTA a/b with two pools)
    step=PROJECT,N[,POOL]        raise PROJECT's demand by N GPUs and show what the
                                 engine does about it (POOL defaults to the first)

`parse_query` reads either into the plain rows of `state.SimState` (and presses the
form's button, if one was pressed); `to_url` writes the compact one back. Checking the
values is the forms' job (`forms.py`), not this module's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from urllib.parse import quote

from simulators.engine import MAX_DEPARTMENTS, MAX_POOLS, MAX_PROJECTS
from studysite.simulator.state import (
    DEFAULT_STATE,
    DEFAULT_STEP,
    DEPARTMENT_OPTIONS,
    POOL_GPUS,
    POOL_NAMES,
    PROJECT_OPTIONS,
    Parsed,
    Query,
    Row,
    SimState,
    StepChoice,
    clean,
    default_projects,
    department_row,
    first,
    pool_row,
    press,
    project_row,
)

# One formset field: its prefix, row and field name (`p-0-quota-1`, `pool-1-gpus`).
_FORM_KEY_RE = re.compile(r"^(pool|p|d)-(\d{1,2})-([a-z]+(?:-\d)?)$", re.ASCII)
_FORM_ONLY_RE = re.compile(r"^step-[a-z]+$|^action$", re.ASCII)
# The compact spelling's columns after NAME (its options are `state.*_OPTIONS`).
_P_COLUMNS, _D_COLUMNS = ("quota", "demand", "weight"), ("quota", "weight")
_ALIASES = {"max": "limit", "priority": "prio", "department": "dept"}  # older links' spellings
_LIMITS = {"pool": MAX_POOLS, "p": MAX_PROJECTS, "d": MAX_DEPARTMENTS}


def parse_query(query: Query) -> Parsed:
    """Read either spelling; apply the form's button, if one was pressed."""
    embed = first(query, "embed") == "1"
    if any(_FORM_KEY_RE.match(key) or _FORM_ONLY_RE.match(key) for key in query):
        return _read_form(query, embed)
    if not any(key in query for key in ("pool", "p", "d", "step")):
        return Parsed(DEFAULT_STATE, embed=embed)
    state, notes = _read_compact(query)
    return Parsed(state, _choice_for(state), embed=embed, notes=notes)


# ---------------------------------------------------------------------------- the form


def _rows(query: Query) -> dict[str, list[dict[str, str]]]:
    """The formsets' fields grouped into rows, in row order (gaps closed, extra rows cut)."""
    found: dict[str, dict[int, dict[str, str]]] = {"pool": {}, "p": {}, "d": {}}
    for key, values in query.items():
        if (match := _FORM_KEY_RE.match(key)) and values:
            prefix, index, name = match.groups()
            found[prefix].setdefault(int(index), {})[name] = values[0]
    return {
        prefix: [rows[i] for i in sorted(rows)][: _LIMITS[prefix]] for prefix, rows in found.items()
    }


def _read_form(query: Query, embed: bool) -> Parsed:
    rows = _rows(query)
    pools = tuple(
        pool_row(clean(row.get("name", POOL_NAMES[n])), clean(row.get("gpus", POOL_GPUS[n])))
        for n, row in enumerate(rows["pool"] or [{}])
    )
    count = len(pools)
    departments = tuple(department_row(count, **row) for row in rows["d"])
    by_position = {str(i): d["name"] for i, d in enumerate(departments)}
    projects = tuple(
        project_row(count, **(row | {"dept": by_position.get(row.get("dept", ""), "")}))
        for row in rows["p"]
    ) or default_projects(count)
    choice = StepChoice(
        project=_position(first(query, "step-project"), len(projects)),
        pool=_position(first(query, "step-pool"), count),
        extra=clean(first(query, "step-extra", DEFAULT_STEP)),
    )
    state = SimState(pools, projects, departments)
    action = first(query, "action")
    if action == "step":
        pool = pools[choice.pool]["name"] if choice.pool else ""
        step = {"project": projects[choice.project]["name"], "extra": choice.extra, "pool": pool}
        return Parsed(SimState(pools, projects, departments, step), choice, "step",
                      "sim-step-button", True, embed)  # fmt: skip
    state, focus = press(state, action)
    if not focus:
        return Parsed(state, choice, from_form=True, embed=embed)
    choice = StepChoice(
        min(choice.project, len(state.projects) - 1),
        min(choice.pool, len(state.pools) - 1),
        choice.extra,
    )
    return Parsed(state, choice, action, focus, True, embed)


def _position(text: str, count: int) -> int:
    # Bounded before int(): Python refuses more than 4,300 digits with a ValueError.
    digits = text.isascii() and text.isdigit() and len(text) < 10
    return int(text) if digits and int(text) < count else 0


def _choice_for(state: SimState) -> StepChoice:
    if state.step is None:
        return StepChoice()
    names = [p["name"] for p in state.projects]
    pools = [p["name"] for p in state.pools]
    return StepChoice(
        project=names.index(state.step["project"]) if state.step["project"] in names else 0,
        pool=pools.index(state.step["pool"]) if state.step["pool"] in pools else 0,
        extra=state.step["extra"],
    )


# ---------------------------------------------------------------------------- the link


def _read_compact(query: Query) -> tuple[SimState, tuple[str, ...]]:
    notes: list[str] = []

    def kept(key: str, what: str, limit: int) -> list[str]:
        values = list(query.get(key, []))
        if len(values) > limit:
            notes.append(f"Only the first {limit} {what} were kept.")
        return values[:limit]

    pools = tuple(
        _compact_pool(value, index)
        for index, value in enumerate(kept("pool", "node pools", MAX_POOLS) or ["24"])
    )
    count = len(pools)
    projects = tuple(
        project_row(count, **_compact(value, _P_COLUMNS, PROJECT_OPTIONS, count, notes))
        for value in kept("p", "projects", MAX_PROJECTS)
    ) or default_projects(count)
    departments = tuple(
        department_row(count, **_compact(value, _D_COLUMNS, DEPARTMENT_OPTIONS, count, notes))
        for value in kept("d", "departments", MAX_DEPARTMENTS)
    )
    step = None
    if "step" in query:
        fields = [clean(field) for field in first(query, "step").split(",")]
        pool = fields[2] if len(fields) > 2 else ""
        extra = fields[1] if len(fields) > 1 else DEFAULT_STEP
        pool = "" if pool == pools[0]["name"] else pool
        step = {"project": fields[0], "extra": extra, "pool": pool}
    return SimState(pools, projects, departments, step), tuple(notes)


def _compact_pool(value: str, index: int) -> Row:
    name, sep, gpus = value.rpartition(":")
    return pool_row(clean(name) if sep else POOL_NAMES[index], clean(gpus))


def _compact(
    value: str, columns: Sequence[str], options: dict[str, str], pools: int, notes: list[str]
) -> dict[str, str]:
    """`NAME,COLUMN...[,option:VALUE...]` as form fields; a column per pool is `a/b`."""
    fields = value.split(",")
    row = {"name": fields[0]}
    for column, text in zip(columns, fields[1:], strict=False):
        if column == "weight":
            row[column] = text
            continue
        parts = text.split("/")[:pools]
        row |= {f"{column}-{k}": part for k, part in enumerate(parts)}
    for option in fields[1 + len(columns) :]:
        key, _, text = option.partition(":")
        key = _ALIASES.get(key, key)
        if key in options:
            row[options[key]] = text
        elif option.strip():
            notes.append(f"“{clean(option)}” is not a setting the simulator knows: left out.")
    return row


def to_query(state: SimState) -> str:
    """The compact spelling: `pool=24&p=team-a,8,4,1&...` (readable, bookmarkable)."""
    pairs: list[tuple[str, str]] = []
    for index, pool in enumerate(state.pools):
        short = len(state.pools) == 1 and pool["name"] == POOL_NAMES[index]
        pairs.append(("pool", pool["gpus"] if short else f"{pool['name']}:{pool['gpus']}"))

    def per_pool(row: Row, key: str) -> str:
        return "/".join(row[f"{key}-{k}"] for k in range(len(state.pools)))

    def options(row: Row, spelled: Mapping[str, str]) -> list[str]:
        return [f"{key}:{row[name]}" for key, name in spelled.items() if row.get(name)]

    for p in state.projects:
        fields = [p["name"], per_pool(p, "quota"), per_pool(p, "demand"), p["weight"]]
        pairs.append(("p", ",".join(fields + options(p, PROJECT_OPTIONS))))
    for d in state.departments:
        fields = [d["name"], per_pool(d, "quota"), d["weight"]]
        pairs.append(("d", ",".join(fields + options(d, DEPARTMENT_OPTIONS))))
    if state.step is not None:
        fields = [state.step["project"], state.step["extra"]]
        if state.step["pool"] and state.step["pool"] != state.pools[0]["name"]:
            fields.append(state.step["pool"])
        pairs.append(("step", ",".join(fields)))
    return "&".join(f"{key}={quote(value, safe=',:/')}" for key, value in pairs)


def to_url(state: SimState, path: str = "/simulator/") -> str:
    return f"{path}?{to_query(state)}"
