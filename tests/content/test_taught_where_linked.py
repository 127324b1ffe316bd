"""Every fact a question tests is taught where its explanation sends the learner.

A bank question's explanation links to a heading of its guide section (its anchor); a quiz
question's links to its section. The key's terms (the commands, resources, labels and fields
it quotes) must appear in that section, and the sections the issue found thin now state the
facts the cards, the bank and the lab's hints ask for.
"""

from __future__ import annotations

import html
import re

import pytest

from studysite.guide.sections import load_guide
from studysite.study.content import FlashCard, Question, Scenario, load_bank, load_study

SECTIONS = {section.slug: section for section in load_guide().sections}
QUESTIONS: tuple[Question, ...] = (*load_study().questions, *load_bank())

# Names of the learner's example world (projects, nodes, workloads): any may be made up.
EXAMPLE_NAME = re.compile(r"^(team-|gpu-node|dgx\d|nb\d|t\d|llm-ft|runai-team-|l40s-|h100-)")


def taught(slug: str) -> str:
    """The section as a reader sees it: its rendered text, tags dropped, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", SECTIONS[slug].html)).split())


def key_terms(text: str) -> list[str]:
    """The words of every code span in `text` that a section must name (not example names,
    placeholders, numbers or one- and two-letter flags)."""
    terms = []
    for span in re.findall(r"`([^`]+)`", text):
        for word in re.split(r"[\s=,]+", span):
            word = word.strip(":;.()'\"")
            if (
                len(word) < 3
                or word.startswith("<")
                or "…" in word
                or re.fullmatch(r"[\d.]+[A-Za-z]?", word)
                or EXAMPLE_NAME.match(word)
            ):
                continue
            terms.append(word)
    return terms


def test_key_terms_skip_example_names_and_keep_commands_and_resources() -> None:
    assert key_terms("`kubectl uncordon gpu-node2` then `nvidia.com/mig-1g.10gb: 16`") == [
        "kubectl",
        "uncordon",
        "nvidia.com/mig-1g.10gb",
    ]


def test_every_bank_anchor_is_a_heading_of_its_section() -> None:
    for question in QUESTIONS:
        if question.anchor:
            anchors = {heading.anchor for heading in SECTIONS[question.section.slug].headings}
            assert question.anchor in anchors, question.id


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda question: question.id)
def test_the_linked_section_names_every_term_of_the_key(question: Question) -> None:
    text = taught(question.section.slug)
    for option in question.options:
        if option.correct:
            missing = [term for term in key_terms(option.text) if term not in text]
            assert missing == [], (question.section.slug, missing)


# The facts the issue found asked for but never taught, each in the section that owns it.
TAUGHT = {
    "preemption-reclaim": ["`train`", "50", "`build`", "100", "`inference`", "125",
                           "`interactive-preemptible`", "75", "preemptible", "--preemptible",
                           "department priority", "queue priority"],
    "access-control": ["access rules", "scope", "single sign-on", "SAML", "OIDC",
                       "application", "client secret", "runai login application"],
    "monitoring": ["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_PROF_SM_ACTIVE",
                   "Allocation", "Utilization"],
    "stack": ["Container Toolkit", "device plugin", "GPU Feature Discovery", "DCGM exporter",
              "nvidia-operator-validator", "driver.enabled=false", "GPUDirect RDMA",
              "NET/Socket", "NET/IB", "NCCL_DEBUG=INFO", "Network Operator"],
    "architecture": ["runai-agent", "cluster-sync", "outbound", "Disconnected", "air-gapped"],
    "validation": ["dcgmi diag", "nvidia-operator-validator", "ibstat", "all_reduce_perf",
                   "NET/IB"],
    "runai-slurm-kubernetes": ["Enroot", "Pyxis", "--container-image", "sbatch", "srun",
                               "--gres=gpu:8", "partition", "QOS", "fair-share"],
}  # fmt: skip


@pytest.mark.parametrize("slug", sorted(TAUGHT))
def test_the_thin_sections_now_state_what_the_study_tools_ask(slug: str) -> None:
    text = taught(slug).lower()
    missing = [fact for fact in TAUGHT[slug] if fact.strip("`").lower() not in text]
    assert missing == []


@pytest.mark.parametrize("slug", sorted(TAUGHT))
def test_the_deepened_sections_are_no_longer_a_paragraph_long(slug: str) -> None:
    assert len(taught(slug).split()) >= 300


def as_markdown(markup: str) -> str:
    """Rendered inline text back to Markdown's code spans, other tags dropped."""
    spans = re.sub(r"<code>(.*?)</code>", r"`\1`", re.sub(r"<(?!/?code)[^>]+>", "", markup))
    return html.unescape(spans)


STUDY = load_study()


@pytest.mark.parametrize("scenario", STUDY.scenarios, ids=lambda scenario: scenario.id)
def test_a_scenarios_sections_name_every_term_of_its_answer(scenario: Scenario) -> None:
    text = " ".join(taught(section.slug) for section in scenario.sections)
    answer = as_markdown(scenario.correct_choice.text_html)
    missing = [term for term in key_terms(answer) if term not in text]
    assert missing == []


@pytest.mark.parametrize("card", STUDY.cards, ids=lambda card: card.id)
def test_a_cards_section_names_every_term_on_its_back(card: FlashCard) -> None:
    text = taught(card.section.slug)
    missing = [term for term in key_terms(as_markdown(card.back_html)) if term not in text]
    assert missing == []
