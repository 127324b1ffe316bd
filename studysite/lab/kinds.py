"""What each kind of lab allows: the store, the annex, the socket and the pages ask here.

Two kinds: a ticket's lab, on a simulated cluster of its own, and (in real-cluster mode,
studysite.lab.cluster) `explore`, the same tools on a real cluster. Nothing else names a
kind: a new one is a `LabKind` here and an entry in `kind_of`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from simulators.lab import LabSession, Ticket, UnknownTicketError, load_ticket
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
    - `offers`: whether a lab of this ticket id may be opened on this site now.
    - `ticket`: the ticket a lab of this id runs.
    """

    name: str
    replays: bool
    seeded: bool
    kept: bool
    in_progress: bool
    annexed: bool
    real_cluster: bool
    open: Callable[[str, str, Any], LabSession]
    offers: Callable[[str], bool]
    ticket: Callable[[str], Ticket]


def _open_ticket(session_key: str, ticket: str, state: Any) -> LabSession:
    return LabSession.from_json(state)


def _open_explore(session_key: str, ticket: str, state: Any) -> LabSession:
    return cluster.explore(session_key, state)


def _a_ticket(ticket_id: str) -> bool:
    """Whether the content holds this ticket: its file, looked up alone (every socket's
    handshake asks, on the event loop; listing the folder cost 0.2 ms there)."""
    try:
        load_ticket(ticket_id)
    except UnknownTicketError:
        return False
    return True


TICKET = LabKind(
    "ticket",
    replays=True,
    seeded=True,
    kept=True,
    in_progress=True,
    annexed=True,
    real_cluster=False,
    open=_open_ticket,
    offers=_a_ticket,
    ticket=load_ticket,
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
    offers=lambda ticket_id: cluster.real_mode(),
    ticket=lambda ticket_id: cluster.EXPLORE,
)
# The ids whose labs are not a ticket's; every other id is a ticket's.
_OTHER_KINDS = {cluster.EXPLORE_ID: EXPLORE}


def kind_of(ticket_id: str) -> LabKind:
    """The kind of the lab of this ticket id (a saved row's ticket included)."""
    return _OTHER_KINDS.get(ticket_id, TICKET)


def outside_progress() -> list[str]:
    """The ticket ids whose labs are neither progress nor exported."""
    return [ticket_id for ticket_id, kind in _OTHER_KINDS.items() if not kind.in_progress]


def find(ticket_id: str) -> Ticket | None:
    """The ticket a lab of this id runs, if this site offers it now (explore: in real mode)."""
    kind = kind_of(ticket_id)
    return kind.ticket(ticket_id) if kind.offers(ticket_id) else None


def offered(ticket_id: str) -> bool:
    """Whether a lab of this id may be opened here now."""
    return kind_of(ticket_id).offers(ticket_id)
