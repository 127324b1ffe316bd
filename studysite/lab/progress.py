"""The lab's share of the progress file: each ticket's saved cluster and transcript."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from simulators.lab import LabError, LabSession, list_tickets
from studysite.lab import store
from studysite.lab.models import SavedLab
from studysite.sessions import existing_key, session_key
from studysite.study.progress import ProgressDataError, register_progress_part


def export(request: HttpRequest) -> list[dict[str, Any]]:
    return [
        {"ticket": saved.ticket, "exam_mode": saved.exam_mode, "state": lab.to_json()}
        for saved, lab in store.saved_labs(existing_key(request))
    ]


def checked_rows(data: Any) -> list[tuple[str, bool, dict[str, Any]]]:
    if not isinstance(data, list):
        raise ProgressDataError("The lab part of that file should be a list of tickets.")
    known = {ticket.id for ticket in list_tickets()}
    rows = []
    for entry in data:
        if not isinstance(entry, dict) or entry.get("ticket") not in known:
            raise ProgressDataError("The lab part of that file names a ticket this site lacks.")
        try:
            lab = LabSession.from_json(entry.get("state"))
        except (LabError, TypeError, ValueError, KeyError):
            raise ProgressDataError(
                f"The saved lab for ticket {entry['ticket']} in that file is damaged."
            ) from None
        if lab.ticket_id != entry["ticket"]:
            raise ProgressDataError(f"The saved lab for {entry['ticket']} is another ticket's.")
        rows.append((entry["ticket"], bool(entry.get("exam_mode")), lab.to_json()))
    return rows


def import_(request: HttpRequest, data: Any) -> None:
    rows, key = checked_rows(data), session_key(request)
    SavedLab.objects.filter(session_key=key).delete()
    SavedLab.objects.bulk_create(
        SavedLab(session_key=key, ticket=ticket, exam_mode=exam, state=state)
        for ticket, exam, state in rows
    )


def reset(request: HttpRequest) -> None:
    SavedLab.objects.filter(session_key=existing_key(request)).delete()


def summary(request: HttpRequest) -> str:
    solved = sum(lab.is_complete() for _, lab in store.saved_labs(existing_key(request)))
    return f"{solved} of {len(list_tickets())} lab tickets solved"


def register() -> None:
    register_progress_part("lab", export, import_, reset, label="Lab terminal", summary=summary)
