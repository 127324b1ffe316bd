"""The reclaim solver: where a reclaimer's pods would go if chosen victims were released
(docs/engine.md, "Reclaim", step 7).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from simulators.engine.fairshare import EPSILON
from simulators.engine.mig import GPU_RESOURCE
from simulators.engine.model import Pod
from simulators.engine.scheduler.placement import Seat, fit_on
from simulators.engine.scheduler.victims import VictimTake
from simulators.engine.state import JobState, NodeState

if TYPE_CHECKING:
    from simulators.engine.scheduler.session import PoolSession


@dataclass(slots=True)
class NodeView:
    """A candidate node as a reclaim trial sees it: what is free once the victims leave,
    less what the plan being built has already put there."""

    available: list[float]
    ext_available: dict[str, float]
    total: float


class ReclaimTrial:
    """Where a reclaimer's pods would go if these victims were released (reclaim step 7).

    Victims are added one at a time and placing is tried often, so the trial keeps, per
    node, what the victims freed, how many whole GPUs are free, and the node's view for
    placing (rebuilt only for nodes that changed since the last try).
    """

    def __init__(self, session: PoolSession, job: JobState) -> None:
        self.session = session
        self.job = job
        self.freed: dict[int, list[float]] = {}
        self.freed_ext: dict[int, dict[str, float]] = {}
        request = job.workload.gpu
        # For whole-GPU pods, count how many pods the freed GPUs could hold; placing is only
        # tried once that count is high enough, so a long victim list stays linear.
        self.whole = request.whole_gpus if request.resource_name == GPU_RESOURCE else 0
        self.selector = job.workload.node_selector
        self.free_by_node: dict[int, int] = {}
        self.slots_by_node: dict[int, int] = {}
        self.slots = 0
        self._eligible: dict[int, bool] = {}
        # Candidates are nodes with idle or being-freed GPUs, and the victims' nodes; a view
        # is (re)built for each one that changed since the last `place`.
        self._stale: set[int] = set(session.index.future_nodes)
        self._views: dict[int, NodeView] = {}
        self._totals: dict[int, float] = {}
        self._roomy: set[int] = set()
        if self.whole:
            for node_index in session.index.future_nodes:
                if self._is_eligible(node_index):
                    self._set_free(node_index, session.nodes[node_index].future_whole())

    def _is_eligible(self, node_index: int) -> bool:
        eligible = self._eligible.get(node_index)
        if eligible is None:
            node_state = self.session.nodes[node_index]
            eligible = node_state.schedulable and node_state.matches(self.selector)
            self._eligible[node_index] = eligible
        return eligible

    def _set_free(self, node_index: int, free: int) -> None:
        self.free_by_node[node_index] = free
        slots = free // self.whole
        self.slots += slots - self.slots_by_node.get(node_index, 0)
        self.slots_by_node[node_index] = slots

    def may_fit(self, pods: int) -> bool:
        return not self.whole or self.slots >= pods

    def add(self, take: VictimTake) -> None:
        nodes = self.session.nodes
        for node_index, devices, portion, extended in take.frees:
            self._stale.add(node_index)
            if extended is not None:
                ext = self.freed_ext.setdefault(node_index, {})
                ext[extended] = ext.get(extended, 0.0) + 1
                continue
            freed = self.freed.get(node_index)
            if freed is None:
                freed = self.freed[node_index] = [0.0] * len(nodes[node_index].devices)
            # A victim may hold a device its node no longer offers (the device plugin gone, the
            # node's GPUs down to none): freeing it gives the node nothing to place on.
            offered = [device for device in devices if device < len(freed)]
            if not self.whole or not self._is_eligible(node_index):
                # No whole-GPU count is kept for this node.
                for device in offered:
                    freed[device] += portion
                continue
            # A node's first victim starts from the node's own count; after that only the
            # devices a victim frees can change it, so the rest are not looked at again.
            free = self.free_by_node.get(node_index)
            if free is None:
                free = nodes[node_index].future_whole()
            futures = nodes[node_index].future_list()
            for device in offered:
                was = futures[device] + freed[device] >= 1 - EPSILON
                freed[device] += portion
                free += (futures[device] + freed[device] >= 1 - EPSILON) - was
            self._set_free(node_index, free)

    def _view(
        self,
        node_state: NodeState,
        used: list[float] | None,
        used_ext: dict[str, float] | None,
    ) -> NodeView:
        node_index = node_state.index
        futures = node_state.future_list()
        freed = self.freed.get(node_index)
        # The same sums, in the same order, as placing from scratch would do.
        if freed and used:
            available = [f + g - t for f, g, t in zip(futures, freed, used, strict=True)]
        elif freed:
            available = [f + g - 0.0 for f, g in zip(futures, freed, strict=True)]
        elif used:
            available = [f + 0.0 - t for f, t in zip(futures, used, strict=True)]
        else:
            available = [f + 0.0 - 0.0 for f in futures]
        ext_available = (
            {
                r: node_state.ext_future(r)
                + self.freed_ext.get(node_index, {}).get(r, 0.0)
                - (used_ext or {}).get(r, 0.0)
                for r in node_state.ext_capacity
            }
            if node_state.ext_capacity
            else {}
        )
        # Negative entries count as 0; when there are none the plain sum is the same number.
        if available and min(available) < 0.0:
            gpus = sum([max(0.0, a) for a in available])
        else:
            gpus = sum(available)
        total = gpus + sum(ext_available.values())
        return NodeView(available, ext_available, total)

    def _refresh_views(self) -> None:
        nodes = self.session.nodes
        for node_index in self._stale:
            if not self._is_eligible(node_index):
                continue
            view = self._view(nodes[node_index], None, None)
            self._views[node_index] = view
            self._totals[node_index] = view.total
            fits = fit_on(
                self.job.workload,
                nodes[node_index],
                view.available,
                view.available,
                view.ext_available,
                self.session.placement,
            )
            if fits is not None:
                self._roomy.add(node_index)
            else:
                self._roomy.discard(node_index)
        self._stale.clear()

    def place(self, pods: list[Pod]) -> list[Seat] | None:
        session = self.session
        workload = self.job.workload
        self._refresh_views()
        consumed: dict[int, list[float]] = {}
        consumed_ext: dict[int, dict[str, float]] = {}
        changed: dict[int, NodeView] = {}
        plan: list[Seat] = []
        for pod in pods:
            # Only nodes where a pod fits can be chosen: those whose view has not changed
            # since it was judged, and the nodes this plan already used, judged again below.
            contenders = self._roomy | changed.keys() if changed else self._roomy
            if not contenders:
                return None
            totals = self._totals
            if changed:
                totals = dict(totals)
                for node_index, view in changed.items():
                    totals[node_index] = view.total
            # Bin-pack score over every candidate node, whether the pod fits there or not.
            most = max(totals.values())
            least = min(totals.values())
            spread = most - least
            best: tuple[float, str] | None = None
            chosen: Seat | None = None
            for node_index in contenders:
                node_state = session.nodes[node_index]
                view = changed.get(node_index) or self._views[node_index]
                idle = self._idle(node_state, consumed.get(node_index))
                fit = fit_on(
                    workload,
                    node_state,
                    view.available,
                    idle,
                    view.ext_available,
                    session.placement,
                )
                if fit is None:
                    continue
                used_ext = consumed_ext.get(node_index, {})
                idle_ext = {
                    r: node_state.ext_idle(r) - used_ext.get(r, 0.0)
                    for r in node_state.ext_capacity
                }
                fits_idle = (
                    fit_on(workload, node_state, idle, idle, idle_ext, session.placement)
                    is not None
                )
                packing = 9.0 * (most - view.total) / spread if spread > EPSILON else 9.0
                score = (100.0 if fits_idle else 0.0) + packing
                key = (-score, node_state.name)
                if best is None or key < best:
                    best, chosen = key, fit
            if chosen is None:
                return None
            chosen.pod = pod
            plan.append(chosen)
            node_index = chosen.node.index
            if chosen.extended is not None:
                ext_used = consumed_ext.setdefault(node_index, {})
                ext_used[chosen.extended] = ext_used.get(chosen.extended, 0.0) + 1
            else:
                used = consumed.setdefault(node_index, [0.0] * chosen.node.gpu_count)
                for device_index in chosen.devices:
                    used[device_index] += chosen.portion
            changed[node_index] = self._view(
                chosen.node, consumed.get(node_index), consumed_ext.get(node_index)
            )
        return plan

    @staticmethod
    def _idle(node_state: NodeState, used: list[float] | None) -> list[float]:
        if used:
            return [d.idle - t for d, t in zip(node_state.devices, used, strict=True)]
        return [d.idle - 0.0 for d in node_state.devices]
