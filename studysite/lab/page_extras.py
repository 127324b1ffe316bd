"""What the lab pages show beside the terminal: the CLI login notice and the next ticket."""

from __future__ import annotations

from simulators.lab import LabSession, TicketSummary, list_tickets


def logged_in(lab: LabSession) -> bool:
    """Whether the lab's runai CLI is logged in."""
    return lab.runai_logged_in


def next_ticket(ticket_id: str) -> TicketSummary | None:
    """The ticket after this one in the lab's order, or None after the last."""
    tickets = list_tickets()
    ids = [ticket.id for ticket in tickets]
    position = ids.index(ticket_id) if ticket_id in ids else len(ids)
    return tickets[position + 1] if position + 1 < len(tickets) else None
