"""Spaced repetition for the flashcards, with the FSRS scheduler.

A card's memory state is the fsrs Card as a JSON-ready dict; a card with no
state is new. Every function takes the time (`now`) and any randomness as
arguments, so the schedule is predictable in tests.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from fsrs import Card, Rating, Scheduler, State

from studysite.study.content import FlashCard

# Intervals are exact (no fuzz): the same grade at the same time gives the same due date.
SCHEDULER = Scheduler(enable_fuzzing=False)
# The id inside the fsrs Card is unused (cards are keyed by their content id);
# a fixed value avoids fsrs' clock-based default.
_FSRS_ID = 1

RATINGS: dict[int, tuple[Rating, str]] = {
    1: (Rating.Again, "Again"),
    2: (Rating.Hard, "Hard"),
    3: (Rating.Good, "Good"),
    4: (Rating.Easy, "Easy"),
}

NEW = "new"
DUE = "due"
LATER = "later"

CardState = dict[str, Any]


class CardStateError(ValueError):
    """A stored or imported card state that is not a valid fsrs card."""


@dataclass(frozen=True)
class Counts:
    due: int
    new: int
    later: int

    @property
    def total(self) -> int:
        return self.due + self.new + self.later


def _utc(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise CardStateError("times must carry a time zone")
    return value.astimezone(UTC)


def to_card(state: Mapping[str, Any]) -> Card:
    """An fsrs Card from a state dict, checked field by field."""
    if not isinstance(state, Mapping):
        raise CardStateError("a card state must be an object")
    try:
        kind = State(state["state"])
        step = state.get("step")
        stability = state.get("stability")
        difficulty = state.get("difficulty")
        due = _utc(datetime.fromisoformat(state["due"]))
        last = state.get("last_review")
        last_review = _utc(datetime.fromisoformat(last)) if last is not None else None
    except (KeyError, TypeError, ValueError) as error:
        raise CardStateError(f"not a card state: {error}") from None
    if isinstance(state["state"], bool) or not isinstance(state["state"], int):
        raise CardStateError("'state' must be 1, 2 or 3")
    if step is not None and (isinstance(step, bool) or not isinstance(step, int) or step < 0):
        raise CardStateError("'step' must be a whole number or null")
    for name, number in (("stability", stability), ("difficulty", difficulty)):
        if number is not None and (
            isinstance(number, bool) or not isinstance(number, int | float) or number <= 0
        ):
            raise CardStateError(f"'{name}' must be a positive number or null")
    if kind == State.Review and (stability is None or difficulty is None):
        raise CardStateError("a card in review needs stability and difficulty")
    return Card(
        card_id=_FSRS_ID,
        state=kind,
        step=step,
        stability=None if stability is None else float(stability),
        difficulty=None if difficulty is None else float(difficulty),
        due=due,
        last_review=last_review,
    )


def to_state(card: Card) -> CardState:
    state: CardState = dict(card.to_dict())
    state.pop("card_id", None)
    return state


def fresh(now: datetime) -> CardState:
    return to_state(Card(card_id=_FSRS_ID, due=now))


def review(state: Mapping[str, Any] | None, rating: int, now: datetime) -> CardState:
    """The card's state after the learner grades it 1-4 at `now`."""
    if rating not in RATINGS:
        raise CardStateError("a grade is 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy)")
    card = to_card(state) if state is not None else Card(card_id=_FSRS_ID, due=now)
    reviewed, _log = SCHEDULER.review_card(card, RATINGS[rating][0], review_datetime=now)
    return to_state(reviewed)


def make_due(state: Mapping[str, Any] | None, now: datetime) -> CardState:
    """Put a card in the due pile now, keeping what it has learned so far."""
    if state is None:
        return fresh(now)
    card = to_card(state)
    if card.due > now:
        card.due = now
    return to_state(card)


def due_at(state: Mapping[str, Any]) -> datetime:
    return to_card(state).due


def status(state: Mapping[str, Any] | None, now: datetime) -> str:
    if state is None:
        return NEW
    return DUE if due_at(state) <= now else LATER


def counts(cards: Sequence[FlashCard], states: Mapping[str, CardState], now: datetime) -> Counts:
    found = [status(states.get(card.id), now) for card in cards]
    return Counts(due=found.count(DUE), new=found.count(NEW), later=found.count(LATER))


def queue(
    cards: Sequence[FlashCard],
    states: Mapping[str, CardState],
    now: datetime,
    shuffle_seed: int | None = None,
) -> list[FlashCard]:
    """What to study next: due cards (longest overdue first), then new cards.

    With a shuffle seed each pile is shuffled instead, the same way for one seed.
    """
    due = [card for card in cards if status(states.get(card.id), now) == DUE]
    new = [card for card in cards if card.id not in states]
    if shuffle_seed is None:
        due.sort(key=lambda card: due_at(states[card.id]))
    else:
        rng = random.Random(shuffle_seed)
        rng.shuffle(due)
        rng.shuffle(new)
    return due + new


def next_due(states: Mapping[str, CardState], ids: Sequence[str], now: datetime) -> datetime | None:
    later = [due_at(states[i]) for i in ids if i in states and due_at(states[i]) > now]
    return min(later, default=None)


def describe_wait(delta: timedelta) -> str:
    """'in 10 minutes', 'in 3 days': how long until a card comes back."""
    seconds = max(0, int(delta.total_seconds()))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            amount = round(seconds / size)
            return f"in {amount} {unit}{'' if amount == 1 else 's'}"
    return "now"


def next_intervals(state: Mapping[str, Any] | None, now: datetime) -> dict[int, timedelta]:
    """How long until the card comes back for each grade 1-4, from the FSRS scheduler."""
    return {rating: due_at(review(state, rating, now)) - now for rating in RATINGS}


def short_wait(delta: timedelta) -> str:
    """'10 min', '2 h', '3 days': an interval short enough for a grade button."""
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{round(seconds / 60)} min"
    if seconds < 86400:
        return f"{round(seconds / 3600)} h"
    days = round(seconds / 86400)
    return f"{days} day{'' if days == 1 else 's'}"
