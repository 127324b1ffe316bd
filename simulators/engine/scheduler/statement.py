"""Changes to pods and nodes during a session, as KAI's `Statement`: each operation can be
rolled back until the caller commits.

Allocating a gang, or consolidating to make room, tries placements that may not all
succeed: the statement undoes them in reverse order on `discard`.
"""

from __future__ import annotations

from collections.abc import Callable

from simulators.engine.model import Pod, PodStatus
from simulators.engine.scheduler.placement import NodeIndex, Seat
from simulators.engine.state import NodeState


class Statement:
    def __init__(self, node_by_name: dict[str, NodeState], index: NodeIndex) -> None:
        self._nodes = node_by_name
        self._index = index
        self._undo: list[Callable[[], None]] = []

    def bind(self, pod: Pod, seat: Seat, status: PodStatus) -> None:
        """Put a pod on its seat as Running (allocate) or Pipelined (waiting on releases)."""
        pod.node = seat.node.name
        pod.devices = seat.devices
        pod.portion = seat.portion
        pod.extended_resource = seat.extended
        pod.status = status
        seat.node.add(pod, status, recount=False)
        self._index.touch(seat.node)
        self._undo.append(lambda: self._unbind(pod))

    def _unbind(self, pod: Pod) -> None:
        if pod.node is not None:
            node_state = self._nodes[pod.node]
            node_state.add(pod, pod.status, -1.0, recount=False)
            self._index.touch(node_state)
        pod.node = None
        pod.devices = ()
        pod.portion = 0.0
        pod.extended_resource = None
        pod.status = PodStatus.PENDING

    def evict(self, pod: Pod) -> None:
        """A Running pod starts Releasing: it still holds its GPUs until it has gone."""
        assert pod.node is not None
        node_state = self._nodes[pod.node]
        node_state.add(pod, PodStatus.RUNNING, -1.0, recount=False)
        pod.status = PodStatus.RELEASING
        node_state.add(pod, PodStatus.RELEASING, recount=False)
        self._index.touch(node_state)
        self._undo.append(lambda: self._unevict(pod))

    def _unevict(self, pod: Pod) -> None:
        assert pod.node is not None
        node_state = self._nodes[pod.node]
        node_state.add(pod, PodStatus.RELEASING, -1.0)
        pod.status = PodStatus.RUNNING
        node_state.add(pod, PodStatus.RUNNING)
        self._index.touch(node_state)

    def move(self, pod: Pod, seat: Seat) -> str:
        """Consolidation: the pod leaves its node (still holding it) and is Pipelined on
        the seat; returns the node it left."""
        assert pod.node is not None
        old = self._nodes[pod.node]
        old.add(pod, PodStatus.RUNNING, -1.0)
        pod.leaving_node, pod.leaving_devices = pod.node, pod.devices
        pod.leaving_extended = pod.extended_resource
        old.add_leaving(pod)
        self._index.touch(old)
        self.bind(pod, seat, PodStatus.PIPELINED)
        # `bind` pushed its own undo; moving back replaces it.
        self._undo[-1] = lambda: self._unmove(pod, old.name)
        return old.name

    def _unmove(self, pod: Pod, old_node: str) -> None:
        self._unbind(pod)
        node_state = self._nodes[old_node]
        node_state.add_leaving(pod, -1.0)
        pod.node, pod.devices = old_node, pod.leaving_devices
        pod.extended_resource = pod.leaving_extended
        pod.portion = 1.0
        pod.leaving_node, pod.leaving_devices, pod.leaving_extended = None, (), None
        pod.status = PodStatus.RUNNING
        node_state.add(pod, PodStatus.RUNNING)
        self._index.touch(node_state)

    def undo_last(self) -> None:
        """Roll back the latest operation only."""
        self._undo.pop()()

    def checkpoint(self) -> int:
        """A point to roll back to with `discard(checkpoint)`."""
        return len(self._undo)

    def discard(self, checkpoint: int = 0) -> None:
        """Roll back every operation since the checkpoint (by default, since the start or
        the last commit), newest first."""
        while len(self._undo) > checkpoint:
            self._undo.pop()()

    def commit(self) -> None:
        self._undo.clear()
