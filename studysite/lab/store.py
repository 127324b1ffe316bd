"""Saved labs: one per browser session and ticket, written after every command.

The lab itself (world, shell, tickets) lives in simulators.lab and serialises to
JSON; this module only keeps that JSON in the database.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.conf import settings

from simulators.lab import CommandResult, LabSession
from studysite.lab.models import SavedLab


@dataclass
class OpenLab:
    lab: LabSession
    exam_mode: bool


def open_lab(session_key: str, ticket: str) -> OpenLab:
    saved = SavedLab.objects.filter(session_key=session_key, ticket=ticket).first()
    if saved is None:
        # Saved at once: the page and its websocket must see the same (seeded) world.
        lab = LabSession.new(ticket, seed=secrets.randbits(32))
        save_lab(session_key, ticket, lab)
        return OpenLab(lab, exam_mode=False)
    return OpenLab(LabSession.from_json(saved.state), exam_mode=saved.exam_mode)


def run_line(opened: OpenLab, line: str) -> CommandResult:
    """Run one line, as the terminal and the form fallback both do."""
    if len(line.encode("utf-8", errors="replace")) > settings.LAB_MAX_LINE_BYTES:
        items = opened.lab.checklist()
        return CommandResult(line[:80], "bash: line too long (limit 4 KiB)", items, opened.lab.step)
    return opened.lab.run(line, hints=not opened.exam_mode)


def save_lab(session_key: str, ticket: str, lab: LabSession) -> None:
    SavedLab.objects.update_or_create(
        session_key=session_key, ticket=ticket, defaults={"state": lab.to_json()}
    )


def reset_lab(session_key: str, ticket: str) -> LabSession:
    lab = LabSession.new(ticket, seed=secrets.randbits(32))
    exam = SavedLab.objects.filter(session_key=session_key, ticket=ticket).values_list(
        "exam_mode", flat=True
    )
    SavedLab.objects.update_or_create(
        session_key=session_key,
        ticket=ticket,
        defaults={"state": lab.to_json(), "exam_mode": bool(exam and exam[0])},
    )
    return lab


def set_exam_mode(session_key: str, ticket: str, on: bool) -> None:
    current = open_lab(session_key, ticket)
    SavedLab.objects.update_or_create(
        session_key=session_key,
        ticket=ticket,
        defaults={"state": current.lab.to_json(), "exam_mode": on},
    )


def progress(session_key: str) -> dict[str, tuple[int, int]]:
    """Done and total checklist items per ticket this session has opened."""
    result: dict[str, tuple[int, int]] = {}
    for saved in SavedLab.objects.filter(session_key=session_key):
        items = LabSession.from_json(saved.state).checklist()
        result[saved.ticket] = (sum(item.done for item in items), len(items))
    return result
