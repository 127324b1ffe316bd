"""The numbers and dates find's tests read (simulators.lab.find_primaries): -newermt's dates
and the range a time test's number must be in, as GNU's xstrtod and parse_datetime take them."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta

from simulators.cluster.clock import EPOCH
from simulators.lab.textutils import strtold


def out_of_range(text: str, value: float) -> bool:
    """What strtod reads but xstrtod refuses: NaN, and a number too large or too small for a
    double (`inf` itself is no error)."""
    if math.isnan(value):
        return True
    if math.isinf(value):
        return "inf" not in text.lower()
    return value == 0 and re.search(r"[1-9]", text.split("e")[0].split("E")[0]) is not None


def date_seconds(text: str, now: int) -> float | None:
    """A date as the lab's seconds (0: its one time): `@SECONDS`, `now`, `YYYY-MM-DD` with
    `[ T]HH:MM[:SS]` or not (UTC, the lab's zone)."""
    text = text.strip()
    if text == "now":
        return now
    if text.startswith("@"):
        read = strtold(text[1:])
        if read is None or read[1] != len(text) - 1:
            return None
        return read[0] - EPOCH.timestamp()
    match = re.fullmatch(
        r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?", text
    )
    if not match:
        return None
    try:
        parts = [int(g) if g else 0 for g in match.groups()]
        moment = datetime(parts[0], parts[1], parts[2], tzinfo=EPOCH.tzinfo) + timedelta(
            hours=parts[3], minutes=parts[4], seconds=parts[5]
        )
    except ValueError:
        return None
    return (moment - EPOCH).total_seconds()
