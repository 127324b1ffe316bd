"""The search page: what a learner sees for a query."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from studysite.guide.search import search

# On PostgreSQL the search runs in the site database (the second pass of `make test`).
pytestmark = pytest.mark.django_db


def _results(client: Client, query: str) -> str:
    return client.get("/search/", {"q": query}, headers={"HX-Request": "true"}).content.decode()


def test_a_stemmed_match_is_highlighted_in_the_snippet(client: Client) -> None:
    body = _results(client, "reclaiming")
    marked = {word.lower() for word in re.findall(r"<mark>([^<]+)</mark>", body)}
    assert marked & {"reclaim", "reclaimed", "reclaims"}


def test_snippets_show_text_not_markdown(client: Client) -> None:
    queries = ["runai training describe", "kubectl describe pod", "fair share", "sample outputs"]
    for query in queries:
        for hit in search(query):
            assert "`" not in hit.snippet and "**" not in hit.snippet, (query, hit.snippet)
            assert "](/" not in hit.snippet, (query, hit.snippet)


def test_a_misspelt_word_still_finds_the_guide(client: Client) -> None:
    body = _results(client, "fragmantation")
    assert "/guide/placement/" in body
    assert "<mark>fragmentation</mark>" in body.lower()


def test_a_question_finds_the_troubleshooting_section_first() -> None:
    assert search("why is my job pending")[0].document.url == "/guide/troubleshooting-pending/"


def test_guide_sections_rank_before_reference_entries_of_the_same_word() -> None:
    urls = [hit.document.url for hit in search("gang scheduling")]
    assert urls[0].startswith("/guide/gang-scheduling/")
    assert any(url.startswith("/reference/") for url in urls)


def test_fts_syntax_in_a_query_is_taken_as_words(client: Client) -> None:
    odd = ['"unbalanced', "gpu AND OR NOT", "NEAR(gpu quota)", "quota*", "col:quota", "^gpu"]
    for query in odd:
        response = client.get("/search/", {"q": query})
        assert response.status_code == 200
    assert search("quota*")


def test_the_page_says_which_word_it_read_a_typo_as(client: Client) -> None:
    body = html.unescape(_results(client, "preemtible fairshare"))
    assert "Also searched for “preemptible” (you typed “preemtible”)" in body
    assert "“fair share” (you typed “fairshare”)" in body
    assert "Also searched for" not in _results(client, "preemptible")


def test_odd_input_finds_nothing_rather_than_failing() -> None:
    # Operators and quotes are never the index's syntax: alone they find nothing ...
    for query in ["<->", "'", "%%%", "& | !"]:
        assert search(query) == []
    # ... and beside words, the words are searched for as typed.
    assert "Quota" in search("quota:*")[0].document.title
    assert search('"unbalanced') == search("unbalanced")


def test_a_search_builds_only_the_index_of_the_site_database() -> None:
    from django.db import connection

    from studysite.guide import search as search_module

    search_module._sqlite_index.cache_clear()
    assert search("fair share")
    on_postgres = connection.vendor == "postgresql"
    assert search_module._sqlite_index.cache_info().currsize == (0 if on_postgres else 1)
    if on_postgres:
        with connection.cursor() as cursor:
            cursor.execute("SELECT DISTINCT version FROM studysite_search_docs")
            assert cursor.fetchall() == [(search_module.corpus().version,)]
