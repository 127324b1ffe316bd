"""Real-cluster mode's lab: the tools on a real cluster, nothing simulated.

`ClusterWorld` is a HostWorld (simulators.lab.world) whose API is a real cluster's
(simulators.cluster.kube): a step only counts commands, the cluster moves by itself, and only
the kadmin host is saved. `EXPLORE` is its "ticket": no staged world, no checklist.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulators.lab.tickets import Ticket
from simulators.lab.world import HostWorld


class ClusterWorld(HostWorld):
    """A real cluster behind the API: a step only counts commands; the cluster moves itself."""

    @property
    def now(self) -> int:
        return self.state.step * 10

    def tick(
        self, stop: Callable[[], bool] | None = None, give_way: Callable[[], None] | None = None
    ) -> bool:
        self.state.step += 1
        return True

    def to_json(self, *, copy: bool = True) -> dict[str, Any]:
        return {"cluster": None, "host": self.state.to_json()}

    def controllers_to_json(self) -> None:
        return None  # a real cluster's controllers are its own


# Real-cluster mode's "ticket": no staged world, no checklist, free exploration.
EXPLORE = Ticket(
    id="explore",
    title="Free exploration of your cluster",
    story=(
        "This terminal runs against a real Kubernetes cluster. Look around with kubectl, "
        "runai, helm and nvidia-smi; the tickets need the simulated cluster."
    ),
    checklist=(),
    hints=("Start with kubectl get nodes -L nvidia.com/gpu.product",),
    answer_key=(),
)
