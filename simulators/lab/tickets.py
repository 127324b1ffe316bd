"""Tickets: the YAML in content/tickets/<id>.yaml (story, checklist, hints, answer key, world).

The checks themselves are code (simulators.lab.checks), keyed by ticket and
checklist id; loading a ticket fails loudly if an item has no check, so a typo
in the YAML cannot make an item silently impossible.
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from simulators.lab import checks
from simulators.lab.errors import LabError, UnknownTicketError

# repo root = the folder that holds simulators/ and content/
CONTENT_DIR = Path(__file__).resolve().parents[2] / "content"
TICKET_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


@dataclass(frozen=True)
class ChecklistDef:
    id: str
    text: str


@dataclass(frozen=True)
class Ticket:
    id: str
    title: str
    story: str
    checklist: tuple[ChecklistDef, ...]
    hints: tuple[str, ...]
    answer_key: tuple[str, ...]
    world: dict[str, Any] = field(default_factory=dict)
    order: int = 0
    summary: str = ""
    skills: tuple[str, ...] = ()
    minutes: int = 0


@dataclass(frozen=True)
class TicketSummary:
    """What the lab index shows of a ticket before it is opened."""

    id: str
    title: str
    order: int
    summary: str = ""
    skills: tuple[str, ...] = ()
    minutes: int = 0


def tickets_dir(content_dir: Path | None = None) -> Path:
    return (content_dir or CONTENT_DIR) / "tickets"


def list_tickets(content_dir: Path | None = None) -> list[TicketSummary]:
    """Every ticket, in the order the guide presents them."""
    folder = tickets_dir(content_dir)
    files = tuple((path, path.stat().st_mtime_ns) for path in sorted(folder.glob("*.yaml")))
    return list(_summaries(files, content_dir))


@functools.lru_cache(maxsize=8)
def _summaries(
    files: tuple[tuple[Path, int], ...], content_dir: Path | None
) -> tuple[TicketSummary, ...]:
    """The summaries of these versions of the ticket files, built once: a lab page lists the
    tickets twice (is it offered, which is next), and building each ticket again for that cost
    a fresh learner's page load 4 ms of processor time."""
    out = []
    for path, _ in files:
        ticket = load_ticket(path.stem, content_dir)
        out.append(
            TicketSummary(
                ticket.id, ticket.title, ticket.order, ticket.summary, ticket.skills, ticket.minutes
            )
        )
    return tuple(sorted(out, key=lambda t: (t.order, t.id)))


def load_ticket(ticket_id: str, content_dir: Path | None = None) -> Ticket:
    if not isinstance(ticket_id, str) or not TICKET_ID.match(ticket_id):
        raise UnknownTicketError(f"unknown ticket {ticket_id!r}")
    path = tickets_dir(content_dir) / f"{ticket_id}.yaml"
    if not path.is_file():
        raise UnknownTicketError(f"unknown ticket {ticket_id!r}")
    return _built(ticket_id, path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _built(ticket_id: str, path: Path, mtime_ns: int) -> Ticket:
    """The ticket of this version of its file, one object every lab of it shares (a copy per
    lab was 2.5 KB of each kept lab). A Ticket is frozen; its world spec, the one mutable part,
    is only ever read (building the world copies what it takes: test_lab_tickets checks the spec
    after every ticket's answer key). Built from a deep copy of the parsed file, which stays
    as read."""
    return _ticket(ticket_id, copy.deepcopy(_parsed(path, mtime_ns)))


@functools.lru_cache(maxsize=64)
def _parsed(path: Path, mtime_ns: int) -> Any:
    """A ticket file's YAML, parsed once per version of the file: opening a saved lab
    (every page view and websocket connect) must not pay for a YAML parse."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise LabError(f"ticket {path.stem}: invalid YAML: {exc}") from None


def _ticket(ticket_id: str, data: Any) -> Ticket:
    if not isinstance(data, dict):
        raise LabError(f"ticket {ticket_id}: expected a mapping")
    if data.get("id") != ticket_id:
        raise LabError(f"ticket {ticket_id}: id field must be {ticket_id!r}")
    for key in ("title", "story", "checklist", "hints", "answer_key"):
        if key not in data:
            raise LabError(f"ticket {ticket_id}: missing {key}")
    items = []
    for raw in data["checklist"]:
        if not isinstance(raw, dict) or "id" not in raw or "text" not in raw:
            raise LabError(f"ticket {ticket_id}: checklist items need id and text")
        item = ChecklistDef(str(raw["id"]), str(raw["text"]))
        if not checks.has_check(ticket_id, item.id):
            raise LabError(f"ticket {ticket_id}: no check for checklist item {item.id!r}")
        items.append(item)
    if len({i.id for i in items}) != len(items):
        raise LabError(f"ticket {ticket_id}: checklist ids must be unique")
    skills = data.get("skills") or []
    if not isinstance(skills, list) or not all(isinstance(skill, str) for skill in skills):
        raise LabError(f"ticket {ticket_id}: skills must be a list of text")
    minutes = data.get("minutes", 0)
    if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes < 0:
        raise LabError(f"ticket {ticket_id}: minutes must be a whole number")
    return Ticket(
        id=ticket_id,
        title=str(data["title"]),
        story=str(data["story"]),
        checklist=tuple(items),
        hints=tuple(str(h) for h in data["hints"]),
        answer_key=tuple(str(c) for c in data["answer_key"]),
        world=dict(data.get("world") or {}),
        order=int(data.get("order", 0)),
        summary=str(data.get("summary") or "").strip(),
        skills=tuple(skills),
        minutes=minutes,
    )
