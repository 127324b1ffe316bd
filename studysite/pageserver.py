"""The page process: a child of each web process that renders its HTTP pages.

A web process holds the terminals' websockets, and every learner's command runs on its
interpreter. A page rendered there (about 3.4 ms of that interpreter's time for a lab page, and
as much again in the server's own HTTP work for it) took its turn with those commands: eight
visitors arriving together held it for 100-200 ms, and the learners already typing waited
(tests/benchmarks/bench_heavy.py; docs/performance.md, round 46). So each web process starts one
page process, a Django of its own, and hands it every HTTP request that reaches Django: the web
process's share is reading the request and relaying the answer. The operating system, not
Python's lock, then shares the cores between the pages and the terminals.

`PageServer` is the ASGI app in the web process. The web process starts its page process as it
loads the site and waits for it (start_with_the_server). While the child is not ready (it
failed, and is started again after RESTART_SECONDS), or with PAGE_PROCESS off, requests go to
Django in the web process as before: a page is never refused for want of the child. The child runs
Django's own request handling (the same ASGIRequest, middleware, views and response headers as
Django's ASGI handler) in a few threads of its own, with no lab annex (LAB_ANNEX off there: the
form fallback's commands run in the page process, away from the terminals). The child is
another process of the site, as the workers of a production server are: what the pages read
and write goes through the database, as the terminals' labs already do (studysite.lab.store).

Protocol, over a Unix socket in a private folder, one connection per request: the request as a
4-byte length and a JSON object {"scope": SCOPE, "body": LENGTH}, then the body's bytes; the
answer as a 4-byte length and {"status": CODE, "headers": [[NAME, VALUE], ...]} (bytes as
Latin-1 text), then the body's bytes to the end of the connection. The child says
{"ready": true} on stdout once it listens, and exits at the end of its stdin (its web process
has gone).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import io
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Generator, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from django.conf import settings
from django.core import signals
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.urls import set_script_prefix

from studysite.interpreter import SERVING_ENVIRONMENT, tune_for_serving
from studysite.limits import ASGIApp, Receive, Scope, Send, plain_answer, replaying

log = logging.getLogger(__name__)

STARTUP_SECONDS = 60.0
# A page whose answer has not begun after this long (a hung child) is answered 503.
ANSWER_SECONDS = 120.0
# Between two starts of a child that keeps failing; the web process answers meanwhile.
RESTART_SECONDS = 5.0
# The child's threads: pages are short, and more would only queue on its interpreter's lock.
PAGE_THREADS = 8
CHUNK_BYTES = 64 * 1024
LENGTH_BYTES = 4
# The scope's entries the child rebuilds (ASGIRequest reads no others).
SCOPE_TEXT = ("type", "http_version", "method", "scheme", "path", "root_path")
SCOPE_BYTES = ("raw_path", "query_string")
# The child's program: Django set up, then main (the site's modules need their apps loaded).
CHILD = "import sys, django; django.setup(); import studysite.pageserver as p; p.main(sys.argv[1])"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# What became of a request sent to the child (PageServer.relay).
ANSWERED, SILENT, FAILED = "answered", "silent", "failed"
UNAVAILABLE = b"The page could not be rendered just now; reload it to try again.\n"


def framed(data: dict[str, Any]) -> bytes:
    encoded = json.dumps(data).encode()
    return len(encoded).to_bytes(LENGTH_BYTES, "big") + encoded


def headers_as_text(headers: Iterable[tuple[bytes, bytes]]) -> list[list[str]]:
    """ASGI headers as JSON can carry them: each byte one Latin-1 character."""
    return [
        [bytes(name).decode("latin-1"), bytes(value).decode("latin-1")] for name, value in headers
    ]


def headers_as_bytes(pairs: Iterable[list[str]]) -> list[tuple[bytes, bytes]]:
    """The inverse of headers_as_text."""
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in pairs]


def scope_to_json(scope: Scope) -> dict[str, Any]:
    """What the child needs of an HTTP scope, as JSON (bytes as Latin-1 text)."""
    out: dict[str, Any] = {name: scope[name] for name in SCOPE_TEXT if name in scope}
    for name in SCOPE_BYTES:
        if name in scope and scope[name] is not None:
            out[name] = bytes(scope[name]).decode("latin-1")
    out["headers"] = headers_as_text(scope.get("headers") or [])
    for name in ("client", "server"):
        if scope.get(name):
            out[name] = list(scope[name])
    return out


def scope_from_json(data: dict[str, Any]) -> Scope:
    scope: dict[str, Any] = {name: data[name] for name in SCOPE_TEXT if name in data}
    for name in SCOPE_BYTES:
        if name in data:
            scope[name] = data[name].encode("latin-1")
    scope["headers"] = headers_as_bytes(data["headers"])
    for name in ("client", "server"):
        if name in data:
            scope[name] = tuple(data[name])
    return scope


class Child:
    """The web process's side of its page process: started once, watched, restarted."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.folder: str | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.ready = False
        self.watching = False
        # Set once the first start has ended: the child is ready, or it failed.
        self.first_start = threading.Event()

    @property
    def path(self) -> str:
        assert self.folder is not None
        return os.path.join(self.folder, "pages.sock")

    def start_watching(self) -> None:
        """Start the child in the background (once); `ready` turns on when it listens. Cheap
        once started: every request calls it, in case the server never called
        start_with_the_server."""
        if self.watching:
            return
        with self.lock:
            if self.watching:
                return
            self.watching = True
        threading.Thread(target=self._watch, name="page-process", daemon=True).start()

    def wait_ready(self, seconds: float) -> bool:
        """Wait (at most `seconds`) for the first start to end; whether the child is ready."""
        self.first_start.wait(seconds)
        return self.ready

    def _watch(self) -> None:
        while True:
            try:
                self._run_once()
            except Exception:
                log.exception("page process: failed; pages are rendered here meanwhile")
            self.ready = False
            self.first_start.set()
            time.sleep(RESTART_SECONDS)

    def _run_once(self) -> None:
        if self.folder is None:
            self.folder = tempfile.mkdtemp(prefix="studysite-pages-")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        env = {**os.environ, **SERVING_ENVIRONMENT, "LAB_ANNEX": "0", "PAGE_PROCESS": "0"}
        env.setdefault("DJANGO_SETTINGS_MODULE", "studysite.settings")
        self.process = process = subprocess.Popen(
            [sys.executable, "-c", CHILD, self.path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=str(settings.BASE_DIR),
            env=env,
        )
        assert process.stdout is not None
        try:
            said = _line_within(process, STARTUP_SECONDS)
            if said != b'{"ready": true}':
                raise RuntimeError(f"it said {said!r}")
            self.ready = True
            self.first_start.set()
            log.info("page process %s: ready", process.pid)
            code = process.wait()
            log.warning("page process %s: exited with code %s", process.pid, code)
        finally:
            self.ready = False
            with contextlib.suppress(OSError):
                process.kill()
            process.wait()

    def stop(self) -> None:
        """End the child (at the web process's exit) and remove its folder."""
        self.ready = False
        process = self.process
        if process is not None and process.poll() is None:
            with contextlib.suppress(OSError):
                process.kill()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _line_within(process: subprocess.Popen[bytes], seconds: float) -> bytes:
    """The child's first line on stdout, or an error after `seconds` or at its exit."""
    found: list[bytes] = []
    reader = threading.Thread(
        target=lambda: found.append(process.stdout.readline() if process.stdout else b""),
        daemon=True,
    )
    reader.start()
    reader.join(seconds)
    if not found:
        raise RuntimeError(f"no answer in {seconds:.0f} s")
    return found[0].strip()


_child = Child()
atexit.register(_child.stop)


def start_with_the_server() -> None:
    """Start the page process with its web process (PAGE_PROCESS on), and wait until it is
    ready, at most STARTUP_SECONDS: a server then takes its first visitors with their pages
    already apart. Started at the first request instead, the child's own start-up (about 1.5 s
    of processor time) fell on the class that request belonged to, and its pages waited
    (tests/benchmarks/bench_class.py; docs/performance.md, round 46)."""
    if settings.PAGE_PROCESS:
        _child.start_watching()
        if not _child.wait_ready(STARTUP_SECONDS):
            log.warning("page process: not ready; pages are rendered here until it is")


class PageServer:
    """ASGI middleware: HTTP requests rendered by the page process, or by `app` (Django's ASGI
    application, in this process) while it is not ready or PAGE_PROCESS is off."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not settings.PAGE_PROCESS:
            await self.app(scope, receive, send)
            return
        _child.start_watching()
        if not _child.ready:
            await self.app(scope, receive, send)
            return
        body = await whole_body(receive)
        if body is None:
            return  # the client went away
        try:
            reader, writer = await asyncio.open_unix_connection(_child.path)
        except OSError:
            outcome = SILENT
        else:
            try:
                outcome = await self.relay(scope, body, send, reader, writer)
            finally:
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()
        if outcome == SILENT and scope["method"] in SAFE_METHODS:
            # The child went before it read a byte of it (killed, or being replaced): a page
            # that changes nothing is rendered here instead. A form's post is never sent twice.
            await self.app(scope, replaying(body, receive), send)
        elif outcome != ANSWERED:
            await plain_answer(send, 503, UNAVAILABLE, (b"retry-after", b"1"))

    @staticmethod
    async def relay(
        scope: Scope,
        body: bytes,
        send: Send,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> str:
        """Send the request to the child and its answer to the client: ANSWERED once an
        answer has begun (a child failing after that cuts it short), SILENT if the child
        closed without a byte, FAILED otherwise (nothing was sent to the client then)."""
        heard = False
        try:
            writer.write(framed({"scope": scope_to_json(scope), "body": len(body)}) + body)
            async with asyncio.timeout(ANSWER_SECONDS):
                length = await reader.read(LENGTH_BYTES)
                heard = bool(length)
                length += await reader.readexactly(LENGTH_BYTES - len(length))
                head = json.loads(await reader.readexactly(int.from_bytes(length, "big")))
            headers = headers_as_bytes(head["headers"])
            start = {"type": "http.response.start", "status": head["status"], "headers": headers}
        except (OSError, ValueError, KeyError, TypeError, TimeoutError, EOFError) as error:
            if not heard and isinstance(error, ConnectionError | asyncio.IncompleteReadError):
                return SILENT
            log.exception("page process: no answer for %s", scope.get("path"))
            return FAILED
        await send(start)
        try:
            while chunk := await reader.read(CHUNK_BYTES):
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except OSError:
            log.exception("page process: an answer cut short for %s", scope.get("path"))
        await send({"type": "http.response.body", "body": b""})
        return ANSWERED


async def whole_body(receive: Receive) -> bytes | None:
    """The request's body (BodyLimitMiddleware has bounded it), or None if the client left."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


# The child's side.


def _exactly(stream: io.BufferedReader, size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise EOFError("the request ended early")
    return data


def answer(handler: PageHandler, connection: socket.socket) -> None:
    """One request read from `connection`, rendered by `handler` (PageHandler), answered."""
    with connection, connection.makefile("rb") as stream:
        connection.settimeout(ANSWER_SECONDS)
        try:
            length = stream.read(LENGTH_BYTES)
            if not length:
                return  # a connection that asked nothing (a check that the child listens)
            size = int.from_bytes(length + _exactly(stream, LENGTH_BYTES - len(length)), "big")
            request = json.loads(_exactly(stream, size))
            scope = scope_from_json(request["scope"])
            body = _exactly(stream, int(request["body"]))
        except (OSError, EOFError, ValueError, KeyError, TypeError):
            log.exception("page process: a request could not be read")
            return
        parts = handler.answer(scope, body)
        try:
            for part in parts:
                connection.sendall(part)
        except OSError:
            pass  # the web process (or its client) went away; the response is still closed
        except Exception:
            log.exception("page process: no answer for %s", scope.get("path"))
        finally:
            parts.close()


class PageHandler(ASGIHandler):
    """Django's ASGI handler, run synchronously in the calling thread: the same request, the
    same middleware and the same headers, without the event loop."""

    def __init__(self) -> None:
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)

    def answer(self, scope: Scope, body: bytes) -> Generator[bytes]:
        """The answer's head (framed), then its body's parts; closing it closes the response
        (Django's request_finished) whether or not it was read to the end."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, refused = self.create_request(scope, io.BytesIO(body))
        response = self.get_response(request) if request is not None else refused
        assert response is not None  # create_request gives a request or its refusal
        if isinstance(response, FileResponse):
            response.block_size = CHUNK_BYTES
        try:
            yield framed({"status": response.status_code, "headers": head_of(response)})
            if isinstance(response, StreamingHttpResponse):  # FileResponse is one
                yield from (bytes(part) for part in response)
            else:
                yield cast(HttpResponse, response).content
        finally:
            response.close()


def head_of(response: HttpResponseBase) -> list[list[str]]:
    """The response's headers and cookies, as Django's ASGI handler sends them."""
    headers = [[str(name), str(value)] for name, value in response.items()]
    headers += [["Set-Cookie", morsel.OutputString()] for morsel in response.cookies.values()]
    return headers


def main(path: str) -> None:
    """The page process's entry point (CHILD), once Django is set up."""
    handler = PageHandler()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    pool = ThreadPoolExecutor(PAGE_THREADS, thread_name_prefix="page")
    threading.Thread(target=_exit_at_end_of_stdin, name="page-stdin", daemon=True).start()
    tune_for_serving()
    # The answer gets the real stdout to itself; anything else printed goes to stderr.
    said = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    said.write(b'{"ready": true}\n')
    said.flush()
    while True:
        try:
            connection, _ = listener.accept()
        except OSError:
            # Out of file descriptors under a flood: the web process renders meanwhile
            # (it cannot connect), and this process takes connections again in a moment.
            log.exception("page process: cannot take a connection")
            time.sleep(0.05)
            continue
        pool.submit(answer, handler, connection)


def _exit_at_end_of_stdin() -> None:
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)
