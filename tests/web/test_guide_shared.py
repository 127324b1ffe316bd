"""The guide's pages answered in front of Django (studysite.guide.shared), as Django would."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Iterable
from typing import Any

import pytest
from django.core.asgi import get_asgi_application
from django.test import override_settings

from studysite.guide.sections import load_guide
from studysite.guide.shared import MAX_ORIGINS, SharedPages

PAGE = "/guide/mig-gpu-operator/"
Response = tuple[int, dict[bytes, bytes], bytes]


class Counting:
    """An ASGI app that counts the requests that reach it."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.calls = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls += 1
        await self.app(scope, receive, send)


def guide_paths() -> Iterable[str]:
    return [section.url for section in load_guide().sections]


@pytest.fixture
def django_app() -> Counting:
    return Counting(get_asgi_application())


def fresh() -> tuple[Counting, SharedPages]:
    """Django and the pages in front, built under the settings in force now."""
    django_app = Counting(get_asgi_application())
    return django_app, SharedPages(django_app, paths=guide_paths)


@pytest.fixture
def shared(django_app: Counting) -> SharedPages:
    return SharedPages(django_app, paths=guide_paths)


async def call(
    app: Any,
    path: str = PAGE,
    *,
    method: str = "GET",
    headers: Iterable[tuple[bytes, bytes]] = (),
    host: bytes = b"testserver",
    scheme: str = "http",
    query: bytes = b"",
) -> Response:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": scheme,
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query,
        "headers": [(b"host", host), *headers],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }
    messages: list[dict[str, Any]] = []
    sent = False
    forever = asyncio.Event()

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await forever.wait()  # the client stays connected
        sent = True
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    await app(scope, receive, send)
    start, *bodies = messages
    headers_out = {bytes(name).lower(): bytes(value) for name, value in start["headers"]}
    return start["status"], headers_out, b"".join(m.get("body", b"") for m in bodies)


async def test_the_second_request_is_answered_without_django_with_the_same_bytes_and_headers(
    shared: SharedPages, django_app: Counting
) -> None:
    first = await call(shared)
    second = await call(shared)
    assert django_app.calls == 1
    assert first == second
    status, headers, body = second
    assert status == 200 and body.startswith(b"<!doctype html>")
    assert headers[b"content-length"] == str(len(body)).encode()
    assert b"script-src 'self';" in headers[b"content-security-policy"]
    assert headers[b"x-content-type-options"] == b"nosniff"
    assert headers[b"referrer-policy"] == b"same-origin"
    assert headers[b"cross-origin-opener-policy"] == b"same-origin"
    assert headers[b"x-frame-options"] == b"DENY"
    assert b"camera=()" in headers[b"permissions-policy"]


async def test_a_gzip_client_and_a_plain_client_each_get_their_own_kept_answer(
    shared: SharedPages, django_app: Counting
) -> None:
    gzip_ok = [(b"accept-encoding", b"gzip, deflate, br")]
    await call(shared, headers=gzip_ok)
    _, zipped_headers, zipped = await call(shared, headers=gzip_ok)
    await call(shared)
    _, plain_headers, plain = await call(shared)
    assert django_app.calls == 2
    assert zipped_headers[b"content-encoding"] == b"gzip"
    assert zipped_headers[b"vary"] == plain_headers[b"vary"] == b"Accept-Encoding"
    assert b"content-encoding" not in plain_headers
    assert gzip.decompress(zipped) == plain
    assert len(zipped) < len(plain) / 2


@override_settings(SECURE_HSTS_SECONDS=3600)
async def test_over_https_the_page_keeps_djangos_hsts_header_and_plain_http_does_not() -> None:
    django_app, shared = fresh()
    await call(shared, scheme="https")
    _, secure, _ = await call(shared, scheme="https")
    await call(shared)
    _, plain, _ = await call(shared)
    assert django_app.calls == 2
    assert secure[b"strict-transport-security"] == b"max-age=3600"
    assert b"strict-transport-security" not in plain


@override_settings(
    SECURE_HSTS_SECONDS=3600, SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https")
)
async def test_behind_a_tls_proxy_it_reads_the_proxys_header_as_django_does() -> None:
    _, shared = fresh()
    proxied = [(b"x-forwarded-proto", b"https")]
    await call(shared, headers=proxied)
    _, secure, _ = await call(shared, headers=proxied)
    _, plain, _ = await call(shared)
    assert b"strict-transport-security" in secure
    assert b"strict-transport-security" not in plain


async def test_a_matching_if_none_match_is_answered_not_modified_without_django(
    shared: SharedPages, django_app: Counting
) -> None:
    _, headers, _ = await call(shared)
    etag = headers[b"etag"]
    status, not_modified, body = await call(shared, headers=[(b"if-none-match", b"W/" + etag)])
    assert django_app.calls == 1
    assert status == 304 and body == b""
    assert not_modified[b"etag"] == etag and b"content-security-policy" in not_modified
    assert b"content-length" not in not_modified
    assert (await call(shared, headers=[(b"if-none-match", b'"stale"')]))[0] == 200


async def test_head_gets_the_headers_and_no_body(shared: SharedPages, django_app: Counting) -> None:
    _, full, body = await call(shared)
    status, headers, empty = await call(shared, method="HEAD")
    assert django_app.calls == 1
    assert status == 200 and empty == b""
    assert headers[b"content-length"] == str(len(body)).encode() and headers == full


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "request_kwargs",
    [
        {"method": "POST"},
        {"query": b"utm=x"},
        {"headers": [(b"hx-request", b"true")]},
        {"path": "/guide/no-such-section/"},
        {"path": "/search/"},
        {"host": b"evil.example"},
    ],
    ids=["post", "query string", "htmx", "unknown section", "other page", "refused host"],
)
async def test_requests_it_does_not_know_reach_django_every_time(
    shared: SharedPages, django_app: Counting, request_kwargs: dict[str, Any]
) -> None:
    await call(shared)
    first = await call(shared, **request_kwargs)
    second = await call(shared, **request_kwargs)
    assert django_app.calls == 3
    assert first[0] == second[0]


async def test_a_host_django_refuses_stays_refused(shared: SharedPages) -> None:
    await call(shared)
    assert (await call(shared, host=b"evil.example"))[0] == 400


@override_settings(SECURE_SSL_REDIRECT=True)
async def test_the_https_redirect_is_never_skipped() -> None:
    django_app, shared = fresh()
    for _ in range(2):
        status, headers, _ = await call(shared)
        assert status == 301 and headers[b"location"].startswith(b"https://")
    assert django_app.calls == 2


@pytest.mark.parametrize(
    "headers",
    [
        [(b"cache-control", b"public"), (b"etag", b'"a"'), (b"set-cookie", b"sessionid=1")],
        [(b"cache-control", b"public"), (b"etag", b'"a"'), (b"vary", b"Cookie")],
        [(b"cache-control", b"private"), (b"etag", b'"a"')],
        [(b"cache-control", b"public")],
    ],
    ids=["a cookie", "a vary", "not public", "no etag"],
)
async def test_an_answer_django_did_not_mark_as_shareable_is_never_replayed(
    headers: list[tuple[bytes, bytes]],
) -> None:
    async def page(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"learner's own"})

    app = Counting(page)
    shared = SharedPages(app, paths=lambda: [PAGE])
    await call(shared)
    await call(shared)
    assert app.calls == 2


async def test_junk_host_headers_do_not_grow_its_memory(shared: SharedPages) -> None:
    with override_settings(ALLOWED_HOSTS=["*"]):
        for number in range(MAX_ORIGINS + 20):
            assert (await call(shared, host=f"h{number}.example".encode()))[0] == 200
    assert len(shared._origins) == MAX_ORIGINS


async def test_websockets_pass_through_untouched() -> None:
    seen: list[str] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    await SharedPages(inner, paths=lambda: [PAGE])({"type": "websocket", "path": PAGE}, None, None)
    assert seen == ["websocket"]


def test_the_production_entry_point_answers_the_guides_pages_in_front_of_django() -> None:
    from studysite.asgi import application

    assert isinstance(application, SharedPages)
    assert {section.url for section in load_guide().sections} == application.paths()
