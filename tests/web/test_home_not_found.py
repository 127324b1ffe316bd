"""The 404 page: a way back in, with a search started from the missing address."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from studysite.errors import suggestion
from studysite.guide.sections import load_guide

pytestmark = pytest.mark.django_db


def test_a_missing_page_offers_search_the_contents_and_every_tool(client: Client) -> None:
    response = client.get("/guide/mig-strategies/")
    assert response.status_code == 404
    body = html.unescape(response.content.decode())
    assert "There is no page at /guide/mig-strategies/." in re.sub(r"<[^>]+>", "", body)
    assert '<form class="not-found-search" role="search" action="/search/" method="get">' in body
    assert 'name="q" value="mig strategies"' in body
    for section in load_guide().sections:
        assert f'<a href="{section.url}">{section.title}</a>' in body
    for url in ("/simulator/", "/lab/", "/quiz/", "/bank/", "/cards/", "/progress/"):
        assert f'href="{url}"' in body


def test_the_suggested_search_keeps_only_words_from_the_address() -> None:
    assert suggestion("/guide/mig-strategies/") == "mig strategies"
    assert suggestion("/quiz/123/results/") == "quiz results"
    assert suggestion("/") == ""


def test_a_missing_page_search_finds_the_section(client: Client) -> None:
    response = client.get("/search/", {"q": suggestion("/guide/gang-scheduling-x/")})
    assert response.status_code == 200 and "/guide/gang-scheduling/" in response.content.decode()
