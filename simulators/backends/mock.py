"""The in-memory cluster: Kubernetes objects in plain dataclasses.

The mock backend is only storage plus the API verbs; nothing here reacts to
changes. The lab's simulated controllers (GPU Operator, MIG Manager, the
default scheduler, the Run:ai scheduler through the engine) live in
``simulators.lab.world`` and reconcile this state once per step, the way real
controllers reconcile a real API server.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from simulators.backends.base import (
    ClusterBackend,
    ClusterPolicy,
    ConfigMap,
    Event,
    Gpu,
    Node,
    Pod,
)
from simulators.backends.serde import JSON, from_json, to_json


@dataclass
class ClusterState:
    clock: int = 0
    namespaces: list[str] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    configmaps: list[ConfigMap] = field(default_factory=list)
    cluster_policies: list[ClusterPolicy] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    gpus: dict[str, list[Gpu]] = field(default_factory=dict)


class MockBackend:
    """A :class:`~simulators.backends.base.ClusterBackend` over a :class:`ClusterState`."""

    def __init__(self, state: ClusterState | None = None) -> None:
        self.state = state if state is not None else ClusterState()

    # -- persistence -------------------------------------------------------
    def to_json(self) -> JSON:
        return to_json(self.state)

    @classmethod
    def from_json(cls, data: JSON) -> MockBackend:
        return cls(from_json(ClusterState, data))

    # -- clock and namespaces ----------------------------------------------
    def now(self) -> int:
        return self.state.clock

    def list_namespaces(self) -> list[str]:
        return sorted(self.state.namespaces)

    def ensure_namespace(self, name: str) -> None:
        if name not in self.state.namespaces:
            self.state.namespaces.append(name)

    # -- nodes -------------------------------------------------------------
    def list_nodes(self) -> list[Node]:
        return sorted(self.state.nodes, key=lambda n: n.name)

    def get_node(self, name: str) -> Node | None:
        return next((n for n in self.state.nodes if n.name == name), None)

    def set_node_labels(self, name: str, changes: dict[str, str | None]) -> None:
        node = self.get_node(name)
        if node is None:
            return
        for key, value in changes.items():
            if value is None:
                node.labels.pop(key, None)
            else:
                node.labels[key] = value

    def set_unschedulable(self, name: str, unschedulable: bool) -> None:
        node = self.get_node(name)
        if node is not None:
            node.unschedulable = unschedulable

    def node_gpus(self, name: str) -> list[Gpu]:
        return self.state.gpus.get(name, [])

    # -- pods --------------------------------------------------------------
    def list_pods(self, namespace: str | None = None) -> list[Pod]:
        pods = [p for p in self.state.pods if namespace is None or p.namespace == namespace]
        return sorted(pods, key=lambda p: (p.namespace, p.name))

    def get_pod(self, namespace: str, name: str) -> Pod | None:
        return next(
            (p for p in self.state.pods if p.namespace == namespace and p.name == name), None
        )

    def create_pod(self, pod: Pod) -> None:
        self.ensure_namespace(pod.namespace)
        self.delete_pod(pod.namespace, pod.name)
        self.state.pods.append(pod)

    def delete_pod(self, namespace: str, name: str) -> None:
        self.state.pods = [
            p for p in self.state.pods if not (p.namespace == namespace and p.name == name)
        ]

    def evict_pod(self, namespace: str, name: str) -> None:
        # Eviction and deletion look the same from here: the owner's controller
        # notices the missing pod on its next reconcile and creates a new one.
        self.delete_pod(namespace, name)

    def pod_logs(self, namespace: str, name: str) -> list[str]:
        pod = self.get_pod(namespace, name)
        return list(pod.logs) if pod else []

    def set_pod_labels(self, namespace: str, name: str, changes: dict[str, str | None]) -> None:
        pod = self.get_pod(namespace, name)
        if pod is None:
            return
        for key, value in changes.items():
            if value is None:
                pod.labels.pop(key, None)
            else:
                pod.labels[key] = value

    # -- configmaps ----------------------------------------------------------
    def list_configmaps(self, namespace: str | None = None) -> list[ConfigMap]:
        cms = [c for c in self.state.configmaps if namespace is None or c.namespace == namespace]
        return sorted(cms, key=lambda c: (c.namespace, c.name))

    def get_configmap(self, namespace: str, name: str) -> ConfigMap | None:
        return next(
            (c for c in self.state.configmaps if c.namespace == namespace and c.name == name),
            None,
        )

    def put_configmap(self, configmap: ConfigMap) -> None:
        self.ensure_namespace(configmap.namespace)
        self.delete_configmap(configmap.namespace, configmap.name)
        self.state.configmaps.append(configmap)

    def delete_configmap(self, namespace: str, name: str) -> None:
        self.state.configmaps = [
            c for c in self.state.configmaps if not (c.namespace == namespace and c.name == name)
        ]

    # -- the GPU Operator's ClusterPolicy -------------------------------------
    def list_cluster_policies(self) -> list[ClusterPolicy]:
        return sorted(self.state.cluster_policies, key=lambda c: c.name)

    def get_cluster_policy(self, name: str) -> ClusterPolicy | None:
        return next((c for c in self.state.cluster_policies if c.name == name), None)

    def set_cluster_policy_spec(self, name: str, spec: dict[str, Any]) -> None:
        policy = self.get_cluster_policy(name)
        if policy is not None:
            policy.spec = copy.deepcopy(spec)

    # -- events ----------------------------------------------------------------
    def list_events(self, namespace: str | None = None) -> list[Event]:
        return [e for e in self.state.events if namespace is None or e.namespace == namespace]

    def record_event(self, event: Event) -> None:
        # Kubernetes folds repeats of the same event into one with a count.
        for existing in self.state.events:
            if (
                existing.namespace == event.namespace
                and existing.kind == event.kind
                and existing.name == event.name
                and existing.reason == event.reason
                and existing.message == event.message
            ):
                existing.count += 1
                existing.last_seen = event.last_seen
                return
        self.state.events.append(event)
        # Keep the stored history bounded: a long session must stay small in the database.
        if len(self.state.events) > 400:
            self.state.events = self.state.events[-400:]


def _conforms(backend: MockBackend) -> ClusterBackend:
    # mypy checks here that the mock implements every method of the interface.
    return backend
