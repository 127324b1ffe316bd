"""Limits that guard the whole site, below and beside Django.

- `BodyLimitMiddleware` (ASGI): a request body over MAX_REQUEST_BODY_BYTES gets a
  413 before it is buffered, judged by Content-Length and by counting the chunks
  as they stream in. Any ASGI server that streams bodies (uvicorn, hypercorn,
  daphne) gets it from studysite.asgi.
- `limit_daphne_bodies`: daphne (which Django's `manage.py runserver` runs) hands
  bodies to Twisted, which reads them whole and parses multipart forms in memory
  before any ASGI code runs; this makes Twisted refuse them at the same limit.
- `limit_daphne_websockets`: daphne reads a websocket's frames as fast as they come and queues
  them for the application without bound, so a client flooding without reading was never
  closed; this closes it (4429) once frames wait unhandled, and stops reading any socket the
  site closed for a flood.
- `ExactOriginValidator`: a websocket's Origin must be the site itself (scheme,
  host and port) or one of LAB_ALLOWED_ORIGINS.
- `expensive`: a view decorator limiting the CPU spent a minute on costly views (token
  buckets of studysite.rates, a minute's allowance refilled over a minute): per browser session
  first, and per address only as a much larger backstop, so that learners sharing an address
  (NAT, a proxy) are not locked out by one of them.
"""

from __future__ import annotations

import contextlib
import functools
import io
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, cast
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.request import split_domain_port, validate_host

from studysite import rates
from studysite.sessions import STARTED_KEY, is_minted

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
# Any ASGI application: Django's handler and Channels' routers type their arguments their own way.
ASGIApp = Callable[..., Awaitable[None]]


def too_large_message(limit: int) -> bytes:
    return (
        f"Request body too large: this site accepts at most {limit // 1024} KiB per request.\n"
    ).encode()


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = settings.MAX_REQUEST_BODY_BYTES
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length", b"").strip()
        if declared and (not declared.isdigit() or len(declared) > 15 or int(declared) > limit):
            await self.refuse(send, limit)
            return
        chunks: list[bytes] = []
        total = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body = message.get("body", b"")
            total += len(body)
            if total > limit:
                await self.refuse(send, limit)
                return
            chunks.append(body)
            if not message.get("more_body"):
                break
        await self.app(scope, replaying(b"".join(chunks), receive), send)

    @staticmethod
    async def refuse(send: Send, limit: int) -> None:
        await plain_answer(send, 413, too_large_message(limit), (b"connection", b"close"))


def replaying(body: bytes, receive: Receive) -> Receive:
    """`receive` with the body already read from it given again first, in one message: the
    client's own disconnect still follows (Django's handler listens for it, and stops at one)."""
    first: list[Message] = [{"type": "http.request", "body": body}]

    async def again() -> Message:
        return first.pop() if first else await receive()

    return again


async def plain_answer(send: Send, status: int, body: bytes, *headers: tuple[bytes, bytes]) -> None:
    """A whole answer of plain text, sent without Django."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def limit_daphne_bodies() -> None:
    """Make daphne's Twisted requests refuse big bodies while they arrive."""
    try:
        from daphne.http_protocol import WebRequest
    except ImportError:
        return
    if getattr(WebRequest, "body_limited", False):
        return
    got_length = WebRequest.gotLength
    handle_chunk = WebRequest.handleContentChunk
    request_received = WebRequest.requestReceived

    def refuse(request: Any) -> None:
        request.body_refused = True
        request.content = io.BytesIO()
        body = too_large_message(settings.MAX_REQUEST_BODY_BYTES)
        head = (
            "HTTP/1.1 413 Payload Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        request.channel.transport.write(head.encode() + body)
        request.channel.transport.loseConnection()

    def patched_got_length(self: Any, length: int | None) -> None:
        # Twisted would also parse a multipart form in memory; Django parses it itself.
        self._parsePOSTFormSubmission = False
        self.body_seen = 0
        self.body_refused = False
        got_length(self, length)
        if length is not None and length > settings.MAX_REQUEST_BODY_BYTES:
            refuse(self)

    def patched_handle_chunk(self: Any, data: bytes) -> None:
        if getattr(self, "body_refused", False):
            return
        self.body_seen = getattr(self, "body_seen", 0) + len(data)
        if self.body_seen > settings.MAX_REQUEST_BODY_BYTES:
            refuse(self)
            return
        handle_chunk(self, data)

    def patched_request_received(self: Any, *args: Any) -> None:
        if not getattr(self, "body_refused", False):
            request_received(self, *args)

    WebRequest.gotLength = patched_got_length
    WebRequest.handleContentChunk = patched_handle_chunk
    WebRequest.requestReceived = patched_request_received
    WebRequest.body_limited = True


# The lab's own close code for a flood (studysite.lab.consumers.CLOSE_TOO_MANY).
CLOSE_TOO_MANY = 4429
# Frames daphne has read that the application has not handled yet; the lab consumer itself
# calls more than 8 waiting a flood, so this many means the application cannot keep up.
MAX_WAITING_FRAMES = 64
# After a flood's close the socket is no longer read; the connection is dropped this much later
# (the close frame has gone out by then, unless the client reads nothing at all).
DROP_AFTER_CLOSE_SECONDS = 1.0


def limit_daphne_websockets() -> None:
    """Make daphne close a websocket that floods it and stop reading one closed for a flood."""
    try:
        from daphne.ws_protocol import WebSocketProtocol
        from twisted.internet import reactor
    except ImportError:
        return
    if getattr(WebSocketProtocol, "frames_limited", False):
        return
    on_message = WebSocketProtocol.onMessage
    server_close = WebSocketProtocol.serverClose

    def stop_reading(self: Any) -> None:
        self.reading_stopped = True
        with contextlib.suppress(Exception):
            self.transport.pauseProducing()

        def drop() -> None:
            if self.state != WebSocketProtocol.STATE_CLOSED:
                self.dropConnection(abort=True)

        # Twisted's stubs type the global reactor as the IReactorTime interface, self included.
        cast(Any, reactor).callLater(DROP_AFTER_CLOSE_SECONDS, drop)

    def patched_on_message(self: Any, payload: bytes, is_binary: bool) -> None:
        if getattr(self, "reading_stopped", False):
            return
        waiting = getattr(self, "application_queue", None)
        if waiting is not None and waiting.qsize() >= MAX_WAITING_FRAMES:
            self.sendClose(code=CLOSE_TOO_MANY)
            stop_reading(self)
            return
        on_message(self, payload, is_binary)

    def patched_server_close(self: Any, code: int | None = None) -> None:
        server_close(self, code)
        if code == CLOSE_TOO_MANY:
            stop_reading(self)

    WebSocketProtocol.onMessage = patched_on_message
    WebSocketProtocol.serverClose = patched_server_close
    WebSocketProtocol.frames_limited = True


def _origin_tuple(origin: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def site_origin(scope: Scope) -> tuple[str, str, int] | None:
    """The origin a page of this site has, from the websocket's Host and scheme."""
    headers = dict(scope.get("headers") or [])
    host = headers.get(b"host", b"").decode("latin-1")
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    secure = scope.get("scheme") in ("wss", "https")
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy is not None:
        forwarded = headers.get(proxy[0][5:].lower().replace("_", "-").encode(), b"")
        secure = secure or forwarded.decode("latin-1") == proxy[1]
    return _origin_tuple(f"{'https' if secure else 'http'}://{host}")


def origin_allowed(scope: Scope) -> bool:
    headers = dict(scope.get("headers") or [])
    raw = headers.get(b"origin")
    if raw is None:
        return False
    origin = _origin_tuple(raw.decode("latin-1"))
    if origin is None:
        return False
    allowed = {_origin_tuple(item) for item in settings.LAB_ALLOWED_ORIGINS}
    return origin == site_origin(scope) or origin in allowed


class ExactOriginValidator:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.denier = WebsocketDenier.as_asgi()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            await self.denier(scope, receive, send)
            return
        await self.app(scope, receive, send)


def client_id(request: HttpRequest) -> str:
    if settings.SECURE_PROXY_SSL_HEADER is not None:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded:
            return str(forwarded.split(",")[-1].strip())
    return str(request.META.get("REMOTE_ADDR", ""))


# What the costly views spent, per browser and per address (see `expensive`).
_spent = rates.CachedBuckets("cpu")


def _allowance(client: str) -> float:
    """A client's processor seconds a minute: a browser's share, or an address's backstop."""
    if client.startswith("all:"):
        return float(settings.EXPENSIVE_CPU_SECONDS_PER_MINUTE_PER_ADDRESS)
    return float(settings.EXPENSIVE_CPU_SECONDS_PER_MINUTE)


def has_share(bucket: str, client: str, now: float) -> bool:
    """Whether the client's bucket (a minute's allowance, refilled over a minute) has any left."""
    per_minute = _allowance(client)
    return _spent.has_tokens(f"{bucket}:{client}", per_minute / 60, per_minute, now)


def charge(bucket: str, client: str, seconds: float, now: float) -> None:
    """Count CPU seconds a request of this client cost (studysite.rates.CachedBuckets)."""
    per_minute = _allowance(client)
    _spent.spend(f"{bucket}:{client}", seconds, per_minute / 60, per_minute, now)


def browser_id(request: HttpRequest) -> str:
    """Who the per-client limit counts: the browser session the request names, if it is a live
    one the site started or a key a page handed out (an invented or expired cookie loads empty),
    else the address itself."""
    session = getattr(request, "session", None)
    if session is not None and (session.get(STARTED_KEY) or is_minted(session.session_key)):
        return f"session:{session.session_key}"
    return f"address:{client_id(request)}"


def _refused(message: str) -> HttpResponse:
    return HttpResponse(
        message, status=429, content_type="text/plain; charset=utf-8", headers={"Retry-After": "60"}
    )


def expensive(bucket: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Each browser may spend EXPENSIVE_CPU_SECONDS_PER_MINUTE of CPU here, and each address
    EXPENSIVE_CPU_SECONDS_PER_MINUTE_PER_ADDRESS (all its browsers together); then a 429.

    Charged by the CPU each request really cost, so ordinary use (a few ms a
    request) never meets the limit while a client sending the largest setups in a
    loop does. A request without a session counts against its address's own per-browser
    share, so a client that never keeps its cookie shares one browser's limit per address.
    """

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            browser, address = browser_id(request), f"all:{client_id(request)}"
            now = time.time()
            if not has_share(bucket, browser, now):
                return _refused(
                    "Too many expensive requests from this browser this minute. "
                    "Wait a minute and try again."
                )
            if not has_share(bucket, address, now):
                return _refused(
                    "Too many expensive requests from your address this minute. "
                    "Wait a minute and try again."
                )
            started = time.thread_time()
            try:
                return view(request, *args, **kwargs)
            finally:
                spent, now = time.thread_time() - started, time.time()
                charge(bucket, browser, spent, now)
                charge(bucket, address, spent, now)

        return wrapped

    return decorate
