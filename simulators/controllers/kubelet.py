"""The kubelet on every node: runs bound pods, reports their status, manages GPUs and the node.

Per step, for each pod bound to a node:
- first seen: ``ContainerCreating`` (the sandbox is being set up), with the pod's IP, host IP,
  start time and the five pod conditions;
- next step: the containers start (events Pulled, Created, Started from ``kubelet``), write their
  logs, and run, exit (``Completed``) or crash; a crashed container waits in
  ``CrashLoopBackOff`` for 10s, 20s, 40s... (at most 5 minutes) before the next restart;
- an image from a private registry (``image_pull``) is pulled only with a pull secret that the
  registry accepts; otherwise the container waits in ``ErrImagePull``, then ``ImagePullBackOff``,
  and the pull is retried the step after;
- a pod being deleted has its containers stopped (``Killing``) and is removed.

The device manager (``devices``) hands a pod the GPUs (or MIG devices) it asks for and
registers what the node's device plugin advertises in the node's capacity and allocatable.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Protocol

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.clock import parse_time
from simulators.controllers import containerd, image_pull, node_status, runtime
from simulators.controllers.devices import (
    allocate_devices,
    register_devices,
)
from simulators.controllers.util import (
    emit,
    holds_resources,
    is_deleting,
    items,
    name_of,
    namespace_of,
    sha256_hex,
    spec,
    stable_hash,
    status,
    timestamp,
    uid_of,
)

BACKOFF_START = 10
BACKOFF_MAX = 300


class KubeletAPI(ClusterAPI, Protocol):
    """The cluster API plus the container log hooks the mock store offers its kubelet."""

    def append_log(self, namespace: str, pod: str, container: str, lines: list[str]) -> None: ...

    def restart_log(self, namespace: str, pod: str, container: str) -> None: ...


def run(api: KubeletAPI) -> None:
    """Every pass (for callers that run the kubelet once per step)."""
    sync(api)
    admit(api)
    node_status.heartbeat(api)


def sync(api: KubeletAPI) -> None:
    """The kubelet's main pass: stop pods being deleted; start, finish or restart containers."""
    _each_pod(api, admit_only=False)


def admit(api: KubeletAPI) -> None:
    """Pods bound since the last pass: sandbox and devices (ContainerCreating); node devices.

    The manager runs this after the schedulers, so a pod bound in a step shows
    ContainerCreating at once and runs from the next step on.
    """
    _each_pod(api, admit_only=True)
    register_devices(api)


# The kubelet renews its Lease every 10s and re-posts unchanged node status every 5 minutes.
def _each_pod(api: KubeletAPI, *, admit_only: bool) -> None:
    # Addresses handed out during this pass (the pass reads a snapshot of the pods).
    claimed: set[str] = set()
    nodes = {name_of(n): n for n in items(api, "nodes")}
    pods = items(api, "pods")
    for pod in pods:
        node_name = str(spec(pod).get("nodeName") or "")
        if not node_name or node_name not in nodes:
            continue
        if is_deleting(pod):
            if not admit_only:
                _terminate(api, pod, node_name)
            continue
        if status(pod).get("phase") in ("Succeeded", "Failed"):
            continue
        first_seen = not status(pod).get("containerStatuses")
        if admit_only and not first_seen:
            continue
        if not first_seen and not _needs_sync(pod):
            if not admit_only and any(runtime.probed(c) for c in _containers(pod)):
                _probe(api, pod, nodes[node_name])
            continue
        _sync_pod(api, pod, nodes[node_name], pods, claimed)


def _needs_sync(pod: Obj) -> bool:
    """A pod whose containers all run and never exit on their own has nothing to do."""
    for cstatus in status(pod).get("containerStatuses") or []:
        state = cstatus.get("state") or {}
        if "waiting" in state:
            return True
    return any(runtime.may_exit(c) for c in _containers(pod))


# ---------------------------------------------------------------------------- pods


def pod_ip(
    pod: Obj, node: Obj, pods: list[Obj] | None = None, claimed: set[str] | None = None
) -> str:
    """An address from the node's pod CIDR (the CNI's IPAM), not one a live pod there has."""
    if spec(pod).get("hostNetwork"):
        return host_ip(node)
    cidr = str(spec(node).get("podCIDR") or "10.244.0.0/24")
    base = cidr.split("/")[0].rsplit(".", 1)[0]
    taken = {
        str(status(other).get("podIP"))
        for other in pods or []
        if spec(other).get("nodeName") == name_of(node) and holds_resources(other)
    } | (claimed or set())
    start = stable_hash("ip", uid_of(pod)) % 250
    for offset in range(250):
        candidate = f"{base}.{(start + offset) % 250 + 3}"
        if candidate not in taken:
            return candidate
    return f"{base}.{start + 3}"


def host_ip(node: Obj) -> str:
    for address in status(node).get("addresses") or []:
        if address.get("type") == "InternalIP":
            return str(address.get("address"))
    return ""


def _condition(
    kind: str, value: bool, now: str, reason: str = "", message: str = ""
) -> dict[str, Any]:
    cond: dict[str, Any] = {
        "type": kind,
        "status": "True" if value else "False",
        "lastProbeTime": None,
        "lastTransitionTime": now,
    }
    if reason:
        cond["reason"] = reason
    if message:
        cond["message"] = message
    return cond


def _set_conditions(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep a condition's lastTransitionTime while its status does not change."""
    before = {c.get("type"): c for c in old}
    out = []
    for cond in new:
        prior = before.get(cond["type"])
        if prior is not None and prior.get("status") == cond["status"]:
            cond["lastTransitionTime"] = prior.get("lastTransitionTime", cond["lastTransitionTime"])
        out.append(cond)
    return out


def _containers(pod: Obj) -> list[dict[str, Any]]:
    return [c for c in spec(pod).get("containers") or [] if isinstance(c, dict)]


def _sync_pod(
    api: KubeletAPI, pod: Obj, node: Obj, pods: list[Obj], claimed: set[str] | None = None
) -> None:
    now = timestamp(api)
    pod_status = dict(status(pod))
    statuses = {s.get("name"): dict(s) for s in pod_status.get("containerStatuses") or []}
    containers = _containers(pod)
    if not statuses:
        if not allocate_devices(api, pod, node, pods):
            return
        claimed = set() if claimed is None else claimed
        ip = pod_ip(pod, node, pods, claimed)
        claimed.add(ip)
        pod_status.update(
            {
                "phase": "Pending",
                "hostIP": host_ip(node),
                "hostIPs": [{"ip": host_ip(node)}],
                "podIP": ip,
                "podIPs": [{"ip": ip}],
                "startTime": now,
                "containerStatuses": [
                    {
                        "name": c.get("name"),
                        "image": c.get("image"),
                        "imageID": "",
                        "ready": False,
                        "restartCount": 0,
                        "started": False,
                        "state": {"waiting": {"reason": "ContainerCreating"}},
                        "lastState": {},
                    }
                    for c in containers
                ],
            }
        )
        _finish_status(api, pod, pod_status, now)
        return
    sandbox = any(s.get("containerID") for s in statuses.values())
    error = "" if sandbox else containerd.sandbox_error(api, pod, node)
    if error:  # no sandbox, no containers: the kubelet retries at its next sync
        emit(api, pod, "Warning", "FailedCreatePodSandBox", error, "kubelet", host=name_of(node))
        return
    changed = False
    for container in containers:
        cname = str(container.get("name"))
        cstatus = statuses.get(cname)
        if cstatus is None:
            continue
        state = cstatus.get("state") or {}
        if "waiting" in state:
            if state["waiting"].get("reason") == "ErrImagePull":
                _pull_back_off(api, pod, node, container, cstatus)
                changed = True
            elif _due(api, cstatus):
                if _pull(api, pod, node, container, cstatus):
                    _start(api, pod, node, container, cstatus)
                changed = True
            elif state["waiting"].get("reason") == "CrashLoopBackOff":
                emit(
                    api,
                    pod,
                    "Warning",
                    "BackOff",
                    f"Back-off restarting failed container {cname} in pod "
                    f"{name_of(pod)}_{namespace_of(pod)}({uid_of(pod)})",
                    "kubelet",
                    host=name_of(node),
                )
        elif "running" in state:
            changed |= _maybe_exit(api, pod, container, cstatus)
    if not changed:
        return
    pod_status["containerStatuses"] = [
        statuses[str(c.get("name"))] for c in containers if str(c.get("name")) in statuses
    ]
    _finish_status(api, pod, pod_status, now)


def _due(api: ClusterAPI, cstatus: dict[str, Any]) -> bool:
    waiting = cstatus["state"]["waiting"]
    if waiting.get("reason") != "CrashLoopBackOff":
        return True
    finished = (cstatus.get("lastState") or {}).get("terminated", {}).get("finishedAt")
    if not finished:
        return True
    backoff = min(BACKOFF_START * 2 ** int(cstatus.get("restartCount", 0)), BACKOFF_MAX)
    return api.now() >= parse_time(str(finished)) + timedelta(seconds=backoff)


def _pull(
    api: KubeletAPI, pod: Obj, node: Obj, container: dict[str, Any], cstatus: dict[str, Any]
) -> bool:
    """Fetch a private image with the pod's pull secrets; False (ErrImagePull) when refused."""
    image = str(container.get("image", ""))
    if not image_pull.needs_login(image) or cstatus.get("imageID"):
        return True
    host = name_of(node)
    result = image_pull.try_pull(api, pod, image)
    if result.missing_secrets:
        emit(
            api,
            pod,
            "Warning",
            "FailedToRetrieveImagePullSecret",
            f"Unable to retrieve some image pull secrets ({', '.join(result.missing_secrets)}); "
            "attempting to pull the image may not succeed.",
            "kubelet",
            host=host,
        )
    emit(api, pod, "Normal", "Pulling", f'Pulling image "{image}"', "kubelet", host=host)
    if result.ok:
        size = 8_000_000_000 + stable_hash("image-size", image) % 4_000_000_000
        emit(
            api,
            pod,
            "Normal",
            "Pulled",
            f'Successfully pulled image "{image}" in 41.2s (41.2s including waiting). '
            f"Image size: {size} bytes.",
            "kubelet",
            host=host,
        )
        return True
    message = image_pull.unauthorized(image)
    emit(
        api,
        pod,
        "Warning",
        "Failed",
        f'Failed to pull image "{image}": {message}',
        "kubelet",
        host=host,
    )
    emit(api, pod, "Warning", "Failed", "Error: ErrImagePull", "kubelet", host=host)
    cstatus["state"] = {"waiting": {"reason": "ErrImagePull", "message": message}}
    return False


def _pull_back_off(
    api: KubeletAPI, pod: Obj, node: Obj, container: dict[str, Any], cstatus: dict[str, Any]
) -> None:
    image = str(container.get("image", ""))
    host = name_of(node)
    message = f'Back-off pulling image "{image}"'
    emit(api, pod, "Normal", "BackOff", message, "kubelet", host=host)
    emit(api, pod, "Warning", "Failed", "Error: ImagePullBackOff", "kubelet", host=host)
    cstatus["state"] = {"waiting": {"reason": "ImagePullBackOff", "message": message}}


def _container_id(pod: Obj, name: str, restarts: int) -> str:
    return f"containerd://{sha256_hex('ctr', uid_of(pod), name, restarts)}"


def _start(
    api: KubeletAPI, pod: Obj, node: Obj, container: dict[str, Any], cstatus: dict[str, Any]
) -> None:
    now = timestamp(api)
    cname = str(container.get("name"))
    image = str(container.get("image", ""))
    host = name_of(node)
    restarting = "terminated" in (cstatus.get("lastState") or {}) or bool(
        (cstatus.get("state") or {}).get("waiting", {}).get("reason") == "CrashLoopBackOff"
    )
    if restarting:
        cstatus["restartCount"] = int(cstatus.get("restartCount", 0)) + 1
        api.restart_log(namespace_of(pod), name_of(pod), cname)
    if not image_pull.needs_login(image) or cstatus.get("imageID"):
        emit(
            api,
            pod,
            "Normal",
            "Pulled",
            f'Container image "{image}" already present on machine',
            "kubelet",
            host=host,
        )
    emit(api, pod, "Normal", "Created", f"Created container {cname}", "kubelet", host=host)
    behaviour = runtime.behaviour(api, pod, container, node)
    container_id = _container_id(pod, cname, int(cstatus.get("restartCount", 0)))
    cstatus["image"] = image
    cstatus["imageID"] = f"{image.split(':')[0]}@sha256:{sha256_hex('img', image)}"
    cstatus["containerID"] = container_id
    if behaviour.start_error:  # the runtime could not start the process: no Started event
        emit(api, pod, "Warning", "Failed", f"Error: {behaviour.start_error}", "kubelet", host=host)
        cstatus["ready"] = cstatus["started"] = False
        cstatus["state"] = runtime.start_error_state(behaviour, container_id, now)
        return
    emit(api, pod, "Normal", "Started", f"Started container {cname}", "kubelet", host=host)
    lines = list(behaviour.logs) + list(behaviour.crash_logs if behaviour.crash else ())
    if lines:
        api.append_log(namespace_of(pod), name_of(pod), cname, lines)
    if behaviour.crash:
        cstatus["ready"] = False
        cstatus["started"] = False
        cstatus["lastState"] = {
            "terminated": {
                "exitCode": behaviour.exit_code or 1,
                "reason": "Error",
                "startedAt": now,
                "finishedAt": now,
                "containerID": container_id,
            }
        }
        backoff = min(BACKOFF_START * 2 ** int(cstatus.get("restartCount", 0)), BACKOFF_MAX)
        cstatus["state"] = {
            "waiting": {
                "reason": "CrashLoopBackOff",
                "message": f"back-off {_duration(backoff)} restarting failed container={cname} "
                f"pod={name_of(pod)}_{namespace_of(pod)}({uid_of(pod)})",
            }
        }
        emit(
            api,
            pod,
            "Warning",
            "BackOff",
            f"Back-off restarting failed container {cname} in pod "
            f"{name_of(pod)}_{namespace_of(pod)}({uid_of(pod)})",
            "kubelet",
            host=host,
        )
        return
    cstatus["ready"] = behaviour.ready
    cstatus["started"] = True
    cstatus["state"] = {"running": {"startedAt": now}}


def _probe(api: KubeletAPI, pod: Obj, node: Obj) -> None:
    """Running containers whose readiness follows the cluster (``runtime.readiness``)."""
    pod_status = dict(status(pod))
    cstatuses = [dict(c) for c in pod_status.get("containerStatuses") or []]
    by_name = {str(c.get("name")): c for c in cstatuses}
    changed = False
    for container in _containers(pod):
        cstatus = by_name.get(str(container.get("name")))
        if cstatus is None or "running" not in (cstatus.get("state") or {}):
            continue
        ready = runtime.readiness(api, container, node)
        if ready is None or ready == bool(cstatus.get("ready")):
            continue
        cstatus["ready"] = ready
        lines = list(runtime.readiness_log(api, ready, node))
        api.append_log(namespace_of(pod), name_of(pod), str(container.get("name")), lines)
        changed = True
    if changed:
        pod_status["containerStatuses"] = cstatuses
        _finish_status(api, pod, pod_status, timestamp(api))


def _duration(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    if minutes and rest:
        return f"{minutes}m{rest}s"
    if minutes:
        return f"{minutes}m0s"
    return f"{rest}s"


def _maybe_exit(
    api: KubeletAPI, pod: Obj, container: dict[str, Any], cstatus: dict[str, Any]
) -> bool:
    if not runtime.may_exit(container):
        return False
    behaviour = runtime.behaviour(api, pod, container, None)
    if behaviour.exit_after is None or behaviour.crash:
        return False
    started = str(cstatus["state"]["running"].get("startedAt") or "")
    if not started:
        return False
    ran = (api.now() - parse_time(started)).total_seconds()
    step = getattr(getattr(api, "clock", None), "step_seconds", 10)
    if ran < behaviour.exit_after * step:
        return False
    cstatus["ready"] = False
    cstatus["started"] = False
    terminated = {
        "exitCode": behaviour.exit_code,
        "reason": "Completed" if behaviour.exit_code == 0 else "Error",
        "startedAt": started,
        "finishedAt": timestamp(api),
        "containerID": cstatus.get("containerID", ""),
    }
    policy = spec(pod).get("restartPolicy", "Always")
    if policy == "Always" or (policy == "OnFailure" and behaviour.exit_code != 0):
        # A container that exits under restartPolicy Always is restarted, with back-off.
        cname = str(container.get("name"))
        backoff = min(BACKOFF_START * 2 ** int(cstatus.get("restartCount", 0)), BACKOFF_MAX)
        cstatus["lastState"] = {"terminated": terminated}
        cstatus["state"] = {
            "waiting": {
                "reason": "CrashLoopBackOff",
                "message": f"back-off {_duration(backoff)} restarting failed container={cname} "
                f"pod={name_of(pod)}_{namespace_of(pod)}({uid_of(pod)})",
            }
        }
        return True
    cstatus["state"] = {"terminated": terminated}
    return True


def _finish_status(api: ClusterAPI, pod: Obj, pod_status: dict[str, Any], now: str) -> None:
    cstatuses = pod_status.get("containerStatuses") or []
    names = [str(c.get("name")) for c in cstatuses]
    ready = [bool(c.get("ready")) for c in cstatuses]
    terminated = [c.get("state", {}).get("terminated") for c in cstatuses]
    creating = any(
        (c.get("state") or {}).get("waiting", {}).get("reason") == "ContainerCreating"
        for c in cstatuses
    )
    # A container that waits without ever having run (its image not pulled) keeps the pod Pending.
    never_started = any(
        "waiting" in (c.get("state") or {}) and not (c.get("lastState") or {}).get("terminated")
        for c in cstatuses
    )
    restart_policy = spec(pod).get("restartPolicy", "Always")
    if cstatuses and all(terminated) and restart_policy != "Always":
        ok = all(int(t.get("exitCode", 1)) == 0 for t in terminated if t)
        pod_status["phase"] = "Succeeded" if ok else "Failed"
    elif creating or never_started:
        pod_status["phase"] = "Pending"
    else:
        pod_status["phase"] = "Running"
    unready = [n for n, r in zip(names, ready, strict=True) if not r]
    done = pod_status["phase"] in ("Succeeded", "Failed")
    if done:
        reason, message = "PodCompleted", ""
    elif unready:
        reason, message = (
            "ContainersNotReady",
            f"containers with unready status: [{' '.join(unready)}]",
        )
    else:
        reason, message = "", ""
    all_ready = not unready and not done
    old = list(pod_status.get("conditions") or [])
    scheduled = next((c for c in old if c.get("type") == "PodScheduled"), None)
    new = [
        _condition("PodReadyToStartContainers", not creating and not done, now),
        _condition("Initialized", True, now, "PodCompleted" if done else ""),
        _condition("Ready", all_ready, now, reason, message),
        _condition("ContainersReady", all_ready, now, reason, message),
        dict(scheduled) if scheduled else _condition("PodScheduled", True, now),
    ]
    pod_status["conditions"] = _set_conditions(old, new)
    try:
        api.patch(
            "pods", name_of(pod), {"status": pod_status}, namespace_of(pod), subresource="status"
        )
    except ApiError as exc:
        if exc.code != 404:
            raise


def _terminate(api: ClusterAPI, pod: Obj, node_name: str) -> None:
    for cstatus in status(pod).get("containerStatuses") or []:
        if "running" in (cstatus.get("state") or {}):
            emit(
                api,
                pod,
                "Normal",
                "Killing",
                f"Stopping container {cstatus.get('name')}",
                "kubelet",
                host=node_name,
            )
    try:
        api.delete("pods", name_of(pod), namespace_of(pod), grace_period=0)
    except ApiError as exc:
        if exc.code != 404:
            raise
