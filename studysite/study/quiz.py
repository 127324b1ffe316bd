"""The practice quiz's rules, free of requests and the database.

An attempt is a list of question ids, a seed that fixes each question's option
order, and the answers given so far (question id -> chosen option ids). Marking
happens here, on the server, against content the page never carried.

The page never carries an option's id either: it names each option by its
position on screen (`a` for the first shown, `b` for the second...), and
`parse_shown` maps those keys back through the attempt's seed. The content's ids
are stable names for saved answers and exports; they say nothing on the page.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from studysite.study.content import Option, Question, StudyContent

PRACTICE = "practice"
EXAM = "exam"
MODES = (PRACTICE, EXAM)

Answers = Mapping[str, Sequence[str]]


class AnswerError(ValueError):
    """A submitted answer that does not fit its question; the message is for the learner."""


@dataclass(frozen=True)
class Verdict:
    question: Question
    chosen: tuple[str, ...]

    @property
    def answered(self) -> bool:
        return bool(self.chosen)

    @property
    def correct(self) -> bool:
        return frozenset(self.chosen) == self.question.correct_ids


@dataclass(frozen=True)
class Score:
    points: int
    total: int
    verdicts: tuple[Verdict, ...]

    @property
    def wrong(self) -> tuple[Verdict, ...]:
        return tuple(verdict for verdict in self.verdicts if not verdict.correct)

    @property
    def unanswered(self) -> int:
        return sum(1 for verdict in self.verdicts if not verdict.answered)


def new_seed(rng: random.Random) -> int:
    return rng.randrange(2**31)


def option_order(question: Question, seed: int) -> list[Option]:
    """The options in this attempt's order: the same every time for one seed."""
    options = list(question.options)
    random.Random(f"{seed}:{question.id}").shuffle(options)
    return options


# The keys a page names options by, in the order they are shown.
KEYS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Shown:
    """An option as one attempt shows it: `key` is its position on screen, not its id."""

    key: str
    option: Option

    @property
    def text_html(self) -> str:
        return self.option.text_html


def shown(question: Question, seed: int) -> list[Shown]:
    """The options in this attempt's order, each keyed by its position."""
    return [Shown(KEYS[i], option) for i, option in enumerate(option_order(question, seed))]


def parse_shown(question: Question, seed: int, values: Iterable[str]) -> tuple[str, ...]:
    """The option ids behind the keys a page sent (see `shown`); raises AnswerError."""
    by_key = {item.key: item.option.id for item in shown(question, seed)}
    keys = [value.strip() for value in values if value.strip()]
    if any(key not in by_key for key in keys):
        raise AnswerError(_unknown(question))
    return parse_answer(question, [by_key[key] for key in keys])


def _unknown(question: Question) -> str:
    return (
        f"Question {question.number}: that answer isn't one of the question's options. "
        "Choose from the options shown."
    )


def parse_answer(question: Question, values: Iterable[str]) -> tuple[str, ...]:
    """The chosen option ids, checked against the question; raises AnswerError."""
    chosen = tuple(dict.fromkeys(value.strip() for value in values if value.strip()))
    if not chosen:
        raise AnswerError("Choose an answer before checking it.")
    unknown = [value for value in chosen if value not in question.option_by_id]
    if unknown:
        raise AnswerError(_unknown(question))
    if not question.multiple and len(chosen) > 1:
        raise AnswerError(f"Question {question.number} takes one answer; choose just one.")
    return tuple(sorted(chosen))


def parse_exam(
    questions: Sequence[Question], form: Mapping[str, Sequence[str]], seed: int
) -> dict[str, tuple[str, ...]]:
    """Every answered question of an exam form (fields `q-<question id>`, keys as shown)."""
    answers: dict[str, tuple[str, ...]] = {}
    for question in questions:
        values = [value for value in form.get(f"q-{question.id}", []) if value.strip()]
        if values:
            answers[question.id] = parse_shown(question, seed, values)
    return answers


def next_unanswered(question_ids: Sequence[str], answers: Answers) -> str | None:
    return next((qid for qid in question_ids if qid not in answers), None)


def verdict(question: Question, answers: Answers) -> Verdict:
    return Verdict(question, tuple(answers.get(question.id, ())))


def score(content: StudyContent, question_ids: Sequence[str], answers: Answers) -> Score:
    verdicts = tuple(verdict(content.question_by_id[qid], answers) for qid in question_ids)
    points = sum(1 for item in verdicts if item.correct)
    return Score(points=points, total=len(verdicts), verdicts=verdicts)


def retake_ids(
    content: StudyContent, question_ids: Sequence[str], answers: Answers, only_wrong: bool
) -> list[str]:
    if not only_wrong:
        return list(question_ids)
    return [item.question.id for item in score(content, question_ids, answers).wrong]


@dataclass(frozen=True)
class OptionReview:
    option: Option
    chosen: bool


def review(item: Verdict, seed: int) -> list[OptionReview]:
    """Every option in the attempt's order, with whether the learner chose it."""
    return [
        OptionReview(option, option.id in item.chosen)
        for option in option_order(item.question, seed)
    ]


# Exam mode: pass mark, timer, breakdown

# The NCP-AII exam publishes no pass mark; 70% is the bar this site sets for "ready".
PASS_PERCENT = 70
# The exam's own pace is about two minutes a question; these are the choices offered.
TIME_LIMITS = (15, 30, 45, 60, 90)

# The quiz's questions carry a guide section; a topic is a run of sections that
# the exam treats as one area.
TOPICS: tuple[tuple[str, str, range], ...] = (
    ("platform", "Platform and architecture", range(1, 6)),
    ("scheduling", "Quota, fairness and scheduling", range(6, 11)),
    ("gpu-sharing", "GPU fractions and MIG", range(11, 13)),
    ("workloads", "Workloads, CLI and access", range(13, 16)),
    ("operations", "Install, validate and monitor", range(16, 20)),
    ("troubleshooting", "Troubleshooting", range(20, 100)),
)


def topic_of(question: Question) -> tuple[str, str]:
    order = question.section.order
    return next(((key, label) for key, label, orders in TOPICS if order in orders), TOPICS[-1][:2])


def passed(result: Score) -> bool:
    return result.total > 0 and 100 * result.points >= PASS_PERCENT * result.total


def needed(result: Score) -> int:
    """How many more right answers would reach the pass mark."""
    target = -(-PASS_PERCENT * result.total // 100)
    return max(0, target - result.points)


def percent(result: Score) -> int:
    return round(100 * result.points / result.total) if result.total else 0


@dataclass(frozen=True)
class Line:
    """One row of a breakdown: a topic or section and how its questions went."""

    label: str
    url: str
    right: int
    total: int


def breakdown(verdicts: Sequence[Verdict], by: str) -> list[Line]:
    """Right answers per topic ("topic") or per guide section ("section"), in guide order."""
    rows: dict[str, list[Verdict]] = {}
    labels: dict[str, tuple[int, str, str]] = {}
    for item in verdicts:
        section = item.question.section
        if by == "topic":
            key, label = topic_of(item.question)
            url = ""
            order = next(i for i, topic in enumerate(TOPICS) if topic[0] == key)
        else:
            key, label, url, order = section.slug, section.label, section.url, section.order
        rows.setdefault(key, []).append(item)
        labels[key] = (order, label, url)
    ordered = sorted(rows, key=lambda key: labels[key][0])
    return [
        Line(labels[key][1], labels[key][2], sum(v.correct for v in rows[key]), len(rows[key]))
        for key in ordered
    ]


# A timed exam's page submits itself when its clock reaches zero; this covers the trip.
GRACE = timedelta(seconds=15)


def deadline(started_at: datetime, time_limit: int | None) -> datetime | None:
    """When a timed attempt's time is up (None: untimed)."""
    return started_at + timedelta(minutes=time_limit) if time_limit else None


def in_time(started_at: datetime, time_limit: int | None, now: datetime) -> bool:
    """Whether answers sent at `now` count: before the deadline, plus GRACE."""
    end = deadline(started_at, time_limit)
    return end is None or now <= end + GRACE


def parse_time_limit(value: str) -> int | None:
    """The chosen time limit in minutes, None for untimed; raises AnswerError."""
    if value in {"", "none"}:
        return None
    if value.isdecimal() and int(value) in TIME_LIMITS:
        return int(value)
    raise AnswerError("Choose a time limit from the list, or no time limit.")
