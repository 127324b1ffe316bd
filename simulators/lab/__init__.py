"""The lab terminal's domain core: a simulated GPU cluster, its shell and tickets.

Public API (what the web layer calls):

    from simulators.lab import LabSession, list_tickets, load_ticket

    session = LabSession.new("mig-single", seed=42)
    result = session.run("kubectl get nodes")   # CommandResult(output, checklist, step, clear, ...)
    session.complete("kubectl get no")          # ["nodes"]
    session.checklist()                         # [ChecklistItem(id, text, done)]
    data = session.to_json()                    # save; LabSession.from_json(data) restores it
"""

from __future__ import annotations

from simulators.lab.errors import LabError, UnknownTicketError
from simulators.lab.results import ChecklistItem, CommandResult, TranscriptEntry
from simulators.lab.session import LabSession
from simulators.lab.shell import PROMPT
from simulators.lab.tickets import ChecklistDef, Ticket, TicketSummary, list_tickets, load_ticket

__all__ = [
    "PROMPT",
    "ChecklistDef",
    "ChecklistItem",
    "CommandResult",
    "LabError",
    "LabSession",
    "Ticket",
    "TicketSummary",
    "TranscriptEntry",
    "UnknownTicketError",
    "list_tickets",
    "load_ticket",
]
