"""The lab's share of the progress file: each ticket's saved cluster and transcript."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from simulators.lab import LabError, LabSession, files, list_tickets
from simulators.lab.session import MAX_HISTORY, MAX_STORED_OUTPUT, MAX_TRANSCRIPT
from studysite.lab import store
from studysite.lab.models import SavedLab
from studysite.sessions import existing_key, session_key
from studysite.study.progress import ProgressDataError, register_progress_part


def export(request: HttpRequest) -> list[dict[str, Any]]:
    return [
        {"ticket": saved.ticket, "exam_mode": saved.exam_mode, "state": lab.to_json()}
        for saved, lab in store.saved_labs(existing_key(request))
    ]


def checked_rows(data: Any) -> list[tuple[str, bool, LabSession]]:
    if not isinstance(data, list):
        raise ProgressDataError("The lab part of that file should be a list of tickets.")
    known = {ticket.id for ticket in list_tickets()}
    rows = []
    for entry in data:
        if not isinstance(entry, dict) or entry.get("ticket") not in known:
            raise ProgressDataError("The lab part of that file names a ticket this site lacks.")
        try:
            lab = LabSession.from_json(entry.get("state"), trusted=False)
        except (LabError, TypeError, ValueError, KeyError):
            raise ProgressDataError(
                f"The saved lab for ticket {entry['ticket']} in that file is damaged."
            ) from None
        if lab.ticket_id != entry["ticket"]:
            raise ProgressDataError(f"The saved lab for {entry['ticket']} is another ticket's.")
        problem = over_limits(lab)
        if problem:
            raise ProgressDataError(f"The saved lab for {entry['ticket']} {problem}.")
        rows.append((entry["ticket"], bool(entry.get("exam_mode")), lab))
    return rows


def over_limits(lab: LabSession) -> str | None:
    """What in an imported lab exceeds what the live lab would ever keep, if anything."""
    line_limit = settings.LAB_MAX_LINE_BYTES
    transcript, history = lab.transcript, lab.history
    saved_files = lab.world.state.files
    if len(transcript) > MAX_TRANSCRIPT:
        return f"has {len(transcript)} transcript entries; the lab keeps {MAX_TRANSCRIPT}"
    if len(history) > MAX_HISTORY:
        return f"has {len(history)} history lines; the lab keeps {MAX_HISTORY}"
    lines = [entry.line for entry in transcript] + history
    if any(len(line.encode("utf-8", "replace")) > line_limit for line in lines):
        return f"has a command longer than {line_limit} bytes"
    if any(len(entry.output) > MAX_STORED_OUTPUT for entry in transcript):
        return f"has an output longer than {MAX_STORED_OUTPUT // 1024} KiB"
    if len(saved_files) > files.MAX_FILES or any(
        len(text.encode("utf-8", "replace")) > files.MAX_FILE_BYTES for text in saved_files.values()
    ):
        return "has more or larger files than the lab allows"
    return None


def import_(request: HttpRequest, data: Any) -> None:
    rows, key = checked_rows(data), session_key(request)
    SavedLab.objects.filter(session_key=key).delete()
    for ticket, exam, lab in rows:
        store.create(key, ticket, lab, exam_mode=exam)


def reset(request: HttpRequest) -> None:
    SavedLab.objects.filter(session_key=existing_key(request)).delete()


def summary(request: HttpRequest) -> str:
    counts = store.progress(existing_key(request)).values()
    solved = sum(done == total for done, total in counts)
    return f"{solved} of {len(list_tickets())} lab tickets solved"


def register() -> None:
    register_progress_part("lab", export, import_, reset, label="Lab terminal", summary=summary)
