"""The learner's journey in Chromium at desktop and phone widths: question bank, exam mode,
home, flashcards, lab pages, progress and the 404 page, each checked with axe in both themes.

This module runs its own server with a small fixture question bank (tests/fixtures/bank),
so that it does not depend on the size or wording of the real bank.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from simulators.lab import list_tickets, load_ticket
from studysite.study.bank import load_bank_from
from studysite.study.content import Option, Question, load_study
from tests.browser.axe import blocking_violations
from tests.live_server import daphne_server

STUDY = load_study()
FIXTURE_BANK = Path(__file__).resolve().parents[1] / "fixtures" / "bank"
BANK = load_bank_from(str(FIXTURE_BANK))
WIDTHS = {"desktop": 1280, "phone": 375}
# The lab answers over a websocket; on a busy shared CI machine that can take a while.
LAB_WAIT = 20_000


@pytest.fixture(scope="module")
def live_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("ux-live-log") / "server.log"
    with daphne_server({"STUDY_BANK_DIR": str(FIXTURE_BANK)}, log=log) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def width(request: pytest.FixtureRequest) -> int:
    return WIDTHS[request.param]


@pytest.fixture
def context(browser: Browser, live_server_url: str, width: int) -> Iterator[BrowserContext]:
    context = browser.new_context(
        base_url=live_server_url, viewport={"width": width, "height": 860}
    )
    yield context
    context.close()


def plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def no_sideways_scroll(page: Page) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page scrolls sideways by {overflow}px"


def axe_in_both_themes(page: Page, what: str) -> None:
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert blocking_violations(page) == [], f"{what} ({scheme})"
    page.emulate_media(color_scheme="light")


def pick(page: Page, options: list[Option], scope: str) -> None:
    for option in options:
        page.locator(f"{scope} .quiz-option").filter(has_text=plain(option.text_html)).click()


def right(question: Question) -> list[Option]:
    return [option for option in question.options if option.correct]


def wrong(question: Question) -> list[Option]:
    return [next(option for option in question.options if not option.correct)]


# Question bank


def shown_bank_question(page: Page) -> Question:
    question_id = page.locator('input[name="question"]').get_attribute("value")
    assert question_id
    return BANK.by_id[question_id]


def test_the_bank_practises_a_topic_then_gathers_the_misses_as_weak_spots(
    page: Page, width: int
) -> None:
    page.goto("/bank/")
    expect(page.get_by_role("heading", name="Question bank", level=1)).to_be_visible()
    no_sideways_scroll(page)
    axe_in_both_themes(page, "bank home")
    page.get_by_label("GPU fractions and MIG").check()
    page.get_by_role("button", name="Practise these topics").click()
    expect(page.get_by_role("heading", name=re.compile("Question 1 of 2"))).to_be_visible()
    assert "correct" not in page.locator("#quiz-region").inner_html().lower()
    axe_in_both_themes(page, "bank question")
    missed = shown_bank_question(page)
    pick(page, wrong(missed), "#quiz-region")
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Not quite")).to_be_focused()
    expect(page.locator(".option-review .tag-answer")).to_have_count(1)
    axe_in_both_themes(page, "bank feedback")
    page.get_by_role("link", name="Next question").click()
    expect(page.get_by_role("heading", name=re.compile("Question 2 of 2"))).to_be_focused()
    pick(page, right(shown_bank_question(page)), "#quiz-region")
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_focused()
    page.get_by_role("link", name="See how it went").click()
    expect(page.get_by_role("heading", name="Set done: 1 of 2 right")).to_be_visible()
    no_sideways_scroll(page)
    axe_in_both_themes(page, "bank summary")
    page.get_by_role("link", name="Choose more questions").click()
    topic = page.locator(".bank-list label").filter(has_text="GPU fractions and MIG")
    expect(topic).to_contain_text("2 questions · 50% of 2 answered")
    page.get_by_role("button", name="Practise my weak spots").click()
    expect(page.get_by_role("heading", name=re.compile("Question 1 of 1"))).to_be_visible()
    assert shown_bank_question(page).id == missed.id


def test_the_bank_refuses_an_empty_choice_with_a_message(page: Page, width: int) -> None:
    page.goto("/bank/")
    page.get_by_role("button", name="Practise these sections").click()
    expect(page.get_by_role("alert")).to_have_text("Choose at least one section to practise.")


# Exam mode


def test_a_timed_exam_shows_a_clock_keeps_legends_inside_and_reviews_every_answer(
    page: Page, width: int
) -> None:
    page.goto("/quiz/")
    axe_in_both_themes(page, "quiz home")
    page.get_by_label("Time limit").select_option("30")
    page.get_by_role("button", name="Start exam").click()
    clock = page.get_by_role("timer")
    expect(clock).to_be_visible()
    expect(clock).to_contain_text(re.compile(r"Time left: (30:00|29:5\d)"))
    no_sideways_scroll(page)
    for fieldset in page.locator("fieldset.exam-question").all()[:6]:
        legend_box = fieldset.locator("legend").bounding_box()
        box = fieldset.bounding_box()
        assert legend_box and box and legend_box["y"] >= box["y"], "legend straddles the border"
    axe_in_both_themes(page, "exam")
    missed = {STUDY.questions[0].id}
    for number, question in enumerate(STUDY.questions, start=1):
        fieldset = f"fieldset:has(legend:has-text('Question {number} of 28'))"
        pick(page, wrong(question) if question.id in missed else right(question), fieldset)
    page.get_by_role("button", name="Submit answers and see your score").click()
    expect(page.get_by_text("Score: 27 / 28 (96%)")).to_be_visible()
    expect(page.locator(".pass-verdict")).to_contain_text("Passed: the pass mark is 70%")
    expect(page.get_by_role("table", name="By topic")).to_be_visible()
    expect(page.get_by_role("table", name="By guide section")).to_be_visible()
    expect(page.locator(".review-item")).to_have_count(28)
    expect(page.locator(".review-item.is-wrong h3")).to_have_text(["Question 1: Wrong"])
    no_sideways_scroll(page)
    axe_in_both_themes(page, "results")


def test_an_exam_whose_time_runs_out_submits_itself(page: Page, width: int) -> None:
    page.goto("/quiz/")
    page.get_by_label("Time limit").select_option("15")
    page.get_by_role("button", name="Start exam").click()
    expect(page.get_by_role("timer")).to_be_visible()
    # Fast-forward the clock the page counts against.
    page.evaluate("() => { const now = Date.now(); Date.now = () => now + 16 * 60 * 1000; }")
    expect(page.get_by_text("Score: 0 / 28")).to_be_visible(timeout=5000)


# Home


def test_home_welcomes_a_first_visit_then_continues_where_the_learner_left_off(
    page: Page, width: int
) -> None:
    page.goto("/")
    expect(page.get_by_role("heading", name="New here? What this site offers")).to_be_visible()
    tools = page.locator(".tool-list li")
    expect(tools).to_have_count(10)
    expect(tools.filter(has_text="Question bank")).to_contain_text("weak spots")
    no_sideways_scroll(page)
    axe_in_both_themes(page, "home, first visit")
    page.get_by_role("link", name=re.compile("^Start reading")).click()
    page.get_by_role("button", name="Mark section as read").click()
    expect(page.get_by_role("button", name="Mark as unread")).to_be_visible()
    page.goto("/")
    panel = page.locator(".home-continue")
    # The reader was last on section 1, now read: home goes on with the section after it.
    expect(panel).to_contain_text("Continue reading 2.")
    expect(panel).to_contain_text("1 of 27 sections read")
    expect(panel).to_contain_text("new cards to learn")
    axe_in_both_themes(page, "home, returning")


# Flashcards


def test_grade_buttons_show_intervals_and_grading_does_not_push_the_card_down(
    page: Page, width: int
) -> None:
    page.goto("/cards/")
    top = "e => e.getBoundingClientRect().top + window.scrollY"
    card_top = page.locator(".flashcard").evaluate(top)
    page.keyboard.press("Space")
    good = page.get_by_role("button", name=re.compile("^Good"))
    expect(good).to_contain_text("in 10 min")
    expect(page.get_by_role("button", name=re.compile("^Easy"))).to_contain_text("days")
    axe_in_both_themes(page, "flipped card")
    good.click()
    expect(page.locator("#cards-status")).to_contain_text("Graded “Good”")
    assert abs(page.locator(".flashcard").evaluate(top) - card_top) < 1
    heading = page.locator("#deck-heading")
    expect(heading).to_be_focused()
    outline = heading.evaluate("e => getComputedStyle(e).outlineWidth")
    assert outline == "2px"
    no_sideways_scroll(page)


# Lab pages


def test_the_lab_index_shows_summary_skills_and_time(page: Page, width: int) -> None:
    page.goto("/lab/")
    for summary in list_tickets():
        ticket = load_ticket(summary.id)
        item = page.locator(".ticket-list > li").filter(has_text=ticket.title)
        expect(item).to_contain_text(ticket.summary)
        expect(item).to_contain_text(f"about {ticket.minutes} minutes")
        expect(item.locator(".skill-list li")).to_have_count(len(ticket.skills))
    no_sideways_scroll(page)
    axe_in_both_themes(page, "lab index")


def test_the_login_notice_follows_runai_login_and_the_phone_layout_fits(
    page: Page, width: int
) -> None:
    page.goto("/lab/validate-runai/")
    page.get_by_role("button", name="Start the terminal").click()
    expect(page.locator("#lab.connected")).to_be_attached(timeout=LAB_WAIT)
    note = page.locator("#login-note")
    expect(note).to_be_visible()
    axe_in_both_themes(page, "lab ticket")
    transcript = page.locator("details#transcript")
    if width < 600:
        expect(transcript).not_to_have_attribute("open", "")
        fits = page.evaluate(
            "() => document.querySelector('.xterm-screen').getBoundingClientRect().right"
            " <= document.querySelector('#terminal').getBoundingClientRect().right + 1"
        )
        assert fits, "the terminal is wider than its box"
    else:
        expect(transcript).to_have_attribute("open", "")
    no_sideways_scroll(page)
    page.locator(".xterm-helper-textarea").focus()
    page.keyboard.type("runai login")
    page.keyboard.press("Enter")
    expect(note).to_be_hidden(timeout=LAB_WAIT)
    page.reload()
    expect(page.locator("#login-note")).to_be_hidden()


def test_a_solved_ticket_celebrates_and_offers_the_next_one(page: Page, width: int) -> None:
    ticket = load_ticket("pending-workspace")
    page.goto(f"/lab/{ticket.id}/")
    page.get_by_role("button", name="Start the terminal").click()
    expect(page.locator("#lab.connected")).to_be_attached(timeout=LAB_WAIT)
    solved = page.locator("#ticket-solved")
    expect(solved).to_be_hidden()
    entries = page.locator("#transcript-log .transcript-entry")
    for line in ticket.answer_key:
        before = entries.count()
        page.evaluate("line => window.LabTerminal.typeLine(line)", line)
        expect(entries).to_have_count(before + 1, timeout=LAB_WAIT)
    expect(solved).to_be_visible(timeout=LAB_WAIT)
    expect(solved).to_contain_text("Ticket solved!")
    # The panel pops in (0.5 s): judge its contrast once it has finished appearing.
    solved.evaluate("e => Promise.all(e.getAnimations().map(a => a.finished))")
    axe_in_both_themes(page, "solved ticket")
    solved.get_by_role("link", name=re.compile("^Next ticket:")).click()
    expect(page).to_have_url(re.compile(r"/lab/validate-runai/$"))


def test_exam_mode_hides_the_answer_key(page: Page, width: int) -> None:
    page.goto("/lab/mig-single/")
    expect(page.locator("details.answer-key")).to_have_count(1)
    page.get_by_role("button", name="Exam mode off").click()
    expect(page.get_by_text("The answer key is hidden too.")).to_be_visible()
    expect(page.locator("details.answer-key")).to_have_count(0)
    page.get_by_role("button", name="Exam mode on").click()


# Progress and 404


def test_progress_says_where_it_is_kept_with_a_styled_file_picker(page: Page, width: int) -> None:
    page.goto("/progress/")
    expect(page.locator(".where-kept")).to_contain_text("on this site's server")
    picker = page.get_by_label(re.compile("Progress file"))
    expect(picker).to_be_visible()
    style = picker.evaluate("e => getComputedStyle(e).borderStyle")
    assert style == "dashed"
    no_sideways_scroll(page)
    axe_in_both_themes(page, "progress")


def test_a_missing_page_helps_the_learner_back_in(context: BrowserContext, width: int) -> None:
    # Not the `page` fixture: the browser logs the 404 status itself as a console error.
    page = context.new_page()
    response = page.goto("/guide/gang-sheduling/")
    assert response is not None and response.status == 404
    search = page.get_by_role("searchbox", name="Search the guide").last
    expect(search).to_have_value("gang sheduling")
    expect(page.locator(".not-found .section-list li")).to_have_count(27)
    no_sideways_scroll(page)
    axe_in_both_themes(page, "404")
    page.get_by_role("button", name="Search").last.click()
    expect(page).to_have_url(re.compile(r"/search/\?q=gang"))
