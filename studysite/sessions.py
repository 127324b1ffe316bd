"""The browser's session key, which every stored row is keyed by (there are no logins)."""

from __future__ import annotations

from django.http import HttpRequest

STARTED_KEY = "started"


def session_key(request: HttpRequest) -> str:
    """This browser's session key, starting a session first if it has none.

    The session gets a marker so that it is not empty: Django sends no cookie for an
    empty session, and the browser would then never come back to its own rows.
    """
    if request.session.session_key is None or STARTED_KEY not in request.session:
        request.session[STARTED_KEY] = True
        request.session.save()
    key = request.session.session_key
    assert key is not None
    return key


def existing_key(request: HttpRequest) -> str:
    """The session key if the browser has one, else "" (which matches no rows)."""
    return request.session.session_key or ""
