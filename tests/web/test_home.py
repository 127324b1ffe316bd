"""The home page: a first visit learns what the site offers; a returning one continues."""

from __future__ import annotations

import html
import re

import pytest
from django.http import HttpResponse
from django.test import Client

from simulators.lab import list_tickets
from studysite.guide.sections import load_guide
from studysite.study.content import load_study
from tests.web.shown import exam_keys

pytestmark = pytest.mark.django_db

STUDY = load_study()
GUIDE = load_guide()


def words(response: HttpResponse) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def test_a_first_visit_says_what_each_tool_offers_in_a_sentence(client: Client) -> None:
    body = words(client.get("/"))
    assert "New here? What this site offers" in body
    assert "Continue where you left off" not in body
    for sentence in (
        "Quota simulator Set quotas, demand and weights",
        "Lab tickets Fix real-looking tickets with kubectl and runai",
        "Practice quiz 28 exam-style questions",
        "Question bank More questions to practise",
        "Flashcards Spaced repetition",
        "Scenarios Troubleshooting stories",
        "Progress Export, import or reset",
    ):
        assert sentence in body


def test_every_tool_is_linked_from_home(client: Client) -> None:
    page = client.get("/").content.decode()
    for url in ("/search/", "/simulator/", "/lab/", "/quiz/", "/bank/", "/cards/", "/scenarios/"):
        assert f'href="{url}"' in page
    for url in ("/reference/", "/traps/", "/progress/"):
        assert f'href="{url}"' in page


def test_a_returning_learner_sees_the_next_unread_section(client: Client) -> None:
    first, second = GUIDE.sections[0], GUIDE.sections[1]
    client.post(f"/guide/{first.slug}/read", {"read": "1"})
    body = words(client.get("/"))
    assert "Continue where you left off" in body and "New here?" not in body
    assert f"Next to read {second.order}. {second.title} 1 of 27 sections read" in body


def test_home_shows_cards_due_and_the_last_quiz_score(client: Client) -> None:
    url = client.post("/quiz/start", {"mode": "exam"})["Location"]
    first = STUDY.questions[0]
    right = exam_keys(client.get(url).content.decode(), first, first.correct_ids)
    client.post(f"{url}submit", {f"q-{first.id}": right})
    body = words(client.get("/"))
    assert "Quiz Last score 1 / 28 exam mode" in body
    made_due = {card for question in STUDY.questions[1:] for card in question.cards}
    assert f"Flashcards {len(made_due)} cards due now" in body
    assert f'href="{url}results/"' in client.get("/").content.decode()


def test_home_offers_to_finish_an_open_attempt(client: Client) -> None:
    url = client.post("/quiz/start", {"mode": "practice"})["Location"]
    body = client.get("/").content.decode()
    assert f'<a href="{url}">Finish your practice attempt</a>' in body


def test_home_lists_lab_tickets_in_progress_but_not_solved_ones(client: Client) -> None:
    ticket = list_tickets()[0]
    client.get(f"/lab/{ticket.id}/")
    # A lab is saved (and in progress) once its learner types in it.
    client.post(f"/lab/{ticket.id}/command", {"line": "kubectl get nodes"})
    body = words(client.get("/"))
    assert f"Lab ticket {ticket.title}" in body and "checklist items done" in body
