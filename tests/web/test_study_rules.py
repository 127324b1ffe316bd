"""The study tools' rules, without requests: content loading, marking, scheduling, steps."""

from __future__ import annotations

import json
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from studysite.guide.sections import ContentError, load_guide
from studysite.study import cards, quiz, scenarios
from studysite.study.content import load_from, load_study
from studysite.study.progress import FORMAT, MAX_FILE_BYTES, ProgressDataError, parse_file
from studysite.study.reference import filter_items
from tests.conftest import REPO_ROOT

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
STUDY = load_study()


def question(question_id: str) -> quiz.Question:
    return STUDY.question_by_id[question_id]


def multiple_question() -> quiz.Question:
    return next(q for q in STUDY.questions if q.multiple)


def single_question() -> quiz.Question:
    return next(q for q in STUDY.questions if not q.multiple)


def wrong_option(q: quiz.Question) -> str:
    return next(option.id for option in q.options if not option.correct)


# Content


def test_the_study_content_has_the_28_questions_13_traps_and_every_card_scenario_and_term() -> None:
    raw = {
        name: yaml.safe_load((REPO_ROOT / "content" / f"{name}.yaml").read_text())
        for name in ("cards", "scenarios", "reference")
    }
    assert len(STUDY.questions) == 28
    assert [trap.number for trap in STUDY.traps] == list(range(1, 14))
    assert len(STUDY.cards) == len(raw["cards"]["cards"])
    assert len(STUDY.scenarios) == len(raw["scenarios"]["scenarios"])
    assert len(STUDY.reference) == len(raw["reference"]["items"])


def test_every_question_links_to_a_real_guide_page() -> None:
    pages = {section.url for section in load_guide().sections}
    assert {q.section.url for q in STUDY.questions} <= pages


def test_markdown_in_the_content_is_rendered_once_by_the_site_renderer() -> None:
    prompt = question("zero-gpus-after-runai-install").prompt_html
    assert "<code>kubectl describe node</code>" in prompt
    fix = STUDY.scenario_by_id["training-keeps-getting-killed"].fix_html
    assert '<div class="code-block command">' in fix


def copy_content(tmp_path: Path) -> Path:
    for name in ("quiz", "cards", "scenarios", "reference", "traps"):
        shutil.copy(REPO_ROOT / "content" / f"{name}.yaml", tmp_path / f"{name}.yaml")
    return tmp_path


def test_a_question_with_an_unknown_section_stops_the_load_naming_file_and_question(
    tmp_path: Path,
) -> None:
    folder = copy_content(tmp_path)
    data = yaml.safe_load((folder / "quiz.yaml").read_text())
    data["questions"][0]["section"] = "no-such-section"
    (folder / "quiz.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ContentError, match=r"quiz\.yaml: what-runai-adds: unknown guide section"):
        load_from(folder, load_guide().sections)


def test_a_single_answer_question_with_two_correct_options_stops_the_load(tmp_path: Path) -> None:
    folder = copy_content(tmp_path)
    data = yaml.safe_load((folder / "quiz.yaml").read_text())
    for option in data["questions"][0]["options"]:
        option["correct"] = True
    (folder / "quiz.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ContentError, match="exactly one correct option"):
        load_from(folder, load_guide().sections)


def test_a_question_pointing_at_a_missing_card_stops_the_load(tmp_path: Path) -> None:
    folder = copy_content(tmp_path)
    data = yaml.safe_load((folder / "quiz.yaml").read_text())
    data["questions"][3]["cards"] = ["no-such-card"]
    (folder / "quiz.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ContentError, match="no-such-card"):
        load_from(folder, load_guide().sections)


# Quiz


def test_an_attempts_order_holds_every_option_once() -> None:
    # The same order in every process: tests/unit/test_same_answer_in_every_process.py.
    q = question("organization-objects")
    assert sorted(o.id for o in quiz.option_order(q, 7)) == sorted(o.id for o in q.options)


def test_different_attempts_see_the_options_in_different_orders() -> None:
    q = question("organization-objects")
    orders = {tuple(o.id for o in quiz.option_order(q, seed)) for seed in range(20)}
    assert len(orders) > 5


def test_an_answer_naming_an_option_the_question_lacks_is_refused() -> None:
    with pytest.raises(quiz.AnswerError, match="isn't one of the question's options"):
        quiz.parse_answer(single_question(), ["z"])


def test_two_answers_to_a_single_answer_question_are_refused() -> None:
    with pytest.raises(quiz.AnswerError, match="takes one answer"):
        quiz.parse_answer(single_question(), ["a", "b"])


def test_an_empty_answer_asks_the_learner_to_choose() -> None:
    with pytest.raises(quiz.AnswerError, match="Choose an answer"):
        quiz.parse_answer(single_question(), ["", " "])


def test_a_multiple_answer_question_needs_exactly_the_correct_set() -> None:
    q = multiple_question()
    correct = sorted(q.correct_ids)
    assert quiz.Verdict(q, quiz.parse_answer(q, reversed(correct))).correct
    assert not quiz.Verdict(q, (correct[0],)).correct
    assert not quiz.Verdict(q, (*correct, wrong_option(q))).correct


def test_scoring_counts_right_answers_and_lists_the_wrong_and_unanswered() -> None:
    ids = [q.id for q in STUDY.questions]
    answers = {q.id: sorted(q.correct_ids) for q in STUDY.questions}
    assert quiz.score(STUDY, ids, answers).points == 28
    answers[ids[0]] = [wrong_option(STUDY.questions[0])]
    del answers[ids[5]]
    result = quiz.score(STUDY, ids, answers)
    assert (result.points, result.total, result.unanswered) == (26, 28, 1)
    assert [item.question.id for item in result.wrong] == [ids[0], ids[5]]


def test_a_retake_of_the_wrong_ones_keeps_only_those_in_quiz_order() -> None:
    ids = [q.id for q in STUDY.questions]
    answers = {q.id: sorted(q.correct_ids) for q in STUDY.questions}
    answers[ids[9]] = [wrong_option(STUDY.questions[9])]
    answers[ids[2]] = [wrong_option(STUDY.questions[2])]
    assert quiz.retake_ids(STUDY, ids, answers, only_wrong=True) == [ids[2], ids[9]]
    assert quiz.retake_ids(STUDY, ids, answers, only_wrong=False) == ids


def test_an_exam_form_is_read_question_by_question_keys_as_shown() -> None:
    first, second = STUDY.questions[0], STUDY.questions[1]
    form = {f"q-{first.id}": ["a"], f"q-{second.id}": [""], "csrfmiddlewaretoken": ["x"]}
    shown_first = quiz.shown(first, 7)[0].option.id
    assert quiz.parse_exam(STUDY.questions, form, 7) == {first.id: (shown_first,)}


def test_a_key_names_the_option_shown_in_that_place_for_that_seed() -> None:
    question = STUDY.questions[0]
    for seed in range(5):
        order = quiz.option_order(question, seed)
        assert [item.key for item in quiz.shown(question, seed)] == list("abcd")[: len(order)]
        assert quiz.parse_shown(question, seed, ["c"]) == (order[2].id,)


def test_new_seeds_come_from_the_randomness_passed_in() -> None:
    assert quiz.new_seed(random.Random(1)) == quiz.new_seed(random.Random(1))


# Flashcards


def test_grading_a_new_card_good_brings_it_back_in_ten_minutes() -> None:
    state = cards.review(None, 3, NOW)
    assert cards.due_at(state) == NOW + timedelta(minutes=10)
    assert cards.status(state, NOW) == cards.LATER
    assert cards.status(state, NOW + timedelta(minutes=10)) == cards.DUE


def test_harder_grades_bring_a_learned_card_back_sooner() -> None:
    learned = cards.review(cards.review(None, 3, NOW), 3, NOW + timedelta(minutes=10))
    when = NOW + timedelta(days=3)
    dues = [cards.due_at(cards.review(learned, grade, when)) for grade in (1, 2, 3, 4)]
    assert dues == sorted(dues) and len(set(dues)) == 4
    assert dues[0] - when <= timedelta(minutes=10) and dues[3] - when >= timedelta(days=5)


def test_a_grade_outside_1_to_4_is_refused() -> None:
    with pytest.raises(cards.CardStateError):
        cards.review(None, 5, NOW)


def test_making_a_card_due_keeps_what_it_has_learned() -> None:
    learned = cards.review(cards.review(None, 4, NOW), 4, NOW + timedelta(days=1))
    due = cards.make_due(learned, NOW + timedelta(days=2))
    assert cards.due_at(due) == NOW + timedelta(days=2)
    assert due["stability"] == learned["stability"]
    assert cards.status(cards.make_due(None, NOW), NOW) == cards.DUE


def test_the_queue_puts_the_longest_overdue_first_then_new_cards_in_guide_order() -> None:
    deck = STUDY.cards[:6]
    states = {
        deck[4].id: cards.make_due(None, NOW - timedelta(hours=1)),
        deck[2].id: cards.make_due(None, NOW - timedelta(hours=5)),
        deck[0].id: cards.review(None, 4, NOW),
    }
    order = [card.id for card in cards.queue(deck, states, NOW)]
    assert order == [deck[2].id, deck[4].id, deck[1].id, deck[3].id, deck[5].id]
    assert cards.counts(deck, states, NOW) == cards.Counts(due=2, new=3, later=1)


def test_shuffling_is_the_same_for_one_seed_and_keeps_due_cards_first() -> None:
    deck = STUDY.cards[:20]
    states = {deck[10].id: cards.make_due(None, NOW)}
    shuffled = cards.queue(deck, states, NOW, shuffle_seed=3)
    assert shuffled == cards.queue(deck, states, NOW, shuffle_seed=3)
    assert shuffled[0].id == deck[10].id
    assert shuffled[1:] != list(deck[:10] + deck[11:])
    assert sorted(c.id for c in shuffled) == sorted(c.id for c in deck)


@pytest.mark.parametrize(
    "state",
    [
        {"state": 9, "due": "2026-01-01T00:00:00+00:00"},
        {"state": 1, "due": "2026-01-01T00:00:00"},
        {"state": 1, "due": "tomorrow"},
        {"state": "1", "due": "2026-01-01T00:00:00+00:00"},
        {"state": 2, "due": "2026-01-01T00:00:00+00:00", "stability": None},
        {"state": 1, "step": -1, "due": "2026-01-01T00:00:00+00:00"},
        ["not", "a", "mapping"],
    ],
)
def test_a_malformed_card_state_is_refused(state: object) -> None:
    with pytest.raises(cards.CardStateError):
        cards.to_card(state)  # type: ignore[arg-type]


def test_the_wait_until_a_card_returns_reads_naturally() -> None:
    assert cards.describe_wait(timedelta(minutes=10)) == "in 10 minutes"
    assert cards.describe_wait(timedelta(days=1, hours=2)) == "in 1 day"
    assert cards.describe_wait(timedelta(seconds=20)) == "now"


# Scenarios

SCENARIO = STUDY.scenarios[0]


def test_hints_and_the_reveal_wait_for_a_guess() -> None:
    with pytest.raises(scenarios.ScenarioError, match="guess first"):
        scenarios.take_hint(SCENARIO, scenarios.Progress())
    with pytest.raises(scenarios.ScenarioError, match="before you reveal"):
        scenarios.reveal(scenarios.Progress())


def test_a_guess_can_be_a_choice_or_free_text_but_not_nothing_or_a_made_up_choice() -> None:
    empty = scenarios.Progress()
    assert scenarios.commit_guess(SCENARIO, empty, "b", "").choice_id == "b"
    assert scenarios.commit_guess(SCENARIO, empty, "", "  over   quota ").guess_text == "over quota"
    with pytest.raises(scenarios.ScenarioError, match="Choose an answer or type"):
        scenarios.commit_guess(SCENARIO, empty, "", "   ")
    with pytest.raises(scenarios.ScenarioError, match="isn't one of"):
        scenarios.commit_guess(SCENARIO, empty, "zz", "")
    with pytest.raises(scenarios.ScenarioError, match="under 500"):
        scenarios.commit_guess(SCENARIO, empty, "", "x" * 501)


def test_hints_open_one_at_a_time_until_there_are_none_left() -> None:
    progress = scenarios.commit_guess(SCENARIO, scenarios.Progress(), "a", "")
    for shown in range(1, len(SCENARIO.hints_html) + 1):
        progress = scenarios.take_hint(SCENARIO, progress)
        assert progress.hints_shown == shown
    with pytest.raises(scenarios.ScenarioError, match="no more hints"):
        scenarios.take_hint(SCENARIO, progress)
    assert scenarios.reveal(progress).stage == scenarios.REVEALED


def test_imported_scenario_progress_is_checked_against_the_scenario() -> None:
    good = {"choice": "a", "guess": "", "hints": 1, "revealed": True}
    assert scenarios.to_data(scenarios.from_data(SCENARIO, good)) == good
    for bad in (
        {"choice": "zz"},
        {"hints": 2},
        {"choice": "a", "hints": 99},
        {"revealed": True},
        {"choice": 3},
    ):
        with pytest.raises(scenarios.ScenarioError):
            scenarios.from_data(SCENARIO, bad)


# Reference


def test_the_reference_filter_needs_every_word_and_ranks_term_matches_first() -> None:
    found = filter_items(STUDY.reference, "mig manager")
    assert found and all(
        "mig" in f"{i.term} {i.meaning}".lower() and "manager" in f"{i.term} {i.meaning}".lower()
        for i in found
    )
    in_term = ["mig" in i.term.lower() and "manager" in i.term.lower() for i in found]
    assert in_term == sorted(in_term, reverse=True) and in_term[0] and not in_term[-1]
    assert filter_items(STUDY.reference, "kai scheduler")[0].term == "KAI Scheduler"
    assert filter_items(STUDY.reference, "  ") == list(STUDY.reference)
    assert filter_items(STUDY.reference, "zzqxv") == []


# Progress files


def envelope(**changes: object) -> bytes:
    document = {"format": FORMAT, "version": 1, "parts": {}} | changes
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"not json at all", "not valid JSON"),
        (b"\xff\xfe\x00", "not valid JSON"),
        (b"[1, 2, 3]", "isn't a progress file from this site"),
        (envelope(format="something-else"), "isn't a progress file from this site"),
        (envelope(version=3), "has version 3; this site reads versions 1 and 2"),
        (envelope(parts=[]), "no 'parts' object"),
        (envelope(parts={"spaceship": {}}), "parts this site doesn't know: spaceship"),
        (b" " * (MAX_FILE_BYTES + 1), "too large"),
        (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
    ],
)
def test_a_bad_progress_file_is_refused_with_a_reason(raw: bytes, message: str) -> None:
    with pytest.raises(ProgressDataError, match=message):
        parse_file(raw)
