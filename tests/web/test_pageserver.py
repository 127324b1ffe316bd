"""The page process (studysite.pageserver): Django's pages rendered in a child of the web
process, relayed by the web process as Django would have sent them."""

from __future__ import annotations

import asyncio
import gzip
import json
import re
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from studysite import pageserver
from studysite.pageserver import PageHandler, PageServer, scope_from_json, scope_to_json

Sent = list[dict[str, Any]]


def scope_of(
    path: str, method: str = "GET", headers: list[tuple[bytes, bytes]] | None = None
) -> dict[str, Any]:
    return {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:8000"), *(headers or [])],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }


async def through_a_child(scope: dict[str, Any], body: bytes = b"") -> Sent:
    """The request relayed by PageServer to a page handler answering on the other end of a
    socket pair, in a thread, as the page process answers each connection."""
    ours, theirs = socket.socketpair()
    child = threading.Thread(target=pageserver.answer, args=(PageHandler(), theirs))
    child.start()
    reader, writer = await asyncio.open_connection(sock=ours)
    sent: Sent = []

    async def send(message: Any) -> None:
        sent.append(message)

    try:
        assert await PageServer.relay(scope, body, send, reader, writer) == pageserver.ANSWERED
    finally:
        writer.close()
        await asyncio.to_thread(child.join)
    return sent


def status_headers_body(sent: Sent) -> tuple[int, dict[str, list[str]], bytes]:
    start, *bodies = sent
    assert start["type"] == "http.response.start"
    assert bodies[-1].get("more_body", False) is False  # the answer is ended
    headers: dict[str, list[str]] = {}
    for name, value in start["headers"]:
        headers.setdefault(name.decode("latin-1").lower(), []).append(value.decode("latin-1"))
    return start["status"], headers, b"".join(message.get("body", b"") for message in bodies)


@pytest.mark.django_db(transaction=True)
def test_a_lab_page_from_the_page_process_sets_the_session_and_its_nonce_as_django_would() -> None:
    sent = asyncio.run(through_a_child(scope_of("/lab/mig-single/")))
    status, headers, body = status_headers_body(sent)
    page = body.decode()
    assert status == 200
    assert any(cookie.startswith("sessionid=") for cookie in headers["set-cookie"])
    nonce = re.search(r"script-src [^;]*'nonce-([^']+)'", headers["content-security-policy"][0])
    assert nonce is not None
    assert f'nonce="{nonce.group(1)}"' in page
    assert 'name="csrfmiddlewaretoken"' in page
    assert "Start the terminal" in page or "terminal" in page.lower()


@pytest.mark.django_db(transaction=True)
def test_a_page_from_the_page_process_is_gzipped_for_a_browser_that_takes_gzip() -> None:
    scope = scope_of("/quiz/", headers=[(b"accept-encoding", b"gzip, deflate")])
    status, headers, body = status_headers_body(asyncio.run(through_a_child(scope)))
    assert status == 200
    assert headers["content-encoding"] == ["gzip"]
    assert b"</html>" in gzip.decompress(body)


@pytest.mark.django_db(transaction=True)
def test_a_static_file_from_the_page_process_is_the_file_byte_for_byte() -> None:
    status, headers, body = status_headers_body(
        asyncio.run(through_a_child(scope_of("/static/css/site.css")))
    )
    assert status == 200
    assert body == (Path(settings.BASE_DIR) / "static/css/site.css").read_bytes()
    assert headers["content-length"] == [str(len(body))]


@pytest.mark.django_db(transaction=True)
def test_a_post_without_its_csrf_token_is_refused_by_the_page_process_as_by_django() -> None:
    scope = scope_of(
        "/lab/mig-single/command",
        method="POST",
        headers=[(b"content-type", b"application/x-www-form-urlencoded")],
    )
    status, _, _ = status_headers_body(asyncio.run(through_a_child(scope, b"line=ls")))
    assert status == 403


@pytest.mark.django_db(transaction=True)
def test_an_unknown_path_is_the_sites_own_404_page() -> None:
    status, _, body = status_headers_body(asyncio.run(through_a_child(scope_of("/no-such/"))))
    assert status == 404
    assert b"</html>" in body


def test_a_scope_crosses_to_the_page_process_with_every_byte_asgirequest_reads() -> None:
    scope = scope_of(
        "/lab/\u00e9/", headers=[(b"x-odd", bytes(range(0x80, 0x100))), (b"cookie", b"a=b")]
    )
    scope["raw_path"] = b"/lab/%C3%A9/"
    scope["query_string"] = b"q=%FF&x=\xe9"
    crossed = scope_from_json(json.loads(json.dumps(scope_to_json(scope))))
    assert crossed == scope


class Counting:
    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls += 1


def test_pages_are_rendered_here_while_the_page_process_is_off(settings: Any) -> None:
    settings.PAGE_PROCESS = False
    here = Counting()
    asyncio.run(PageServer(here)(scope_of("/quiz/"), None, None))  # type: ignore[arg-type]
    assert here.calls == 1


def test_pages_are_rendered_here_while_the_page_process_starts(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.PAGE_PROCESS = True
    started = []
    monkeypatch.setattr(pageserver._child, "start_watching", lambda: started.append(True))
    monkeypatch.setattr(pageserver._child, "ready", False)
    here = Counting()
    asyncio.run(PageServer(here)(scope_of("/quiz/"), None, None))  # type: ignore[arg-type]
    assert here.calls == 1
    assert started == [True]


class FakeChild:
    """A page process on a Unix socket that reads each request, says `says` and hangs up."""

    def __init__(self, folder: Path, says: bytes) -> None:
        self.path = str(folder / "pages.sock")
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(self.path)
        self.listener.listen()
        self.says = says
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            connection, _ = self.listener.accept()
            with connection:
                connection.recv(1 << 16)
                connection.sendall(self.says)


def through(child: FakeChild, method: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Sent, int]:
    """A request through PageServer to `child`; what the client got, and how many times the
    web process's own Django was asked."""
    monkeypatch.setattr(pageserver._child, "folder", str(Path(child.path).parent))
    monkeypatch.setattr(pageserver._child, "ready", True)
    monkeypatch.setattr(pageserver._child, "start_watching", lambda: None)
    sent: Sent = []
    calls = []

    async def here(scope: Any, receive: Any, send: Any) -> None:
        calls.append(await receive())
        # As Django's handler listens for the client's disconnect: none came, so none is seen.
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(receive(), 0.05)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"rendered here"})

    messages = [{"type": "http.request", "body": b"line=ls"}]

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop()
        await asyncio.Event().wait()  # the client stays
        raise AssertionError

    async def send(message: Any) -> None:
        sent.append(message)

    asyncio.run(PageServer(here)(scope_of("/quiz/", method=method), receive, send))
    assert all(call == {"type": "http.request", "body": b"line=ls"} for call in calls)
    return sent, len(calls)


Ask = Callable[[bytes, str], tuple[Sent, int]]


@pytest.fixture
def ask(settings: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Ask:
    """A request (its method) through PageServer to a page process that says this."""
    settings.PAGE_PROCESS = True
    return lambda says, method: through(FakeChild(tmp_path, says), method, monkeypatch)


def test_a_page_the_page_process_went_without_answering_is_rendered_here(ask: Ask) -> None:
    sent, here = ask(b"", "GET")
    assert here == 1
    assert status_headers_body(sent)[2] == b"rendered here"


def test_a_post_the_page_process_went_without_answering_gets_a_one_line_503_never_a_second_run(
    ask: Ask,
) -> None:
    sent, here = ask(b"", "POST")
    assert here == 0
    status, headers, body = status_headers_body(sent)
    assert status == 503
    assert headers["retry-after"] == ["1"]
    assert body == pageserver.UNAVAILABLE
    assert body.count(b"\n") == 1


def test_a_page_process_that_dies_mid_answer_ends_the_answer_it_began(ask: Ask) -> None:
    head = pageserver.framed({"status": 200, "headers": [["content-type", "text/html"]]})
    sent, here = ask(head + b"<html>half", "GET")
    assert here == 0
    assert status_headers_body(sent)[:3:2] == (200, b"<html>half")
    assert [message["type"] for message in sent].count("http.response.start") == 1


def test_a_connection_that_asks_nothing_is_closed_quietly(caplog: pytest.LogCaptureFixture) -> None:
    ours, theirs = socket.socketpair()
    ours.close()
    pageserver.answer(PageHandler(), theirs)
    assert caplog.records == []


def test_a_request_cut_short_is_logged_and_answers_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ours, theirs = socket.socketpair()
    ours.sendall(pageserver.framed({"scope": {}, "body": 0})[:6])
    ours.shutdown(socket.SHUT_WR)
    pageserver.answer(PageHandler(), theirs)
    assert ours.recv(10) == b""
    assert "could not be read" in caplog.text
