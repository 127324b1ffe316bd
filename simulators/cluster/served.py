"""A cluster served over HTTP: its store, how it steps, and its checklist.

`make_server` serves one; `start_ticker` steps it once a tick. What a step does
(controllers, the engine) is composed by the layer that owns it
(`simulators.lab.apiserver`), so the cluster layer imports nothing above it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from simulators.cluster.store import MockCluster

log = logging.getLogger("simulators.cluster.server")


Stepper = Callable[[MockCluster], None]
Checklist = Callable[[MockCluster], list[dict[str, Any]]]


def advance_clock_only(api: MockCluster) -> None:
    api.clock.advance()


@dataclass
class ServedCluster:
    """The served cluster, how it steps, and where its checklist comes from."""

    api: MockCluster
    step: Stepper = advance_clock_only
    checklist: Checklist = field(default=lambda api: [])
    lock: threading.RLock = field(default_factory=threading.RLock)
    steps: int = 0
    files: dict[str, str] = field(default_factory=dict)  # the ticket's home-folder files

    last_step: float = 0.0  # time.monotonic() of the last step

    def advance(self) -> None:
        """One step. A step that fails is logged, not raised: the request that made it has
        been applied and answers as such, and the ticker tries the step again a second later."""
        with self.lock:
            try:
                self.step(self.api)
            except Exception:
                log.exception("cluster step failed; trying again at the next tick")
                self.last_step = time.monotonic()
                return
            self.steps += 1
            self.last_step = time.monotonic()
