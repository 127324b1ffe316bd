"""The question bank (content/bank/*.yaml) as a learner uses it: enough of it, every subject
the 28 quiz questions leave out, every cited guide passage reachable, and answers that can't
be guessed from their length."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from django.test import Client

from studysite.guide.sections import ContentError, load_guide
from studysite.study.content import BANK_TOPICS, Question, load_bank, load_bank_from, load_study
from tests.content.html_parts import read_links

pytestmark = pytest.mark.django_db

BANK = load_bank()
QUIZ = load_study().questions


def full_text(question: Question) -> str:
    parts = [question.prompt]
    for option in question.options:
        parts += [option.text, option.explanation]
    return " ".join(parts)


def test_the_bank_has_at_least_120_questions() -> None:
    assert len(BANK) >= 120


def test_every_bank_anchor_resolves_on_its_rendered_guide_page(client: Client) -> None:
    ids: dict[str, set[str]] = {}
    for question in BANK:
        url = question.section.url
        if url not in ids:
            response = client.get(url)
            assert response.status_code == 200
            ids[url] = read_links(response.content.decode()).ids
        assert question.anchor in ids[url], (question.id, question.anchor_url)


def test_every_topic_has_questions_and_every_question_a_known_topic() -> None:
    counts = Counter(question.topic for question in BANK)
    assert set(counts) == set(BANK_TOPICS)
    assert min(counts.values()) >= 4


def test_ids_are_unique_across_the_quiz_and_the_bank() -> None:
    ids = [question.id for question in (*QUIZ, *BANK)]
    assert [key for key, count in Counter(ids).items() if count > 1] == []


def test_every_guide_section_1_to_21_but_the_simulator_has_bank_questions() -> None:
    covered = {question.section.slug for question in BANK}
    wanted = [s.slug for s in load_guide().sections if s.order <= 21]
    assert [slug for slug in wanted if slug not in covered] == []


def test_there_is_a_bank_question_for_every_sample_output() -> None:
    html = next(s for s in load_guide().sections if s.slug == "sample-outputs").html
    on_samples = [question for question in BANK if question.section.slug == "sample-outputs"]
    assert len(on_samples) >= html.count('<details class="sample">') == 20


# What the "Beyond the 28" asks the bank to cover, each by a phrase a question must use.
SUBJECTS = {
    "the simulator's arithmetic": "Quota first",
    "which GPUs are reclaimable": "reclaimable",
    "department quotas": "department",
    "over-subscription": "over-subscribed",
    "spread for inference": "Spread, so the replicas",
    "topology": "NVSwitch baseboard",
    "dynamic fractions": "dynamic fractions",
    "--gpu-memory-request": "--gpu-memory-request",
    "MIG single-strategy arithmetic": "8 × 7 = 56",
    "the product node selector": "nvidia.com/gpu.product",
    "custom MIG ConfigMap key": "config.yaml",
    "custom MIG ConfigMap pointer": "spec.migManager.config.name",
    "WITH_REBOOT": "WITH_REBOOT=true",
    "default-gpu-clients": "default-gpu-clients",
    "BCM or the GPU Operator owning MIG": "either BCM or the GPU Operator own MIG",
    "hosted control plane": "NVIDIA-hosted",
    "self-hosted and air-gapped": "air-gapped",
    "a disconnected cluster": "Disconnected",
    "missing training operators": "training operators",
    "missing Prometheus": "Prometheus",
    "missing ingress": "ingress",
    "asset types": "data source",
    "a Pending volume": "PVC",
    "CrashLoopBackOff": "CrashLoopBackOff",
}


@pytest.mark.parametrize("subject", sorted(SUBJECTS))
def test_the_bank_covers_what_the_28_leave_out(subject: str) -> None:
    phrase = SUBJECTS[subject].lower()
    assert any(phrase in full_text(question).lower() for question in BANK), subject


# Length bias: the longest option must not give the answer away.


def key_is_share(questions: tuple[Question, ...], pick: Callable[[list[int]], int]) -> float:
    """The share of single-answer questions whose key alone has the picked length."""
    singles = [question for question in questions if not question.multiple]
    hits = 0
    for question in singles:
        lengths = [len(option.text) for option in question.options]
        key = len(next(option for option in question.options if option.correct).text)
        hits += key == pick(lengths) and lengths.count(key) == 1
    return hits / len(singles)


def key_to_distractor_length_ratio(questions: tuple[Question, ...]) -> float:
    keys = [len(o.text) for q in questions if q.multiple for o in q.options if o.correct]
    others = [len(o.text) for q in questions if q.multiple for o in q.options if not o.correct]
    return (sum(keys) / len(keys)) / (sum(others) / len(others))


SETS = {"the 28 quiz questions": QUIZ, "the bank": BANK}


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_longest_option_is_the_key_in_at_most_a_third_of_single_answer_questions(
    name: str,
) -> None:
    assert key_is_share(SETS[name], max) <= 1 / 3


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_shortest_option_is_the_key_in_at_most_a_third_either(name: str) -> None:
    # Otherwise "never pick the longest" would just turn into "pick the shortest".
    assert key_is_share(SETS[name], min) <= 1 / 3


@pytest.mark.parametrize("name", sorted(SETS))
def test_multiple_answer_keys_are_at_most_115_percent_of_the_distractors_length(name: str) -> None:
    assert key_to_distractor_length_ratio(SETS[name]) <= 1.15


def lengthen_the_keys(question: Question) -> Question:
    """The question with every key padded past its longest distractor."""
    longest = max(len(option.text) for option in question.options)
    options = tuple(
        dataclasses.replace(option, text=option.text + " really" * (longest // 7 + 1))
        if option.correct
        else option
        for option in question.options
    )
    return dataclasses.replace(question, options=options)


def test_the_length_measures_flag_a_quiz_whose_keys_are_its_longest_options() -> None:
    biased = tuple(lengthen_the_keys(question) for question in QUIZ)
    assert key_is_share(biased, max) > 1 / 3
    assert key_to_distractor_length_ratio(biased) > 1.15


# The loader enforces the bank's schema; these show it refuses what tests used to re-check.

GOOD = """questions:
  - id: {id}
    section: {section}
    anchor: {anchor}
    topic: {topic}
    kind: single
    prompt: "Which?"
    options:
      - id: a
        text: "One"
        correct: true
        explanation: "{explanation}"
      - id: b
        text: "Two"
        correct: false
        explanation: "Because."
    cards: [{card}]
"""
FIELDS = {
    "id": "a-new-question",
    "section": "quota-fairness",
    "anchor": "over-subscription",
    "topic": "quota-fairness",
    "explanation": "Because.",
    "card": "fair-share",
}


def load_one(tmp_path: Path, **changes: str) -> tuple[Question, ...]:
    (tmp_path / "bank").mkdir(exist_ok=True)
    (tmp_path / "bank" / "one.yaml").write_text(GOOD.format(**{**FIELDS, **changes}))
    return load_bank_from(tmp_path / "bank", load_guide().sections, load_study())


def test_the_loader_reads_a_well_formed_bank_file(tmp_path: Path) -> None:
    (question,) = load_one(tmp_path)
    assert (question.topic, question.anchor_url) == (
        "quota-fairness",
        "/guide/quota-fairness/#over-subscription",
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"anchor": "no-such-heading"}, "is not a heading in quota-fairness"),
        ({"topic": "nonsense"}, "unknown topic"),
        ({"id": "what-runai-adds"}, "already used in quiz.yaml"),
        ({"section": "no-such-section"}, "unknown guide section"),
        ({"explanation": ""}, "'explanation' is empty"),
        ({"card": "no-such-card"}, "unknown cards/traps"),
    ],
)
def test_the_loader_refuses_a_bank_question_that_breaks_the_schema(
    tmp_path: Path, changes: dict[str, str], message: str
) -> None:
    with pytest.raises(ContentError, match=message):
        load_one(tmp_path, **changes)
