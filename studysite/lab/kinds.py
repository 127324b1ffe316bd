"""What each kind of lab allows: the store, the annex, the socket and the pages ask here.

Two kinds: a ticket's lab, on a simulated cluster of its own, and (in real-cluster mode,
studysite.lab.cluster) `explore`, the same tools on a real cluster. Nothing else names a
kind: a new one is a `LabKind` here and an entry in `kind_of`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from simulators.lab import LabSession, Ticket, list_tickets, load_ticket
from studysite.lab import cluster


@dataclass(frozen=True)
class LabKind:
    """A kind of lab and what it allows.

    - `replays`: its commands can be run again on its snapshot, so a command is saved as a line
      in the log (studysite.lab.saved); otherwise every command is saved as a snapshot (a real
      cluster's commands really happened, and are never run twice).
    - `seeded`: a new lab is its ticket's world for a seed (a fork of a template), which a
      page can show before anything is saved; otherwise a lab is saved from its first open.
    - `kept`: held in this process between opens (studysite.lab.kept).
    - `in_progress`: counted in the learner's progress and carried by the progress file.
    - `annexed`: a heavy session's commands may run in the annex (they spend processor time,
      where a real cluster's wait on the network).
    - `real_cluster`: the page says the commands reach a real cluster.
    - `open`: the lab from its saved state (None: a new one) for a session and ticket.
    """

    name: str
    replays: bool
    seeded: bool
    kept: bool
    in_progress: bool
    annexed: bool
    real_cluster: bool
    open: Callable[[str, str, Any], LabSession]


def _open_ticket(session_key: str, ticket: str, state: Any) -> LabSession:
    return LabSession.from_json(state)


def _open_explore(session_key: str, ticket: str, state: Any) -> LabSession:
    return cluster.explore(session_key, state)


TICKET = LabKind(
    "ticket",
    replays=True,
    seeded=True,
    kept=True,
    in_progress=True,
    annexed=True,
    real_cluster=False,
    open=_open_ticket,
)
EXPLORE = LabKind(
    "explore",
    replays=False,
    seeded=False,
    kept=False,
    in_progress=False,
    annexed=False,
    real_cluster=True,
    open=_open_explore,
)


def kind_of(ticket_id: str) -> LabKind:
    """The kind of the lab of this ticket id (a saved row's ticket included)."""
    return EXPLORE if ticket_id == cluster.EXPLORE_ID else TICKET


def outside_progress() -> list[str]:
    """The ticket ids whose labs are neither progress nor exported."""
    return [cluster.EXPLORE_ID]


def find(ticket_id: str) -> Ticket | None:
    """The ticket a lab of this id runs, if this site offers it now (explore: in real mode)."""
    if ticket_id == cluster.EXPLORE_ID:
        return cluster.EXPLORE if cluster.real_mode() else None
    if ticket_id not in {ticket.id for ticket in list_tickets()}:
        return None
    return load_ticket(ticket_id)


def offered(ticket_id: str) -> bool:
    """Whether a lab of this id may be opened here now."""
    if ticket_id == cluster.EXPLORE_ID:
        return cluster.real_mode()
    return ticket_id in {ticket.id for ticket in list_tickets()}
