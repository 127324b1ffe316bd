"""A learner's progress as one file: export, import and reset, part by part.

Each feature that keeps progress registers a part (in its AppConfig.ready()):

    register_progress_part(
        "lab",                      # key in the file's "parts"; lowercase-kebab
        export=lambda request: {...},          # JSON-ready data for this browser
        import_=lambda request, data: ...,     # replace this browser's data with `data`
        reset=lambda request: ...,             # erase this browser's data
        label="Lab terminal",                  # optional: shown on the progress pages
        summary=lambda request: "3 tasks done" # optional: a line on the progress page
    )

`import_` must check `data` and raise ProgressDataError("a message for the learner")
if it is unusable. The import runs every part inside one database transaction and
puts the session back as it was if any part refuses, so a bad file changes nothing.
Use studysite.sessions.session_key(request) to key database rows.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import transaction
from django.http import HttpRequest

from studysite.sessions import session_key
from studysite.study import renamed_options

FORMAT = "runai-study-progress"
# 2: option ids renamed when the answer keys were spread over a-d (studysite.study.renamed_options).
VERSION = 2
READS = (1, 2)
MAX_FILE_BYTES = 2 * 1024 * 1024
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Whole numbers beyond what JSON readers agree on (2**53) are no progress this site writes.
MAX_INTEGER = 2**53
_DATE_LIKE = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


class ProgressDataError(ValueError):
    """A progress file or part that cannot be imported; the message is for the learner."""


@dataclass(frozen=True)
class ProgressPart:
    name: str
    label: str
    export: Callable[[HttpRequest], Any]
    import_: Callable[[HttpRequest, Any], None]
    reset: Callable[[HttpRequest], None]
    summary: Callable[[HttpRequest], str] | None = None


_parts: dict[str, ProgressPart] = {}


def register_progress_part(
    name: str,
    export: Callable[[HttpRequest], Any],
    import_: Callable[[HttpRequest, Any], None],
    reset: Callable[[HttpRequest], None],
    *,
    label: str | None = None,
    summary: Callable[[HttpRequest], str] | None = None,
) -> None:
    """Add (or replace) one part of the progress file."""
    if not _NAME.match(name):
        raise ValueError(f"a progress part name must be lowercase-kebab, got {name!r}")
    _parts[name] = ProgressPart(
        name, label or name.replace("-", " ").capitalize(), export, import_, reset, summary
    )


def parts() -> tuple[ProgressPart, ...]:
    return tuple(_parts.values())


def export_progress(request: HttpRequest, now: datetime) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": now.isoformat(),
        "parts": {part.name: part.export(request) for part in parts()},
    }


def _size(size: int) -> str:
    """`size` bytes in MB or KB (one decimal, none if it is 0) and exactly."""
    unit, scale = ("MB", 1024 * 1024) if size >= 1024 * 1024 else ("KB", 1024)
    rounded = f"{size / scale:.1f}".removesuffix(".0")
    return f"{rounded} {unit} ({size:,} bytes)"


def too_large(size: int) -> str:
    """The refusal of a file of `size` bytes: its size and the limit, each exact."""
    return (
        f"That file is too large: it is {_size(size)}, and a progress file can be at most "
        f"{_size(MAX_FILE_BYTES)}."
    )


def parse_file(raw: bytes) -> dict[str, Any]:
    """The parts of a progress file, after checking its envelope; raises ProgressDataError."""
    if len(raw) > MAX_FILE_BYTES:
        raise ProgressDataError(too_large(len(raw)))
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ProgressDataError(
            "That file isn't a progress file: it is not valid JSON. "
            "Choose the .json file that Export progress saved."
        ) from None
    check_values(document)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ProgressDataError(
            "That file isn't a progress file from this site. "
            "Choose the .json file that Export progress saved."
        )
    version = document.get("version")
    if version not in READS or isinstance(version, bool):
        raise ProgressDataError(
            f"That progress file has version {version!r}; this site reads versions "
            f"{' and '.join(map(str, READS))}."
        )
    found = document.get("parts")
    if not isinstance(found, dict):
        raise ProgressDataError("That progress file has no 'parts' object.")
    if version == 1:
        found = renamed_options.upgrade_file_parts(found)
    unknown = sorted(name for name in found if name not in _parts)
    if unknown:
        raise ProgressDataError(
            f"That progress file has parts this site doesn't know: {', '.join(unknown)}."
        )
    return found


def _value_problem(value: Any) -> str | None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "has text that is not valid UTF-8 (a lone surrogate)"
        if _DATE_LIKE.match(value):
            try:
                moment = datetime.fromisoformat(value)
                if moment.tzinfo is not None:
                    moment = moment.astimezone(UTC)
            except (ValueError, OverflowError):
                return f"has a date this site cannot use: {value[:40]!r}"
            if not 1970 <= moment.year <= 9000:
                return f"has a date out of range: {value[:40]!r}"
    elif isinstance(value, float) and not math.isfinite(value):
        return "has a number that is not finite (NaN or Infinity)"
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INTEGER:
        return "has a whole number too large for this site"
    return None


def check_values(document: Any) -> None:
    """Every string valid UTF-8, every date usable, every number finite and in range."""
    pending: list[tuple[Any, str]] = [(document, "")]
    while pending:
        value, where = pending.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                pending.append((key, where))
                pending.append((item, f"{where} → {str(key)[:40]!r}"))
        elif isinstance(value, list):
            pending.extend((item, f"{where} → {index}") for index, item in enumerate(value))
        else:
            problem = _value_problem(value)
            if problem:
                safe_where = where.encode("utf-8", "replace").decode("utf-8")
                raise ProgressDataError(
                    f"That progress file {problem}" + (f" (at {safe_where[3:]})." if where else ".")
                )


def import_progress(request: HttpRequest, found: dict[str, Any]) -> list[str]:
    """Replace each part the file carries; all or nothing. Returns the labels imported."""
    # The session row must exist before the transaction: one created inside it would
    # vanish with a rollback while the browser keeps its key.
    session_key(request)
    saved_session = dict(request.session.items())
    imported: list[str] = []
    try:
        with transaction.atomic():
            for part in parts():
                if part.name in found:
                    _import_part(request, part, found[part.name])
                    imported.append(part.label)
    except ProgressDataError:
        request.session.clear()
        request.session.update(saved_session)
        raise
    return imported


def _import_part(request: HttpRequest, part: ProgressPart, data: Any) -> None:
    try:
        part.import_(request, data)
    except ProgressDataError as error:
        raise ProgressDataError(f"{part.label}: {error}") from None


def reset_progress(request: HttpRequest, names: Iterable[str]) -> list[str]:
    """Erase the named parts; returns their labels. Unknown names raise ProgressDataError."""
    chosen = list(dict.fromkeys(names))
    unknown = [name for name in chosen if name not in _parts]
    if unknown or not chosen:
        raise ProgressDataError("Choose at least one kind of progress to erase.")
    with transaction.atomic():
        for name in chosen:
            _parts[name].reset(request)
    return [_parts[name].label for name in chosen]
