"""The pod subresources: binding, eviction, logs and exec, as pure functions of stored objects.

``MockCluster``'s ``bind``, ``evict``, ``logs`` and ``exec`` look the pod up and call these: they
hold the API server's rules (a pod binds once, an eviction respects PodDisruptionBudgets, which
container's log or shell a request means) and its error wording, while the store keeps the
objects, the log lines and the exec handlers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from simulators.cluster.api import ApiError, Obj
from simulators.cluster.patches import deep_copy
from simulators.cluster.selectors import selector_from_match_labels


# --------------------------------------------------------------------- binding
def bound_pod(pod: Obj, node: str, timestamp: str) -> Obj:
    """A copy of ``pod`` bound to ``node`` (pods/binding), PodScheduled from ``timestamp``."""
    name = str(pod["metadata"]["name"])
    current = pod.get("spec", {}).get("nodeName")
    if current:
        raise ApiError(
            409,
            "Conflict",
            f'Operation cannot be fulfilled on pods/binding "{name}": pod {name} is already '
            f'assigned to node "{current}"',
            {"name": name, "kind": "pods/binding"},
        )
    if pod["metadata"].get("deletionTimestamp"):
        raise ApiError(
            409,
            "Conflict",
            f'Operation cannot be fulfilled on pods/binding "{name}": pod {name} is being '
            "deleted, cannot be assigned to a host",
        )
    new: Obj = deep_copy(pod)
    new.setdefault("spec", {})["nodeName"] = node
    conditions = [
        c for c in new.setdefault("status", {}).get("conditions", []) if c["type"] != "PodScheduled"
    ]
    conditions.insert(
        0,
        {
            "type": "PodScheduled",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": timestamp,
        },
    )
    new["status"]["conditions"] = conditions
    return new


# --------------------------------------------------------------------- eviction
def check_disruption_budgets(pod: Obj, budgets: Iterable[Obj], pods: Iterable[Obj]) -> None:
    """Refuse (429) to evict ``pod`` when a PodDisruptionBudget over it allows no disruption.

    ``budgets`` and ``pods`` are the PodDisruptionBudgets and pods of the pod's namespace.
    """
    if pod["metadata"].get("deletionTimestamp") or pod.get("status", {}).get("phase") in (
        "Succeeded",
        "Failed",
    ):
        return
    pods = list(pods)
    for pdb in budgets:
        matches = selector_from_match_labels(pdb.get("spec", {}).get("selector"))
        if matches(pod) and _disruptions_allowed(pdb, pods) <= 0:
            raise ApiError(
                429,
                "TooManyRequests",
                "Cannot evict pod as it would violate the pod's disruption budget.",
                {
                    "causes": [
                        {
                            "reason": "DisruptionBudget",
                            "message": f"The disruption budget {pdb['metadata']['name']} "
                            "needs "
                            f"{_desired_healthy(pdb, pods)} healthy pods and has "
                            f"{_healthy(pdb, pods)} currently",
                        }
                    ]
                },
            )


def _healthy(pdb: Obj, pods: Sequence[Obj]) -> int:
    matches = selector_from_match_labels(pdb.get("spec", {}).get("selector"))
    return sum(
        1
        for pod in pods
        if matches(pod) and _pod_ready(pod) and not pod["metadata"].get("deletionTimestamp")
    )


def _desired_healthy(pdb: Obj, pods: Sequence[Obj]) -> int:
    spec = pdb.get("spec", {})
    matches = selector_from_match_labels(spec.get("selector"))
    expected = sum(1 for pod in pods if matches(pod))
    if "minAvailable" in spec:
        return _int_or_percent(spec["minAvailable"], expected, round_up=True)
    if "maxUnavailable" in spec:
        return expected - _int_or_percent(spec["maxUnavailable"], expected, round_up=True)
    return 0


def _disruptions_allowed(pdb: Obj, pods: Sequence[Obj]) -> int:
    return _healthy(pdb, pods) - _desired_healthy(pdb, pods)


def _int_or_percent(value: Any, total: int, round_up: bool) -> int:
    if isinstance(value, str) and value.endswith("%"):
        fraction = int(value[:-1]) * total
        return -(-fraction // 100) if round_up else fraction // 100
    return int(value)


def _pod_ready(pod: Obj) -> bool:
    for condition in pod.get("status", {}).get("conditions", []) or []:
        if condition.get("type") == "Ready":
            return bool(condition.get("status") == "True")
    return False


# --------------------------------------------------------------------- logs
def log_key(namespace: str, pod: str, container: str) -> str:
    """Where the store keeps a container's log lines."""
    return f"{namespace}/{pod}/{container}"


def read_log(
    pod: Obj,
    *,
    container: str | None,
    tail: int | None,
    previous: bool,
    logs: dict[str, list[str]],
    previous_logs: dict[str, list[str]],
) -> str:
    """``pods/log``: the named (or only) container's current or previous log, maybe tailed."""
    name = str(pod["metadata"]["name"])
    namespace = str(pod["metadata"].get("namespace", ""))
    names = [c.get("name", "") for c in pod.get("spec", {}).get("containers", [])]
    init_names = [c.get("name", "") for c in pod.get("spec", {}).get("initContainers", [])]
    if container is None:
        if len(names) != 1:
            raise ApiError(
                400,
                "BadRequest",
                f"a container name must be specified for pod {name}, choose one of: "
                f"[{' '.join(names)}]"
                + (
                    f" or one of the init containers: [{' '.join(init_names)}]"
                    if init_names
                    else ""
                ),
            )
        container = names[0]
    elif container not in names and container not in init_names:
        raise ApiError(400, "BadRequest", f"container {container} is not valid for pod {name}")
    key = log_key(namespace, name, container)
    if previous:
        if key not in previous_logs:
            raise ApiError(
                400,
                "BadRequest",
                f'previous terminated container "{container}" in pod "{name}" not found',
            )
        lines = previous_logs[key]
    else:
        lines = logs.get(key, [])
        if not lines:
            waiting = _container_waiting(pod, container)
            if waiting:
                raise ApiError(
                    400,
                    "BadRequest",
                    f'container "{container}" in pod "{name}" is waiting to start: {waiting}',
                )
    if tail is not None and tail >= 0:
        lines = lines[-tail:] if tail else []
    return "".join(line + "\n" for line in lines)


def _container_waiting(pod: Obj, container: str) -> str | None:
    for status in pod.get("status", {}).get("containerStatuses", []) or []:
        if status.get("name") == container:
            waiting = (status.get("state") or {}).get("waiting")
            return str(waiting.get("reason", "ContainerCreating")) if waiting else None
    if pod.get("spec", {}).get("nodeName"):
        return "ContainerCreating"
    return None


# --------------------------------------------------------------------- exec
def exec_container(pod: Obj, container: str | None) -> str:
    """The container a ``pods/exec`` request runs in (the first by default), if it can."""
    name = str(pod["metadata"]["name"])
    names = [c.get("name", "") for c in pod.get("spec", {}).get("containers", [])]
    container = container or (names[0] if names else "")
    if container not in names:
        raise ApiError(400, "BadRequest", f"container {container} is not valid for pod {name}")
    if pod.get("status", {}).get("phase") != "Running":
        raise ApiError(
            400,
            "BadRequest",
            f'unable to upgrade connection: container not found ("{container}")',
        )
    return container


def exec_not_found(command: list[str]) -> ApiError:
    """The container runtime's answer to a program no exec handler knows."""
    program = command[0] if command else ""
    return ApiError(
        500,
        "InternalError",
        "Internal error occurred: error executing command in container: failed to exec in "
        f"container: failed to start exec: OCI runtime exec failed: exec failed: unable to "
        f'start container process: exec: "{program}": executable file not found in $PATH: '
        "unknown",
    )
