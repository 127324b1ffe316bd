"""A learner in Chromium using the study tools: quiz, flashcards, scenarios, reference, progress."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect

from studysite.study.content import Option, Question, load_study
from tests.browser.axe import blocking_violations

STUDY = load_study()


def plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def shown_question(page: Page) -> Question:
    question_id = page.locator('input[name="question"]').get_attribute("value")
    assert question_id
    return STUDY.question_by_id[question_id]


def pick(page: Page, options: list[Option], scope: str = "#quiz-region") -> None:
    for option in options:
        page.locator(f"{scope} .quiz-option").filter(has_text=plain(option.text_html)).click()


def right(question: Question) -> list[Option]:
    return [option for option in question.options if option.correct]


def wrong(question: Question) -> list[Option]:
    return [next(option for option in question.options if not option.correct)]


def test_practice_mode_gives_feedback_after_each_answer_then_a_score_and_a_retake(
    page: Page,
) -> None:
    page.goto("/quiz/")
    page.get_by_role("button", name="Start practice").click()
    expect(page.get_by_role("heading", name="Question 1 of 28")).to_be_visible()
    first = shown_question(page)
    pick(page, wrong(first))
    page.get_by_role("button", name="Check answer").click()
    feedback = page.get_by_role("heading", name="Not quite")
    expect(feedback).to_be_focused()
    expect(page.locator("#quiz-status")).to_have_text("Not quite.")
    expect(page.get_by_text(plain(first.options[0].explanation_html))).to_be_visible()
    expect(page.get_by_role("link", name=f"Section {first.section.label}")).to_be_visible()
    page.get_by_role("link", name="Next question").click()
    expect(page.get_by_role("heading", name="Question 2 of 28")).to_be_focused()
    second = shown_question(page)
    pick(page, right(second))
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_focused()
    page.get_by_role("button", name="Finish now and see your score").click()
    expect(page.get_by_text("Score: 1 / 28")).to_be_visible()
    expect(page.locator(".review-item")).to_have_count(28)
    expect(page.locator(".review-item.is-wrong")).to_have_count(27)
    page.get_by_role("button", name="Retake only the 27 wrong").click()
    expect(page.get_by_role("heading", name="Question 1 of 27")).to_be_visible()
    assert shown_question(page) == first


def test_exam_mode_scores_all_answers_reviews_the_wrong_ones_and_retakes_them(
    page: Page,
) -> None:
    missed = {STUDY.questions[3].id, STUDY.questions[15].id}
    page.goto("/quiz/")
    page.get_by_role("button", name="Start exam").click()
    expect(page.get_by_text("Answered 0 of 28")).to_be_visible()
    for number, question in enumerate(STUDY.questions, start=1):
        fieldset = f"fieldset:has(legend:has-text('Question {number} of 28'))"
        pick(page, wrong(question) if question.id in missed else right(question), fieldset)
    expect(page.get_by_text("Answered 28 of 28")).to_be_visible()
    page.get_by_role("button", name="Submit answers and see your score").click()
    expect(page.get_by_text("Score: 26 / 28")).to_be_visible()
    reviewed = page.locator(".review-item.is-wrong h3")
    expect(reviewed).to_have_text(["Question 4: Wrong", "Question 16: Wrong"])
    expect(page.locator(".review-item")).to_have_count(28)
    page.get_by_role("button", name="Retake only the 2 wrong").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Exam mode: 2 questions")
    for number, question in enumerate([STUDY.questions[3], STUDY.questions[15]], 1):
        pick(page, right(question), f"fieldset:has(legend:has-text('Question {number} of 2'))")
    page.get_by_role("button", name="Submit answers and see your score").click()
    expect(page.get_by_text("Score: 2 / 2")).to_be_visible()
    page.get_by_role("link", name="Score history").click()
    expect(page.locator(".score-history tbody tr")).to_have_count(2)


def test_flashcards_flip_and_grade_with_the_keyboard_alone(page: Page) -> None:
    page.goto("/cards/")
    answer = page.locator(".flashcard-answer")
    first_front = page.locator(".flashcard-front").inner_text()
    expect(answer).to_be_hidden()
    page.keyboard.press("Space")
    expect(answer).to_be_visible()
    page.keyboard.press("3")
    expect(page.locator("#cards-status")).to_have_text(
        "Graded “Good”. That card comes back in 10 minutes."
    )
    expect(page.locator(".flashcard-front")).not_to_have_text(first_front)
    expect(page.locator("#deck-heading")).to_be_focused()
    expect(page.locator(".deck-counts")).to_contain_text("1 later")
    page.keyboard.press("1")
    expect(page.locator("#cards-status")).to_contain_text("Show the answer first")
    page.keyboard.press("Space")
    page.keyboard.press("1")
    expect(page.locator("#cards-status")).to_contain_text("Graded “Again”")
    expect(page.locator(".deck-counts")).to_contain_text("2 later")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent") == "Undo last grade":
            break
    page.keyboard.press("Enter")
    expect(page.locator("#cards-status")).to_have_text(
        "Undid your last grade; here is that card again."
    )
    expect(page.locator(".deck-counts")).to_contain_text("1 later")


def test_clicking_a_card_flips_it_and_the_buttons_grade_it(page: Page) -> None:
    page.goto("/cards/?section=mig-gpu-operator")
    page.locator(".flashcard-front").click()
    expect(page.locator(".flashcard-answer")).to_be_visible()
    page.get_by_role("button", name="Easy").click()
    expect(page.locator("#cards-status")).to_contain_text("Graded “Easy”")
    expect(page.get_by_label("Cards from")).to_have_value("mig-gpu-operator")
    page.get_by_label("Cards from").select_option("stack")
    expect(page).to_have_url(re.compile(r"/cards/\?section=stack$"))
    expect(page.locator(".flashcard-label")).to_contain_text("3. The stack underneath")


def test_a_scenario_goes_from_guess_through_hints_to_the_reveal(page: Page) -> None:
    scenario = STUDY.scenario_by_id["fragmentation-eight-free-gpus"]
    page.goto("/scenarios/")
    page.get_by_role("link", name=scenario.title).click()
    page.get_by_role("button", name="Commit to this guess").click()
    expect(page.get_by_role("alert")).to_have_text("Choose an answer or type your own guess first.")
    page.get_by_label("Or describe the cause in your own words").fill("GPUs spread over nodes")
    page.get_by_role("button", name="Commit to this guess").click()
    expect(page.get_by_text("“GPUs spread over nodes”")).to_be_visible()
    page.get_by_role("button", name=re.compile(r"^Show a hint")).click()
    first_hint = page.locator(".hint-list li").first
    expect(first_hint).to_have_text(plain(scenario.hints_html[0]))
    expect(first_hint).to_be_focused()
    expect(page.locator(".scenario-answer")).to_have_count(0)
    page.get_by_role("button", name="Reveal the cause and the fix").click()
    expect(page.get_by_role("heading", name="The answer")).to_be_focused()
    expect(page.get_by_role("heading", name="Fix")).to_be_visible()
    for link in scenario.sections:
        expect(page.get_by_role("link", name=f"Section {link.label}")).to_be_visible()
    page.reload()
    expect(page.get_by_role("heading", name="The answer")).to_be_visible()


def test_the_reference_filters_as_you_type(page: Page) -> None:
    page.goto("/reference/")
    items = page.locator(".reference-item")
    expect(items).to_have_count(len(STUDY.reference))
    page.get_by_label("Filter the reference").press_sequentially("reclaim")
    expect(page.locator("#reference-count")).to_contain_text("terms match “reclaim”")
    count = items.count()
    assert 0 < count < len(STUDY.reference)
    expect(page).to_have_url(re.compile(r"/reference/\?q=reclaim$"))
    page.get_by_label("Filter the reference").fill("")
    expect(items).to_have_count(len(STUDY.reference))


def test_the_exam_traps_link_to_a_question_that_can_be_answered(page: Page) -> None:
    page.goto("/traps/")
    expect(page.locator(".trap-list > li")).to_have_count(13)
    page.locator("#trap-gang-all-or-none").get_by_role(
        "link", name=re.compile("^Quiz question")
    ).first.click()
    question = STUDY.question_by_id[page.url.rstrip("/").rsplit("/", 1)[1]]
    pick(page, right(question))
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_visible()


def test_progress_exports_to_a_file_and_imports_back_after_a_reset(
    page: Page, tmp_path: Path
) -> None:
    page.goto("/guide/stack/")
    page.get_by_role("button", name="Mark section as read").click()
    expect(page.get_by_text("You marked this section as read.")).to_be_visible()
    page.goto("/cards/")
    page.keyboard.press("Space")
    page.keyboard.press("4")
    expect(page.locator("#cards-status")).to_contain_text("Graded “Easy”")
    page.goto("/progress/")
    expect(page.get_by_text("1 of 27 sections read")).to_be_visible()
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Export progress").click()
    saved = tmp_path / "progress.json"
    download_info.value.save_as(saved)
    assert download_info.value.suggested_filename == "runai-study-progress.json"
    assert json.loads(saved.read_text())["parts"]["guide-read"] == ["stack"]
    page.get_by_role("link", name="Reset progress…").click()
    page.get_by_role("button", name="Yes, erase the selected progress").click()
    expect(page.get_by_text("Erased: Guide sections read")).to_be_visible()
    expect(page.get_by_text("0 of 27 sections read")).to_be_visible()
    page.get_by_label(re.compile("^Progress file")).set_input_files(saved)
    page.get_by_role("button", name="Import progress").click()
    expect(page.get_by_text("Progress imported: Guide sections read")).to_be_visible()
    expect(page.get_by_text("1 of 27 sections read")).to_be_visible()
    expect(page.get_by_text(f"1 of {len(STUDY.cards)} cards reviewed")).to_be_visible()


def test_a_bad_import_file_is_explained_and_changes_nothing(
    context: BrowserContext, tmp_path: Path
) -> None:
    # Its own page: the refused import answers 400, which Chromium logs to the console.
    page = context.new_page()
    bad = tmp_path / "notes.json"
    bad.write_text("these are my notes, not progress")
    page.goto("/guide/placement/")
    page.get_by_role("button", name="Mark section as read").click()
    expect(page.get_by_text("You marked this section as read.")).to_be_visible()
    page.goto("/progress/")
    page.get_by_label(re.compile("^Progress file")).set_input_files(bad)
    page.get_by_role("button", name="Import progress").click()
    expect(page.get_by_role("alert")).to_contain_text("Nothing was imported.")
    expect(page.get_by_text("1 of 27 sections read")).to_be_visible()


def test_the_quiz_and_a_scenario_work_without_javascript(
    browser: Browser, live_server_url: str
) -> None:
    context = browser.new_context(base_url=live_server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/quiz/")
    page.get_by_role("button", name="Start practice").click()
    question = shown_question(page)
    pick(page, right(question))
    page.get_by_role("button", name="Check answer").click()
    expect(page).to_have_url(re.compile(rf"/answered/{question.id}/$"))
    expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_visible()
    page.get_by_role("link", name="Next question").click()
    expect(page.get_by_role("heading", name="Question 2 of 28")).to_be_visible()
    scenario = STUDY.scenarios[1]
    page.goto(f"/scenarios/{scenario.id}/")
    page.locator(".quiz-option").first.click()
    page.get_by_role("button", name="Commit to this guess").click()
    page.get_by_role("button", name="Reveal the cause and the fix").click()
    expect(page.get_by_role("heading", name="The answer")).to_be_visible()
    page.goto("/cards/")
    page.get_by_text("Show answer").click()
    page.get_by_role("button", name="Good").click()
    expect(page.locator("#cards-status")).to_contain_text("Graded “Good”")
    context.close()


def test_the_study_pages_fit_a_375_pixel_phone(page: Page) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto("/quiz/")
    page.get_by_role("button", name="Start exam").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    for url in [
        "/quiz/",
        "/cards/",
        "/scenarios/",
        "/scenarios/training-keeps-getting-killed/",
        "/reference/",
        "/traps/",
        "/progress/",
        "/progress/reset",
        "/guide/flashcards/",
    ]:
        page.goto(url)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, url


def test_every_study_page_type_has_no_serious_accessibility_violations(page: Page) -> None:
    for url in [
        "/quiz/",
        "/cards/",
        "/scenarios/",
        "/scenarios/nodes-advertise-zero-gpus/",
        "/reference/?q=mig",
        "/traps/",
        "/progress/",
        "/progress/reset",
        f"/quiz/questions/{STUDY.questions[0].id}/",
        "/guide/exam-traps/",
        "/guide/reference/",
        "/guide/flashcards/",
    ]:
        page.goto(url)
        assert blocking_violations(page) == [], url
    page.goto("/cards/")
    page.keyboard.press("Space")
    assert blocking_violations(page) == [], "a flipped card"
    page.goto("/quiz/")
    page.get_by_role("button", name="Start practice").click()
    assert blocking_violations(page) == [], "a practice question"
    pick(page, wrong(shown_question(page)))
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Not quite")).to_be_visible()
    assert blocking_violations(page) == [], "practice feedback"
    page.get_by_role("button", name="Finish now and see your score").click()
    assert blocking_violations(page) == [], "results and review"
    page.goto("/quiz/")
    page.get_by_role("button", name="Start exam").click()
    assert blocking_violations(page) == [], "the exam"
    page.goto("/scenarios/allocated-but-idle/")
    page.locator(".quiz-option").first.click()
    page.get_by_role("button", name="Commit to this guess").click()
    page.get_by_role("button", name=re.compile("^Show a hint")).click()
    assert blocking_violations(page) == [], "scenario hints"
    page.get_by_role("button", name="Reveal the cause and the fix").click()
    expect(page.get_by_role("heading", name="The answer")).to_be_visible()
    assert blocking_violations(page) == [], "scenario revealed"
    page.emulate_media(color_scheme="dark")
    for url in ["/cards/", "/quiz/", "/scenarios/allocated-but-idle/", "/progress/"]:
        page.goto(url)
        assert blocking_violations(page) == [], f"dark {url}"


def test_flashcards_on_a_phone_show_no_key_hints_and_no_gap_above_the_filter(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/cards/")
    expect(page.locator(".key-hints")).to_be_hidden()
    expect(page.locator(".flashcard summary kbd")).to_be_hidden()
    lead = page.locator(".lead").bounding_box()
    label = page.get_by_text("Cards from").bounding_box()
    assert lead and label
    assert label["y"] - (lead["y"] + lead["height"]) < 40
    page.set_viewport_size({"width": 1280, "height": 900})
    expect(page.locator(".key-hints")).to_be_visible()
