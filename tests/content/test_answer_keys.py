"""Where the answers sit among a question's options: spread evenly over a to d in the quiz
and in the bank, so no option id (or position in the YAML) is a better guess than another."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest

from studysite.study.content import Question, load_bank, load_study

SETS = {"quiz": load_study().questions, "bank": load_bank()}


def keys(question: Question) -> tuple[str, ...]:
    return tuple(sorted(question.correct_ids))


@pytest.mark.parametrize("name", SETS)
def test_single_answer_keys_are_spread_evenly_over_a_to_d(name: str) -> None:
    singles: Sequence[Question] = [q for q in SETS[name] if not q.multiple]
    counts = Counter(keys(q)[0] for q in singles)
    even = len(singles) / 4
    assert set(counts) >= {"a", "b", "c", "d"}, counts
    assert all(abs(counts[letter] - even) <= max(1, even / 5) for letter in "abcd"), counts


@pytest.mark.parametrize("name", SETS)
def test_no_set_of_keys_answers_more_than_a_fifth_of_the_multiple_answer_questions(
    name: str,
) -> None:
    multiples = [q for q in SETS[name] if q.multiple]
    common, count = Counter(keys(q) for q in multiples).most_common(1)[0]
    assert count <= max(2, len(multiples) / 5), (common, count)


@pytest.mark.parametrize("name", SETS)
def test_every_option_id_is_an_answer_about_as_often_as_any_other(name: str) -> None:
    counts = Counter(key for q in SETS[name] for key in keys(q))
    share = [counts[letter] / sum(counts[x] for x in "abcd") for letter in "abcd"]
    assert max(share) - min(share) <= 0.08, counts


def test_the_scenarios_likeliest_causes_are_spread_evenly_over_a_to_d() -> None:
    scenarios = load_study().scenarios
    counts = Counter(scenario.correct_choice.id for scenario in scenarios)
    even = len(scenarios) / 4
    assert all(abs(counts[letter] - even) <= max(1, even / 5) for letter in "abcd"), counts
