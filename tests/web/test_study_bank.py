"""The question bank: choosing sections, topics or weak spots, marking, progress."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponse
from django.test import Client

from studysite.study import bank, content
from studysite.study.models import BankAnswer
from tests.web.shown import keys_on_page

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "bank"
HTMX = {"HX-Request": "true"}


@pytest.fixture(autouse=True)
def fixture_bank(settings: Any) -> bank.Bank:
    settings.STUDY_BANK_DIR = str(FIXTURE)
    return bank.load()


def words(response: HttpResponse) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def shown_id(client: Client) -> str:
    body = client.get("/bank/practice/").content.decode()
    found = re.search(r'name="question" value="([^"]+)"', body)
    assert found, body
    return found.group(1)


def right(question_id: str) -> list[str]:
    return sorted(bank.load().by_id[question_id].correct_ids)


def wrong(question_id: str) -> list[str]:
    options = bank.load().by_id[question_id].options
    return [next(option.id for option in options if not option.correct)]


def keys(client: Client, question_id: str, ids: list[str]) -> list[str]:
    """The keys the practice page (showing `question_id`) gives the options `ids`."""
    body = client.get("/bank/practice/").content.decode()
    return keys_on_page(body, bank.load().by_id[question_id], ids)


def start(client: Client, **form: str | list[str]) -> HttpResponse:
    return client.post("/bank/start", form)


def test_the_bank_page_lists_topics_and_sections_with_question_counts(client: Client) -> None:
    body = words(client.get("/bank/"))
    assert "5 more questions beyond the practice quiz" in body
    assert "Quota, over-quota and fair share 3 questions" in body
    assert "GPU fractions and MIG 2 questions" in body
    assert "6. Quota, over-quota, and fairness 2 questions" in body
    assert "You have answered 0 of 5 questions" in body


def test_practising_a_topic_asks_only_that_topics_questions_without_the_answers(
    client: Client,
) -> None:
    response = start(client, by="topics", topic=["fractions-mig"], count="all")
    assert response["Location"] == "/bank/practice/"
    seen = set()
    for _ in range(2):
        body = client.get("/bank/practice/").content.decode()
        assert "correct" not in body.lower().replace("check answer", "")
        question_id = shown_id(client)
        seen.add(question_id)
        client.post(
            "/bank/practice/answer",
            {"question": question_id, "option": keys(client, question_id, right(question_id))},
        )
    assert seen == {"fixture-mig-single", "fixture-mig-memory"}
    assert "Set done: 2 of 2 right" in words(client.get("/bank/practice/"))


def test_practising_sections_takes_their_questions(client: Client) -> None:
    start(client, by="sections", section=["preemption-reclaim"], count="10")
    assert shown_id(client) == "fixture-quota-reclaim"
    assert "Practice: Sections: 8." in words(client.get("/bank/practice/"))


def test_an_answer_is_marked_on_the_server_explained_and_kept(client: Client) -> None:
    start(client, by="topics", topic=["quota-fairness"], count="all")
    question_id = shown_id(client)
    response = client.post(
        "/bank/practice/answer",
        {"question": question_id, "option": keys(client, question_id, wrong(question_id))},
    )
    assert response.status_code == 302
    body = words(client.get(response["Location"]))
    assert "Not quite" in body and "Correct answer" in body and "Your choice" in body
    item = bank.load().by_id[question_id]
    assert f'href="{item.anchor_url}"' in client.get(response["Location"]).content.decode()
    row = BankAnswer.objects.get()
    assert row.question_id == question_id and row.correct is False


def test_an_htmx_answer_swaps_in_the_feedback(client: Client) -> None:
    start(client, by="topics", topic=["fractions-mig"], count="all")
    question_id = shown_id(client)
    response = client.post(
        "/bank/practice/answer",
        {"question": question_id, "option": keys(client, question_id, right(question_id))},
        headers=HTMX,
    )
    body = response.content.decode()
    assert "<h1>" not in body and ">Correct</h2>" in body and "Next question" in body


def test_a_second_answer_to_the_same_question_does_not_count(client: Client) -> None:
    start(client, by="topics", topic=["fractions-mig"], count="all")
    question_id = shown_id(client)
    first, second = (
        keys(client, question_id, wrong(question_id)),
        keys(client, question_id, right(question_id)),
    )
    client.post("/bank/practice/answer", {"question": question_id, "option": first})
    client.post("/bank/practice/answer", {"question": question_id, "option": second})
    assert BankAnswer.objects.count() == 1


def test_an_empty_or_foreign_answer_gets_a_clear_message(client: Client) -> None:
    start(client, by="topics", topic=["fractions-mig"], count="all")
    question_id = shown_id(client)
    response = client.post("/bank/practice/answer", {"question": question_id})
    assert response.status_code == 400 and "Choose an answer" in words(response)
    response = client.post("/bank/practice/answer", {"question": "fixture-quota-borrow"})
    assert response.status_code == 400 and "isn't part of your practice set" in words(response)
    response = client.post("/bank/practice/answer", {"question": question_id, "option": "zz"})
    assert "isn't one of the question's options" in words(response)


def test_starting_without_a_choice_says_what_to_choose(client: Client) -> None:
    assert "Choose at least one topic" in words(client.get(start(client, by="topics")["Location"]))
    assert "Choose at least one section" in words(
        client.get(start(client, by="sections", section="no-such")["Location"])
    )
    assert "No weak spots yet" in words(client.get(start(client, by="weak")["Location"]))


def test_practice_without_a_set_points_back_to_the_chooser(client: Client) -> None:
    response = client.get("/bank/practice/")
    assert response.status_code == 404 and "Choose what to practise" in words(response)


def test_weak_spots_are_the_wrong_answers_then_the_lowest_scoring_topics(client: Client) -> None:
    start(client, by="topics", topic=["quota-fairness"], count="all")
    for _ in range(3):
        question_id = shown_id(client)
        chosen = wrong(question_id) if question_id == "fixture-quota-weight" else right(question_id)
        client.post(
            "/bank/practice/answer",
            {"question": question_id, "option": keys(client, question_id, chosen)},
        )
    start(client, by="sections", section=["fractions-mig"], count="all")
    missed_mig = shown_id(client)
    client.post(
        "/bank/practice/answer",
        {"question": missed_mig, "option": keys(client, missed_mig, wrong(missed_mig))},
    )
    body = words(client.get("/bank/"))
    assert "3 questions: the ones you last got wrong" in body
    assert "Quota, over-quota and fair share 3 questions · 67% of 3 answered" in body
    assert "GPU fractions and MIG 2 questions · 0% of 1 answered" in body
    start(client, by="weak")
    asked = set()
    for _ in range(3):
        question_id = shown_id(client)
        asked.add(question_id)
        client.post(
            "/bank/practice/answer",
            {"question": question_id, "option": keys(client, question_id, right(question_id))},
        )
    assert asked == {"fixture-quota-weight", "fixture-mig-single", "fixture-mig-memory"}


def test_the_set_size_caps_the_questions(client: Client) -> None:
    start(client, by="topics", topic=["quota-fairness", "fractions-mig"], count="10")
    assert "1 of 5" in words(client.get("/bank/practice/"))


def test_bank_answers_are_exported_imported_and_reset_with_progress(client: Client) -> None:
    start(client, by="topics", topic=["fractions-mig"], count="all")
    question_id = shown_id(client)
    client.post(
        "/bank/practice/answer",
        {"question": question_id, "option": keys(client, question_id, wrong(question_id))},
    )
    document = json.loads(client.get("/progress/export").content)
    assert document["parts"]["bank"] == [
        {
            "question": question_id,
            "chosen": wrong(question_id),
            "answered_at": BankAnswer.objects.get().answered_at.isoformat(),
        }
    ]
    assert "Question bank: 1 of 5 bank questions answered; 0 right" in words(
        client.get("/progress/")
    )
    client.post("/progress/reset/erase", {"part": "bank"})
    assert BankAnswer.objects.count() == 0
    raw = json.dumps(document).encode()
    client.post("/progress/import", {"file": SimpleUploadedFile("p.json", raw)})
    assert BankAnswer.objects.get().correct is False


def test_an_import_naming_an_unknown_bank_question_changes_nothing(client: Client) -> None:
    document = json.loads(client.get("/progress/export").content)
    document["parts"] = {"bank": [{"question": "nope", "chosen": ["a"], "answered_at": "x"}]}
    raw = json.dumps(document).encode()
    response = client.post("/progress/import", {"file": SimpleUploadedFile("p.json", raw)})
    assert "names a question the bank doesn't have" in words(response)
    assert BankAnswer.objects.count() == 0


def test_the_bank_setting_reads_another_folder_with_the_contents_own_checks() -> None:
    found = bank.load()
    item = found.by_id["fixture-mig-single"]
    assert item.kind == "single" and item.topic == "fractions-mig"
    assert item.anchor_url == "/guide/fractions-mig/#whole-gpus-mig-and-fractions-compared"
    assert "<code>all-1g.10gb</code>" in item.prompt_html
    assert found.topic_label("fractions-mig") == "GPU fractions and MIG"
    assert "fixture-mig-single" not in {question.id for question in content.load_bank()}
