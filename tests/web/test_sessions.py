from __future__ import annotations

import pytest
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from studysite.sessions import existing_key, session_key

pytestmark = pytest.mark.django_db


def respond_with(view) -> HttpResponse:  # type: ignore[no-untyped-def]
    request = RequestFactory().get("/")
    return SessionMiddleware(lambda req: view(req))(request)


def test_a_first_visit_that_stores_progress_gets_a_session_cookie() -> None:
    keys: list[str] = []

    def view(request: HttpRequest) -> HttpResponse:
        keys.append(session_key(request))
        return HttpResponse("ok")

    response = respond_with(view)
    assert response.cookies["sessionid"].value == keys[0]


def test_the_same_browser_keeps_its_key() -> None:
    request = RequestFactory().get("/")
    SessionMiddleware(lambda req: HttpResponse()).process_request(request)
    first = session_key(request)
    assert session_key(request) == first


def test_a_browser_without_a_session_matches_no_rows() -> None:
    request = RequestFactory().get("/")
    SessionMiddleware(lambda req: HttpResponse()).process_request(request)
    assert existing_key(request) == ""
