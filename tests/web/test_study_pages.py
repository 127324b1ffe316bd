"""The reference, the exam traps, the study sections of the guide, search, and page safety."""

from __future__ import annotations

import html
import re

import pytest
from django.http import HttpResponse
from django.test import Client

from studysite.study.content import load_study

pytestmark = pytest.mark.django_db

STUDY = load_study()
HTMX = {"HX-Request": "true"}
STUDY_PAGES = ["/quiz/", "/cards/", "/scenarios/", "/reference/", "/traps/", "/progress/"]


def text(response: HttpResponse) -> str:
    return html.unescape(response.content.decode())


def terms(body: str) -> list[str]:
    return [html.unescape(term) for term in re.findall(r"<dt>(.*?)</dt>", body)]


# Reference


def test_the_reference_lists_every_term_with_its_meaning_and_section(client: Client) -> None:
    body = client.get("/reference/").content.decode()
    assert len(terms(body)) == len(STUDY.reference)
    item = STUDY.reference[0]
    assert f'id="{item.anchor}"' in body
    assert item.meaning_html in body
    assert f'href="{item.section.url}"' in body
    assert f"All {len(STUDY.reference)} terms" in body


def test_the_reference_filters_with_a_plain_get_request(client: Client) -> None:
    body = client.get("/reference/", {"q": "MIG Manager"}).content.decode()
    found = terms(body)
    assert found and len(found) < len(STUDY.reference)
    assert all(
        "mig" in f"{i.term} {i.meaning}".lower() and "manager" in f"{i.term} {i.meaning}".lower()
        for i in STUDY.reference
        if i.term in found
    )
    assert f"{len(found)} of {len(STUDY.reference)} terms match “MIG Manager”" in html.unescape(
        body
    )
    assert 'value="MIG Manager"' in body


def test_with_htmx_the_filter_returns_only_the_list_and_updates_the_count(client: Client) -> None:
    body = text(client.get("/reference/", {"q": "preempt"}, headers=HTMX))
    assert "<html" not in body and "<dl" in body
    assert re.search(r'<span id="reference-count" hx-swap-oob="innerHTML">\s*\d+ of', body)


def test_a_filter_that_matches_nothing_says_so(client: Client) -> None:
    body = text(client.get("/reference/", {"q": "zzqxv"}))
    assert "No term matches “zzqxv”" in body
    assert "0 of" in body


def test_the_reference_filter_survives_odd_input(client: Client) -> None:
    for query in ["<script>alert(1)</script>", "a" * 5000, "%%%", "\u202e"]:
        response = client.get("/reference/", {"q": query})
        assert response.status_code == 200
        assert "<script>alert(1)" not in response.content.decode()


def test_reference_terms_are_found_by_the_site_search(client: Client) -> None:
    item = next(i for i in STUDY.reference if i.id == "kai-scheduler")
    body = client.get("/search/", {"q": "KAI Scheduler"}).content.decode()
    assert f'href="/reference/?q=KAI+Scheduler#{item.anchor}"' in body
    assert "Reference" in body
    page = client.get("/reference/", {"q": "KAI Scheduler"}).content.decode()
    assert f'id="{item.anchor}"' in page


# Exam traps


def test_the_traps_page_lists_the_13_traps_in_order(client: Client) -> None:
    body = client.get("/traps/").content.decode()
    numbers = [int(n) for n in re.findall(r'<li id="trap-[^"]+" value="(\d+)">', body)]
    assert numbers == list(range(1, 14))
    for trap in STUDY.traps:
        assert trap.text_html in body


def test_every_trap_links_its_sections_and_the_questions_that_test_it(client: Client) -> None:
    body = client.get("/traps/").content.decode()
    blocks = re.split(r'<li id="trap-', body)[1:]
    for trap, block in zip(STUDY.traps, blocks, strict=True):
        for link in trap.sections:
            assert f'href="{link.url}"' in block
        tested = [q for q in STUDY.questions if trap.id in q.traps]
        assert tested
        for question in tested:
            assert f'href="/quiz/questions/{question.id}/">Quiz question {question.number}' in block


def test_a_trap_question_link_opens_that_question(client: Client) -> None:
    question = STUDY.questions_for_trap("gang-all-or-none")[0]
    body = client.get(f"/quiz/questions/{question.id}/").content.decode()
    assert question.prompt_html in body


# The study sections of the guide


@pytest.mark.parametrize(
    ("slug", "expected"),
    [
        ("scenarios", 'href="/scenarios/training-keeps-getting-killed/"'),
        ("reference", 'hx-get="/reference/"'),
        ("flashcards", 'href="/cards/"'),
        ("exam-traps", 'href="/quiz/questions/'),
        ("practice-quiz", 'href="/quiz/"'),
    ],
)
def test_each_study_section_of_the_guide_leads_into_its_tool(
    client: Client, slug: str, expected: str
) -> None:
    body = client.get(f"/guide/{slug}/").content.decode()
    assert expected in body


def test_the_exam_traps_section_lists_all_13(client: Client) -> None:
    body = client.get("/guide/exam-traps/").content.decode()
    assert len(re.findall(r'<li id="trap-', body)) == 13


def test_the_flashcards_section_shows_every_card_to_flip(client: Client) -> None:
    body = client.get("/guide/flashcards/").content.decode()
    assert body.count('<details class="card-flip">') == len(STUDY.cards)


def test_the_reference_section_lists_every_term(client: Client) -> None:
    assert len(terms(client.get("/guide/reference/").content.decode())) == len(STUDY.reference)


# Every study page


@pytest.mark.parametrize("url", STUDY_PAGES)
def test_every_study_page_marks_its_tool_current_in_the_site_navigation(
    client: Client, url: str
) -> None:
    body = client.get(url).content.decode()
    site_nav = body.split('<nav class="site-nav" aria-label="Site">', 1)[1].split("</nav>", 1)[0]
    assert site_nav.count('aria-current="page"') == 1
    assert re.search(rf'href="{re.escape(url)}" aria-current="page"', body)


@pytest.mark.parametrize("url", [*STUDY_PAGES, "/scenarios/gang-cannot-fit/", "/progress/reset"])
def test_study_pages_have_no_inline_script_style_or_event_handler(client: Client, url: str) -> None:
    body = client.get(url).content.decode()
    for tag in re.findall(r"<script[^>]*>", body):
        assert "src=" in tag
    assert "<style" not in body
    assert not re.search(r"\sstyle=", body)
    assert not re.search(r"\son[a-z]+=", body)
    assert "hx-on" not in body


def test_the_study_pages_do_not_mark_the_guide_as_current(client: Client) -> None:
    body = client.get("/quiz/").content.decode()
    assert not re.search(r'href="/" aria-current="page"', body)
