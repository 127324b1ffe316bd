"""Server-side printers of the core kinds: pods, nodes, events, config, services, storage.

Ports of kubernetes/pkg/printers/internalversion/printers.go (printPod, printNode, printEvent,
printService, printEndpoints, printPersistentVolumeClaim, printPodDisruptionBudget and the
one-liners), each kind's columns next to the function that fills its row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from simulators.cluster.api import Obj
from simulators.cluster.clock import parse_time
from simulators.cluster.tablecells import (
    Cell,
    Printer,
    age,
    format_labels,
    metadata,
    since,
)


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
    meta = metadata(pod)
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
        metadata(pod).get("name", ""),
        ready,
        reason,
        restarts,
        age(pod, now),
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
    for key, value in (metadata(node).get("labels") or {}).items():
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
        metadata(node).get("name", ""),
        ",".join(states),
        ",".join(sorted(roles)) or "<none>",
        age(node, now),
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
        metadata(event).get("name", ""),
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
        metadata(obj).get("name", ""),
        kind,
        internal,
        external,
        ",".join(pieces) or "<none>",
        age(obj, now),
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
    return [metadata(obj).get("name", ""), text, age(obj, now)]


def _pvc_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    phase = "Terminating" if metadata(obj).get("deletionTimestamp") else status.get("phase", "")
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
    storage_class = (metadata(obj).get("annotations") or {}).get(
        "volume.beta.kubernetes.io/storage-class"
    ) or spec.get("storageClassName", "")
    return [
        metadata(obj).get("name", ""),
        phase,
        spec.get("volumeName", ""),
        capacity,
        modes,
        storage_class,
        spec.get("volumeAttributesClassName") or "<unset>",
        age(obj, now),
        spec.get("volumeMode") or "<unset>",
    ]


def _pdb_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        metadata(obj).get("name", ""),
        str(spec["minAvailable"]) if spec.get("minAvailable") is not None else "N/A",
        str(spec["maxUnavailable"]) if spec.get("maxUnavailable") is not None else "N/A",
        int(status.get("disruptionsAllowed") or 0),
        age(obj, now),
    ]


CORE_PRINTERS: dict[str, Printer] = {
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
            metadata(o).get("name", ""),
            (o.get("status") or {}).get("phase", ""),
            age(o, now),
        ],
    ),
    "configmaps": (
        (("Name", "string", 0), ("Data", "string", 0), ("Age", "string", 0)),
        lambda o, now: [
            metadata(o).get("name", ""),
            len(o.get("data") or {}) + len(o.get("binaryData") or {}),
            age(o, now),
        ],
    ),
    "secrets": (
        (("Name", "string", 0), ("Type", "string", 0), ("Data", "string", 0), ("Age", "string", 0)),
        lambda o, now: [
            metadata(o).get("name", ""),
            o.get("type", ""),
            len(o.get("data") or {}),
            age(o, now),
        ],
    ),
    "serviceaccounts": (
        (("Name", "string", 0), ("Secrets", "string", 0), ("Age", "string", 0)),
        lambda o, now: [metadata(o).get("name", ""), len(o.get("secrets") or []), age(o, now)],
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
    "leases.coordination.k8s.io": (
        (("Name", "string", 0), ("Holder", "string", 0), ("Age", "string", 0)),
        lambda o, now: [
            metadata(o).get("name", ""),
            (o.get("spec") or {}).get("holderIdentity") or "",
            age(o, now),
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
