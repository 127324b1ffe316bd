"""The cluster's step clock: time is a step counter the lab advances, never the wall clock."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

STEP_SECONDS = 10
EPOCH = datetime(2026, 11, 10, 9, 40, 0, tzinfo=UTC)


def datetime_at(seconds: int) -> datetime:
    """The moment ``seconds`` after ``EPOCH``, as the lab's tools print dates."""
    return EPOCH + timedelta(seconds=seconds)


@functools.lru_cache(maxsize=1024)
def format_time(moment: datetime) -> str:
    """RFC 3339 as the API server writes timestamps (second precision, ``Z``). Cached: a
    step's writes stamp the same few seconds, and the objects then hold one string for each
    (instead of a copy per condition, event and pod)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@functools.lru_cache(maxsize=8192)
def parse_time(text: str) -> datetime:
    """An RFC 3339 timestamp as the API server writes them; cached, as tables parse the same
    creation times on every request."""
    return datetime.fromisoformat(text[:19]).replace(tzinfo=UTC)


@functools.lru_cache(maxsize=1024)
def _timestamp_at(seconds: int) -> str:
    # Every write in a step stamps the same second: format it once.
    return format_time(EPOCH + timedelta(seconds=seconds))


@dataclass
class StepClock:
    """Seconds since ``EPOCH``; each lab step adds ``STEP_SECONDS``."""

    seconds: int = 0
    step_seconds: int = STEP_SECONDS

    def now(self) -> datetime:
        return EPOCH + timedelta(seconds=self.seconds)

    def timestamp(self) -> str:
        return _timestamp_at(self.seconds)

    def advance(self, steps: int = 1) -> None:
        self.seconds += steps * self.step_seconds

    def advance_seconds(self, seconds: int) -> None:
        self.seconds += seconds
