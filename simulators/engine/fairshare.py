"""Fair share (the KAI Scheduler's "proportion" division) for one resource in one pool.

Follows docs/engine.md ("Fair share", steps 1-6): deserved first, then over-quota by queue
priority level, water-filling in rounds with whole-GPU rounding, then the rounding
leftovers by the largest remembered fraction. Departments divide the pool; each
parent's fair share is divided among its children the same way.

Pass a `FairShareTrace` to `fair_share` and the division reports its own working
(what each step handed out and what was left), so explanations of a result are
the engine's arithmetic rather than a second implementation of it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from simulators.engine.errors import EngineError

# Float noise from weights like 1/3 must not turn 3.0 into 2.999… and lose a GPU.
EPSILON = 1e-9


@dataclass(frozen=True)
class ShareQueue:
    """One queue as the division sees it. `request` only matters for leaf queues.

    `deserved=None` is "no quota set" (KAI's -1): the queue deserves whatever its parent
    divides, up to its request and limit.
    """

    name: str
    parent: str | None = None
    deserved: float | None = 0.0
    over_quota_weight: float = 1.0
    limit: float | None = None
    priority: int = 0
    request: float = 0.0

    def __post_init__(self) -> None:
        if not self.name:
            raise EngineError("queues[].name: must not be empty")
        for field_name in ("deserved", "over_quota_weight", "request"):
            value = getattr(self, field_name)
            if field_name == "deserved" and value is None:
                continue
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise EngineError(f"queue {self.name}: {field_name} must be a number")
            if not math.isfinite(value) or value < 0:
                raise EngineError(f"queue {self.name}: {field_name} must be 0 or more")
        if self.limit is not None and (
            not isinstance(self.limit, int | float)
            or isinstance(self.limit, bool)
            or not math.isfinite(self.limit)
            or self.limit < 0
        ):
            raise EngineError(f"queue {self.name}: limit must be a number, 0 or more, or null")
        if not isinstance(self.priority, int) or isinstance(self.priority, bool):
            raise EngineError(f"queue {self.name}: priority must be an integer")


@dataclass(frozen=True)
class DeservedGrant:
    """Step 1: a queue's quota, handed out up to what it asks for (and its limit)."""

    queue: str
    deserved: float | None  # None: no quota set (the queue deserves what is divided)
    requestable: float
    given: float


@dataclass(frozen=True)
class RoundOffer:
    """One queue's part of a water-filling round."""

    queue: str
    weight: float
    offered: float  # amount x weight / sum of the hungry queues' weights
    wanted: float  # what it still asked for when the round began
    given: float  # whole GPUs it took (or all it wanted, if that was less)
    remembered: float  # the fraction lost to rounding, kept for the leftovers


@dataclass(frozen=True)
class FillRound:
    """One water-filling round among the queues of one priority level."""

    priority: int
    available: float
    weight_sum: float
    offers: tuple[RoundOffer, ...]
    left: float


@dataclass(frozen=True)
class LeftoverGrant:
    """Step 3: a whole GPU lost to rounding, given by the largest remembered fraction."""

    queue: str
    fraction: float
    given: float


@dataclass
class Division:
    """How one parent's amount (the pool, or a department's share) was divided."""

    parent: str | None
    amount: float
    deserved: list[DeservedGrant]
    after_deserved: float
    rounds: list[FillRound]
    leftovers: list[LeftoverGrant]
    unused: float
    shares: dict[str, float]

    @property
    def oversubscribed(self) -> bool:
        """The quotas given out in step 1 add up to more than there was."""
        return self.after_deserved < -EPSILON


@dataclass
class FairShareTrace:
    """Filled in by `fair_share(..., trace=...)`: one division per parent, top down."""

    total: float = 0.0
    divisions: list[Division] | None = None

    def division(self, parent: str | None) -> Division | None:
        return next((d for d in self.divisions or () if d.parent == parent), None)


@dataclass
class _Node:
    queue: ShareQueue
    rank: int
    children: list[_Node]
    request: float = 0.0
    share: float = 0.0

    @property
    def requestable(self) -> float:
        limit = self.queue.limit
        return self.request if limit is None else min(self.request, limit)

    @property
    def remaining_request(self) -> float:
        return max(0.0, self.requestable - self.share)


def fair_share(
    total: float, queues: Sequence[ShareQueue], trace: FairShareTrace | None = None
) -> dict[str, float]:
    """Each queue's fair share of `total` GPUs. Queue order is creation order.

    With `trace`, the division records each of its steps there as it goes.
    """
    if not isinstance(total, int | float) or isinstance(total, bool) or not math.isfinite(total):
        raise EngineError("total_gpus: must be a number")
    if total < 0:
        raise EngineError("total_gpus: must be 0 or more")
    nodes: dict[str, _Node] = {}
    for rank, queue in enumerate(queues):
        if queue.name in nodes:
            raise EngineError(f"queues[{rank}].name: {queue.name!r} appears twice")
        nodes[queue.name] = _Node(queue, rank, [])
    roots: list[_Node] = []
    for node in nodes.values():
        parent = node.queue.parent
        if parent is None:
            roots.append(node)
        elif parent not in nodes:
            raise EngineError(f"queue {node.queue.name}: parent {parent!r} is not a queue")
        else:
            nodes[parent].children.append(node)
    _check_acyclic(nodes)
    for root in roots:
        _sum_requests(root)
    if trace is not None:
        trace.total = float(total)
        trace.divisions = []
    _divide(float(total), roots, None, trace)
    # Breadth first, so a trace lists the pool's division before the departments'.
    queue_of_parents = list(roots)
    while queue_of_parents:
        node = queue_of_parents.pop(0)
        _divide(node.share, node.children, node.queue.name, trace)
        queue_of_parents.extend(node.children)
    return {name: _clean(node.share) for name, node in nodes.items()}


def _clean(value: float) -> float:
    rounded = round(value, 6)
    return 0.0 if rounded == 0 else rounded


def _check_acyclic(nodes: dict[str, _Node]) -> None:
    for node in nodes.values():
        seen = {node.queue.name}
        parent = node.queue.parent
        while parent is not None:
            if parent in seen:
                raise EngineError(f"queue {node.queue.name}: its parents form a loop")
            seen.add(parent)
            parent = nodes[parent].queue.parent


def _sum_requests(root: _Node) -> None:
    # Iterative post-order so a deep tree cannot hit the recursion limit.
    order: list[_Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    for node in reversed(order):
        node.request = (
            sum(child.request for child in node.children) if node.children else node.queue.request
        )


def _divide(
    amount: float, siblings: list[_Node], parent: str | None, trace: FairShareTrace | None
) -> None:
    if not siblings:
        return
    record = Division(parent, amount, [], 0.0, [], [], 0.0, {}) if trace is not None else None
    remaining = amount
    for node in siblings:
        deserved = amount if node.queue.deserved is None else node.queue.deserved
        given = min(deserved, node.requestable)
        node.share = given
        remaining -= given
        if record is not None:
            record.deserved.append(
                DeservedGrant(node.queue.name, node.queue.deserved, node.requestable, given)
            )
    if record is not None and trace is not None and trace.divisions is not None:
        record.after_deserved = remaining
        trace.divisions.append(record)
    if remaining > EPSILON:
        levels = sorted({n.queue.priority for n in siblings}, reverse=True)
        remembered_by_level: dict[int, dict[str, tuple[_Node, float]]] = {}
        for level in levels:
            members = [n for n in siblings if n.queue.priority == level]
            remaining, remembered_by_level[level] = _water_fill(remaining, members, level, record)
        for level in levels:
            if remaining <= EPSILON:
                break
            remaining = _hand_out_leftovers(remaining, remembered_by_level[level], record)
    if record is not None:
        record.unused = max(0.0, remaining)
        record.shares = {node.queue.name: _clean(node.share) for node in siblings}


def _water_fill(
    amount: float, members: list[_Node], level: int, record: Division | None
) -> tuple[float, dict[str, tuple[_Node, float]]]:
    """Rounds of weighted shares; returns what is left and the fractions lost to rounding."""
    remembered: dict[str, tuple[_Node, float]] = {}
    while amount > EPSILON:
        hungry = [n for n in members if n.remaining_request > EPSILON]
        weight_sum = sum(n.queue.over_quota_weight for n in hungry)
        if weight_sum <= 0:
            break
        round_amount = amount
        another_round = False
        offers: list[RoundOffer] = []
        for node in hungry:
            weight = node.queue.over_quota_weight
            if weight <= 0:
                continue
            offered = round_amount * weight / weight_sum
            wanted = node.remaining_request
            lost = 0.0
            if wanted <= offered + EPSILON:
                given = wanted
                remembered.pop(node.queue.name, None)
            else:
                given = float(math.floor(offered + EPSILON))
                lost = offered - given
                if lost > EPSILON:
                    remembered[node.queue.name] = (node, lost)
                else:
                    lost = 0.0
            given = max(0.0, min(given, amount))
            if record is not None:
                offers.append(RoundOffer(node.queue.name, weight, offered, wanted, given, lost))
            if given <= 0:
                continue
            node.share += given
            amount -= given
            another_round = another_round or wanted < offered - EPSILON
        if record is not None:
            record.rounds.append(FillRound(level, round_amount, weight_sum, tuple(offers), amount))
        if not another_round:
            break
    return amount, remembered


def _hand_out_leftovers(
    amount: float, remembered: dict[str, tuple[_Node, float]], record: Division | None
) -> float:
    ordered = sorted(
        remembered.values(), key=lambda item: (-item[1], item[0].rank, item[0].queue.name)
    )
    for node, lost in ordered:
        if amount <= EPSILON:
            break
        # A limit (or the request) caps leftovers too, so a share never exceeds what is usable.
        given = min(1.0, amount, node.remaining_request)
        node.share += given
        amount -= given
        if record is not None:
            record.leftovers.append(LeftoverGrant(node.queue.name, lost, given))
    return amount
