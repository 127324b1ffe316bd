"""Flashcards through their pages: grading, undo, filter, shuffle, and quiz mistakes."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.http import HttpResponse
from django.test import Client
from django.utils import timezone

from studysite.study import cards
from studysite.study.content import load_study
from studysite.study.models import CardProgress
from tests.web.shown import keys_on_page

pytestmark = pytest.mark.django_db

STUDY = load_study()
FIRST = STUDY.cards[0]
HTMX = {"HX-Request": "true"}


def text(response: HttpResponse) -> str:
    return html.unescape(response.content.decode())


def shown_card(client: Client, url: str = "/cards/") -> str:
    found = re.search(r'name="card" value="([^"]+)"', client.get(url).content.decode())
    assert found
    return found.group(1)


def words(response: HttpResponse) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def counts(body: str) -> tuple[int, int, int]:
    found = re.search(
        r"<strong>(\d+)</strong> due now</span> <span><strong>(\d+)</strong> new</span> "
        r"<span><strong>(\d+)</strong> later",
        body,
    )
    assert found
    due, new, later = found.groups()
    return int(due), int(new), int(later)


def test_the_deck_starts_with_every_card_new_and_shows_the_first(client: Client) -> None:
    body = text(client.get("/cards/"))
    assert counts(body) == (0, len(STUDY.cards), 0)
    assert FIRST.front_html in html.unescape(body)
    assert "Show answer" in body
    for value, label in ((1, "Again"), (2, "Hard"), (3, "Good"), (4, "Easy")):
        assert f'name="rating" value="{value}" aria-keyshortcuts="{value}"' in body
        assert f">{label} <kbd" in body


def test_each_grade_button_shows_when_the_card_would_come_back(client: Client) -> None:
    now = timezone.now()
    waits = cards.next_intervals(None, now)
    body = words(client.get("/cards/"))
    for value, label in ((1, "Again"), (2, "Hard"), (3, "Good"), (4, "Easy")):
        assert f"{label} {value} , next review in {cards.short_wait(waits[value])}" in body
    assert "Good 3 , next review in 10 min" in body
    assert "Easy 4 , next review in" in body and cards.short_wait(waits[4]).endswith("days")


def test_the_intervals_follow_the_cards_memory(client: Client) -> None:
    client.post("/cards/grade", {"card": FIRST.id, "rating": "3"})
    state = CardProgress.objects.get(card_id=FIRST.id).state
    learned = cards.short_wait(cards.next_intervals(state, timezone.now())[3])
    fresh = cards.short_wait(cards.next_intervals(None, timezone.now())[3])
    assert learned != fresh
    assert f"Good 3 , next review in {learned}" in words(client.get(f"/cards/?card={FIRST.id}"))


def test_short_waits_read_as_minutes_hours_and_days() -> None:
    assert cards.short_wait(timedelta(seconds=20)) == "now"
    assert cards.short_wait(timedelta(minutes=10)) == "10 min"
    assert cards.short_wait(timedelta(hours=5)) == "5 h"
    assert cards.short_wait(timedelta(days=1)) == "1 day"
    assert cards.short_wait(timedelta(days=15, hours=2)) == "15 days"


def test_grading_good_schedules_the_card_and_moves_on(client: Client) -> None:
    before = timezone.now()
    response = client.post("/cards/grade", {"card": FIRST.id, "rating": "3"})
    assert response.status_code == 302 and response["Location"] == "/cards/"
    saved = CardProgress.objects.get(card_id=FIRST.id)
    assert before + timedelta(minutes=10) <= saved.due <= timezone.now() + timedelta(minutes=10)
    body = text(client.get("/cards/"))
    assert "Graded “Good”. That card comes back in 10 minutes." in body
    assert counts(body) == (0, len(STUDY.cards) - 1, 1)
    assert shown_card(client) == STUDY.cards[1].id


def test_an_easy_card_comes_back_later_than_an_again_card(client: Client) -> None:
    client.post("/cards/grade", {"card": STUDY.cards[0].id, "rating": "1"})
    client.post("/cards/grade", {"card": STUDY.cards[1].id, "rating": "4"})
    again = CardProgress.objects.get(card_id=STUDY.cards[0].id).due
    easy = CardProgress.objects.get(card_id=STUDY.cards[1].id).due
    assert easy - again > timedelta(days=1)


def test_with_htmx_a_grade_returns_the_next_card_and_announces_the_grade(client: Client) -> None:
    response = client.post("/cards/grade", {"card": FIRST.id, "rating": "1"}, headers=HTMX)
    body = text(response)
    assert body.lstrip().startswith('<section id="deck"')
    assert "<html" not in body
    assert '<p id="cards-status" hx-swap-oob="innerHTML">Graded “Again”.' in body
    assert f'name="card" value="{STUDY.cards[1].id}"' in body


@pytest.mark.parametrize(
    "form",
    [
        {"card": "no-such-card", "rating": "3"},
        {"card": FIRST.id, "rating": "7"},
        {"card": FIRST.id, "rating": "good"},
        {"card": FIRST.id},
    ],
)
def test_a_tampered_grade_gets_a_clear_message_and_saves_nothing(
    client: Client, form: dict[str, str]
) -> None:
    response = client.post("/cards/grade", form)
    assert response.status_code == 400
    assert "That grade didn't match a card and a grade from 1 to 4. Nothing was saved." in text(
        response
    )
    assert CardProgress.objects.count() == 0


def test_undo_puts_the_last_graded_card_back_as_it_was(client: Client) -> None:
    client.post("/cards/grade", {"card": FIRST.id, "rating": "3"})
    client.post("/cards/grade", {"card": FIRST.id, "rating": "3"}, headers=HTMX)
    learned = CardProgress.objects.get(card_id=FIRST.id).state
    client.post("/cards/grade", {"card": FIRST.id, "rating": "1"})
    response = client.post("/cards/undo")
    assert response["Location"] == f"/cards/?card={FIRST.id}"
    assert CardProgress.objects.get(card_id=FIRST.id).state == learned
    assert shown_card(client, response["Location"]) == FIRST.id
    client.post("/cards/undo")
    client.post("/cards/undo")
    assert not CardProgress.objects.exists()


def test_undo_with_nothing_to_undo_says_so(client: Client) -> None:
    body = text(client.post("/cards/undo", follow=True))
    assert "There's no grade to undo." in body
    assert re.search(r"<button[^>]*disabled>Undo last grade</button>", body)


def test_filtering_by_section_shows_only_that_sections_cards(client: Client) -> None:
    mig = [card for card in STUDY.cards if card.section.slug == "mig-gpu-operator"]
    body = text(client.get("/cards/", {"section": "mig-gpu-operator"}))
    assert counts(body) == (0, len(mig), 0)
    assert shown_card(client, "/cards/?section=mig-gpu-operator") == mig[0].id
    assert '<option value="mig-gpu-operator" selected>' in body
    partial = text(client.get("/cards/", {"section": "mig-gpu-operator"}, headers=HTMX))
    assert partial.lstrip().startswith('<section id="deck"')


def test_grading_in_a_filtered_deck_stays_in_that_section(client: Client) -> None:
    mig = [card for card in STUDY.cards if card.section.slug == "mig-gpu-operator"]
    response = client.post(
        "/cards/grade", {"card": mig[0].id, "rating": "3", "section": "mig-gpu-operator"}
    )
    assert response["Location"] == "/cards/?section=mig-gpu-operator"
    assert shown_card(client, response["Location"]) == mig[1].id


def test_an_unknown_section_filter_says_so_and_shows_every_card(client: Client) -> None:
    body = text(client.get("/cards/", {"section": "<script>"}))
    assert "There are no cards for that section, so every card is shown." in body
    assert counts(body) == (0, len(STUDY.cards), 0)
    assert "<script>" not in client.get("/cards/", {"section": "<script>"}).content.decode()


def test_shuffle_changes_the_order_and_can_be_turned_off(client: Client) -> None:
    order = [shown_card(client)]
    client.post("/cards/shuffle")
    body = text(client.get("/cards/"))
    assert 'aria-pressed="true">Shuffle' in body and "Cards shuffled." in body
    shuffled = shown_card(client)
    assert shuffled == shown_card(client)
    client.post("/cards/shuffle")
    assert shown_card(client) == order[0]


def test_a_wrong_quiz_answer_puts_the_questions_cards_in_the_due_pile(client: Client) -> None:
    question = STUDY.questions[0]
    url = client.post("/quiz/start", {"mode": "practice"})["Location"]
    wrong = keys_on_page(
        client.get(url).content.decode(),
        question,
        [next(o.id for o in question.options if not o.correct)],
    )
    feedback = text(
        client.post(f"{url}answer", {"question": question.id, "option": wrong}, follow=True)
    )
    assert "These flashcards are now in your" in feedback
    body = text(client.get("/cards/"))
    assert counts(body)[0] == len(question.cards)
    assert shown_card(client) in question.cards


def test_a_right_quiz_answer_leaves_the_cards_alone(client: Client) -> None:
    question = STUDY.questions[0]
    url = client.post("/quiz/start", {"mode": "practice"})["Location"]
    right = keys_on_page(client.get(url).content.decode(), question, question.correct_ids)
    client.post(f"{url}answer", {"question": question.id, "option": right})
    assert not CardProgress.objects.exists()


def test_a_wrong_answer_brings_back_a_card_scheduled_for_later(client: Client) -> None:
    question = STUDY.questions[0]
    card_id = question.cards[0]
    client.post("/cards/grade", {"card": card_id, "rating": "4"})
    assert CardProgress.objects.get(card_id=card_id).due > timezone.now() + timedelta(days=1)
    url = client.post("/quiz/start", {"mode": "exam"})["Location"]
    client.post(f"{url}submit", {})
    assert CardProgress.objects.get(card_id=card_id).due <= timezone.now()


def test_each_browser_has_its_own_deck(client: Client) -> None:
    client.post("/cards/grade", {"card": FIRST.id, "rating": "3"})
    assert counts(text(Client().get("/cards/"))) == (0, len(STUDY.cards), 0)


def test_a_wrong_answer_on_a_single_question_page_also_makes_its_cards_due(
    client: Client,
) -> None:
    question = STUDY.questions[8]
    page = client.get(f"/quiz/questions/{question.id}/").content.decode()
    seed = page.split('name="seed" value="', 1)[1].split('"', 1)[0]
    wrong = keys_on_page(page, question, [next(o.id for o in question.options if not o.correct)])
    response = client.post(f"/quiz/questions/{question.id}/answer", {"seed": seed, "option": wrong})
    assert "These flashcards are now in your" in text(response)
    assert counts(text(client.get("/cards/")))[0] == len(question.cards)
