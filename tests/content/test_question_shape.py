"""No question is scored by its shape: across the bank, the quiz and the scenarios together, the
key is rarely the longest choice, and the distractors are misconceptions, not jokes.

"Pick the longest" and "pick one of the two longest" are the strategies a test-wise learner
tries first; the figures here are what they would score.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import pytest

from studysite.study.content import load_bank, load_study

STUDY = load_study()
BANK = load_bank()


@dataclass(frozen=True)
class Shape:
    id: str
    multiple: bool
    choices: tuple[tuple[int, bool], ...]  # (length of the choice's text, is it keyed)


def plain(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def shapes() -> list[Shape]:
    found = [
        Shape(q.id, q.multiple, tuple((len(o.text), o.correct) for o in q.options))
        for q in (*STUDY.questions, *BANK)
    ]
    found += [
        Shape(s.id, False, tuple((len(plain(c.text_html)), c.correct) for c in s.choices))
        for s in STUDY.scenarios
    ]
    return found


def among_longest(shape: Shape, rank: int) -> bool:
    """Is the key at least as long as the rank-th longest choice (ties counted for the key)?"""
    lengths = sorted((length for length, _ in shape.choices), reverse=True)
    key = next(length for length, keyed in shape.choices if keyed)
    return key >= lengths[rank - 1]


def share_among_longest(all_shapes: list[Shape], rank: int) -> float:
    singles = [shape for shape in all_shapes if not shape.multiple]
    return sum(among_longest(shape, rank) for shape in singles) / len(singles)


def keyed_to_unkeyed_length(all_shapes: list[Shape]) -> float:
    multiples = [shape for shape in all_shapes if shape.multiple]
    keyed = [length for s in multiples for length, is_key in s.choices if is_key]
    unkeyed = [length for s in multiples for length, is_key in s.choices if not is_key]
    return (sum(keyed) / len(keyed)) / (sum(unkeyed) / len(unkeyed))


SHAPES = shapes()


def test_picking_the_longest_choice_scores_at_most_30_percent_of_single_answer_questions() -> None:
    assert share_among_longest(SHAPES, 1) <= 0.30


def test_picking_one_of_the_two_longest_scores_at_most_55_percent() -> None:
    assert share_among_longest(SHAPES, 2) <= 0.55


def test_multiple_answer_keys_are_at_most_110_percent_as_long_as_the_distractors() -> None:
    assert keyed_to_unkeyed_length(SHAPES) <= 1.10


def test_the_scenarios_alone_do_not_reward_picking_the_longest_choice() -> None:
    scenarios = [shape for shape in SHAPES if shape.id in {s.id for s in STUDY.scenarios}]
    assert share_among_longest(scenarios, 1) <= 0.30


def test_the_measures_catch_a_set_whose_keys_are_the_longest() -> None:
    padded = [
        Shape(s.id, s.multiple, tuple((n + 200 if k else n, k) for n, k in s.choices))
        for s in SHAPES
    ]
    assert share_among_longest(padded, 1) == 1
    assert keyed_to_unkeyed_length(padded) > 1.10


# Distractors a learner could believe.

NO_ONE_WOULD_PICK = [
    "only after midnight", "once a day", "groups of eight", "spread heat", "booking calendar",
    "at most 49", "guaranteed overnight",
]  # fmt: skip


@pytest.mark.parametrize("phrase", NO_ONE_WOULD_PICK)
def test_no_choice_is_a_joke(phrase: str) -> None:
    texts = [o.text for q in (*STUDY.questions, *BANK) for o in q.options]
    texts += [plain(c.text_html) for s in STUDY.scenarios for c in s.choices]
    assert [text for text in texts if phrase in text.lower()] == []


def test_the_first_quiz_question_is_not_answered_by_spotting_the_product_name() -> None:
    first = STUDY.questions[0]
    assert not any("NVIDIA Run:ai" in option.text for option in first.options)
    naming = [option for option in first.options if "Run:ai" in option.text]
    assert len(naming) >= 2


def test_no_bank_question_points_at_another_question() -> None:
    pointing = re.compile(r"In (that|this|the same) (pool|cluster)\b")
    assert [question.id for question in BANK if pointing.match(question.prompt)] == []


def test_no_question_offers_the_same_choice_twice() -> None:
    repeated = [
        question.id
        for question in (*STUDY.questions, *BANK)
        if len({option.text for option in question.options}) < len(question.options)
    ]
    repeated += [
        scenario.id
        for scenario in STUDY.scenarios
        if len({choice.text_html for choice in scenario.choices}) < len(scenario.choices)
    ]
    assert repeated == []


def test_every_distractor_in_the_quiz_and_the_bank_names_the_misconception_it_tests() -> None:
    unnamed = [
        (question.id, option.id)
        for question in (*STUDY.questions, *BANK)
        for option in question.options
        if not option.correct and not option.explanation.startswith("The misconception that ")
    ]
    assert unnamed == []
