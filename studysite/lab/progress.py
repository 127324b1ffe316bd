"""The lab's share of the progress file: each ticket's saved cluster and transcript.

An imported lab is checked before anything is written: each ticket once, every object of its
cluster as the API server checks a write (names, labels, quantities, known fields, pods), and
then one command run on a copy of it, so a lab that would break every command is refused with
what was wrong instead of saved.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from django.conf import settings
from django.http import HttpRequest

from simulators.cluster import admission, fields
from simulators.cluster.api import ApiError
from simulators.cluster.registry import RESOURCES
from simulators.lab import LabSession, budget, files, fs, list_tickets
from simulators.lab.session import INTERNAL_ERROR, MAX_HISTORY, MAX_STORED_OUTPUT, MAX_TRANSCRIPT
from simulators.lab.typed import MAX_REPLAY_SECONDS as RECORDED_SECONDS
from simulators.lab.typed import read_lines
from studysite.lab import saved, store
from studysite.lab.models import SavedLab
from studysite.sessions import existing_key, session_key
from studysite.study.progress import ProgressDataError, register_progress_part


def export(request: HttpRequest) -> list[dict[str, Any]]:
    return [
        exported(row.ticket, row.exam_mode, lab)
        for row, lab in store.saved_labs(existing_key(request))
    ]


def exported(ticket: str, exam_mode: bool, lab: LabSession) -> dict[str, Any]:
    """A lab in the progress file: its seed and what was typed (simulators.lab.typed), a few KB;
    the whole state only for a lab a replay could not rebuild."""
    typed = lab.typed
    if typed is None:
        return {"ticket": ticket, "exam_mode": exam_mode, "state": lab.to_json()}
    lines = [[line, hints] for line, hints in typed]
    return {"ticket": ticket, "exam_mode": exam_mode, "seed": lab.seed, "typed": lines}


# A lab records its lines while they cost at most RECORDED_SECONDS of CPU (simulators.lab.typed);
# replayed here, on a busier machine, they may take a few times that. A whole file's labs
# together get at most MAX_IMPORT_REPLAY_SECONDS (nine labs with three solved: 0.15 s).
MAX_REPLAY_SECONDS = RECORDED_SECONDS * 4
MAX_IMPORT_REPLAY_SECONDS = 20.0


def replayed(ticket: str, entry: dict[str, Any], seconds: float = MAX_REPLAY_SECONDS) -> LabSession:
    """The lab an entry of seed and typed lines names, built again by running the lines on a new
    lab of that ticket and seed, each within the room a replay has (studysite.lab.saved)."""
    seed, lines = entry.get("seed"), read_lines(entry.get("typed"))
    if isinstance(seed, bool) or not isinstance(seed, int) or lines is None:
        raise ProgressDataError(f"The saved lab for ticket {ticket} in that file is damaged.")
    if not 0 <= seed < 2**32:
        raise ProgressDataError(f"The saved lab for ticket {ticket} in that file is damaged.")
    lab = LabSession.new(ticket, seed=seed)
    normal = saved.limits()
    room = dataclasses.replace(normal, cpu_seconds=normal.cpu_seconds * saved.REPLAY_ROOM)
    started = time.thread_time()
    for line, hints in lines:
        if saved.too_long(line):
            raise ProgressDataError(f"The saved lab for {ticket} has a command too long to run.")
        meter = budget.Meter(room)
        with budget.metered(meter):
            lab.run(line, hints=hints)
        if meter.exceeded or time.thread_time() - started > seconds:
            raise ProgressDataError(
                f"The saved lab for {ticket} takes more than the lab's budget to replay."
            )
    return lab


def checked_rows(data: Any) -> list[tuple[str, bool, LabSession]]:
    if not isinstance(data, list):
        raise ProgressDataError("The lab part of that file should be a list of tickets.")
    known = {ticket.id for ticket in list_tickets()}
    rows: list[tuple[str, bool, LabSession]] = []
    deadline = time.thread_time() + MAX_IMPORT_REPLAY_SECONDS
    for entry in data:
        if not isinstance(entry, dict) or entry.get("ticket") not in known:
            raise ProgressDataError("The lab part of that file names a ticket this site lacks.")
        if any(entry["ticket"] == ticket for ticket, _, _ in rows):
            raise ProgressDataError(
                f"The lab part of that file lists ticket {entry['ticket']} twice."
            )
        state: Any
        if "typed" in entry:
            left = deadline - time.thread_time()
            lab = replayed(entry["ticket"], entry, min(MAX_REPLAY_SECONDS, left))
            state = lab.to_json()
        else:
            state = entry.get("state")
            try:
                lab = LabSession.from_json(state, trusted=False)
            except Exception:  # whatever a damaged document makes the decoder raise
                raise ProgressDataError(
                    f"The saved lab for ticket {entry['ticket']} in that file is damaged."
                ) from None
        if lab.ticket_id != entry["ticket"]:
            raise ProgressDataError(f"The saved lab for {entry['ticket']} is another ticket's.")
        problem = over_limits(lab) or invalid_object(lab) or fails_to_run(state)
        if problem:
            raise ProgressDataError(f"The saved lab for {entry['ticket']} {problem}.")
        rows.append((entry["ticket"], bool(entry.get("exam_mode")), lab))
    return rows


_RESOURCES = {info.key: info for info in RESOURCES}


def invalid_object(lab: LabSession) -> str | None:
    """The first object of the lab's cluster the API server would refuse to store, and why."""
    cluster = lab.to_json()["world"].get("cluster") or {}
    for key, items in (cluster.get("objects") or {}).items():
        info = _RESOURCES.get(key)
        if info is None:
            return f"has objects of a kind this site doesn't know ({str(key)[:60]})"
        for obj in items:
            meta = obj.get("metadata") if isinstance(obj, dict) else None
            if not isinstance(meta, dict):
                return f"has a {info.kind} without metadata"
            where = "/".join(str(meta.get(part)) for part in ("namespace", "name") if part in meta)
            try:
                admission.check_quantities(info, obj)
                admission.validate(info, obj)
                fields.check_fields(info, obj)
            except ApiError as error:
                return f"has an invalid {info.kind} {where[:120]}: {str(error)[:300]}"
            except (AttributeError, KeyError, TypeError, ValueError):
                return f"has a malformed {info.kind} {where[:120]}"
    return None


# One command on a copy of the lab: it runs the shell, a step of the cluster's controllers and
# the checklist, which is what a value of the wrong type anywhere breaks.
TRIAL_LINE = "kubectl get pods -A -o wide"


def fails_to_run(state: Any) -> str | None:
    """Whether a command run on a copy of the lab (within the lab's budget) breaks."""
    try:
        trial = LabSession.from_json(state, trusted=False)
        with budget.metered(budget.Meter(saved.limits())):
            output = trial.run(TRIAL_LINE).output
    except Exception:  # the checklist, outside the command's own guard
        output = INTERNAL_ERROR
    if INTERNAL_ERROR in output:
        return "is damaged: a command run on it fails (a field of its cluster has a wrong value)"
    return None


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
    if any(entry.size > MAX_STORED_OUTPUT for entry in transcript):
        return f"has an output longer than {MAX_STORED_OUTPUT // 1024} KiB"
    tree = fs.damaged(lab.world.state)
    if tree is not None:
        return tree
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
