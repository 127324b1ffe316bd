"""The practice quiz through its pages: practice and exam modes, marking, review, retakes."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.http import HttpResponse
from django.test import Client

from studysite.study import quiz
from studysite.study.content import Question, load_study
from studysite.study.models import QuizAttempt
from tests.web.shown import exam_keys, keys_on_page

pytestmark = pytest.mark.django_db

STUDY = load_study()
HTMX = {"HX-Request": "true"}


def text(response: HttpResponse) -> str:
    """The page as a reader sees its characters (entities decoded)."""
    return html.unescape(response.content.decode())


def start(client: Client, mode: str, **extra: str) -> str:
    response = client.post("/quiz/start", {"mode": mode, **extra})
    assert response.status_code == 302
    return response["Location"]


def current_question(client: Client, url: str) -> Question:
    body = client.get(url).content.decode()
    found = re.search(r'name="question" value="([^"]+)"', body)
    assert found, body
    return STUDY.question_by_id[found.group(1)]


def right(question: Question) -> list[str]:
    return sorted(question.correct_ids)


def wrong(question: Question) -> list[str]:
    return [next(option.id for option in question.options if not option.correct)]


def shown(client: Client, url: str, question: Question, ids: list[str]) -> list[str]:
    """The keys the practice page at `url` (showing `question`) gives the options `ids`."""
    return keys_on_page(client.get(url).content.decode(), question, ids)


def exam_form(
    client: Client, url: str, questions: list[Question], wrong_ids: set[str] | None = None
) -> dict[str, list[str]]:
    """The exam form at `url` answering `questions`, right except those in `wrong_ids`."""
    body, missed = client.get(url).content.decode(), wrong_ids or set()
    return {
        f"q-{q.id}": exam_keys(body, q, wrong(q) if q.id in missed else right(q)) for q in questions
    }


def attempt_of(url: str) -> QuizAttempt:
    return QuizAttempt.objects.get(pk=int(url.strip("/").split("/")[1]))


# Starting


def test_the_quiz_page_offers_practice_and_exam_over_all_28_questions(client: Client) -> None:
    body = client.get("/quiz/").content.decode()
    assert "28 questions over the whole guide" in body
    assert 'name="mode" value="practice"' in body and 'name="mode" value="exam"' in body
    assert 'action="/quiz/start"' in body
    assert "No finished attempts yet" in body


def test_an_unknown_mode_is_refused_with_a_message_on_the_quiz_page(client: Client) -> None:
    response = client.post("/quiz/start", {"mode": "speedrun"}, follow=True)
    assert "Choose practice or exam mode to start." in response.content.decode()
    assert QuizAttempt.objects.count() == 0


def test_starting_without_a_csrf_token_is_refused() -> None:
    assert Client(enforce_csrf_checks=True).post("/quiz/start", {"mode": "exam"}).status_code == 403


# The answers stay on the server until the learner answers


def test_a_practice_question_carries_no_correct_answer_or_explanation(client: Client) -> None:
    url = start(client, "practice")
    question = current_question(client, url)
    body = client.get(url).content.decode()
    assert "Question 1 of 28" in body
    for option in question.options:
        assert option.text_html in body
        assert option.explanation_html.strip() not in body
    assert "Correct answer" not in body and "is-answer" not in body


def test_the_exam_page_carries_no_correct_answer_or_explanation(client: Client) -> None:
    body = client.get(start(client, "exam")).content.decode()
    for question in STUDY.questions:
        assert f'name="q-{question.id}"' in body
        for option in question.options:
            assert option.explanation_html.strip() not in body
    assert "Correct answer" not in body and "is-answer" not in body


def test_one_attempt_keeps_its_option_order_and_another_attempt_shuffles_again(
    client: Client,
) -> None:
    def order(url: str) -> list[str]:
        body = client.get(url).content.decode()
        return re.findall(r'name="q-[^"]+" value="[^"]+"><span>(.*?)</span>', body)

    first, second = start(client, "exam"), start(client, "exam")
    assert order(first) == order(first)
    assert order(first) != order(second)
    assert sorted(order(first)) == sorted(order(second))


# Practice mode


def test_a_practice_answer_is_marked_on_the_server_with_every_option_explained(
    client: Client,
) -> None:
    url = start(client, "practice")
    question = current_question(client, url)
    response = client.post(
        f"{url}answer",
        {"question": question.id, "option": shown(client, url, question, wrong(question))},
    )
    assert response.status_code == 302
    body = client.get(response["Location"]).content.decode()
    assert "Not quite" in body
    for option in question.options:
        assert option.explanation_html.strip() in body
    assert body.count("Correct answer") == len(question.correct_ids)
    assert "Your choice" in body
    assert f'href="{question.section.url}"' in body
    assert "Next question" in body


def test_a_right_practice_answer_says_correct_and_moves_on_to_question_2(client: Client) -> None:
    url = start(client, "practice")
    question = current_question(client, url)
    client.post(
        f"{url}answer",
        {"question": question.id, "option": shown(client, url, question, right(question))},
    )
    assert current_question(client, url) == STUDY.questions[1]
    body = client.get(f"{url}answered/{question.id}/").content.decode()
    assert "<h2" in body and ">Correct</h2>" in body


def test_with_htmx_an_answer_returns_only_the_feedback_region_and_a_status(client: Client) -> None:
    url = start(client, "practice")
    question = current_question(client, url)
    response = client.post(
        f"{url}answer",
        {"question": question.id, "option": shown(client, url, question, right(question))},
        headers=HTMX,
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert body.lstrip().startswith('<div id="quiz-region"')
    assert '<p id="quiz-status" hx-swap-oob="innerHTML">Correct.</p>' in body
    assert response["Vary"].count("HX-Request") == 1


def test_the_next_question_link_works_with_and_without_htmx(client: Client) -> None:
    url = start(client, "practice")
    question = current_question(client, url)
    feedback = client.post(
        f"{url}answer",
        {"question": question.id, "option": shown(client, url, question, right(question))},
        headers=HTMX,
    ).content.decode()
    assert f'href="{url}" hx-get="{url}"' in feedback
    partial = client.get(url, headers=HTMX).content.decode()
    assert "Question 2 of 28" in partial and "<html" not in partial
    restore = client.get(url, headers={**HTMX, "HX-History-Restore-Request": "true"})
    assert "<html" in restore.content.decode()


def test_a_tampered_option_id_gets_a_clear_message_and_records_nothing(client: Client) -> None:
    url = start(client, "practice")
    question = current_question(client, url)
    response = client.post(f"{url}answer", {"question": question.id, "option": "zz"})
    body = text(response)
    assert response.status_code == 400
    assert "that answer isn't one of the question's options" in body
    assert attempt_of(url).answers == {}
    assert question.options[0].text_html in body


def test_with_htmx_a_tampered_answer_shows_the_message_in_place(client: Client) -> None:
    url = start(client, "practice")
    question = current_question(client, url)
    response = client.post(f"{url}answer", {"question": question.id}, headers=HTMX)
    assert response.status_code == 200
    assert 'role="alert">Choose an answer before checking it.' in text(response)


def test_an_answer_to_a_question_outside_the_attempt_is_refused_clearly(client: Client) -> None:
    url = start(client, "practice")
    response = client.post(f"{url}answer", {"question": "no-such-question", "option": "a"})
    assert response.status_code == 400
    assert "That question isn't part of this quiz attempt." in text(response)


def test_only_the_first_answer_to_a_question_counts(client: Client) -> None:
    url = start(client, "practice")
    question = current_question(client, url)
    first, second = (
        shown(client, url, question, wrong(question)),
        shown(client, url, question, right(question)),
    )
    client.post(f"{url}answer", {"question": question.id, "option": first})
    client.post(f"{url}answer", {"question": question.id, "option": second})
    assert attempt_of(url).answers == {question.id: wrong(question)}


def test_answering_all_28_in_practice_ends_with_the_score(client: Client) -> None:
    url = start(client, "practice")
    for index in range(28):
        question = current_question(client, url)
        answer = wrong(question) if index in {4, 17} else right(question)
        keys = shown(client, url, question, answer)
        response = client.post(f"{url}answer", {"question": question.id, "option": keys})
    last = client.get(response["Location"]).content.decode()
    assert "See your score" in last and "Next question" not in last
    results = client.get(url, follow=True).content.decode()
    assert "Score: 26 / 28" in results


def test_answering_after_finishing_changes_nothing(client: Client) -> None:
    url = start(client, "practice")
    question = current_question(client, url)
    keys = shown(client, url, question, right(question))
    client.post(f"{url}finish")
    response = client.post(f"{url}answer", {"question": question.id, "option": keys})
    assert response["Location"] == url
    assert attempt_of(url).answers == {} and attempt_of(url).score == 0


def test_finishing_early_counts_unanswered_questions_as_wrong(client: Client) -> None:
    url = start(client, "practice")
    question = current_question(client, url)
    client.post(
        f"{url}answer",
        {"question": question.id, "option": shown(client, url, question, right(question))},
    )
    body = client.post(f"{url}finish", follow=True).content.decode()
    assert "Score: 1 / 28" in body and "27 questions left unanswered" in body


# Exam mode


def test_an_exam_is_scored_after_submitting_every_answer(client: Client) -> None:
    url = start(client, "exam")
    response = client.post(f"{url}submit", exam_form(client, url, list(STUDY.questions)))
    assert response["Location"] == f"{url}results/"
    body = client.get(response["Location"]).content.decode()
    assert "Score: 28 / 28" in body
    assert "Every answer was right; here is each one with its explanations." in body


def test_the_review_shows_every_answer_marked_with_explanations_and_links(
    client: Client,
) -> None:
    missed = {STUDY.questions[2].id, STUDY.questions[11].id, STUDY.questions[20].id}
    url = start(client, "exam")
    client.post(f"{url}submit", exam_form(client, url, list(STUDY.questions), missed))
    body = client.get(f"{url}results/").content.decode()
    assert "Score: 25 / 28" in body
    review = body[body.index('id="review"') :]
    assert re.findall(r'id="review-([^"]+)"', review) == [q.id for q in STUDY.questions]
    for position, question in enumerate(STUDY.questions, 1):
        verdict = "Wrong" if question.id in missed else "Right"
        assert f"Question {position}: {verdict}</h3>" in review
        assert f'href="{question.section.url}"' in review
        for option in question.options:
            assert option.explanation_html.strip() in review


def test_a_tampered_exam_answer_is_refused_and_keeps_the_other_choices(client: Client) -> None:
    url = start(client, "exam")
    form = exam_form(client, url, list(STUDY.questions[:3]))
    form[f"q-{STUDY.questions[3].id}"] = ["not-an-option"]
    response = client.post(f"{url}submit", form)
    body = text(response)
    assert response.status_code == 400
    assert "Question 4: that answer isn't one of the question's options." in body
    assert not attempt_of(url).finished
    first = STUDY.questions[0]
    chosen = form[f"q-{first.id}"][0]
    assert re.search(rf'name="q-{first.id}" value="{chosen}" checked', body)


def test_two_answers_to_a_single_answer_exam_question_are_refused(client: Client) -> None:
    single = next(q for q in STUDY.questions if not q.multiple)
    url = start(client, "exam")
    response = client.post(f"{url}submit", {f"q-{single.id}": ["a", "b"]})
    assert response.status_code == 400
    assert f"Question {single.number} takes one answer" in text(response)


def test_a_finished_exam_cannot_be_submitted_again(client: Client) -> None:
    url = start(client, "exam")
    client.post(f"{url}submit", exam_form(client, url, list(STUDY.questions)))
    client.post(f"{url}submit", {})
    assert attempt_of(url).score == 28
    assert client.get(url)["Location"] == f"{url}results/"


# Retakes and history


def test_retaking_only_the_wrong_ones_asks_just_those_questions(client: Client) -> None:
    missed = [STUDY.questions[1], STUDY.questions[7]]
    url = start(client, "exam")
    client.post(
        f"{url}submit", exam_form(client, url, list(STUDY.questions), {q.id for q in missed})
    )
    results = client.get(f"{url}results/").content.decode()
    assert "Retake only the 2 wrong" in results and "Retake all 28" in results
    retake = start(client, "practice", retake=str(attempt_of(url).pk), which="wrong")
    assert attempt_of(retake).question_ids == [q.id for q in missed]
    assert "Question 1 of 2" in client.get(retake).content.decode()


def test_retaking_all_asks_every_question_again(client: Client) -> None:
    url = start(client, "exam")
    client.post(
        f"{url}submit", exam_form(client, url, list(STUDY.questions), {STUDY.questions[0].id})
    )
    retake = start(client, "exam", retake=str(attempt_of(url).pk), which="all")
    assert len(attempt_of(retake).question_ids) == 28
    assert client.get(retake).content.decode().count('class="exam-question"') == 28


def test_retaking_the_wrong_ones_of_a_perfect_score_says_there_are_none(client: Client) -> None:
    url = start(client, "exam")
    client.post(f"{url}submit", exam_form(client, url, list(STUDY.questions)))
    response = client.post(
        "/quiz/start",
        {"mode": "exam", "retake": str(attempt_of(url).pk), "which": "wrong"},
        follow=True,
    )
    assert "there's nothing wrong to retake" in text(response)


def test_retaking_an_attempt_from_another_browser_is_refused(client: Client) -> None:
    other = Client()
    url = start(other, "exam")
    other.post(f"{url}submit", exam_form(other, url, list(STUDY.questions)))
    response = client.post(
        "/quiz/start", {"mode": "exam", "retake": str(attempt_of(url).pk)}, follow=True
    )
    assert "That attempt isn't in this browser's quiz history." in text(response)


def test_the_score_history_lists_finished_attempts_newest_first(client: Client) -> None:
    first = start(client, "exam")
    client.post(f"{first}submit", exam_form(client, first, list(STUDY.questions)))
    second = start(client, "exam")
    client.post(
        f"{second}submit", exam_form(client, second, list(STUDY.questions), {STUDY.questions[0].id})
    )
    body = client.get("/quiz/").content.decode()
    scores = re.findall(r"<td>(\d+) / 28</td>", body)
    assert scores == ["27", "28"]
    assert f'href="{second}results/"' in body


def test_attempts_belong_to_the_browser_that_made_them(client: Client) -> None:
    url = start(client, "exam")
    response = Client().get(url)
    assert response.status_code == 404
    assert "That quiz attempt isn't in this browser's history." in text(response)


@pytest.mark.parametrize("url", ["/quiz/999/", "/quiz/99999999999999999999999/results/"])
def test_an_unknown_attempt_is_a_friendly_404(client: Client, url: str) -> None:
    start(client, "exam")
    response = client.get(url)
    assert response.status_code == 404
    assert "Back to the quiz" in response.content.decode()


# One question on its own (linked from the exam traps)


def test_a_single_question_page_asks_without_revealing_and_then_explains(client: Client) -> None:
    question = STUDY.questions[5]
    page = client.get(f"/quiz/questions/{question.id}/").content.decode()
    assert question.prompt_html in page and "Correct answer" not in page
    seed = re.search(r'name="seed" value="(\d+)"', page).group(1)
    response = client.post(
        f"/quiz/questions/{question.id}/answer",
        {"seed": seed, "option": keys_on_page(page, question, right(question))},
    )
    assert ">Correct</h2>" in response.content.decode()


def test_an_unknown_single_question_is_a_friendly_404(client: Client) -> None:
    response = client.get("/quiz/questions/no-such-question/")
    assert response.status_code == 404
    assert "There's no quiz question with that name." in text(response)


# Exam mode: timer, pass mark, breakdown


def words(response: HttpResponse) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def test_the_exam_offers_an_optional_time_limit_and_states_the_pass_mark(client: Client) -> None:
    body = words(client.get("/quiz/"))
    assert "against a pass mark of 70%" in body
    assert "Time limit No time limit 15 minutes 30 minutes" in body


def test_a_timed_exam_shows_its_limit_and_a_clock_for_scripts(client: Client) -> None:
    url = start(client, "exam", time_limit="30")
    assert attempt_of(url).time_limit == 30
    body = client.get(url).content.decode()
    assert "Time limit 30 minutes, until" in body
    seconds = int(re.search(r'data-seconds-left="(\d+)"', body).group(1))  # type: ignore[union-attr]
    assert 1790 <= seconds <= 1800
    assert 'role="timer"' in body


def test_an_untimed_exam_has_no_clock(client: Client) -> None:
    url = start(client, "exam", time_limit="none")
    assert attempt_of(url).time_limit is None
    assert "data-exam-timer" not in client.get(url).content.decode()


def test_an_unknown_time_limit_is_refused_with_a_message(client: Client) -> None:
    response = client.post("/quiz/start", {"mode": "exam", "time_limit": "7"}, follow=True)
    assert "Choose a time limit from the list" in words(response)
    assert not QuizAttempt.objects.exists()


def test_an_exam_submitted_after_its_time_says_so_and_counts_none_of_its_answers(
    client: Client,
) -> None:
    url = start(client, "exam", time_limit="15")
    attempt = attempt_of(url)
    attempt.started_at -= timedelta(minutes=20)
    attempt.save()
    assert "Time is up: answers sent now don't count." in words(client.get(url))
    client.post(f"{url}submit", exam_form(client, url, list(STUDY.questions)))
    body = words(client.get(f"{url}results/"))
    assert "in 20 minutes of 15." in body
    assert (
        "Submitted 5 minutes after the time limit: answers sent after the time is up don't count,"
        " so none of this attempt's answers were scored." in body
    )
    assert "Score: 0 / 28" in body


def test_results_say_passed_or_how_many_more_are_needed(client: Client) -> None:
    url = start(client, "exam")
    missed = {question.id for question in STUDY.questions[:8]}
    client.post(f"{url}submit", exam_form(client, url, list(STUDY.questions), missed))
    body = words(client.get(f"{url}results/"))
    assert "Score: 20 / 28 (71%)" in body and "Passed : the pass mark is 70%" in body
    url = start(client, "exam")
    missed = {question.id for question in STUDY.questions[:9]}
    client.post(f"{url}submit", exam_form(client, url, list(STUDY.questions), missed))
    body = words(client.get(f"{url}results/"))
    assert "Not yet passed : the pass mark is 70%; you need 1 more right" in body


def test_results_break_the_score_down_by_topic_and_by_section(client: Client) -> None:
    url = start(client, "exam")
    first = STUDY.questions[0]
    client.post(f"{url}submit", exam_form(client, url, [first]))
    body = words(client.get(f"{url}results/"))
    platform = sum(1 for q in STUDY.questions if quiz.topic_of(q)[0] == "platform")
    same_section = sum(1 for q in STUDY.questions if q.section == first.section)
    assert f"By topic Topic Right Platform and architecture 1 / {platform}" in body
    assert f"By guide section Section Right {first.section.label} 1 / {same_section}" in body
    lines = quiz.breakdown(quiz.score(STUDY, [q.id for q in STUDY.questions], {}).verdicts, "topic")
    assert sum(line.total for line in lines) == 28
