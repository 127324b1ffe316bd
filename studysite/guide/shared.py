"""The guide's pages answered in front of Django, from Django's own earlier answer.

A section page is the same bytes for every learner (pages.py), so going through the whole
Django stack for each request only repeats work: under granian that was 3% of what the
same server sends as a static file. `SharedPages` is an ASGI middleware that keeps, per
page and per scheme, the first complete answer Django gave and replays it, headers and all
(CSP, nosniff, Referrer-Policy, COOP, X-Frame-Options, HSTS where Django sends it), with a
304 for a matching If-None-Match.

It keeps only what Django itself marks as shareable: a 200 with `Cache-Control: public`, an
ETag, no Set-Cookie and no Vary but on Accept-Encoding, one answer per scheme and per whether
the client takes gzip (as GZipMiddleware judges it; the gzipped bytes are shared safely, as
the page holds no secret for BREACH to find). Everything else goes to Django as before: other paths,
query strings, methods other than GET and HEAD, htmx requests, and any request whose Host
Django would refuse (judged by Django's own request class, once per distinct value) or that
it would redirect to HTTPS (such an answer is a 301, never kept).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest

from studysite.limits import ASGIApp, Message, Receive, Scope, Send

SAFE = frozenset({"GET", "HEAD"})
# A bound on the distinct Host (and proxy header) values whose verdict is kept; past it, each
# request is judged afresh, so junk Host headers cannot grow this process's memory.
MAX_ORIGINS = 64
NOT_MODIFIED_DROPS = frozenset({b"content-type", b"content-length", b"content-encoding"})
# How GZipMiddleware decides whether a client takes gzip: the kept answers are keyed by it.
ACCEPTS_GZIP = re.compile(rb"\bgzip\b")


@dataclass(frozen=True)
class Stored:
    """One page as Django sent it, ready to replay."""

    start: Message
    body: Message
    not_modified: Message
    etag: bytes

    @classmethod
    def from_messages(cls, messages: list[Message]) -> Stored | None:
        start, *bodies = messages
        if start.get("type") != "http.response.start" or start.get("status") != 200:
            return None
        headers = [(bytes(name).lower(), bytes(value)) for name, value in start["headers"]]
        names = {name for name, _ in headers}
        control = b",".join(value for name, value in headers if name == b"cache-control")
        etag = next((value for name, value in headers if name == b"etag"), None)
        varies = {
            name.strip().lower()
            for value in (value for name, value in headers if name == b"vary")
            for name in value.split(b",")
        }
        # A page may vary only on what the key below holds: the accepted encoding.
        if b"public" not in control or etag is None or b"set-cookie" in names:
            return None
        if varies - {b"accept-encoding"}:
            return None
        if not bodies or bodies[-1].get("more_body", False):
            return None
        body = b"".join(message.get("body", b"") for message in bodies)
        kept = [(name, value) for name, value in headers if name not in NOT_MODIFIED_DROPS]
        return cls(
            start={"type": "http.response.start", "status": 200, "headers": headers},
            body={"type": "http.response.body", "body": body},
            not_modified={"type": "http.response.start", "status": 304, "headers": kept},
            etag=etag,
        )

    def matches(self, if_none_match: bytes) -> bool:
        tags = (tag.strip().removeprefix(b"W/") for tag in if_none_match.split(b","))
        return any(tag in (self.etag, b"*") for tag in tags)


EMPTY_BODY: Message = {"type": "http.response.body", "body": b""}


def origin_headers() -> tuple[bytes, ...]:
    """The request headers Django reads to judge the Host and whether the request is secure."""
    names = [b"host"]
    if settings.USE_X_FORWARDED_HOST:
        names.append(b"x-forwarded-host")
    if settings.USE_X_FORWARDED_PORT:
        names.append(b"x-forwarded-port")
    if settings.SECURE_PROXY_SSL_HEADER:
        meta_name = settings.SECURE_PROXY_SSL_HEADER[0].removeprefix("HTTP_")
        names.append(meta_name.lower().replace("_", "-").encode("latin-1"))
    return tuple(names)


def judge(scope: Scope) -> bool | None:
    """Whether Django would see this request as secure; None when it would refuse its Host."""
    request = ASGIRequest({**scope, "method": "GET", "query_string": b""}, io.BytesIO())
    try:
        request.get_host()
    except DisallowedHost:
        return None
    return request.is_secure()


class SharedPages:
    def __init__(self, app: ASGIApp, paths: Callable[[], Iterable[str]]) -> None:
        self.app = app
        self._paths_source = paths
        self._paths: frozenset[str] | None = None
        self._origin_headers: tuple[bytes, ...] = ()
        self._origins: dict[tuple[str, tuple[bytes | None, ...]], bool | None] = {}
        self._pages: dict[tuple[str, bool, bool], Stored] = {}

    def paths(self) -> frozenset[str]:
        # Read on first use: Django's settings and apps are ready by then.
        if self._paths is None:
            self._origin_headers = origin_headers()
            self._paths = frozenset(self._paths_source())
        return self._paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] not in SAFE
            or scope.get("query_string")
            or scope["path"] not in self.paths()
        ):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if b"hx-request" in headers:
            await self.app(scope, receive, send)
            return
        origin = (scope["scheme"], tuple(headers.get(name) for name in self._origin_headers))
        secure = self._origins[origin] if origin in self._origins else self.judged(origin, scope)
        if secure is None:
            await self.app(scope, receive, send)
            return
        key = (
            scope["path"],
            secure,
            bool(ACCEPTS_GZIP.search(headers.get(b"accept-encoding", b""))),
        )
        stored = self._pages.get(key)
        if stored is None:
            await self.learn(scope, receive, send, key)
            return
        if_none_match = headers.get(b"if-none-match")
        if if_none_match is not None and stored.matches(if_none_match):
            await send(stored.not_modified)
            await send(EMPTY_BODY)
            return
        await send(stored.start)
        await send(EMPTY_BODY if scope["method"] == "HEAD" else stored.body)

    def judged(self, origin: tuple[str, tuple[bytes | None, ...]], scope: Scope) -> bool | None:
        secure = judge(scope)
        if len(self._origins) < MAX_ORIGINS:
            self._origins[origin] = secure
        return secure

    async def learn(
        self, scope: Scope, receive: Receive, send: Send, key: tuple[str, bool, bool]
    ) -> None:
        """Let Django answer, and keep the answer if Django marked it as shareable."""
        if scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []

        async def keep(message: Message) -> None:
            messages.append(message)
            await send(message)

        clean = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k != b"if-none-match"]}
        await self.app(clean, receive, keep)
        stored = Stored.from_messages(messages) if messages else None
        if stored is not None:
            self._pages[key] = stored
