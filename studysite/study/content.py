"""The study data in content/*.yaml, read and checked once, kept rendered.

Quiz questions, flashcards, scenarios, reference items and exam traps become
frozen dataclasses with their Markdown already rendered by the site's one
renderer, so a request never parses YAML or Markdown. A file that breaks the
schema stops the load with a ContentError naming the file and the record.

The question bank (content/bank/*.yaml) uses the quiz's question shape plus the
guide heading it rests on and a topic from BANK_TOPICS; `load_bank()` returns it.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from studysite.guide.sections import ContentError, Section, content_dir, load_guide
from studysite.markdown import render_inline, render_markdown

# The bank's topics, in the order a learner sees them (id -> label).
BANK_TOPICS: dict[str, str] = {
    "architecture": "Architecture and the stack",
    "quota-fairness": "Quota, over-quota and fair share",
    "reclaim-preemption": "Reclaim, preemption and priority",
    "gang-placement": "Gang scheduling and placement",
    "fractions-mig": "GPU fractions and MIG",
    "gpu-operator": "GPU Operator and MIG Manager",
    "workloads-assets": "Workloads and assets",
    "cli": "The runai CLI and kubectl",
    "access-install": "Access, installation and validation",
    "monitoring": "Monitoring and comparisons",
    "troubleshooting": "Troubleshooting Pending work",
    "samples": "Reading sample outputs",
}


@dataclass(frozen=True)
class SectionLink:
    slug: str
    order: int
    title: str

    @property
    def url(self) -> str:
        return f"/guide/{self.slug}/"

    @property
    def label(self) -> str:
        return f"{self.order}. {self.title}"


@dataclass(frozen=True)
class Option:
    id: str
    text_html: str
    correct: bool
    explanation_html: str
    # The Markdown sources, for plain-text uses (length checks, summaries).
    text: str = ""
    explanation: str = ""


@dataclass(frozen=True)
class Question:
    id: str
    number: int
    section: SectionLink
    kind: str
    prompt: str
    prompt_html: str
    options: tuple[Option, ...]
    traps: tuple[str, ...]
    cards: tuple[str, ...]
    # Bank questions only: the heading in `section` the question rests on, and its topic id.
    anchor: str = ""
    topic: str = ""

    @property
    def multiple(self) -> bool:
        return self.kind == "multiple"

    @property
    def anchor_url(self) -> str:
        """The guide passage the question rests on (the section page for quiz questions)."""
        return f"{self.section.url}#{self.anchor}" if self.anchor else self.section.url

    @property
    def topic_label(self) -> str:
        return BANK_TOPICS.get(self.topic, "")

    @functools.cached_property
    def option_by_id(self) -> dict[str, Option]:
        return {option.id: option for option in self.options}

    @functools.cached_property
    def correct_ids(self) -> frozenset[str]:
        return frozenset(option.id for option in self.options if option.correct)

    @property
    def summary(self) -> str:
        """The prompt as short plain text, for a link to the question."""
        text = self.prompt.replace("`", "")
        if len(text) <= 90:
            return text
        return text[:90].rsplit(" ", 1)[0] + "…"


@dataclass(frozen=True)
class FlashCard:
    id: str
    section: SectionLink
    front_html: str
    back_html: str
    tags: tuple[str, ...]


@dataclass(frozen=True)
class Choice:
    id: str
    text_html: str
    correct: bool


@dataclass(frozen=True)
class Scenario:
    id: str
    number: int
    title: str
    sections: tuple[SectionLink, ...]
    situation_html: str
    question_html: str
    choices: tuple[Choice, ...]
    hints_html: tuple[str, ...]
    cause_html: str
    fix_html: str

    @functools.cached_property
    def choice_by_id(self) -> dict[str, Choice]:
        return {choice.id: choice for choice in self.choices}

    @property
    def correct_choice(self) -> Choice:
        return next(choice for choice in self.choices if choice.correct)


@dataclass(frozen=True)
class ReferenceItem:
    id: str
    term: str
    meaning: str
    meaning_html: str
    section: SectionLink

    @property
    def anchor(self) -> str:
        return f"ref-{self.id}"


@dataclass(frozen=True)
class Trap:
    id: str
    number: int
    text_html: str
    sections: tuple[SectionLink, ...]


@dataclass(frozen=True)
class StudyContent:
    questions: tuple[Question, ...]
    cards: tuple[FlashCard, ...]
    scenarios: tuple[Scenario, ...]
    reference: tuple[ReferenceItem, ...]
    traps: tuple[Trap, ...]

    @functools.cached_property
    def question_by_id(self) -> dict[str, Question]:
        return {question.id: question for question in self.questions}

    @functools.cached_property
    def card_by_id(self) -> dict[str, FlashCard]:
        return {card.id: card for card in self.cards}

    @functools.cached_property
    def scenario_by_id(self) -> dict[str, Scenario]:
        return {scenario.id: scenario for scenario in self.scenarios}

    @functools.cached_property
    def trap_by_id(self) -> dict[str, Trap]:
        return {trap.id: trap for trap in self.traps}

    def questions_for_trap(self, trap_id: str) -> tuple[Question, ...]:
        return tuple(question for question in self.questions if trap_id in question.traps)

    @functools.cached_property
    def card_sections(self) -> tuple[SectionLink, ...]:
        """The guide sections that have cards, in guide order."""
        seen = {card.section.slug: card.section for card in self.cards}
        return tuple(sorted(seen.values(), key=lambda link: link.order))


_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class _Reader:
    """Checks one file's records, naming the file and record in every error."""

    def __init__(self, filename: str, sections: dict[str, Section]) -> None:
        self.filename = filename
        self.sections = sections

    def fail(self, where: str, problem: str) -> ContentError:
        return ContentError(f"{self.filename}: {where}: {problem}")

    def records(self, data: Any, key: str) -> list[dict[str, Any]]:
        if not isinstance(data, dict) or not isinstance(data.get(key), list):
            raise self.fail("top level", f"expected a mapping with a '{key}' list")
        records = data[key]
        ids: set[str] = set()
        for index, record in enumerate(records):
            if not isinstance(record, dict):
                raise self.fail(f"item {index + 1}", "expected a mapping")
            record_id = self.text(record, "id", f"item {index + 1}")
            if not _KEBAB.match(record_id) or record_id in ids:
                raise self.fail(record_id, "id must be unique lowercase-kebab")
            ids.add(record_id)
        return list(records)

    def text(self, record: dict[str, Any], field: str, where: str) -> str:
        value = record.get(field)
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise self.fail(where, f"'{field}' must be text")
        if not str(value).strip():
            raise self.fail(where, f"'{field}' is empty")
        return str(value).strip()

    def flag(self, record: dict[str, Any], field: str, where: str) -> bool:
        value = record.get(field)
        if not isinstance(value, bool):
            raise self.fail(where, f"'{field}' must be true or false")
        return value

    def ids(self, record: dict[str, Any], field: str, where: str) -> tuple[str, ...]:
        value = record.get(field, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.fail(where, f"'{field}' must be a list of ids")
        return tuple(value)

    def section(self, slug: Any, where: str) -> SectionLink:
        section = self.sections.get(slug) if isinstance(slug, str) else None
        if section is None:
            raise self.fail(where, f"unknown guide section {slug!r}")
        return SectionLink(section.slug, section.order, section.title)

    def section_list(self, record: dict[str, Any], where: str) -> tuple[SectionLink, ...]:
        slugs = self.ids(record, "sections", where)
        if not slugs:
            raise self.fail(where, "'sections' is empty")
        return tuple(self.section(slug, where) for slug in slugs)


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise ContentError(f"{path.name}: cannot be read: {error}") from error


def _options(reader: _Reader, record: dict[str, Any], where: str) -> tuple[Option, ...]:
    raw = record.get("options")
    if not isinstance(raw, list) or not 2 <= len(raw) <= 8:
        raise reader.fail(where, "'options' must be a list of 2 to 8 options")
    options: list[Option] = []
    for option in raw:
        if not isinstance(option, dict):
            raise reader.fail(where, "every option must be a mapping")
        option_id = reader.text(option, "id", where)
        if any(existing.id == option_id for existing in options):
            raise reader.fail(where, f"option id {option_id!r} is repeated")
        options.append(
            Option(
                id=option_id,
                text_html=render_inline(reader.text(option, "text", f"{where}/{option_id}")),
                correct=reader.flag(option, "correct", f"{where}/{option_id}"),
                explanation_html=render_markdown(
                    reader.text(option, "explanation", f"{where}/{option_id}")
                ),
                text=reader.text(option, "text", f"{where}/{option_id}"),
                explanation=reader.text(option, "explanation", f"{where}/{option_id}"),
            )
        )
    return tuple(options)


def _question(reader: _Reader, number: int, record: dict[str, Any]) -> Question:
    where = record["id"]
    kind = reader.text(record, "kind", where)
    options = _options(reader, record, where)
    correct = sum(option.correct for option in options)
    if kind == "single" and correct != 1:
        raise reader.fail(where, "a single-answer question needs exactly one correct option")
    if kind == "multiple" and not 2 <= correct < len(options):
        raise reader.fail(where, "a multiple-answer question needs 2+ correct, not all")
    if kind not in {"single", "multiple"}:
        raise reader.fail(where, "'kind' must be single or multiple")
    prompt = reader.text(record, "prompt", where)
    if kind == "multiple" and "(Choose" not in prompt:
        raise reader.fail(where, "a multiple-answer prompt must say '(Choose …)'")
    return Question(
        id=where,
        number=number,
        section=reader.section(record.get("section"), where),
        kind=kind,
        prompt=prompt,
        prompt_html=render_inline(prompt),
        options=options,
        traps=reader.ids(record, "traps", where),
        cards=reader.ids(record, "cards", where),
    )


def _card(reader: _Reader, record: dict[str, Any]) -> FlashCard:
    where = record["id"]
    return FlashCard(
        id=where,
        section=reader.section(record.get("section"), where),
        front_html=render_inline(reader.text(record, "front", where)),
        back_html=render_markdown(reader.text(record, "back", where)),
        tags=reader.ids(record, "tags", where),
    )


def _scenario(reader: _Reader, number: int, record: dict[str, Any]) -> Scenario:
    where = record["id"]
    raw_choices = record.get("choices")
    if not isinstance(raw_choices, list) or len(raw_choices) < 2:
        raise reader.fail(where, "'choices' must list at least two choices")
    if not all(isinstance(choice, dict) for choice in raw_choices):
        raise reader.fail(where, "every choice must be a mapping")
    choices = tuple(
        Choice(
            id=reader.text(choice, "id", where),
            text_html=render_inline(reader.text(choice, "text", where)),
            correct=reader.flag(choice, "correct", where),
        )
        for choice in raw_choices
    )
    if sum(choice.correct for choice in choices) != 1:
        raise reader.fail(where, "a scenario needs exactly one correct choice")
    if len({choice.id for choice in choices}) != len(choices):
        raise reader.fail(where, "choice ids must be unique")
    hints = record.get("hints")
    if not isinstance(hints, list) or not hints or not all(isinstance(h, str) for h in hints):
        raise reader.fail(where, "'hints' must be a list of text")
    return Scenario(
        id=where,
        number=number,
        title=reader.text(record, "title", where),
        sections=reader.section_list(record, where),
        situation_html=render_markdown(reader.text(record, "situation", where)),
        question_html=render_inline(reader.text(record, "question", where)),
        choices=choices,
        hints_html=tuple(render_inline(hint) for hint in hints),
        cause_html=render_markdown(reader.text(record, "cause", where)),
        fix_html=render_markdown(reader.text(record, "fix", where)),
    )


def _reference(reader: _Reader, record: dict[str, Any]) -> ReferenceItem:
    where = record["id"]
    meaning = reader.text(record, "meaning", where)
    return ReferenceItem(
        id=where,
        term=reader.text(record, "term", where),
        meaning=meaning.replace("`", ""),
        meaning_html=render_inline(meaning),
        section=reader.section(record.get("section"), where),
    )


def _trap(reader: _Reader, record: dict[str, Any]) -> Trap:
    where = record["id"]
    number = record.get("number")
    if not isinstance(number, int) or isinstance(number, bool):
        raise reader.fail(where, "'number' must be a whole number")
    return Trap(
        id=where,
        number=number,
        text_html=render_inline(reader.text(record, "text", where)),
        sections=reader.section_list(record, where),
    )


def _load[T](
    folder: Path,
    filename: str,
    key: str,
    sections: dict[str, Section],
    build: Callable[[_Reader, int, dict[str, Any]], T],
) -> tuple[T, ...]:
    reader = _Reader(filename, sections)
    records = reader.records(_read_yaml(folder / filename), key)
    return tuple(build(reader, number, record) for number, record in enumerate(records, 1))


def _check_links(study: StudyContent) -> None:
    for question in study.questions:
        unknown = [c for c in question.cards if c not in study.card_by_id]
        unknown += [t for t in question.traps if t not in study.trap_by_id]
        if unknown:
            raise ContentError(f"quiz.yaml: {question.id}: unknown cards/traps {unknown}")


def load_from(folder: Path, sections: Iterable[Section]) -> StudyContent:
    by_slug = {section.slug: section for section in sections}
    study = StudyContent(
        questions=_load(folder, "quiz.yaml", "questions", by_slug, _question),
        cards=_load(folder, "cards.yaml", "cards", by_slug, lambda r, _n, d: _card(r, d)),
        scenarios=_load(folder, "scenarios.yaml", "scenarios", by_slug, _scenario),
        reference=_load(
            folder, "reference.yaml", "items", by_slug, lambda r, _n, d: _reference(r, d)
        ),
        traps=_load(folder, "traps.yaml", "traps", by_slug, lambda r, _n, d: _trap(r, d)),
    )
    _check_links(study)
    return study


@functools.cache
def load_study() -> StudyContent:
    return load_from(content_dir(), load_guide().sections)


def _bank_question(reader: _Reader, number: int, record: dict[str, Any]) -> Question:
    question = _question(reader, number, record)
    where = question.id
    anchor = reader.text(record, "anchor", where)
    headings = {heading.anchor for heading in reader.sections[question.section.slug].headings}
    if anchor not in headings:
        raise reader.fail(where, f"anchor {anchor!r} is not a heading in {question.section.slug}")
    topic = reader.text(record, "topic", where)
    if topic not in BANK_TOPICS:
        raise reader.fail(where, f"unknown topic {topic!r}; use one of {sorted(BANK_TOPICS)}")
    return dataclasses.replace(question, anchor=anchor, topic=topic)


def load_bank_from(
    folder: Path, sections: Iterable[Section], study: StudyContent
) -> tuple[Question, ...]:
    """Every bank file in `folder`, numbered across files in file-name order.

    Ids must be unique across the bank and the quiz, and every card or trap a
    question names must exist in `study`.
    """
    by_slug = {section.slug: section for section in sections}
    taken = {question.id: "quiz.yaml" for question in study.questions}
    questions: list[Question] = []
    for path in sorted(folder.glob("*.yaml")):
        reader = _Reader(f"bank/{path.name}", by_slug)
        for record in reader.records(_read_yaml(path), "questions"):
            question = _bank_question(reader, len(questions) + 1, record)
            if question.id in taken:
                raise reader.fail(question.id, f"id is already used in {taken[question.id]}")
            taken[question.id] = reader.filename
            unknown = [c for c in question.cards if c not in study.card_by_id]
            unknown += [t for t in question.traps if t not in study.trap_by_id]
            if unknown:
                raise reader.fail(question.id, f"unknown cards/traps {unknown}")
            questions.append(question)
    return tuple(questions)


@functools.cache
def load_bank() -> tuple[Question, ...]:
    """The practice bank: quiz-shaped questions, each with `.anchor` and `.topic` set."""
    return load_bank_from(content_dir() / "bank", load_guide().sections, load_study())
