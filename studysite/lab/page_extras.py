"""What the lab pages show beside the terminal: the CLI login notice and the next ticket; and
what their terminal is told: the pace of its lines."""

from __future__ import annotations

from django.conf import settings

from simulators.lab import LabSession, TicketSummary, list_tickets


def pacing() -> dict[str, int]:
    """The terminal paces the lines it sends to the server's frame limit (static/js/lab.js):
    a pasted script past it would be closed as a flood."""
    return {"lab_frames_per_second": settings.LAB_MAX_FRAMES_PER_SECOND}


def logged_in(lab: LabSession) -> bool:
    """Whether the lab's runai CLI is logged in."""
    return lab.runai_logged_in


def next_ticket(ticket_id: str) -> TicketSummary | None:
    """The ticket after this one in the lab's order, or None after the last."""
    tickets = list_tickets()
    ids = [ticket.id for ticket in tickets]
    position = ids.index(ticket_id) if ticket_id in ids else len(ids)
    return tickets[position + 1] if position + 1 < len(tickets) else None
