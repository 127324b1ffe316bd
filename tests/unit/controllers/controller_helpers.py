"""Reading the cluster in controller tests (through the API only)."""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import Obj
from simulators.lab.world import World


def pods(world: World, namespace: str | None = None, selector: str = "") -> list[Obj]:
    items: list[Obj] = world.api.list("pods", namespace, label_selector=selector)["items"]
    return items


def pod_on(world: World, app: str, node: str, namespace: str = "gpu-operator") -> Obj:
    found = [
        p
        for p in pods(world, namespace, f"app={app}")
        if p["spec"].get("nodeName") == node and not p["metadata"].get("deletionTimestamp")
    ]
    assert len(found) == 1, [p["metadata"]["name"] for p in found]
    return found[0]


def labels(world: World, node: str) -> dict[str, str]:
    result: dict[str, str] = world.api.get("nodes", node)["metadata"].get("labels", {})
    return result


def allocatable(world: World, node: str) -> dict[str, Any]:
    result: dict[str, Any] = world.api.get("nodes", node)["status"]["allocatable"]
    return result


def events(world: World, namespace: str, name: str) -> list[Obj]:
    return [
        e
        for e in world.api.list("events", namespace)["items"]
        if e["involvedObject"]["name"] == name
    ]


def log_of(world: World, pod: Obj) -> list[str]:
    text = world.api.logs(pod["metadata"]["name"], pod["metadata"]["namespace"])
    return text.splitlines()


def ticks(world: World, n: int) -> None:
    for _ in range(n):
        world.tick()


def phase(pod: Obj) -> str:
    return str(pod["status"].get("phase"))


def waiting_reason(pod: Obj) -> str:
    for status in pod["status"].get("containerStatuses") or []:
        waiting = status.get("state", {}).get("waiting")
        if waiting:
            return str(waiting.get("reason"))
    return ""
