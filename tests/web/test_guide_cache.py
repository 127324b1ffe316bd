"""A section page is rendered once and shared; each learner's pieces are their own."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from studysite.guide.pages import HOLE_PATTERN, section_page
from studysite.guide.sections import load_guide

pytestmark = pytest.mark.django_db

URL = "/guide/stack/"


def token_in(body: str) -> tuple[str, str]:
    header = re.search(r'"X-CSRFToken": "([^"]+)"', body)
    field = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body)
    assert header and field
    return header.group(1), field.group(1)


def test_one_learners_read_mark_never_shows_on_another_learners_page() -> None:
    reader, newcomer = Client(), Client()
    reader.post(f"{URL}read", {"read": "1"})
    total = len(load_guide().sections)

    read_page = reader.get(URL).content.decode()
    fresh_page = newcomer.get(URL).content.decode()

    assert "You marked this section as read." in read_page
    assert f"1 of {total} read" in read_page
    assert "You marked this section as read." not in fresh_page
    assert f"0 of {total} read" in fresh_page
    assert 'id="read-mark-stack" class="read-mark"></span>' in fresh_page


def test_each_learner_gets_a_working_csrf_token_of_their_own() -> None:
    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    header, field = token_in(first.get(URL).content.decode())
    assert token_in(second.get(URL).content.decode())[0] != header

    response = first.post(f"{URL}read", {"read": "1", "csrfmiddlewaretoken": field})
    assert response.status_code == 302
    assert "You marked this section as read." in first.get(URL).content.decode()


def test_the_shared_page_holds_no_token_and_no_read_state_only_holes() -> None:
    pieces = section_page("stack").pieces
    shared = "".join(pieces[0::2])
    assert sorted(set(pieces[1::2])) == ["csrf", "read-state", "toc"]
    assert "csrfmiddlewaretoken" not in shared
    assert "sections read" not in shared
    assert not HOLE_PATTERN.search(Client().get(URL).content.decode())
