"""No two flashcards, and no two quiz or bank questions, teach the same thing twice."""

from __future__ import annotations

import re

from studysite.study.content import FlashCard, Question, load_bank, load_study
from tests.content.similarity import similar_pairs, vectors

STUDY = load_study()
QUESTIONS = (*STUDY.questions, *load_bank())
CARD_THRESHOLD = 0.43
QUESTION_THRESHOLD = 0.6

# Two pairs the review (issue 13) found, as they read then: the check must flag them.
REVIEWED_PAIRS = {
    ("old-fragmentation", "old-pending-fragmentation"): (
        "What is GPU fragmentation? Enough free GPUs in total, but not on one node, e.g. 8 free "
        "GPUs spread one or two per node, so an 8-GPU single-node job can't start. Bin-packing "
        "and consolidation reduce it.",
        "Pending: enough GPUs in total, but not on one node. Fix? Fragmentation: bin-pack "
        "placement, wait for consolidation, or drain small work.",
    ),
    ("old-out-label-results", "old-symptom-overwrite-error"): (
        "`kubectl label nodes … nvidia.com/mig.config=…` can print `labeled`, `not labeled` or an "
        "`--overwrite is false` error. What does each mean? `labeled`: the value changed, MIG "
        "Manager will react. `not labeled`: the value was already set, nothing is triggered. "
        "`error: … already has a value (all-disabled), and --overwrite is false`: you forgot "
        "`--overwrite`.",
        "Symptom: `error: 'nvidia.com/mig.config' already has a value`. Missing `--overwrite`. "
        "Kubernetes refuses to change an existing label without it, and every MIG-capable node "
        "already has `all-disabled`.",
    ),
}


def card_text(card: FlashCard) -> str:
    return re.sub(r"<[^>]+>", " ", f"{card.front_html} {card.back_html}")


def card_texts() -> dict[str, str]:
    return {card.id: card_text(card) for card in STUDY.cards}


def test_no_two_flashcards_are_near_duplicates() -> None:
    assert similar_pairs(vectors(card_texts()), CARD_THRESHOLD) == []


def test_the_check_flags_the_duplicate_cards_the_review_found() -> None:
    texts = card_texts()
    for (first, second), (one, other) in REVIEWED_PAIRS.items():
        flagged = similar_pairs(vectors({**texts, first: one, second: other}), CARD_THRESHOLD)
        assert (first, second) in {(a, b) for _score, a, b in flagged}


def test_the_duplicate_cards_the_review_found_stay_merged() -> None:
    merged = {
        "pending-fragmentation": ("fragmentation", "drain small work"),
        "gang-pending-while-small-runs": ("pending-gang", "free at the same time"),
        "symptom-overwrite-error": ("out-label-results", "every MIG-capable node already"),
        "same-value-no-trigger": ("symptom-state-failed-in-use", "same value triggers nothing"),
    }
    for gone, (kept, fact) in merged.items():
        assert gone not in STUDY.card_by_id
        assert fact in STUDY.card_by_id[kept].back_html, kept


# Prompts are compared word by word; answers by word pairs, so that results such as
# "A 21, B 8, C 7" and "A 2, B 7, C 7" don't count as the same answer.
def question_parts(question: Question) -> tuple[str, str]:
    keys = " ".join(option.text for option in question.options if option.correct)
    return question.prompt, keys


def test_no_two_questions_ask_the_same_thing_with_the_same_answer() -> None:
    prompts = vectors({q.id: question_parts(q)[0] for q in QUESTIONS})
    keys = vectors({q.id: question_parts(q)[1] for q in QUESTIONS}, pairs=True)
    same_prompt = {(a, b) for _s, a, b in similar_pairs(prompts, QUESTION_THRESHOLD)}
    same_key = {(a, b) for _s, a, b in similar_pairs(keys, QUESTION_THRESHOLD)}
    assert sorted(same_prompt & same_key) == []


def test_the_question_check_flags_a_reworded_copy() -> None:
    original = STUDY.question_by_id["gang-all-or-none"]
    copy_prompt = original.prompt.replace("is submitted to", "arrives in")
    prompts = vectors({**{q.id: q.prompt for q in QUESTIONS}, "copy": copy_prompt})
    keys = vectors(
        {**{q.id: question_parts(q)[1] for q in QUESTIONS}, "copy": question_parts(original)[1]},
        pairs=True,
    )
    pair = tuple(sorted(("copy", original.id)))
    assert pair in {(a, b) for _s, a, b in similar_pairs(prompts, QUESTION_THRESHOLD)}
    assert pair in {(a, b) for _s, a, b in similar_pairs(keys, QUESTION_THRESHOLD)}
