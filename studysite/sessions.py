"""The browser's session key, which every stored row is keyed by (there are no logins).

Also the site's session engine (SESSION_ENGINE = "studysite.sessions"): Django's database
sessions, plus keys a page hands out without writing anything. A page load without a cookie
(the lab's pages, which need a session for their terminal) gets a *minted* key: random, with a
tag only this site can compute (HMAC of the secret key), so it is known for one the site gave
out, not one a client invented. Its row in django_session is written when the browser first
stores something (a command typed, a quiz started: `session_key`, `keep`), never by the page
load itself: a client fetching pages without cookies writes nothing (issue 33, finding 5).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import secrets
import string
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends.base import CreateError
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers

STARTED_KEY = "started"
# A minted key: this many random characters, then as many of its tag (Django's 32 in all).
HALF = 16
ALPHABET = string.ascii_lowercase + string.digits
MINTED_ATTRIBUTE = "_minted_session_key"


def _tag(random_part: str) -> str:
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"minted-session:{random_part}".encode(), hashlib.sha256
    ).digest()
    number = int.from_bytes(digest, "big")
    tag = []
    for _ in range(HALF):
        number, digit = divmod(number, len(ALPHABET))
        tag.append(ALPHABET[digit])
    return "".join(tag)


def mint_key() -> str:
    random_part = "".join(secrets.choice(ALPHABET) for _ in range(HALF))
    return random_part + _tag(random_part)


def is_minted(key: str | None) -> bool:
    """Whether the site handed out this key (a page load's, whose row may not exist yet)."""
    if not key or len(key) != 2 * HALF:
        return False
    return hmac.compare_digest(key[HALF:], _tag(key[:HALF]))


class SessionStore(DatabaseSessionStore):
    """Django's database sessions; a minted key without a row keeps its key (Django would drop
    it and make another at the first save), and its first save writes its row."""

    minted = False

    def load(self) -> dict[str, Any]:
        key = self.session_key
        data = super().load()
        self._kept_if_minted(key)
        return data

    async def aload(self) -> dict[str, Any]:
        key = self.session_key
        data = await super().aload()
        self._kept_if_minted(key)
        return data

    def _kept_if_minted(self, key: str | None) -> None:
        """After a load that found no row (Django then forgets the key): keep a minted one."""
        if self.session_key is None and is_minted(key):
            self._session_key, self.minted = key, True

    def save(self, must_create: bool = False) -> None:
        if self.minted and not must_create:
            self.minted = False
            try:
                super().save(must_create=True)
                return
            except CreateError:
                pass  # another request wrote it first: update theirs
        super().save(must_create)

    async def asave(self, must_create: bool = False) -> None:
        if self.minted and not must_create:
            self.minted = False
            try:
                await super().asave(must_create=True)
                return
            except CreateError:
                pass
        await super().asave(must_create)


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


def page_key(request: HttpRequest) -> str:
    """The key a page shows this browser's rows by: its session's, else a minted one that
    `with_cookie` hands out with the page. Writes nothing."""
    key = request.session.session_key
    if key:
        return key
    minted = getattr(request, MINTED_ATTRIBUTE, None) or mint_key()
    setattr(request, MINTED_ATTRIBUTE, minted)
    return str(minted)


def with_cookie(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """The page's response, setting the cookie of the key `page_key` minted, if it did."""
    minted = getattr(request, MINTED_ATTRIBUTE, None)
    if minted and settings.SESSION_COOKIE_NAME not in response.cookies:
        response.set_cookie(
            settings.SESSION_COOKIE_NAME,
            minted,
            max_age=settings.SESSION_COOKIE_AGE,
            domain=settings.SESSION_COOKIE_DOMAIN,
            path=settings.SESSION_COOKIE_PATH,
            secure=bool(settings.SESSION_COOKIE_SECURE),
            httponly=bool(settings.SESSION_COOKIE_HTTPONLY),
            samesite=settings.SESSION_COOKIE_SAMESITE,  # type: ignore[arg-type]
        )
        patch_vary_headers(response, ("Cookie",))
    return response


def keep(key: str) -> None:
    """Write the row of a minted key if it has none yet: before the first row keyed by it
    (a saved lab), so that it is never an orphan (store.delete_orphans)."""
    if not is_minted(key):
        return
    store = SessionStore(key)
    if store.exists(key):
        return
    store[STARTED_KEY] = True
    with contextlib.suppress(CreateError):  # written meanwhile by another request
        store.save(must_create=True)
