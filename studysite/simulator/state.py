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

This module holds that state as plain data, kept as the text the reader gave, so a
bad value comes back beside its field with a message while every other value stays.
`query` reads and writes the URL, `form` reads the form and builds it, and `check`
turns the text into the engine's scenario. Nothing here knows about Django.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

MAX_RAW = 40
DEFAULT_STEP = "4"
POOL_NAMES = ("default", "l40s")
POOL_GPUS = ("24", "8")
PROJECT_NAMES = ("team-a", "team-b", "team-c", "team-d", "team-e", "team-f", "team-g", "team-h")
DEPARTMENT_NAMES = ("research", "product", "platform", "ops")

_SAFE = frozenset(string.ascii_letters + string.digits + "-._~")

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


# ---------------------------------------------------------------------------- text


def clean(value: str) -> str:
    """Text as kept in the state: trimmed, at most MAX_RAW characters, URL-safe."""
    return "".join(ch if ch in _SAFE else "_" for ch in value.strip()[:MAX_RAW])


def canon(value: str, blank: str = "") -> str:
    """Optional values ("" means none); priority 0 is spelled as nothing."""
    value = clean(value)
    return "" if value == blank else value


def per_pool(text: str, pools: int) -> tuple[str, ...]:
    parts = [clean(part) for part in text.split("/")][:pools]
    return (*parts, *["0"] * (pools - len(parts)))


def first(query: Query, key: str, default: str = "") -> str:
    values = query.get(key)
    return values[0] if values else default


def default_state(pools: int = 1) -> SimState:
    """The guide's three projects, with zeros in any second pool."""
    return SimState(
        DEFAULT_STATE.pools,
        tuple(
            replace(p, quota=pad(p.quota, pools), demand=pad(p.demand, pools))
            for p in DEFAULT_STATE.projects
        ),
    )


def pad(values: tuple[str, ...], pools: int) -> tuple[str, ...]:
    return (*values[:pools], *["0"] * (pools - len(values)))
