"""The study data in content/ as the site loads it: the quiz, flashcards, scenarios, reference
and traps. The loader (studysite.study.content) enforces the schema (ids, kinds, answers,
sections, links) and stops on any break, so these tests check what it can't: counts, coverage
and the shape of good questions."""

from __future__ import annotations

from collections import Counter

from studysite.guide.sections import load_guide
from studysite.study.content import load_study

STUDY = load_study()
# The one list of section slugs is the guide's own (content/guide/NN-slug.md).
SLUGS = [section.slug for section in load_guide().sections]
# Sections 1-6 and 8-20: the topics the quiz must test (7 is the interactive simulator).
QUIZ_SECTIONS = [slug for slug in SLUGS[:20] if slug != "quota-simulator"]
CARD_SECTIONS = SLUGS[:21]


def test_the_quiz_has_exactly_28_questions() -> None:
    assert len(STUDY.questions) == 28


def test_there_are_at_least_60_flashcards() -> None:
    assert len(STUDY.cards) >= 60


def test_there_are_at_least_12_scenarios() -> None:
    assert len(STUDY.scenarios) >= 12


def test_the_reference_has_at_least_80_items() -> None:
    assert len(STUDY.reference) >= 80


def test_there_are_exactly_13_traps_numbered_1_to_13_in_order() -> None:
    assert [trap.number for trap in STUDY.traps] == list(range(1, 14))


def test_reference_terms_are_unique_ignoring_case() -> None:
    terms = Counter(item.term.strip().lower() for item in STUDY.reference)
    assert [term for term, count in terms.items() if count > 1] == []


def test_every_section_1_to_6_and_8_to_20_has_at_least_one_question() -> None:
    tested = {question.section.slug for question in STUDY.questions}
    assert [slug for slug in QUIZ_SECTIONS if slug not in tested] == []


def test_every_section_1_to_21_has_at_least_one_flashcard() -> None:
    covered = {card.section.slug for card in STUDY.cards}
    assert [slug for slug in CARD_SECTIONS if slug not in covered] == []


def test_the_quiz_has_at_least_six_multiple_answer_questions() -> None:
    assert sum(1 for question in STUDY.questions if question.multiple) >= 6


def test_every_question_has_three_to_five_options() -> None:
    assert [q.id for q in STUDY.questions if not 3 <= len(q.options) <= 5] == []


def test_no_option_is_all_of_the_above() -> None:
    lazy = [
        f"{question.id}/{option.id}"
        for question in STUDY.questions
        for option in question.options
        if "all of the above" in option.text.lower()
    ]
    assert lazy == []


def test_every_trap_is_tested_by_at_least_one_question() -> None:
    tested = {trap_id for question in STUDY.questions for trap_id in question.traps}
    assert [trap.id for trap in STUDY.traps if trap.id not in tested] == []


def test_every_question_links_one_to_three_cards() -> None:
    assert [q.id for q in STUDY.questions if not 1 <= len(q.cards) <= 3] == []


def test_every_scenario_has_at_least_two_hints() -> None:
    assert [s.id for s in STUDY.scenarios if len(s.hints_html) < 2] == []
