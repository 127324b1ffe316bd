"""The question bank beyond the quiz's 28, as the practice pages need it.

The bank's data, its schema and its topics belong to the content
(studysite.study.content's `load_bank` and `BANK_TOPICS`); its questions are
quiz Questions with `.anchor` and `.topic` set, so the practice views mark
answers with the quiz's own rules. This module groups and tallies them.

STUDY_BANK_DIR (a setting or an environment variable) points at another folder
of bank YAML, checked by the same loader; the tests use it for a small bank.
"""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from studysite.guide.sections import load_guide
from studysite.study import content
from studysite.study.content import Question, SectionLink


@dataclass(frozen=True)
class Bank:
    questions: tuple[Question, ...]

    @functools.cached_property
    def by_id(self) -> dict[str, Question]:
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
        return tuple(topic for topic in content.BANK_TOPICS if topic in used)

    def topic_label(self, topic: str) -> str:
        return content.BANK_TOPICS.get(topic, topic)

    def select(self, sections: Iterable[str] = (), topics: Iterable[str] = ()) -> list[str]:
        """The ids of questions in any of these sections or topics, in bank order."""
        wanted_sections, wanted_topics = set(sections), set(topics)
        return [
            item.id
            for item in self.questions
            if item.section.slug in wanted_sections or item.topic in wanted_topics
        ]


def bank_dir_override() -> str:
    return str(getattr(settings, "STUDY_BANK_DIR", "") or os.environ.get("STUDY_BANK_DIR", ""))


@functools.cache
def load_bank_from(folder: str = "") -> Bank:
    """The bank in `folder` (bank YAML files), else the site's own content/bank/."""
    if not folder:
        return Bank(content.load_bank())
    sections, study = load_guide().sections, content.load_study()
    return Bank(content.load_bank_from(Path(folder), sections, study))


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
    questions: Iterable[Question],
    group: Callable[[Question], str],
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
