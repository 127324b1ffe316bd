"""Scenarios through their pages: guess, hints one at a time, reveal, with and without htmx."""

from __future__ import annotations

import html

import pytest
from django.http import HttpResponse
from django.test import Client

from studysite.study.content import load_study
from studysite.study.models import ScenarioProgress

pytestmark = pytest.mark.django_db

STUDY = load_study()
SCENARIO = STUDY.scenario_by_id["gang-cannot-fit"]
URL = f"/scenarios/{SCENARIO.id}/"
HTMX = {"HX-Request": "true"}


def text(response: HttpResponse) -> str:
    return html.unescape(response.content.decode())


def wrong_choice() -> str:
    return next(choice.id for choice in SCENARIO.choices if not choice.correct)


def test_the_list_shows_every_scenario_and_where_the_learner_is(client: Client) -> None:
    client.post(f"{URL}guess", {"choice": "a"})
    body = text(client.get("/scenarios/"))
    for scenario in STUDY.scenarios:
        assert f'href="/scenarios/{scenario.id}/"' in body
    assert body.count("Guess made") == 1
    assert body.count("Not started") == len(STUDY.scenarios) - 1


def test_a_scenario_asks_for_a_guess_before_showing_hints_or_the_cause(client: Client) -> None:
    body = client.get(URL).content.decode()
    assert SCENARIO.situation_html in body
    assert 'name="choice"' in body and 'name="guess"' in body
    assert "Commit to this guess" in body
    assert SCENARIO.hints_html[0] not in body
    assert SCENARIO.cause_html not in body and SCENARIO.fix_html not in body
    assert "Likeliest cause" not in body


def test_from_guess_through_hints_to_the_reveal_without_javascript(client: Client) -> None:
    response = client.post(f"{URL}guess", {"choice": wrong_choice()})
    assert response.status_code == 302 and response["Location"] == f"{URL}#stage"
    body = text(client.get(URL))
    assert SCENARIO.choice_by_id[wrong_choice()].text_html in body
    assert f"Show a hint ({len(SCENARIO.hints_html)} left)" in body
    assert SCENARIO.hints_html[0] not in body
    client.post(f"{URL}hint")
    body = text(client.get(URL))
    assert SCENARIO.hints_html[0] in body and SCENARIO.hints_html[1] not in body
    client.post(f"{URL}reveal")
    response = client.get(URL)
    raw, body = response.content.decode(), text(response)
    assert SCENARIO.cause_html in raw and SCENARIO.fix_html in raw
    assert "Your choice wasn't the likeliest cause." in body
    for link in SCENARIO.sections:
        assert f'href="{link.url}"' in body


def test_a_right_choice_is_confirmed_at_the_reveal(client: Client) -> None:
    client.post(f"{URL}guess", {"choice": SCENARIO.correct_choice.id})
    client.post(f"{URL}reveal")
    assert "Your choice was right." in text(client.get(URL))


def test_a_free_text_guess_is_kept_and_shown_beside_the_answer(client: Client) -> None:
    client.post(f"{URL}guess", {"guess": "The gang is  bigger than the free GPUs"})
    client.post(f"{URL}reveal")
    body = text(client.get(URL))
    assert "“The gang is bigger than the free GPUs”" in body
    assert SCENARIO.correct_choice.text_html in body


def test_with_htmx_each_step_returns_only_the_stage_and_announces_it(client: Client) -> None:
    response = client.post(f"{URL}guess", {"choice": "a"}, headers=HTMX)
    body = text(response)
    assert body.lstrip().startswith('<section id="stage"') and "<html" not in body
    assert 'hx-swap-oob="innerHTML">Guess saved.' in body
    body = text(client.post(f"{URL}hint", headers=HTMX))
    assert 'hx-swap-oob="innerHTML">Hint 1 shown.' in body
    assert SCENARIO.hints_html[0] in body


@pytest.mark.parametrize(
    ("step", "form", "message"),
    [
        ("guess", {}, "Choose an answer or type your own guess first."),
        ("guess", {"choice": "zz"}, "That choice isn't one of this scenario's answers."),
        ("guess", {"guess": "x" * 600}, "Keep your guess under 500 characters."),
        ("hint", {}, "Commit to a guess first"),
        ("reveal", {}, "Commit to a guess before you reveal the cause."),
    ],
)
def test_a_step_out_of_order_or_a_bad_guess_gets_a_clear_message(
    client: Client, step: str, form: dict[str, str], message: str
) -> None:
    response = client.post(f"{URL}{step}", form)
    assert response.status_code == 400
    assert message in text(response)
    assert not ScenarioProgress.objects.exists()


def test_no_more_hints_than_the_scenario_has(client: Client) -> None:
    client.post(f"{URL}guess", {"choice": "a"})
    for _ in SCENARIO.hints_html:
        client.post(f"{URL}hint")
    body = text(client.get(URL))
    assert "Show a hint" not in body
    response = client.post(f"{URL}hint")
    assert response.status_code == 400 and "no more hints" in text(response)
    assert ScenarioProgress.objects.get().hints_shown == len(SCENARIO.hints_html)


def test_try_again_clears_the_scenario(client: Client) -> None:
    client.post(f"{URL}guess", {"choice": "a"})
    client.post(f"{URL}reveal")
    client.post(f"{URL}restart")
    assert "Commit to this guess" in text(client.get(URL))
    assert not ScenarioProgress.objects.exists()


def test_the_reveal_links_on_to_the_next_scenario(client: Client) -> None:
    client.post(f"{URL}guess", {"choice": "a"})
    client.post(f"{URL}reveal")
    following = STUDY.scenarios[SCENARIO.number % len(STUDY.scenarios)]
    assert f'href="/scenarios/{following.id}/">Next scenario: {following.title}' in text(
        client.get(URL)
    )


def test_an_unknown_scenario_is_a_friendly_404(client: Client) -> None:
    for response in (client.get("/scenarios/no-such/"), client.post("/scenarios/no-such/guess")):
        assert response.status_code == 404
        assert "There's no scenario with that name." in text(response)
    assert client.post(f"{URL}explode").status_code == 404


def _shown_order(client: Client, scenario_id: str) -> list[str]:
    import re

    body = client.get(f"/scenarios/{scenario_id}/").content.decode()
    return re.findall(r'name="choice" value="([a-z])"', body)


def test_choices_are_shuffled_per_learner_and_stay_put_for_one(client: Client) -> None:
    client.post(f"/scenarios/{SCENARIO.id}/hint")  # any request that gives the learner a session
    orders = set()
    for scenario in STUDY.scenarios:
        mine = _shown_order(client, scenario.id)
        assert sorted(mine) == sorted(c.id for c in scenario.choices)
        assert _shown_order(client, scenario.id) == mine  # the same on every visit
        orders.add(tuple(mine))
    # Not the file's order everywhere: across sixteen scenarios a shuffle shows several orders.
    assert len(orders) >= 4
    assert any(list(order) != sorted(order) for order in orders)
