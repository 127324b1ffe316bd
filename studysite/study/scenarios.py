"""A scenario's steps: commit to a guess, take hints one at a time, then reveal.

The learner's progress in one scenario is a small immutable record; each step
returns a new one or raises ScenarioError with a message for the learner.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace

from studysite.study.content import Choice, Scenario

MAX_GUESS_LENGTH = 500

GUESS = "guess"
HINTS = "hints"
REVEALED = "revealed"


class ScenarioError(ValueError):
    """A step that does not fit the scenario; the message is for the learner."""


@dataclass(frozen=True)
class Progress:
    choice_id: str = ""
    guess_text: str = ""
    hints_shown: int = 0
    revealed: bool = False

    @property
    def guessed(self) -> bool:
        return bool(self.choice_id or self.guess_text)

    @property
    def stage(self) -> str:
        if self.revealed:
            return REVEALED
        return HINTS if self.guessed else GUESS


def commit_guess(scenario: Scenario, progress: Progress, choice_id: str, text: str) -> Progress:
    if progress.guessed:
        raise ScenarioError("You already committed to a guess for this scenario.")
    choice_id, text = choice_id.strip(), " ".join(text.split())
    if choice_id and choice_id not in scenario.choice_by_id:
        raise ScenarioError("That choice isn't one of this scenario's answers. Choose again.")
    if len(text) > MAX_GUESS_LENGTH:
        raise ScenarioError(f"Keep your guess under {MAX_GUESS_LENGTH} characters.")
    if not choice_id and not text:
        raise ScenarioError("Choose an answer or type your own guess first.")
    return replace(progress, choice_id=choice_id, guess_text=text)


def take_hint(scenario: Scenario, progress: Progress) -> Progress:
    if not progress.guessed:
        raise ScenarioError("Commit to a guess first; then the hints open one at a time.")
    if progress.hints_shown >= len(scenario.hints_html):
        raise ScenarioError("There are no more hints; reveal the cause.")
    return replace(progress, hints_shown=progress.hints_shown + 1)


def reveal(progress: Progress) -> Progress:
    if not progress.guessed:
        raise ScenarioError("Commit to a guess before you reveal the cause.")
    return replace(progress, revealed=True)


def choice_order(scenario: Scenario, learner: str) -> list[Choice]:
    """The choices in this learner's order: shuffled, the same on every visit (their ids are
    spread evenly over a-d and carry no answer)."""
    choices = list(scenario.choices)
    random.Random(f"{learner}:{scenario.id}").shuffle(choices)
    return choices


def chosen(scenario: Scenario, progress: Progress) -> Choice | None:
    return scenario.choice_by_id.get(progress.choice_id)


def from_data(scenario: Scenario, data: Mapping[str, object]) -> Progress:
    """Progress from imported data, checked against the scenario; raises ScenarioError."""
    choice_id, text = data.get("choice", ""), data.get("guess", "")
    hints, revealed = data.get("hints", 0), data.get("revealed", False)
    if not isinstance(choice_id, str) or not isinstance(text, str):
        raise ScenarioError("'choice' and 'guess' must be text")
    if isinstance(hints, bool) or not isinstance(hints, int):
        raise ScenarioError("'hints' must be a whole number")
    if not isinstance(revealed, bool):
        raise ScenarioError("'revealed' must be true or false")
    progress = Progress()
    if choice_id or text:
        progress = commit_guess(scenario, progress, choice_id, text)
    if not 0 <= hints <= (len(scenario.hints_html) if progress.guessed else 0):
        raise ScenarioError("'hints' is out of range")
    if revealed and not progress.guessed:
        raise ScenarioError("a revealed scenario needs a guess")
    return replace(progress, hints_shown=hints, revealed=revealed)


def to_data(progress: Progress) -> dict[str, object]:
    return {
        "choice": progress.choice_id,
        "guess": progress.guess_text,
        "hints": progress.hints_shown,
        "revealed": progress.revealed,
    }
