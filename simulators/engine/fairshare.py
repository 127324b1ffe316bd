"""Fair share (the KAI Scheduler's "proportion" division) for one resource in one pool.

Follows docs/engine.md ("Fair share", steps 1-6): deserved first, then over-quota by queue
priority level, water-filling in rounds with whole-GPU rounding, then the rounding
leftovers by the largest remembered fraction. Departments divide the pool; each
parent's fair share is divided among its children the same way.
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


def fair_share(total: float, queues: Sequence[ShareQueue]) -> dict[str, float]:
    """Each queue's fair share of `total` GPUs. Queue order is creation order."""
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
    _divide(float(total), roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        _divide(node.share, node.children)
        stack.extend(node.children)
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


def _divide(amount: float, siblings: list[_Node]) -> None:
    if not siblings:
        return
    remaining = amount
    for node in siblings:
        deserved = amount if node.queue.deserved is None else node.queue.deserved
        given = min(deserved, node.requestable)
        node.share = given
        remaining -= given
    if remaining <= EPSILON:
        return
    levels = sorted({n.queue.priority for n in siblings}, reverse=True)
    remembered_by_level: dict[int, dict[str, tuple[_Node, float]]] = {}
    for level in levels:
        members = [n for n in siblings if n.queue.priority == level]
        remaining, remembered_by_level[level] = _water_fill(remaining, members)
    for level in levels:
        if remaining <= EPSILON:
            break
        remaining = _hand_out_leftovers(remaining, remembered_by_level[level])


def _water_fill(
    amount: float, members: list[_Node]
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
        for node in hungry:
            weight = node.queue.over_quota_weight
            if weight <= 0:
                continue
            offered = round_amount * weight / weight_sum
            wanted = node.remaining_request
            if wanted <= offered + EPSILON:
                given = wanted
                remembered.pop(node.queue.name, None)
            else:
                given = float(math.floor(offered + EPSILON))
                lost = offered - given
                if lost > EPSILON:
                    remembered[node.queue.name] = (node, lost)
            given = min(given, amount)
            if given <= 0:
                continue
            node.share += given
            amount -= given
            another_round = another_round or wanted < offered - EPSILON
        if not another_round:
            break
    return amount, remembered


def _hand_out_leftovers(amount: float, remembered: dict[str, tuple[_Node, float]]) -> float:
    ordered = sorted(
        remembered.values(), key=lambda item: (-item[1], item[0].rank, item[0].queue.name)
    )
    for node, _lost in ordered:
        if amount <= EPSILON:
            break
        # A limit (or the request) caps leftovers too, so a share never exceeds what is usable.
        given = min(1.0, amount, node.remaining_request)
        node.share += given
        amount -= given
    return amount
