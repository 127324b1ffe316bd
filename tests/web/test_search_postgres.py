"""The search on PostgreSQL's full-text search, when a PostgreSQL server is at hand.

Set TEST_POSTGRES_URL (for example postgresql://postgres@/postgres?host=/tmp/pg&port=5432)
to run these; without it they are skipped, and the SQLite index is what the rest of the
suite measures.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from studysite.guide.search import search_postgres
from tests.web.test_search_quality import QUERIES

URL = os.environ.get("TEST_POSTGRES_URL", "")
pytestmark = pytest.mark.skipif(not URL, reason="TEST_POSTGRES_URL is not set")


@pytest.fixture(scope="module")
def cursor() -> Iterator[Any]:
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(URL, autocommit=True) as connection, connection.cursor() as cursor:
        yield cursor


@pytest.mark.parametrize(("query", "slug"), QUERIES, ids=[query for query, _ in QUERIES])
def test_each_query_finds_its_section_in_the_first_three_results(
    cursor: Any, query: str, slug: str
) -> None:
    urls = [hit.document.url for hit in search_postgres(query, cursor)[:3]]
    assert any(url.startswith(f"/guide/{slug}/") for url in urls), urls


def test_snippets_mark_the_matched_words(cursor: Any) -> None:
    hits = search_postgres("reclaiming", cursor)
    marked = {text.lower() for hit in hits for text, matched in hit.parts if matched}
    assert marked & {"reclaim", "reclaimed", "reclaims"}


def test_odd_input_finds_nothing_rather_than_failing(cursor: Any) -> None:
    for query in ['"unbalanced', "a & b | !c", "quota:*", "<->", "'", "%%%"]:
        search_postgres(query, cursor)
