"""A section page is the same bytes for every learner; each learner's part comes separately."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from studysite.guide.sections import load_guide

pytestmark = pytest.mark.django_db

URL = "/guide/stack/"
READ_URL = "/guide/stack/read"
HX = {"HX-Request": "true"}
TOTAL = len(load_guide().sections)


def token_in(body: str) -> str:
    field = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body)
    assert field
    return field.group(1)


def test_a_section_page_is_the_same_bytes_for_two_different_learners() -> None:
    reader, newcomer = Client(), Client()
    reader.post(READ_URL, {"read": "1"})

    read_page, fresh_page = reader.get(URL), newcomer.get(URL)

    assert read_page.status_code == fresh_page.status_code == 200
    assert read_page.content == fresh_page.content
    assert read_page["ETag"] == fresh_page["ETag"]
    body = read_page.content.decode()
    assert "csrfmiddlewaretoken" not in body and "X-CSRFToken" not in body
    assert "nonce=" not in body and "You marked this section as read" not in body
    assert not read_page.cookies and not fresh_page.cookies


def test_a_section_page_carries_the_csp_and_the_security_headers() -> None:
    response = Client().get(URL)
    policy = response["Content-Security-Policy"]
    # No inline script, so no nonce: the policy is the same for everyone and stricter.
    assert "script-src 'self';" in policy and "style-src 'self';" in policy
    assert "nonce" not in policy and "unsafe-inline" not in policy
    assert "object-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"
    assert "camera=()" in response["Permissions-Policy"]
    assert response["Cache-Control"] == "public, no-cache"
    # Nothing about the learner (no Cookie) decides the bytes; only the encoding does.
    assert response["Vary"] == "Accept-Encoding"


def test_an_unchanged_page_is_answered_not_modified() -> None:
    client = Client()
    etag = client.get(URL)["ETag"]
    response = client.get(URL, headers={"If-None-Match": etag})
    assert response.status_code == 304 and response.content == b""
    assert client.get(URL, headers={"If-None-Match": '"other"'}).status_code == 200


def test_the_page_loads_the_learners_part_and_links_to_it_for_a_reader_without_javascript() -> None:
    body = Client().get(URL).content.decode()
    assert re.search(
        rf'<a href="{READ_URL}" hx-get="{READ_URL}" hx-trigger="load" hx-target="#read-state"',
        body,
    )
    assert '<nav id="guide-toc" class="toc" aria-label="Guide contents">' in body
    assert 'id="read-mark-stack" class="read-mark"></span>' in body


def test_each_learner_gets_their_own_read_marks_and_progress_from_the_learner_endpoint() -> None:
    reader, newcomer = Client(), Client()
    reader.post(READ_URL, {"read": "1"})

    mine = reader.get(READ_URL, headers=HX).content.decode()
    theirs = newcomer.get(READ_URL, headers=HX).content.decode()

    assert "You marked this section as read." in mine and "Mark as unread" in mine
    assert f"1 of {TOTAL} sections read" in mine and f"1 of {TOTAL} read" in mine
    assert 'id="read-mark-stack" class="read-mark"><span aria-hidden="true">✓' in mine
    assert "Mark section as read" in theirs and f"0 of {TOTAL} read" in theirs
    assert 'id="read-mark-stack" class="read-mark"></span>' in theirs
    # Only the swapped regions: the form, and the contents list out of band.
    assert "<html" not in mine and 'hx-swap-oob="true"' in mine


def test_the_learner_endpoint_says_it_differs_by_htmx_and_by_cookie() -> None:
    response = Client().get(READ_URL, headers=HX)
    assert {"HX-Request", "Cookie"} <= {v.strip() for v in response["Vary"].split(",")}


def test_without_javascript_a_reader_marks_a_section_read_through_the_linked_page() -> None:
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(READ_URL).content.decode()
    assert "<html" in page and f'action="{READ_URL}"' in page
    assert f'href="{URL}"' in page and 'rel="next"' in page
    assert '<nav id="guide-toc" class="toc" aria-label="Guide contents">' in page

    response = browser.post(READ_URL, {"read": "1", "csrfmiddlewaretoken": token_in(page)})

    assert response.status_code == 302 and response["Location"] == READ_URL
    confirmed = browser.get(READ_URL).content.decode()
    assert "You marked this section as read." in confirmed
    assert f"1 of {TOTAL} sections read" in confirmed
    assert 'id="read-mark-stack" class="read-mark"><span aria-hidden="true">✓' in confirmed


def test_with_htmx_marking_read_sends_the_forms_own_token_and_is_refused_without_it() -> None:
    browser = Client(enforce_csrf_checks=True)
    token = token_in(browser.get(READ_URL, headers=HX).content.decode())

    refused = browser.post(READ_URL, {"read": "1"}, headers=HX)
    accepted = browser.post(READ_URL, {"read": "1", "csrfmiddlewaretoken": token}, headers=HX)

    assert refused.status_code == 403
    assert accepted.status_code == 200
    assert "You marked this section as read." in accepted.content.decode()


def test_an_unknown_section_has_no_learner_endpoint() -> None:
    assert Client().get("/guide/no-such-section/read").status_code == 404
    assert Client().post("/guide/no-such-section/read", {"read": "1"}).status_code == 404


def test_home_continues_from_the_section_the_reader_was_last_on() -> None:
    reader = Client()
    reader.get("/guide/placement/read", headers=HX)  # the section page loading its part
    home = reader.get("/").content.decode()
    assert re.search(r"Continue reading</span> <a href=\"/guide/placement/\"", home), home

    reader.post("/guide/placement/read", {"read": "1"}, headers=HX)
    home = reader.get("/").content.decode()
    # Read now: home goes on with the next unread section after it, not back to section 1.
    assert 'Continue reading</span> <a href="/guide/fractions-mig/"' in home


def test_a_newcomer_is_offered_the_first_section_as_next_to_read() -> None:
    home = Client().get("/").content.decode()
    assert "Continue reading" not in home


def test_a_section_marked_at_its_end_says_so_beside_an_undo() -> None:
    reader = Client()
    marked = reader.post(READ_URL, {"read": "1", "auto": "1"}, headers=HX).content.decode()
    assert "Marked as read: you reached the end of this section." in marked
    assert "Undo: mark as unread" in marked
    undone = reader.post(READ_URL, {"read": "0"}, headers=HX).content.decode()
    assert "Mark section as read" in undone and f"0 of {TOTAL} sections read" in undone
