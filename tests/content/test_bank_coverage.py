"""The bank covers the guide the way the exam weighs it: 250 questions or more, five or more on
every section a learner studies, most on the stack underneath, validation, the fabric and
Slurm, and keys that don't sit in one position."""

from __future__ import annotations

from collections import Counter

import pytest
import yaml

from studysite.guide.sections import content_dir, load_guide
from studysite.study.content import load_bank

BANK = load_bank()
PER_SECTION = Counter(question.section.slug for question in BANK)

# Sections 1-21 are what the bank quizzes (22 onwards are the study tools themselves).
STUDIED = [section.slug for section in load_guide().sections if section.order <= 21]

# What the NCP-AII blueprint tests most, and where the guide teaches it.
BLUEPRINT_WEIGHTED = ["stack", "validation", "runai-slurm-kubernetes"]


def test_the_bank_holds_at_least_250_questions() -> None:
    assert len(BANK) >= 250


@pytest.mark.parametrize("slug", STUDIED)
def test_every_studied_section_has_at_least_five_questions(slug: str) -> None:
    assert PER_SECTION[slug] >= 5


def test_the_blueprints_heavy_subjects_have_more_questions_than_a_typical_section() -> None:
    typical = sorted(PER_SECTION[slug] for slug in STUDIED)[len(STUDIED) // 2]
    for slug in BLUEPRINT_WEIGHTED:
        assert PER_SECTION[slug] >= max(15, typical + 5), slug


FABRIC_ANCHORS = {
    "the-network-operator-and-gpudirect-rdma",
    "multi-node-speed-comes-from-the-fabric",
}


def test_the_fabric_has_questions_in_both_sections_that_teach_it() -> None:
    fabric = [question for question in BANK if question.anchor in FABRIC_ANCHORS]
    assert len(fabric) >= 8
    assert {question.section.slug for question in fabric} == {"stack", "gang-scheduling"}


# The files issue 29 added; the older files' key positions are balanced separately.
ADDED = ["stack", "validation", "slurm", "fabric", "priority", "access", "metrics", "foundations"]


def test_the_added_files_spread_their_keys_over_the_four_positions() -> None:
    positions: Counter[str] = Counter()
    for name in ADDED:
        loaded = yaml.safe_load((content_dir() / "bank" / f"{name}.yaml").read_text())
        for question in loaded["questions"]:
            if question["kind"] == "single":
                positions.update(o["id"] for o in question["options"] if o["correct"])
    singles = sum(positions.values())
    assert singles >= 100
    for letter in "abcd":
        assert positions[letter] >= singles * 0.2, (letter, positions)
