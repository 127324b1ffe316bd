"""The question bank beyond the quiz's 28, as the practice pages need it.

The bank's data and its loader belong to the content (studysite.study.content's
`load_bank` and `BANK_TOPICS`); this adapter turns whatever that loader returns
into quiz Questions plus the bank's own fields (anchor, topic), so the practice
views mark answers with the quiz's own rules. Where the loader isn't there it
reads content/bank/*.yaml itself, in the same shape.

STUDY_BANK_DIR (a setting or an environment variable) points at another folder
of bank YAML; the tests use it for a small fixture bank.
"""

from __future__ import annotations

import functools
import importlib
import os
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings

from studysite.guide.sections import ContentError, content_dir, load_guide
from studysite.markdown import render_inline, render_markdown
from studysite.study.content import Option, Question, SectionLink


@dataclass(frozen=True)
class BankQuestion:
    question: Question
    anchor: str
    topic: str

    @property
    def id(self) -> str:
        return self.question.id

    @property
    def section(self) -> SectionLink:
        return self.question.section

    @property
    def anchor_url(self) -> str:
        return f"{self.section.url}#{self.anchor}" if self.anchor else self.section.url


@dataclass(frozen=True)
class Bank:
    questions: tuple[BankQuestion, ...]
    topics: Mapping[str, str]

    @functools.cached_property
    def by_id(self) -> dict[str, BankQuestion]:
        return {item.id: item for item in self.questions}

    @functools.cached_property
    def sections(self) -> tuple[SectionLink, ...]:
        """The guide sections the bank has questions for, in guide order."""
        seen = {item.section.slug: item.section for item in self.questions}
        return tuple(sorted(seen.values(), key=lambda link: link.order))

    @functools.cached_property
    def topic_ids(self) -> tuple[str, ...]:
        """The topics the bank has questions for, in the order the content lists them."""
        used = {item.topic for item in self.questions}
        listed = [topic for topic in self.topics if topic in used]
        return tuple(listed + sorted(used - set(listed)))

    def topic_label(self, topic: str) -> str:
        return self.topics.get(topic) or topic.replace("-", " ").capitalize()

    def select(self, sections: Iterable[str] = (), topics: Iterable[str] = ()) -> list[str]:
        """The ids of questions in any of these sections or topics, in bank order."""
        wanted_sections, wanted_topics = set(sections), set(topics)
        return [
            item.id
            for item in self.questions
            if item.section.slug in wanted_sections or item.topic in wanted_topics
        ]


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else str(value)


def _section_link(value: Any, where: str) -> SectionLink:
    slug = getattr(value, "slug", value)
    section = load_guide().by_slug.get(slug) if isinstance(slug, str) else None
    if section is None:
        raise ContentError(f"bank: {where}: unknown guide section {slug!r}")
    return SectionLink(section.slug, section.order, section.title)


def _field(item: Any, name: str, default: Any = None) -> Any:
    if isinstance(item, Mapping):
        return item.get(name, default)
    return getattr(item, name, default)


def _html(item: Any, name: str, render: Callable[[str], str]) -> str:
    rendered = _field(item, f"{name}_html")
    return str(rendered) if rendered else render(_text(_field(item, name, "")))


def _question(number: int, item: Any) -> BankQuestion:
    """One bank question from the content loader's object or a YAML record."""
    question_id = _text(_field(item, "id", ""))
    kind = _text(_field(item, "kind", ""))
    options = tuple(
        Option(
            id=_text(_field(option, "id", "")),
            text_html=_html(option, "text", render_inline),
            correct=bool(_field(option, "correct", False)),
            explanation_html=_html(option, "explanation", render_markdown),
        )
        for option in _field(item, "options", ()) or ()
    )
    correct = sum(option.correct for option in options)
    if not question_id or kind not in {"single", "multiple"} or len(options) < 2:
        raise ContentError(f"bank: {question_id or number}: needs an id, a kind and options")
    if (kind == "single" and correct != 1) or (kind == "multiple" and correct < 2):
        raise ContentError(f"bank: {question_id}: its correct options don't fit its kind")
    prompt = _text(_field(item, "prompt", ""))
    question = Question(
        id=question_id,
        number=number,
        section=_section_link(_field(item, "section"), question_id),
        kind=kind,
        prompt=prompt,
        prompt_html=_html(item, "prompt", render_inline),
        options=options,
        traps=tuple(_field(item, "traps", ()) or ()),
        cards=tuple(_field(item, "cards", ()) or ()),
    )
    return BankQuestion(
        question=question,
        anchor=_text(_field(item, "anchor", "") or ""),
        topic=_text(_field(item, "topic", "") or "other"),
    )


def _read_folder(folder: Path) -> tuple[list[Any], dict[str, str]]:
    records: list[Any] = []
    topics: dict[str, str] = {}
    for path in sorted(folder.glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as error:
            raise ContentError(f"bank/{path.name}: cannot be read: {error}") from error
        if isinstance(data, dict):
            records.extend(data.get("questions") or [])
            topics.update({str(k): str(v) for k, v in (data.get("topics") or {}).items()})
        elif isinstance(data, list):
            records.extend(data)
    return records, topics


def _from_content() -> tuple[list[Any], dict[str, str]] | None:
    """The content loader's bank, if this checkout has one."""
    content = importlib.import_module("studysite.study.content")
    loader = getattr(content, "load_bank", None)
    if loader is None:
        return None
    found = loader()
    questions = list(getattr(found, "questions", found))
    topics = dict(getattr(content, "BANK_TOPICS", {}) or {})
    return questions, {
        str(key): str(getattr(value, "label", value)) for key, value in topics.items()
    }


def bank_dir_override() -> str:
    return str(getattr(settings, "STUDY_BANK_DIR", "") or os.environ.get("STUDY_BANK_DIR", ""))


@functools.cache
def load_bank_from(folder: str = "") -> Bank:
    """The bank from `folder`, else from the content loader, else content/bank/."""
    found = _read_folder(Path(folder)) if folder else _from_content()
    if found is None:
        found = _read_folder(content_dir() / "bank")
    records, topics = found
    questions = tuple(_question(number, item) for number, item in enumerate(records, 1))
    if len({item.id for item in questions}) != len(questions):
        raise ContentError("bank: question ids must be unique")
    return Bank(questions, topics)


def load() -> Bank:
    return load_bank_from(bank_dir_override())


def shuffled(ids: Sequence[str], rng: random.Random) -> list[str]:
    order = list(ids)
    rng.shuffle(order)
    return order


@dataclass(frozen=True)
class Tally:
    """How one topic or section went: on each question's latest answer."""

    key: str
    label: str
    total: int
    answered: int
    right: int

    @property
    def percent(self) -> int | None:
        return round(100 * self.right / self.answered) if self.answered else None


def tallies(
    keys: Sequence[tuple[str, str]],
    questions: Iterable[BankQuestion],
    group: Callable[[BankQuestion], str],
    latest: Mapping[str, bool],
) -> list[Tally]:
    """One Tally per (key, label), counting the questions `group` puts under each key."""
    members: dict[str, list[str]] = {key: [] for key, _label in keys}
    for item in questions:
        members.setdefault(group(item), []).append(item.id)
    result = []
    for key, label in keys:
        ids = members.get(key, [])
        done = [latest[qid] for qid in ids if qid in latest]
        result.append(Tally(key, label, len(ids), len(done), sum(done)))
    return result


def topic_tallies(bank: Bank, latest: Mapping[str, bool]) -> list[Tally]:
    keys = [(topic, bank.topic_label(topic)) for topic in bank.topic_ids]
    return tallies(keys, bank.questions, lambda item: item.topic, latest)


def section_tallies(bank: Bank, latest: Mapping[str, bool]) -> list[Tally]:
    keys = [(link.slug, link.label) for link in bank.sections]
    return tallies(keys, bank.questions, lambda item: item.section.slug, latest)


WEAK_TOPICS = 2


def weak_spots(bank: Bank, latest: Mapping[str, bool]) -> list[str]:
    """Questions last answered wrong, then the unanswered or wrong questions of the
    topics with the lowest scores: where practice pays most."""
    wrong = [item.id for item in bank.questions if latest.get(item.id) is False]
    scored = [tally for tally in topic_tallies(bank, latest) if tally.answered]
    scored.sort(key=lambda tally: (tally.right / tally.answered, tally.key))
    low = {tally.key for tally in scored[:WEAK_TOPICS] if tally.right < tally.answered}
    if not low and not wrong:
        return []
    extra = [
        item.id
        for item in bank.questions
        if item.topic in low and not latest.get(item.id) and item.id not in wrong
    ]
    return wrong + extra
