"""Server-side tables, as kube-apiserver computes them for ``kubectl get``.

Built-in kinds follow kubernetes/pkg/printers/internalversion/printers.go (columns, wide columns,
cell formats); custom resources their CRD's ``additionalPrinterColumns``. The API server always
generates the wide cells and kubectl drops priority-1 columns unless ``-o wide``; ``table(...,
wide=False)`` drops them here instead, for callers that print directly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from simulators.cluster.api import ClusterAPI, Obj, ResourceInfo
from simulators.cluster.clock import parse_time

Cell = Any
Column = tuple[str, str, int]  # name, type, priority

_NAME_DESC = (
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_AGE_DESC = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. "
    "It is not guaranteed to be set in happens-before order across separate operations. Clients "
    "may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by "
    "the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)


# --------------------------------------------------------------------- durations
def human_duration(seconds: float) -> str:
    """apimachinery's duration.HumanDuration: 5s, 2m50s, 27m, 3h5m, 2d3h, 400d, 3y20d."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        rest = (hours // 24) % 365
        years = hours // 24 // 365
        return f"{years}y" if rest == 0 else f"{years}y{rest}d"
    return f"{hours // 24 // 365}y"


def since(timestamp: Any, now: datetime) -> str:
    """translateTimestampSince: ``<unknown>`` for a missing time."""
    if not timestamp:
        return "<unknown>"
    try:
        moment = parse_time(str(timestamp))
    except ValueError:
        return "<unknown>"
    return human_duration((now - moment).total_seconds())


# --------------------------------------------------------------------- helpers
def _meta(obj: Obj) -> Obj:
    meta: Obj = obj.get("metadata") or {}
    return meta


def _age(obj: Obj, now: datetime) -> str:
    return since(_meta(obj).get("creationTimestamp"), now)


def format_labels(labels: dict[str, Any] | None) -> str:
    """labels.FormatLabels: sorted ``k=v`` joined by commas, ``<none>`` when empty."""
    if not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def format_label_selector(selector: Obj | None) -> str:
    """metav1.FormatLabelSelector."""
    if not selector:
        return "<none>"
    parts: list[str] = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or []:
        key, op = expr.get("key", ""), expr.get("operator", "")
        values = sorted(expr.get("values") or [])
        if op == "In":
            parts.append(f"{key} in ({','.join(values)})")
        elif op == "NotIn":
            parts.append(f"{key} notin ({','.join(values)})")
        elif op == "Exists":
            parts.append(key)
        elif op == "DoesNotExist":
            parts.append(f"!{key}")
    text = ",".join(parts)
    return text or "<none>"


def _containers_cells(spec: Obj) -> tuple[str, str]:
    containers = spec.get("containers") or []
    return (
        ",".join(str(c.get("name", "")) for c in containers),
        ",".join(str(c.get("image", "")) for c in containers),
    )


def _template_spec(obj: Obj) -> Obj:
    spec: Obj = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    return spec


# --------------------------------------------------------------------- pods
def _is_restartable_init(container: Obj | None) -> bool:
    return bool(container) and (container or {}).get("restartPolicy") == "Always"


def _later(a: str, b: Any) -> str:
    if b and (not a or parse_time(str(b)) > parse_time(a)):
        return str(b)
    return a


def pod_cells(pod: Obj, now: datetime) -> tuple[str, str, str]:
    """READY, STATUS and RESTARTS of a pod, exactly as printPod computes them."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    meta = _meta(pod)
    restarts = 0
    restartable_init_restarts = 0
    total = len(spec.get("containers") or [])
    ready = 0
    last_restart = ""
    last_restartable_init_restart = ""
    phase = str(status.get("phase") or "")
    reason = str(status.get("reason") or phase)
    for condition in status.get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("reason") == (
            "SchedulingGated"
        ):
            reason = "SchedulingGated"
    init_specs = {str(c.get("name")): c for c in spec.get("initContainers") or []}
    for container in init_specs.values():
        if _is_restartable_init(container):
            total += 1
    initializing = False
    init_statuses = status.get("initContainerStatuses") or []
    for index, cstatus in enumerate(init_statuses):
        restarts += int(cstatus.get("restartCount") or 0)
        last_term = (cstatus.get("lastState") or {}).get("terminated")
        if last_term:
            last_restart = _later(last_restart, last_term.get("finishedAt"))
        restartable = _is_restartable_init(init_specs.get(str(cstatus.get("name"))))
        if restartable:
            restartable_init_restarts += int(cstatus.get("restartCount") or 0)
            if last_term:
                last_restartable_init_restart = _later(
                    last_restartable_init_restart, last_term.get("finishedAt")
                )
        state = cstatus.get("state") or {}
        terminated = state.get("terminated")
        waiting = state.get("waiting")
        if terminated and int(terminated.get("exitCode") or 0) == 0:
            continue
        if restartable and cstatus.get("started"):
            if cstatus.get("ready"):
                ready += 1
            continue
        if terminated:
            if not terminated.get("reason"):
                if terminated.get("signal"):
                    reason = f"Init:Signal:{terminated['signal']}"
                else:
                    reason = f"Init:ExitCode:{terminated.get('exitCode', 0)}"
            else:
                reason = "Init:" + str(terminated["reason"])
            initializing = True
        elif waiting and waiting.get("reason") and waiting.get("reason") != "PodInitializing":
            reason = "Init:" + str(waiting["reason"])
            initializing = True
        else:
            reason = f"Init:{index}/{len(init_specs)}"
            initializing = True
        break
    initialized = any(
        c.get("type") == "Initialized" and c.get("status") == "True"
        for c in status.get("conditions") or []
    )
    if not initializing or initialized:
        restarts = restartable_init_restarts
        last_restart = last_restartable_init_restart
        has_running = False
        for cstatus in reversed(status.get("containerStatuses") or []):
            restarts += int(cstatus.get("restartCount") or 0)
            last_term = (cstatus.get("lastState") or {}).get("terminated")
            if last_term:
                last_restart = _later(last_restart, last_term.get("finishedAt"))
            state = cstatus.get("state") or {}
            waiting = state.get("waiting")
            terminated = state.get("terminated")
            if waiting and waiting.get("reason"):
                reason = str(waiting["reason"])
            elif terminated and terminated.get("reason"):
                reason = str(terminated["reason"])
            elif terminated:
                if terminated.get("signal"):
                    reason = f"Signal:{terminated['signal']}"
                else:
                    reason = f"ExitCode:{terminated.get('exitCode', 0)}"
            elif cstatus.get("ready") and state.get("running") is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            pod_ready = any(
                c.get("type") == "Ready" and c.get("status") == "True"
                for c in status.get("conditions") or []
            )
            reason = "Running" if pod_ready else "NotReady"
    if meta.get("deletionTimestamp") and status.get("reason") == "NodeLost":
        reason = "Unknown"
    elif meta.get("deletionTimestamp") and phase not in ("Succeeded", "Failed"):
        reason = "Terminating"
    restarts_text = str(restarts)
    if restarts and last_restart:
        restarts_text = f"{restarts} ({since(last_restart, now)} ago)"
    return f"{ready}/{total}", reason, restarts_text


def _pod_row(pod: Obj, now: datetime) -> list[Cell]:
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    ready, reason, restarts = pod_cells(pod, now)
    ips = status.get("podIPs") or []
    ip = (ips[0].get("ip") if ips else "") or status.get("podIP") or "<none>"
    gates = spec.get("readinessGates") or []
    gates_text = "<none>"
    if gates:
        true = 0
        for gate in gates:
            for condition in status.get("conditions") or []:
                if condition.get("type") == gate.get("conditionType"):
                    true += condition.get("status") == "True"
                    break
        gates_text = f"{true}/{len(gates)}"
    return [
        _meta(pod).get("name", ""),
        ready,
        reason,
        restarts,
        _age(pod, now),
        ip,
        spec.get("nodeName") or "<none>",
        status.get("nominatedNodeName") or "<none>",
        gates_text,
    ]


# --------------------------------------------------------------------- other kinds
def _node_row(node: Obj, now: datetime) -> list[Cell]:
    status = node.get("status") or {}
    states: list[str] = []
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Ready":
            states.append("Ready" if condition.get("status") == "True" else "NotReady")
            break
    if not states:
        states.append("Unknown")
    if (node.get("spec") or {}).get("unschedulable"):
        states.append("SchedulingDisabled")
    roles: set[str] = set()
    for key, value in (_meta(node).get("labels") or {}).items():
        if key.startswith("node-role.kubernetes.io/") and key[len("node-role.kubernetes.io/") :]:
            roles.add(key[len("node-role.kubernetes.io/") :])
        elif key == "kubernetes.io/role" and value:
            roles.add(str(value))
    info = status.get("nodeInfo") or {}

    def address(kind: str) -> str:
        for entry in status.get("addresses") or []:
            if entry.get("type") == kind:
                return str(entry.get("address", ""))
        return "<none>"

    return [
        _meta(node).get("name", ""),
        ",".join(states),
        ",".join(sorted(roles)) or "<none>",
        _age(node, now),
        info.get("kubeletVersion", ""),
        address("InternalIP"),
        address("ExternalIP"),
        info.get("osImage") or "<unknown>",
        info.get("kernelVersion") or "<unknown>",
        info.get("containerRuntimeVersion") or "<unknown>",
    ]


def _event_row(event: Obj, now: datetime) -> list[Cell]:
    first = since(event.get("firstTimestamp"), now)
    if not event.get("firstTimestamp"):
        first = since(event.get("eventTime"), now)
    last = since(event.get("lastTimestamp"), now) if event.get("lastTimestamp") else first
    count = event.get("count") or 0
    series = event.get("series")
    if series:
        last = since(series.get("lastObservedTime"), now)
        count = series.get("count") or 0
    elif not count:
        count = 1
    involved = event.get("involvedObject") or {}
    kind = str(involved.get("kind", "")).lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    source = event.get("source") or {}
    component = source.get("component") or event.get("reportingComponent") or ""
    instance = source.get("host") or event.get("reportingInstance") or ""
    return [
        last,
        event.get("type", ""),
        event.get("reason", ""),
        target,
        involved.get("fieldPath", ""),
        f"{component}, {instance}" if instance else component,
        str(event.get("message", "")).strip(),
        first,
        int(count),
        _meta(event).get("name", ""),
    ]


def _deployment_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    names, images = _containers_cells(_template_spec(obj))
    return [
        _meta(obj).get("name", ""),
        f"{int(status.get('readyReplicas') or 0)}/{int(spec.get('replicas') or 0)}",
        int(status.get("updatedReplicas") or 0),
        int(status.get("availableReplicas") or 0),
        _age(obj, now),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]


def _replicaset_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    names, images = _containers_cells(_template_spec(obj))
    return [
        _meta(obj).get("name", ""),
        int(spec.get("replicas") or 0),
        int(status.get("replicas") or 0),
        int(status.get("readyReplicas") or 0),
        _age(obj, now),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]


def _daemonset_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    names, images = _containers_cells(_template_spec(obj))
    return [
        _meta(obj).get("name", ""),
        int(status.get("desiredNumberScheduled") or 0),
        int(status.get("currentNumberScheduled") or 0),
        int(status.get("numberReady") or 0),
        int(status.get("updatedNumberScheduled") or 0),
        int(status.get("numberAvailable") or 0),
        format_labels(_template_spec(obj).get("nodeSelector")),
        _age(obj, now),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]


def _statefulset_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    names, images = _containers_cells(_template_spec(obj))
    return [
        _meta(obj).get("name", ""),
        f"{int(status.get('readyReplicas') or 0)}/{int(spec.get('replicas') or 0)}",
        _age(obj, now),
        names,
        images,
    ]


def _job_condition(obj: Obj, kind: str) -> bool:
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return bool(condition.get("status") == "True")
    return False


def _job_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    succeeded = int(status.get("succeeded") or 0)
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{spec['completions']}"
    elif int(spec.get("parallelism") or 0) > 1:
        completions = f"{succeeded}/1 of {spec['parallelism']}"
    else:
        completions = f"{succeeded}/1"
    start, end = status.get("startTime"), status.get("completionTime")
    duration = ""
    if start and not end:
        duration = since(start, now)
    elif start and end:
        duration = human_duration((parse_time(end) - parse_time(start)).total_seconds())
    if _job_condition(obj, "Complete"):
        state = "Complete"
    elif _job_condition(obj, "Failed"):
        state = "Failed"
    elif _meta(obj).get("deletionTimestamp"):
        state = "Terminating"
    elif _job_condition(obj, "Suspended"):
        state = "Suspended"
    elif _job_condition(obj, "FailureTarget"):
        state = "FailureTarget"
    else:
        state = "Running"
    names, images = _containers_cells(_template_spec(obj))
    return [
        _meta(obj).get("name", ""),
        state,
        completions,
        duration,
        _age(obj, now),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]


def _service_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    kind = spec.get("type", "")
    ips = spec.get("clusterIPs") or []
    internal = ips[0] if ips else "<none>"
    external_ips = spec.get("externalIPs") or []
    if kind in ("ClusterIP", "NodePort"):
        external = ",".join(external_ips) or "<none>"
    elif kind == "LoadBalancer":
        ingress = (status.get("loadBalancer") or {}).get("ingress") or []
        lb = ",".join(sorted({i.get("ip") or i.get("hostname") or "" for i in ingress} - {""}))
        if external_ips:
            external = ",".join(([*lb.split(",")] if lb else []) + external_ips)
        else:
            external = lb or "<pending>"
    elif kind == "ExternalName":
        external = spec.get("externalName", "")
    else:
        external = "<unknown>"
    pieces = []
    for port in spec.get("ports") or []:
        if port.get("nodePort"):
            pieces.append(f"{port.get('port')}:{port['nodePort']}/{port.get('protocol', 'TCP')}")
        else:
            pieces.append(f"{port.get('port')}/{port.get('protocol', 'TCP')}")
    return [
        _meta(obj).get("name", ""),
        kind,
        internal,
        external,
        ",".join(pieces) or "<none>",
        _age(obj, now),
        format_labels(spec.get("selector")),
    ]


def _endpoints_row(obj: Obj, now: datetime) -> list[Cell]:
    subsets = obj.get("subsets") or []
    shown: list[str] = []
    count = 0
    more = False
    for subset in subsets:
        addresses = subset.get("addresses") or []
        ports = subset.get("ports") or []
        if not ports:
            count += len(addresses)
            for address in addresses:
                if len(shown) == 3:
                    more = True
                    break
                shown.append(str(address.get("ip", "")))
            continue
        for port in ports:
            count += len(addresses)
            for address in addresses:
                if len(shown) == 3:
                    more = True
                    break
                shown.append(f"{address.get('ip', '')}:{port.get('port')}")
    text = ",".join(shown) if subsets else "<none>"
    if more:
        text = f"{text} + {count - 3} more..."
    return [_meta(obj).get("name", ""), text, _age(obj, now)]


def _pvc_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    phase = "Terminating" if _meta(obj).get("deletionTimestamp") else status.get("phase", "")
    capacity = ""
    modes = ""
    if spec.get("volumeName"):
        capacity = str((status.get("capacity") or {}).get("storage", ""))
        short = {
            "ReadWriteOnce": "RWO",
            "ReadOnlyMany": "ROX",
            "ReadWriteMany": "RWX",
            "ReadWriteOncePod": "RWOP",
        }
        modes = ",".join(short.get(m, m) for m in status.get("accessModes") or [])
    storage_class = (_meta(obj).get("annotations") or {}).get(
        "volume.beta.kubernetes.io/storage-class"
    ) or spec.get("storageClassName", "")
    return [
        _meta(obj).get("name", ""),
        phase,
        spec.get("volumeName", ""),
        capacity,
        modes,
        storage_class,
        spec.get("volumeAttributesClassName") or "<unset>",
        _age(obj, now),
        spec.get("volumeMode") or "<unset>",
    ]


def _pdb_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        _meta(obj).get("name", ""),
        str(spec["minAvailable"]) if spec.get("minAvailable") is not None else "N/A",
        str(spec["maxUnavailable"]) if spec.get("maxUnavailable") is not None else "N/A",
        int(status.get("disruptionsAllowed") or 0),
        _age(obj, now),
    ]


_BUILTIN: dict[str, tuple[tuple[Column, ...], Callable[[Obj, datetime], list[Cell]]]] = {
    "pods": (
        (
            ("Name", "string", 0),
            ("Ready", "string", 0),
            ("Status", "string", 0),
            ("Restarts", "string", 0),
            ("Age", "string", 0),
            ("IP", "string", 1),
            ("Node", "string", 1),
            ("Nominated Node", "string", 1),
            ("Readiness Gates", "string", 1),
        ),
        _pod_row,
    ),
    "nodes": (
        (
            ("Name", "string", 0),
            ("Status", "string", 0),
            ("Roles", "string", 0),
            ("Age", "string", 0),
            ("Version", "string", 0),
            ("Internal-IP", "string", 1),
            ("External-IP", "string", 1),
            ("OS-Image", "string", 1),
            ("Kernel-Version", "string", 1),
            ("Container-Runtime", "string", 1),
        ),
        _node_row,
    ),
    "events": (
        (
            ("Last Seen", "string", 0),
            ("Type", "string", 0),
            ("Reason", "string", 0),
            ("Object", "string", 0),
            ("Subobject", "string", 1),
            ("Source", "string", 1),
            ("Message", "string", 0),
            ("First Seen", "string", 1),
            ("Count", "string", 1),
            ("Name", "string", 1),
        ),
        _event_row,
    ),
    "namespaces": (
        (("Name", "string", 0), ("Status", "string", 0), ("Age", "string", 0)),
        lambda o, now: [
            _meta(o).get("name", ""),
            (o.get("status") or {}).get("phase", ""),
            _age(o, now),
        ],
    ),
    "configmaps": (
        (("Name", "string", 0), ("Data", "string", 0), ("Age", "string", 0)),
        lambda o, now: [
            _meta(o).get("name", ""),
            len(o.get("data") or {}) + len(o.get("binaryData") or {}),
            _age(o, now),
        ],
    ),
    "secrets": (
        (("Name", "string", 0), ("Type", "string", 0), ("Data", "string", 0), ("Age", "string", 0)),
        lambda o, now: [
            _meta(o).get("name", ""),
            o.get("type", ""),
            len(o.get("data") or {}),
            _age(o, now),
        ],
    ),
    "serviceaccounts": (
        (("Name", "string", 0), ("Secrets", "string", 0), ("Age", "string", 0)),
        lambda o, now: [_meta(o).get("name", ""), len(o.get("secrets") or []), _age(o, now)],
    ),
    "services": (
        (
            ("Name", "string", 0),
            ("Type", "string", 0),
            ("Cluster-IP", "string", 0),
            ("External-IP", "string", 0),
            ("Port(s)", "string", 0),
            ("Age", "string", 0),
            ("Selector", "string", 1),
        ),
        _service_row,
    ),
    "endpoints": (
        (("Name", "string", 0), ("Endpoints", "string", 0), ("Age", "string", 0)),
        _endpoints_row,
    ),
    "persistentvolumeclaims": (
        (
            ("Name", "string", 0),
            ("Status", "string", 0),
            ("Volume", "string", 0),
            ("Capacity", "string", 0),
            ("Access Modes", "string", 0),
            ("StorageClass", "string", 0),
            ("VolumeAttributesClass", "string", 0),
            ("Age", "string", 0),
            ("VolumeMode", "string", 1),
        ),
        _pvc_row,
    ),
    "deployments.apps": (
        (
            ("Name", "string", 0),
            ("Ready", "string", 0),
            ("Up-to-date", "string", 0),
            ("Available", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ),
        _deployment_row,
    ),
    "replicasets.apps": (
        (
            ("Name", "string", 0),
            ("Desired", "integer", 0),
            ("Current", "integer", 0),
            ("Ready", "integer", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ),
        _replicaset_row,
    ),
    "daemonsets.apps": (
        (
            ("Name", "string", 0),
            ("Desired", "integer", 0),
            ("Current", "integer", 0),
            ("Ready", "integer", 0),
            ("Up-to-date", "integer", 0),
            ("Available", "integer", 0),
            ("Node Selector", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ),
        _daemonset_row,
    ),
    "statefulsets.apps": (
        (
            ("Name", "string", 0),
            ("Ready", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
        ),
        _statefulset_row,
    ),
    "jobs.batch": (
        (
            ("Name", "string", 0),
            ("Status", "string", 0),
            ("Completions", "string", 0),
            ("Duration", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ),
        _job_row,
    ),
    "leases.coordination.k8s.io": (
        (("Name", "string", 0), ("Holder", "string", 0), ("Age", "string", 0)),
        lambda o, now: [
            _meta(o).get("name", ""),
            (o.get("spec") or {}).get("holderIdentity") or "",
            _age(o, now),
        ],
    ),
    "poddisruptionbudgets.policy": (
        (
            ("Name", "string", 0),
            ("Min Available", "string", 0),
            ("Max Unavailable", "string", 0),
            ("Allowed Disruptions", "integer", 0),
            ("Age", "string", 0),
        ),
        _pdb_row,
    ),
}


# --------------------------------------------------------------------- custom resources
def _json_path(obj: Any, path: str) -> Any:
    """The simple JSONPath CRD printer columns use (``.spec.a.b``, ``.status.x[0]``)."""
    current = obj
    for raw in path.strip().lstrip(".").split("."):
        if not raw:
            continue
        name, _, index = raw.partition("[")
        if name:
            if not isinstance(current, dict) or name not in current:
                return None
            current = current[name]
        if index:
            try:
                position = int(index.rstrip("]"))
            except ValueError:
                return None
            if not isinstance(current, list) or not -len(current) <= position < len(current):
                return None
            current = current[position]
    return current


def _custom_cell(kind: str, value: Any, now: datetime) -> Cell:
    if value is None:
        return None
    if kind == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return str(value)
        return json.dumps(value, separators=(",", ":"))
    if kind == "integer":
        return (
            int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
        )
    if kind == "number":
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if kind == "boolean":
        return value if isinstance(value, bool) else None
    if kind == "date":
        return since(value, now) if isinstance(value, str) else None
    return value


def _custom_columns(info: ResourceInfo) -> list[dict[str, Any]]:
    return list(info.printer_columns) or [
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
    ]


# --------------------------------------------------------------------- the Table
def _definition(name: str, kind: str, priority: int, fmt: str = "", desc: str = "") -> Obj:
    if not desc:
        desc = _NAME_DESC if name == "Name" else _AGE_DESC if name == "Age" else ""
    return {
        "name": name,
        "type": kind,
        "format": fmt or ("name" if name == "Name" else ""),
        "description": desc,
        "priority": priority,
    }


def _row_object(obj: Obj, include: str) -> Obj | None:
    if include == "None":
        return None
    if include == "Object":
        return obj
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": _meta(obj),
    }


def table(
    api: ClusterAPI,
    resource: str,
    objs: Iterable[Obj],
    wide: bool = False,
    *,
    include_object: str = "Object",
    resource_version: str = "",
) -> Obj:
    """A ``meta.k8s.io/v1`` Table of ``objs`` (objects of ``resource``)."""
    info = api.resolve(resource) if "." not in resource else _info(api, resource)
    now = api.now()
    columns: list[Obj]
    rows: list[Obj] = []
    builtin = _BUILTIN.get(info.key)
    if builtin is not None:
        defs, row_of = builtin
        columns = [_definition(name, kind, priority) for name, kind, priority in defs]
        for obj in objs:
            cells = row_of(obj, now)
            row: Obj = {"cells": cells, "object": _row_object(obj, include_object)}
            if info.kind == "Pod":
                phase = (obj.get("status") or {}).get("phase")
                if phase in ("Succeeded", "Failed"):
                    row["conditions"] = [
                        {
                            "type": "Completed",
                            "status": "True",
                            "reason": phase,
                            "message": "The pod has completed successfully."
                            if phase == "Succeeded"
                            else "The pod failed.",
                        }
                    ]
            rows.append(row)
    else:
        custom = _custom_columns(info)
        columns = [_definition("Name", "string", 0)] + [
            _definition(
                str(c["name"]),
                str(c.get("type", "string")),
                int(c.get("priority", 0)),
                str(c.get("format", "")),
                str(c.get("description", "")),
            )
            for c in custom
        ]
        for obj in objs:
            cells = [_meta(obj).get("name", "")] + [
                _custom_cell(str(c.get("type", "string")), _json_path(obj, str(c["jsonPath"])), now)
                for c in custom
            ]
            rows.append({"cells": cells, "object": _row_object(obj, include_object)})
    if not wide:
        keep = [i for i, c in enumerate(columns) if not c["priority"]]
        columns = [columns[i] for i in keep]
        for row in rows:
            row["cells"] = [row["cells"][i] for i in keep if i < len(row["cells"])]
    result: Obj = {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": resource_version} if resource_version else {},
        "columnDefinitions": columns,
        "rows": rows,
    }
    return result


def _info(api: ClusterAPI, resource: str) -> ResourceInfo:
    for info in api.resources():
        if info.key == resource:
            return info
    return api.resolve(resource)
