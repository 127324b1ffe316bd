"""One node pool's scheduling cycle, laid out as the KAI Scheduler lays out its own:

- `session`: the pool's queues, jobs and nodes for one cycle (KAI's session);
- `placement`: the one fit function, the node index and the node search;
- `statement`: bind, evict and move with rollback (KAI's Statement);
- `actions/`: allocate, consolidate, reclaim, preempt, one module each;
- `victims` and `solver`: victim order and the reclaim search;
- `proportion`: the quota gates and the reclaim checks;
- `pending`: why a job still waits;
- `records`: what the session reports (actions, events, fair-share rows).

The rules are in docs/engine.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from simulators.engine.scheduler.actions.allocate import allocate
from simulators.engine.scheduler.actions.consolidate import consolidate
from simulators.engine.scheduler.actions.preempt import preempt
from simulators.engine.scheduler.actions.reclaim import reclaim
from simulators.engine.scheduler.pending import explain_pending
from simulators.engine.scheduler.records import Action, FairShareRow, Note, Recorder
from simulators.engine.scheduler.session import PoolSession

ACTIONS: tuple[str, ...] = ("allocate", "consolidate", "reclaim", "preempt")

_STEPS: dict[str, Callable[[PoolSession], None]] = {
    "allocate": allocate,
    "consolidate": consolidate,
    "reclaim": reclaim,
    "preempt": preempt,
}


def run_actions(session: PoolSession, actions: Sequence[str] = ACTIONS) -> None:
    for name in actions:
        _STEPS[name](session)
    explain_pending(session)


__all__ = [
    "ACTIONS",
    "Action",
    "FairShareRow",
    "Note",
    "PoolSession",
    "Recorder",
    "run_actions",
]
