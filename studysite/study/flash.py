"""One-shot messages across a redirect, kept in the session (no messages app)."""

from __future__ import annotations

from django.http import HttpRequest

FLASH_KEY = "study_flash"


def flash(request: HttpRequest, text: str, kind: str = "success") -> None:
    request.session[FLASH_KEY] = {"text": text, "kind": kind}


def pop_flash(request: HttpRequest) -> dict[str, str] | None:
    if FLASH_KEY not in request.session:
        return None
    message = request.session.pop(FLASH_KEY)
    return message if isinstance(message, dict) else None
