"""The site's rate limits, all one kind: a token bucket.

A bucket holds up to `burst` tokens and refills at `rate` tokens a second. What it counts is
the caller's: websocket frames (studysite.lab.consumers, one token a frame, taken before the
frame is handled), or processor seconds (charged after the work, by what it really cost, so a
bucket can go below zero and the next piece of work waits until it refills above it).

- `TokenBucket`: one bucket, in memory.
- `Buckets`: a bucket per key (a browser session), in memory, thread-safe and bounded.
- `CpuShare`: a session's processor share for lab commands, and whether it is spending a lot
  recently (studysite.lab.annex runs those sessions' commands apart).
- `CachedBuckets`: a bucket per key in Django's cache, shared by the server's processes (the
  costly views' limit, studysite.limits.expensive).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache


class TokenBucket:
    """`burst` tokens at most (default: one second's worth), refilled at `rate` a second.

    A new bucket is full unless given its `tokens` and when they were counted (`last`). `now`
    defaults to the bucket's clock (monotonic seconds).
    """

    def __init__(
        self,
        rate: float,
        burst: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        *,
        tokens: float | None = None,
        last: float | None = None,
    ) -> None:
        self.rate = float(rate)
        self.burst = float(burst) if burst > 0 else self.rate
        self.clock = clock
        self.tokens = self.burst if tokens is None else tokens
        self.last = clock() if last is None else last

    def refill(self, now: float | None = None) -> float:
        """The tokens there are now."""
        now = self.clock() if now is None else now
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.last) * self.rate)
        self.last = now
        return self.tokens

    def allow(self, cost: float = 1.0, now: float | None = None) -> bool:
        """Take `cost` tokens if there are that many: False (nothing taken) if not."""
        if self.refill(now) < cost:
            return False
        self.tokens -= cost
        return True

    def has_tokens(self, now: float | None = None) -> bool:
        """Whether any is left: for work charged afterwards (see spend)."""
        return self.refill(now) > 0

    def spend(self, cost: float, now: float | None = None) -> None:
        """Take `cost` after the fact, even below zero."""
        self.refill(now)
        self.tokens -= cost


class Buckets:
    """A TokenBucket per key, made full on first use. Forgetting a bucket refills it, so past
    `most` keys they are all forgotten rather than grow without bound."""

    def __init__(self, rate: Callable[[], float], burst_seconds: float = 1.0, most: int = 10_000):
        self.rate = rate
        self.burst_seconds = burst_seconds
        self.most = most
        self.lock = threading.Lock()
        self.buckets: dict[str, TokenBucket] = {}

    def get(self, key: str) -> TokenBucket:
        with self.lock:
            bucket = self.buckets.get(key)
            if bucket is None:
                if len(self.buckets) >= self.most:
                    self.buckets.clear()
                rate = self.rate()
                bucket = self.buckets[key] = TokenBucket(rate, rate * self.burst_seconds)
            return bucket

    def clear(self) -> None:
        with self.lock:
            self.buckets.clear()


# A session whose recent commands add up to this much processor time (each counted fully when it
# ends, then fading by half every RECENT_HALF_LIFE seconds) has its commands run apart from the
# others' (studysite.lab.annex): a learner's ordinary commands (a few ms each) never come near
# it, a session sending expensive commands back to back gets there with one.
HEAVY_SECONDS = 0.2
RECENT_HALF_LIFE = 3.0


class CpuShare:
    """Per browser session: lab command CPU time, LAB_SESSION_CPU_MS_PER_SECOND refilled a
    second, with a burst of ten seconds' worth.

    One learner's expensive commands then cost the others at most this share of a
    processor; an ordinary command (a few ms) never meets it.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.buckets = Buckets(lambda: settings.LAB_SESSION_CPU_MS_PER_SECOND / 1000, 10, 50_000)
        # Per session: recent processor time and when it was last counted.
        self.recent: dict[str, tuple[float, float]] = {}

    def allows(self, key: str, now: float) -> bool:
        """Whether a command of this session may run now."""
        bucket = self.buckets.get(key)
        with self.lock:
            return bucket.has_tokens(now)

    def heavy(self, key: str, now: float) -> bool:
        """This session's recent commands used more than HEAVY_SECONDS (see RECENT_HALF_LIFE)."""
        with self.lock:
            return self._recent(key, now) > HEAVY_SECONDS

    def _recent(self, key: str, now: float) -> float:
        spent, at = self.recent.get(key, (0.0, now))
        return float(spent * 0.5 ** ((now - at) / RECENT_HALF_LIFE))

    def charge(self, key: str, seconds: float) -> None:
        """Count a command's processor time, once it has run."""
        now = time.monotonic()
        bucket = self.buckets.get(key)
        with self.lock:
            if len(self.recent) > 50_000:
                self.recent.clear()  # forgotten use is no recent use: harmless
            bucket.spend(seconds, now)
            self.recent[key] = (self._recent(key, now) + seconds, now)


class CachedBuckets:
    """A TokenBucket per key in Django's cache, so every server process counts against the same
    one (two processes charging at once may lose one charge: a limit, not an account)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def _load(self, key: str, rate: float, burst: float, now: float) -> TokenBucket:
        saved = cache.get(f"{self.prefix}:{key}")
        tokens, last = saved if isinstance(saved, tuple) else (burst, now)
        return TokenBucket(rate, burst, tokens=float(tokens), last=min(float(last), now))

    def has_tokens(self, key: str, rate: float, burst: float, now: float) -> bool:
        return self._load(key, rate, burst, now).has_tokens(now)

    def spend(self, key: str, cost: float, rate: float, burst: float, now: float) -> None:
        bucket = self._load(key, rate, burst, now)
        bucket.spend(cost, now)
        # Kept until it would be full again; then a missing entry means the same.
        timeout = max(1, int((bucket.burst - bucket.tokens) / rate) + 1)
        cache.set(f"{self.prefix}:{key}", (bucket.tokens, bucket.last), timeout=timeout)
