"""Reading and writing the simulator's URL (the compact spelling in state.py's notes).

A request carries either the compact spelling (links, bookmarks) or the form's
fields; `parse_query` reads either, and `to_url` writes the compact one back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import quote

from simulators.engine import MAX_DEPARTMENTS, MAX_POOLS, MAX_PROJECTS
from studysite.simulator.form import apply_button, choice_for, read_form
from studysite.simulator.state import (
    DEFAULT_STATE,
    DEFAULT_STEP,
    POOL_NAMES,
    Parsed,
    Query,
    RawDepartment,
    RawPool,
    RawProject,
    RawStep,
    SimState,
    canon,
    clean,
    default_state,
    first,
    per_pool,
)

_FORM_KEY_RE = re.compile(r"^(?:pool|p|d)-\d{1,2}-[a-z]+(?:-\d)?$|^step-[a-z]+$|^action$", re.ASCII)


def parse_query(query: Query) -> Parsed:
    """Read either spelling; apply the form's button, if one was pressed."""
    embed = first(query, "embed") == "1"
    if any(_FORM_KEY_RE.match(key) for key in query):
        return apply_button(read_form(query), embed)
    if not any(key in query for key in ("pool", "p", "d", "step")):
        return Parsed(DEFAULT_STATE, embed=embed)
    state, notes = _read_compact(query)
    return Parsed(state, choice_for(state), embed=embed, notes=notes)


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
        fields = first(query, "step").split(",")
        pool = clean(fields[2]) if len(fields) > 2 else ""
        step = RawStep(
            clean(fields[0]),
            clean(fields[1]) if len(fields) > 1 else DEFAULT_STEP,
            "" if pool == pools[0].name else pool,
        )
    return SimState(pools, projects, departments, step), tuple(notes)


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
        quota=per_pool(fields[1] if len(fields) > 1 else "0", pools),
        demand=per_pool(fields[2] if len(fields) > 2 else "0", pools),
        weight=clean(fields[3]) if len(fields) > 3 else "1",
        limit=canon(options.get("limit", "")),
        priority=canon(options.get("prio", ""), "0"),
        department=canon(options.get("dept", "")),
    )


def _compact_department(value: str, pools: int, notes: list[str]) -> RawDepartment:
    fields = value.split(",")
    options = _options(fields[3:], {"limit"}, notes)
    return RawDepartment(
        name=clean(fields[0]),
        quota=per_pool(fields[1] if len(fields) > 1 else "0", pools),
        weight=clean(fields[2]) if len(fields) > 2 else "1",
        limit=canon(options.get("limit", "")),
    )


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
