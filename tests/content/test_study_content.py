"""Checks on the study data in content/: the quiz, flashcards, scenarios, reference and traps."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

CONTENT = Path(__file__).resolve().parents[2] / "content"
GUIDE = CONTENT / "guide"

SLUGS = [
    "big-picture",
    "ncp-aii-exam",
    "stack",
    "architecture",
    "organization",
    "quota-fairness",
    "quota-simulator",
    "preemption-reclaim",
    "gang-scheduling",
    "placement",
    "fractions-mig",
    "mig-gpu-operator",
    "workloads-assets",
    "runai-cli",
    "access-control",
    "installation",
    "validation",
    "monitoring",
    "runai-slurm-kubernetes",
    "troubleshooting-pending",
    "sample-outputs",
    "lab",
    "scenarios",
    "reference",
    "flashcards",
    "exam-traps",
    "practice-quiz",
]
SECTION_NUMBER = {slug: number for number, slug in enumerate(SLUGS, start=1)}
# Sections 1-6 and 8-20: the topics the quiz must test (7 is the interactive simulator).
QUIZ_SECTIONS = [slug for slug in SLUGS[:20] if slug != "quota-simulator"]
CARD_SECTIONS = SLUGS[:21]
KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@cache
def load(name: str) -> Any:
    with (CONTENT / name).open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def questions() -> list[dict[str, Any]]:
    return load("quiz.yaml")["questions"]


def cards() -> list[dict[str, Any]]:
    return load("cards.yaml")["cards"]


def scenarios() -> list[dict[str, Any]]:
    return load("scenarios.yaml")["scenarios"]


def reference_items() -> list[dict[str, Any]]:
    return load("reference.yaml")["items"]


def traps() -> list[dict[str, Any]]:
    return load("traps.yaml")["traps"]


def all_records() -> dict[str, list[dict[str, Any]]]:
    return {
        "quiz.yaml": questions(),
        "cards.yaml": cards(),
        "scenarios.yaml": scenarios(),
        "reference.yaml": reference_items(),
        "traps.yaml": traps(),
    }


def referenced_sections() -> set[str]:
    found: set[str] = set()
    for records in all_records().values():
        for record in records:
            if "section" in record:
                found.add(record["section"])
            found.update(record.get("sections", []))
    return found


def duplicates(values: list[str]) -> list[str]:
    return [value for value, count in Counter(values).items() if count > 1]


def correct_count(options: list[dict[str, Any]]) -> int:
    return sum(1 for option in options if option["correct"] is True)


# Counts


def test_the_quiz_has_exactly_28_questions() -> None:
    assert len(questions()) == 28


def test_there_are_at_least_60_flashcards() -> None:
    assert len(cards()) >= 60


def test_there_are_at_least_12_scenarios() -> None:
    assert len(scenarios()) >= 12


def test_the_reference_has_at_least_80_items() -> None:
    assert len(reference_items()) >= 80


def test_there_are_exactly_13_traps_numbered_1_to_13_in_order() -> None:
    assert [trap["number"] for trap in traps()] == list(range(1, 14))


# Ids


@pytest.mark.parametrize("filename", sorted(all_records()))
def test_ids_are_unique_lowercase_kebab_within_each_file(filename: str) -> None:
    ids = [record["id"] for record in all_records()[filename]]
    assert duplicates(ids) == []
    assert [record_id for record_id in ids if not KEBAB.match(record_id)] == []


def test_option_ids_are_unique_within_each_question() -> None:
    clashes = {
        question["id"]: duplicates([option["id"] for option in question["options"]])
        for question in questions()
    }
    assert {key: value for key, value in clashes.items() if value} == {}


def test_choice_ids_are_unique_within_each_scenario() -> None:
    clashes = {
        scenario["id"]: duplicates([choice["id"] for choice in scenario["choices"]])
        for scenario in scenarios()
    }
    assert {key: value for key, value in clashes.items() if value} == {}


def test_reference_terms_are_unique_ignoring_case() -> None:
    assert duplicates([item["term"].strip().lower() for item in reference_items()]) == []


# Sections


def test_every_section_value_is_one_of_the_27_guide_slugs() -> None:
    assert sorted(referenced_sections() - set(SLUGS)) == []


def test_every_referenced_section_has_a_guide_file() -> None:
    missing = [
        f"{SECTION_NUMBER[slug]:02d}-{slug}.md"
        for slug in sorted(referenced_sections() & set(SLUGS), key=SECTION_NUMBER.get)
        if not (GUIDE / f"{SECTION_NUMBER[slug]:02d}-{slug}.md").is_file()
    ]
    assert missing == []


def test_every_section_1_to_6_and_8_to_20_has_at_least_one_question() -> None:
    tested = {question["section"] for question in questions()}
    assert [slug for slug in QUIZ_SECTIONS if slug not in tested] == []


def test_every_section_1_to_21_has_at_least_one_flashcard() -> None:
    covered = {card["section"] for card in cards()}
    assert [slug for slug in CARD_SECTIONS if slug not in covered] == []


def test_every_scenario_cites_at_least_one_section() -> None:
    assert [scenario["id"] for scenario in scenarios() if not scenario["sections"]] == []


# Quiz questions


def test_every_question_is_single_or_multiple_answer() -> None:
    kinds = {question["id"]: question["kind"] for question in questions()}
    assert {key: kind for key, kind in kinds.items() if kind not in {"single", "multiple"}} == {}


def test_every_single_answer_question_has_exactly_one_correct_option() -> None:
    wrong = [
        question["id"]
        for question in questions()
        if question["kind"] == "single" and correct_count(question["options"]) != 1
    ]
    assert wrong == []


def test_every_multiple_answer_question_has_two_or_more_correct_options_but_not_all() -> None:
    wrong = [
        question["id"]
        for question in questions()
        if question["kind"] == "multiple"
        and not 2 <= correct_count(question["options"]) < len(question["options"])
    ]
    assert wrong == []


def test_every_multiple_answer_prompt_tells_the_learner_to_choose() -> None:
    silent = [
        question["id"]
        for question in questions()
        if question["kind"] == "multiple" and "(Choose" not in question["prompt"]
    ]
    assert silent == []


def test_the_quiz_has_at_least_six_multiple_answer_questions() -> None:
    assert sum(1 for question in questions() if question["kind"] == "multiple") >= 6


def test_every_question_has_three_to_five_options() -> None:
    wrong = [q["id"] for q in questions() if not 3 <= len(q["options"]) <= 5]
    assert wrong == []


def test_every_option_has_text_a_boolean_answer_and_an_explanation() -> None:
    incomplete = [
        f"{question['id']}/{option['id']}"
        for question in questions()
        for option in question["options"]
        if not str(option.get("text", "")).strip()
        or not isinstance(option.get("correct"), bool)
        or not str(option.get("explanation", "")).strip()
    ]
    assert incomplete == []


def test_no_option_is_all_of_the_above() -> None:
    lazy = [
        f"{question['id']}/{option['id']}"
        for question in questions()
        for option in question["options"]
        if "all of the above" in option["text"].lower()
    ]
    assert lazy == []


def test_every_trap_a_question_references_exists() -> None:
    known = {trap["id"] for trap in traps()}
    unknown = {
        question["id"]: sorted(set(question["traps"]) - known)
        for question in questions()
        if set(question["traps"]) - known
    }
    assert unknown == {}


def test_every_trap_is_tested_by_at_least_one_question() -> None:
    tested = {trap_id for question in questions() for trap_id in question["traps"]}
    assert [trap["id"] for trap in traps() if trap["id"] not in tested] == []


def test_every_card_a_question_references_exists() -> None:
    known = {card["id"] for card in cards()}
    unknown = {
        question["id"]: sorted(set(question["cards"]) - known)
        for question in questions()
        if set(question["cards"]) - known
    }
    assert unknown == {}


def test_every_question_links_one_to_three_cards() -> None:
    wrong = [question["id"] for question in questions() if not 1 <= len(question["cards"]) <= 3]
    assert wrong == []


# Cards, scenarios, reference, traps


def test_every_card_has_a_front_and_a_back() -> None:
    empty = [
        card["id"]
        for card in cards()
        if not str(card.get("front", "")).strip() or not str(card.get("back", "")).strip()
    ]
    assert empty == []


def test_every_scenario_has_exactly_one_correct_choice() -> None:
    wrong = [scenario["id"] for scenario in scenarios() if correct_count(scenario["choices"]) != 1]
    assert wrong == []


def test_every_scenario_has_at_least_two_hints() -> None:
    assert [scenario["id"] for scenario in scenarios() if len(scenario["hints"]) < 2] == []


def test_every_scenario_has_a_situation_question_cause_and_fix() -> None:
    fields = ("title", "situation", "question", "cause", "fix")
    incomplete = [
        scenario["id"]
        for scenario in scenarios()
        if any(not str(scenario.get(field, "")).strip() for field in fields)
    ]
    assert incomplete == []


def test_every_reference_item_has_a_term_and_a_meaning() -> None:
    empty = [
        item["id"]
        for item in reference_items()
        if not str(item.get("term", "")).strip() or not str(item.get("meaning", "")).strip()
    ]
    assert empty == []


def test_every_trap_has_text_and_at_least_one_section() -> None:
    incomplete = [
        trap["id"] for trap in traps() if not trap["text"].strip() or not trap["sections"]
    ]
    assert incomplete == []
