"""kubectl describe: client-side describers per kind, reading only what the API returns.

Each describer is a port of kubectl's (pkg/describe/describe.go): the same lines written to
the same tabwriter (padding 2), so sections align as kubectl's do.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo
from simulators.cluster.quantity import QuantityError, parse_quantity
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    KubectlError,
    error_text,
    format_labels,
    meta,
    namespace,
    resolve,
    rfc1123z,
    since,
    targets,
)
from simulators.lab.kubectl.tabwriter import format_text
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("all-namespaces", long="all-namespaces", short="A"),
    Flag("show-events", long="show-events"),
]

# Annotations kubectl describe never shows.
_SKIP_ANNOTATIONS = {"kubectl.kubernetes.io/last-applied-configuration"}
_MAX_ANNOTATION = 140


class Writer:
    """kubectl's PrefixWriter over a tabwriter: levels indent two spaces each."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._buf: list[str] = []

    def write(self, level: int, text: str) -> None:
        self._buf.append("  " * level + text)

    def line(self, text: str) -> None:
        self._buf.append(text + "\n")

    def flush(self) -> None:
        if self._buf:
            self._parts.append(format_text("".join(self._buf), minwidth=0, padding=2))
            self._buf = []

    def text(self) -> str:
        self.flush()
        return "".join(self._parts)


def _d(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _labels(w: Writer, title: str, labels: Any, initial: str = "") -> None:
    w.write(0, f"{initial}{title}:\t")
    if not isinstance(labels, dict) or not labels:
        w.line("<none>")
        return
    for i, key in enumerate(sorted(labels)):
        if i:
            w.write(0, f"{initial}\t")
        w.write(0, f"{key}={labels[key]}\n")


def _annotations(w: Writer, title: str, annotations: Any) -> None:
    w.write(0, f"{title}:\t")
    keys = (
        sorted(k for k in annotations if k not in _SKIP_ANNOTATIONS)
        if isinstance(annotations, dict)
        else []
    )
    if not keys:
        w.line("<none>")
        return
    for i, key in enumerate(keys):
        if i:
            w.write(0, "\t")
        value = str(annotations[key]).removesuffix("\n")
        if len(value) + len(key) + 2 > _MAX_ANNOTATION or "\n" in value:
            w.write(0, f"{key}:\n")
            for part in value.split("\n"):
                short = (
                    part
                    if len(part) <= _MAX_ANNOTATION - 2
                    else part[: _MAX_ANNOTATION - 2] + "..."
                )
                w.write(0, f"\t  {short}\n")
        else:
            w.write(0, f"{key}: {value}\n")


def _taints(w: Writer, title: str, taints: Any) -> None:
    w.write(0, f"{title}:\t")
    if not taints:
        w.line("<none>")
        return
    ordered = sorted(taints, key=lambda t: f"{t.get('effect', '')},{t.get('key', '')}")
    for i, taint in enumerate(ordered):
        if i:
            w.write(0, "\t")
        value = f"={taint['value']}" if taint.get("value") else ""
        w.write(0, f"{taint.get('key', '')}{value}:{taint.get('effect', '')}\n")


def _tolerations(w: Writer, title: str, tolerations: Any, initial: str = "") -> None:
    w.write(0, f"{initial}{title}:\t")
    if not tolerations:
        w.line("<none>")
        return
    for i, tol in enumerate(sorted(tolerations, key=lambda t: t.get("key", ""))):
        if i:
            w.write(0, f"{initial}\t")
        text = tol.get("key", "")
        if tol.get("value"):
            text += f"={tol['value']}"
        if tol.get("effect"):
            text += f":{tol['effect']}"
        if tol.get("operator") == "Exists" and not tol.get("value"):
            text += " op=Exists" if (tol.get("key") or tol.get("effect")) else "op=Exists"
        if tol.get("tolerationSeconds") is not None:
            text += f" for {tol['tolerationSeconds']}s"
        w.write(0, text + "\n")


def _events(cluster: ClusterAPI, w: Writer, obj: Obj) -> None:
    m = meta(obj)
    ns = m.get("namespace") or None
    try:
        listed = cluster.list("events", str(ns) if ns else None)
    except ApiError:
        return
    uid = m.get("uid")
    items = [
        e
        for e in listed.get("items", [])
        if _d(e, "involvedObject", "name") == m.get("name")
        and _d(e, "involvedObject", "kind") == obj.get("kind")
        and (not uid or not _d(e, "involvedObject", "uid") or _d(e, "involvedObject", "uid") == uid)
    ]
    if not items:
        w.write(0, "Events:\t<none>\n")
        return
    w.flush()
    items.sort(key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or ""))
    w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
    w.write(1, "----\t------\t----\t----\t-------\n")
    for e in items:
        first = (
            since(cluster, e.get("eventTime"))
            if e.get("eventTime")
            else since(cluster, e.get("firstTimestamp"))
        )
        series = e.get("series")
        count = int(e.get("count") or 0)
        if isinstance(series, dict):
            interval = (
                f"{since(cluster, series.get('lastObservedTime'))} "
                f"(x{series.get('count', 0)} over {first})"
            )
        elif count > 1:
            interval = f"{since(cluster, e.get('lastTimestamp'))} (x{count} over {first})"
        else:
            interval = first
        source = (
            _d(e, "source", "component")
            or e.get("reportingComponent")
            or e.get("reportingController", "")
        )
        message = str(e.get("message", "")).strip()
        field_path = _d(e, "involvedObject", "fieldPath")
        if field_path:
            message = f"{field_path}: {message}"
        w.write(1, f"{e.get('type', '')}\t{e.get('reason', '')}\t{interval}\t{source}\t{message}\n")


def _resources(w: Writer, resources: Any, level: int) -> None:
    if not isinstance(resources, dict):
        return
    for title, key in (("Limits", "limits"), ("Requests", "requests")):
        values = resources.get(key) or {}
        if values:
            w.write(level, f"{title}:\n")
        for name in sorted(values):
            w.write(level + 1, f"{name}:\t{quantity_string(values[name])}\n")


def quantity_string(value: Any) -> str:
    return str(value)


def _state(w: Writer, title: str, state: Any) -> None:
    state = state if isinstance(state, dict) else {}
    if "running" in state:
        w.write(2, f"{title}:\tRunning\n")
        w.write(3, f"Started:\t{rfc1123z(_d(state, 'running', 'startedAt'))}\n")
    elif "waiting" in state:
        w.write(2, f"{title}:\tWaiting\n")
        if _d(state, "waiting", "reason"):
            w.write(3, f"Reason:\t{state['waiting']['reason']}\n")
    elif "terminated" in state:
        t = state["terminated"]
        w.write(2, f"{title}:\tTerminated\n")
        if t.get("reason"):
            w.write(3, f"Reason:\t{t['reason']}\n")
        if t.get("message"):
            w.write(3, f"Message:\t{t['message']}\n")
        w.write(3, f"Exit Code:\t{t.get('exitCode', 0)}\n")
        if t.get("signal"):
            w.write(3, f"Signal:\t{t['signal']}\n")
        w.write(3, f"Started:\t{rfc1123z(t.get('startedAt'))}\n")
        w.write(3, f"Finished:\t{rfc1123z(t.get('finishedAt'))}\n")
    else:
        w.write(2, f"{title}:\tWaiting\n")


def _ports(ports: Any, key: str) -> str:
    out = []
    for p in ports or []:
        text = f"{p.get(key, 0)}/{p.get('protocol', 'TCP')}"
        if p.get("name"):
            text += f" ({p['name']})"
        out.append(text)
    return ", ".join(out)


def _containers(
    w: Writer, label: str, containers: Any, statuses: Any, space: str, env_pod: Obj | None
) -> None:
    containers = containers or []
    by_name = {s.get("name"): s for s in statuses or []} if statuses is not None else {}
    w.write(0, f"{space}{label}:{' <none>' if not containers else ''}\n")
    for c in containers:
        found = by_name.get(c.get("name"))
        ok = found is not None
        status: dict[str, Any] = found or {}
        indent = " " if space else ""
        w.write(1, f"{indent}{c.get('name', '')}:\n")
        if ok:
            w.write(2, f"Container ID:\t{status.get('containerID', '')}\n")
        w.write(2, f"Image:\t{c.get('image', '')}\n")
        if ok:
            w.write(2, f"Image ID:\t{status.get('imageID', '')}\n")
        ports = _ports(c.get("ports"), "containerPort")
        w.write(2, f"Ports:\t{ports}\n" if "," in ports else f"Port:\t{ports or '<none>'}\n")
        host = _ports(c.get("ports"), "hostPort")
        w.write(2, f"Host Ports:\t{host}\n" if "," in host else f"Host Port:\t{host or '<none>'}\n")
        for title, key in (("Command", "command"), ("Args", "args")):
            if c.get(key):
                w.write(2, f"{title}:\n")
                for part in c[key]:
                    for line in str(part).split("\n"):
                        w.write(3, f"{line}\n")
        if ok:
            _state(w, "State", status.get("state"))
            if _d(status, "lastState", "terminated"):
                _state(w, "Last State", status.get("lastState"))
            w.write(2, f"Ready:\t{'True' if status.get('ready') else 'False'}\n")
            w.write(2, f"Restart Count:\t{status.get('restartCount', 0)}\n")
        _resources(w, c.get("resources"), 2)
        env = c.get("env") or []
        if not env:
            w.write(2, "Environment:\t<none>\n")
        else:
            w.write(2, "Environment:\n")
            for var in env:
                if "value" in var:
                    w.write(3, f"{var['name']}:\t{var['value']}\n")
                else:
                    w.write(3, f"{var.get('name', '')}:\t <set to a reference>\n")
        mounts = c.get("volumeMounts") or []
        if not mounts:
            w.write(2, "Mounts:\t<none>\n")
        else:
            w.write(2, "Mounts:\n")
            for m in sorted(mounts, key=lambda m: str(m.get("mountPath", ""))):
                flags = ["ro" if m.get("readOnly") else "rw"]
                if m.get("subPath"):
                    flags.append(f'path="{m["subPath"]}"')
                w.write(
                    3, f"{m.get('mountPath', '')} from {m.get('name', '')} ({','.join(flags)})\n"
                )


def _volumes(w: Writer, volumes: Any, space: str) -> None:
    if not volumes:
        w.write(0, f"{space}Volumes:\t<none>\n")
        return
    w.write(0, f"{space}Volumes:\n")
    for v in volumes:
        w.write(0, f"{space}  {v.get('name', '')}:\n")
        if "configMap" in v:
            w.write(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n")
            w.write(2, f"Name:\t{v['configMap'].get('name', '')}\n")
            w.write(2, f"Optional:\t{'true' if v['configMap'].get('optional') else 'false'}\n")
        elif "hostPath" in v:
            w.write(2, "Type:\tHostPath (bare host directory volume)\n")
            w.write(2, f"Path:\t{v['hostPath'].get('path', '')}\n")
            w.write(2, f"HostPathType:\t{v['hostPath'].get('type', '')}\n")
        elif "emptyDir" in v:
            w.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n")
            w.write(2, f"Medium:\t{v['emptyDir'].get('medium', '')}\n")
            limit = v["emptyDir"].get("sizeLimit")
            w.write(2, f"SizeLimit:\t{limit if limit else '<unset>'}\n")
        elif "projected" in v:
            w.write(
                2,
                "Type:\tProjected (a volume that contains injected data from multiple sources)\n",
            )
        else:
            w.write(2, "<unknown>\n")


def _controller(obj: Obj) -> str:
    for ref in meta(obj).get("ownerReferences") or []:  # type: ignore[attr-defined]
        if ref.get("controller"):
            return f"{ref.get('kind')}/{ref.get('name')}"
    return ""


def _qos(pod: Obj) -> str:
    containers = _d(pod, "spec", "containers") or []
    requests: list[dict[str, Any]] = []
    limits: list[dict[str, Any]] = []
    for c in containers:
        requests.append(_d(c, "resources", "requests") or {})
        limits.append(_d(c, "resources", "limits") or {})
    compute = ("cpu", "memory")
    if not any(k in r for r in requests + limits for k in compute):
        return "BestEffort"
    guaranteed = all(
        all(k in lim for k in compute)
        and all(str(req.get(k, lim[k])) == str(lim[k]) for k in compute)
        for req, lim in zip(requests, limits, strict=True)
    )
    return "Guaranteed" if guaranteed else "Burstable"


def describe_pod(cluster: ClusterAPI, pod: Obj, events: bool = True) -> str:
    w = Writer()
    m, spec, status = meta(pod), pod.get("spec") or {}, pod.get("status") or {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    if spec.get("priority") is not None:
        w.write(0, f"Priority:\t{spec['priority']}\n")
    if spec.get("priorityClassName"):
        w.write(0, f"Priority Class Name:\t{spec['priorityClassName']}\n")
    if spec.get("runtimeClassName"):
        w.write(0, f"Runtime Class Name:\t{spec['runtimeClassName']}\n")
    if spec.get("serviceAccountName"):
        w.write(0, f"Service Account:\t{spec['serviceAccountName']}\n")
    if not spec.get("nodeName"):
        w.write(0, "Node:\t<none>\n")
    else:
        w.write(0, f"Node:\t{spec['nodeName']}/{status.get('hostIP', '')}\n")
    if status.get("startTime"):
        w.write(0, f"Start Time:\t{rfc1123z(status['startTime'])}\n")
    _labels(w, "Labels", m.get("labels"))
    _annotations(w, "Annotations", m.get("annotations"))
    phase = status.get("phase", "")
    if m.get("deletionTimestamp") and phase not in ("Failed", "Succeeded"):
        w.write(0, f"Status:\tTerminating (lasts {since(cluster, str(m['deletionTimestamp']))})\n")
        w.write(0, f"Termination Grace Period:\t{m.get('deletionGracePeriodSeconds', 30)}s\n")
    else:
        w.write(0, f"Status:\t{phase}\n")
    if status.get("reason"):
        w.write(0, f"Reason:\t{status['reason']}\n")
    if status.get("message"):
        w.write(0, f"Message:\t{status['message']}\n")
    w.write(0, f"IP:\t{status.get('podIP', '')}\n")
    ips = status.get("podIPs") or []
    if not ips:
        w.write(0, "IPs:\t<none>\n")
    else:
        w.write(0, "IPs:\n")
        for ip in ips:
            w.write(1, f"IP:\t{ip.get('ip', '')}\n")
    controlled = _controller(pod)
    if controlled:
        w.write(0, f"Controlled By:\t{controlled}\n")
    if status.get("nominatedNodeName"):
        w.write(0, f"NominatedNodeName:\t{status['nominatedNodeName']}\n")
    if spec.get("initContainers"):
        _containers(
            w,
            "Init Containers",
            spec["initContainers"],
            status.get("initContainerStatuses") or [],
            "",
            pod,
        )
    _containers(
        w, "Containers", spec.get("containers"), status.get("containerStatuses") or [], "", pod
    )
    conditions = status.get("conditions") or []
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\n")
        for c in conditions:
            w.write(1, f"{c.get('type', '')} \t{c.get('status', '')} \n")
    _volumes(w, spec.get("volumes"), "")
    w.write(0, f"QoS Class:\t{status.get('qosClass') or _qos(pod)}\n")
    _labels(w, "Node-Selectors", spec.get("nodeSelector"))
    _tolerations(w, "Tolerations", spec.get("tolerations"))
    if events:
        _events(cluster, w, pod)
    return w.text()


def _roles(labels: dict[str, Any]) -> list[str]:
    roles = set()
    for key, value in labels.items():
        if key.startswith("node-role.kubernetes.io/"):
            role = key.removeprefix("node-role.kubernetes.io/")
            if role:
                roles.add(role)
        elif key == "kubernetes.io/role" and value:
            roles.add(str(value))
    return sorted(roles)


def _q(value: Any) -> Decimal:
    try:
        return parse_quantity(value)
    except QuantityError:
        return Decimal(0)


def format_quantity(value: Decimal, resource: str) -> str:
    """resource.Quantity.String() for sums: whole numbers bare, CPU in m, memory in Ki/Mi/Gi."""
    if value == 0:
        return "0"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for suffix, size in (
            ("Ei", 2**60),
            ("Pi", 2**50),
            ("Ti", 2**40),
            ("Gi", 2**30),
            ("Mi", 2**20),
            ("Ki", 2**10),
        ):
            if value % size == 0:
                return f"{int(value / size)}{suffix}"
        return str(int(value))
    if value == int(value):
        return str(int(value))
    return f"{int(value * 1000)}m"


def _pod_totals(pod: Obj, key: str) -> dict[str, Decimal]:
    """resourcehelper.PodRequests/PodLimits: the containers' sum, at least any init container."""
    totals: dict[str, Decimal] = {}
    for c in _d(pod, "spec", "containers") or []:
        for name, value in (_d(c, "resources", key) or {}).items():
            totals[name] = totals.get(name, Decimal(0)) + _q(value)
    for c in _d(pod, "spec", "initContainers") or []:
        for name, value in (_d(c, "resources", key) or {}).items():
            totals[name] = max(totals.get(name, Decimal(0)), _q(value))
    return totals


def _pct(part: Decimal, whole: Decimal) -> int:
    return int(part / whole * 100) if whole else 0


def describe_node(cluster: ClusterAPI, node: Obj, events: bool = True) -> str:
    w = Writer()
    m, spec, status = meta(node), node.get("spec") or {}, node.get("status") or {}
    labels = m.get("labels") if isinstance(m.get("labels"), dict) else {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    roles = _roles(labels)  # type: ignore[arg-type]
    w.write(0, f"Roles:\t{','.join(roles) if roles else '<none>'}\n")
    _labels(w, "Labels", labels)
    _annotations(w, "Annotations", m.get("annotations"))
    w.write(0, f"CreationTimestamp:\t{rfc1123z(str(m.get('creationTimestamp', '')))}\n")
    _taints(w, "Taints", spec.get("taints"))
    w.write(0, f"Unschedulable:\t{'true' if spec.get('unschedulable') else 'false'}\n")
    _lease(cluster, w, str(m.get("name", "")))
    conditions = status.get("conditions") or []
    if conditions:
        w.write(
            0,
            "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n",
        )
        w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
        for c in conditions:
            w.write(
                1,
                f"{c.get('type', '')} \t{c.get('status', '')} \t"
                f"{rfc1123z(c.get('lastHeartbeatTime'))} \t"
                f"{rfc1123z(c.get('lastTransitionTime'))} \t"
                f"{c.get('reason', '')} \t{c.get('message', '')}\n",
            )
    w.write(0, "Addresses:\n")
    for address in status.get("addresses") or []:
        w.write(1, f"{address.get('type', '')}:\t{address.get('address', '')}\n")
    for title, key in (("Capacity", "capacity"), ("Allocatable", "allocatable")):
        values = status.get(key) or {}
        if values:
            w.write(0, f"{title}:\n")
            for name in sorted(values):
                w.write(0, f"  {name}:\t{values[name]}\n")
    info = status.get("nodeInfo") or {}
    w.write(0, "System Info:\n")
    for title, key in (
        ("Machine ID", "machineID"),
        ("System UUID", "systemUUID"),
        ("Boot ID", "bootID"),
        ("Kernel Version", "kernelVersion"),
        ("OS Image", "osImage"),
        ("Operating System", "operatingSystem"),
        ("Architecture", "architecture"),
        ("Container Runtime Version", "containerRuntimeVersion"),
        ("Kubelet Version", "kubeletVersion"),
    ):
        w.write(0, f"  {title}:\t{info.get(key, '')}\n")
    if spec.get("podCIDR"):
        w.write(0, f"PodCIDR:\t{spec['podCIDR']}\n")
    if spec.get("podCIDRs"):
        w.write(0, f"PodCIDRs:\t{','.join(spec['podCIDRs'])}\n")
    if spec.get("providerID"):
        w.write(0, f"ProviderID:\t{spec['providerID']}\n")
    _node_resources(cluster, w, node)
    if events:
        _events(cluster, w, node)
    return w.text()


def _lease(cluster: ClusterAPI, w: Writer, name: str) -> None:
    try:
        lease = cluster.get("leases.coordination.k8s.io", name, "kube-node-lease")
    except ApiError as exc:
        w.write(0, f"Lease:\tFailed to get lease: {exc.message}\n")
        return
    spec = lease.get("spec") or {}
    w.write(0, "Lease:\n")
    w.write(1, f"HolderIdentity:\t{spec.get('holderIdentity') or '<unset>'}\n")
    acquire = spec.get("acquireTime")
    w.write(1, f"AcquireTime:\t{rfc1123z(acquire) if acquire else '<unset>'}\n")
    renew = spec.get("renewTime")
    w.write(1, f"RenewTime:\t{rfc1123z(renew) if renew else '<unset>'}\n")


def node_pods(cluster: ClusterAPI, name: str) -> list[Obj]:
    pods = cluster.list("pods").get("items", [])
    return [
        p
        for p in pods
        if _d(p, "spec", "nodeName") == name
        and _d(p, "status", "phase") not in ("Succeeded", "Failed")
    ]


def _node_resources(cluster: ClusterAPI, w: Writer, node: Obj) -> None:
    pods = node_pods(cluster, str(meta(node).get("name", "")))
    status = node.get("status") or {}
    alloc = status.get("allocatable") or status.get("capacity") or {}
    cpu, mem = _q(alloc.get("cpu", 0)), _q(alloc.get("memory", 0))
    w.write(0, f"Non-terminated Pods:\t({len(pods)} in total)\n")
    w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n")
    w.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n")
    reqs: dict[str, Decimal] = {}
    lims: dict[str, Decimal] = {}
    for pod in pods:
        req, lim = _pod_totals(pod, "requests"), _pod_totals(pod, "limits")
        for k, v in req.items():
            reqs[k] = reqs.get(k, Decimal(0)) + v
        for k, v in lim.items():
            lims[k] = lims.get(k, Decimal(0)) + v
        cr, cl = req.get("cpu", Decimal(0)), lim.get("cpu", Decimal(0))
        mr, ml = req.get("memory", Decimal(0)), lim.get("memory", Decimal(0))
        pm = meta(pod)
        w.write(
            1,
            f"{pm.get('namespace', '')}\t{pm.get('name', '')}\t\t"
            f"{format_quantity(cr, 'cpu')} ({_pct(cr, cpu)}%)\t"
            f"{format_quantity(cl, 'cpu')} ({_pct(cl, cpu)}%)\t"
            f"{format_quantity(mr, 'memory')} ({_pct(mr, mem)}%)\t"
            f"{format_quantity(ml, 'memory')} ({_pct(ml, mem)}%)\t"
            f"{since(cluster, str(pm.get('creationTimestamp', '')))}\n",
        )
    w.write(
        0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n"
    )
    w.write(1, "Resource\tRequests\tLimits\n")
    w.write(1, "--------\t--------\t------\n")
    storage = _q(alloc.get("ephemeral-storage", 0))
    for name, whole in (("cpu", cpu), ("memory", mem), ("ephemeral-storage", storage)):
        r, cap = reqs.get(name, Decimal(0)), lims.get(name, Decimal(0))
        w.write(
            1,
            f"{name}\t{format_quantity(r, name)} ({_pct(r, whole)}%)\t"
            f"{format_quantity(cap, name)} ({_pct(cap, whole)}%)\n",
        )
    huge = sorted(k for k in alloc if k.startswith("hugepages-"))
    for name in huge:
        r, cap, whole = reqs.get(name, Decimal(0)), lims.get(name, Decimal(0)), _q(alloc[name])
        w.write(
            1,
            f"{name}\t{format_quantity(r, name)} ({_pct(r, whole)}%)\t"
            f"{format_quantity(cap, name)} ({_pct(cap, whole)}%)\n",
        )
    standard = {"cpu", "memory", "ephemeral-storage", "pods", "storage"}
    for name in sorted(k for k in alloc if k not in standard and not k.startswith("hugepages-")):
        r, cap = reqs.get(name, Decimal(0)), lims.get(name, Decimal(0))
        w.write(1, f"{name}\t{format_quantity(r, name)}\t{format_quantity(cap, name)}\n")


def describe_configmap(cluster: ClusterAPI, cm: Obj, events: bool = True) -> str:
    w = Writer()
    m = meta(cm)
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    _labels(w, "Labels", m.get("labels"))
    _annotations(w, "Annotations", m.get("annotations"))
    w.write(0, "\nData\n====\n")
    data = cm.get("data") or {}
    for key in sorted(data):
        w.write(0, f"{key}:\n----\n")
        w.write(0, f"{data[key]}\n")
        w.write(0, "\n")
    w.write(0, "\nBinaryData\n====\n")
    binary = cm.get("binaryData") or {}
    for key in sorted(binary):
        w.write(0, f"{key}: {len(str(binary[key])) * 3 // 4} bytes\n")
    w.write(0, "\n")
    if events:
        _events(cluster, w, cm)
    return w.text()


def describe_namespace(cluster: ClusterAPI, ns: Obj, events: bool = True) -> str:
    w = Writer()
    m = meta(ns)
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    _labels(w, "Labels", m.get("labels"))
    _annotations(w, "Annotations", m.get("annotations"))
    w.write(0, f"Status:\t{_d(ns, 'status', 'phase') or ''}\n")
    # Quotas and limit ranges are listed only where the API serves them.
    for resource, empty in (
        ("resourcequotas", "No resource quota."),
        ("limitranges", "No LimitRange resource."),
    ):
        try:
            cluster.resolve(resource)
        except ApiError:
            continue
        w.write(0, "\n")
        w.write(0, f"{empty}\n")
    return w.text()


def _selector_text(selector: Any) -> str:
    if not isinstance(selector, dict):
        return "<none>"
    parts = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or []:
        op = expr.get("operator", "")
        values = ",".join(sorted(expr.get("values") or []))
        if op == "In":
            parts.append(f"{expr.get('key')} in ({values})")
        elif op == "NotIn":
            parts.append(f"{expr.get('key')} notin ({values})")
        elif op == "Exists":
            parts.append(str(expr.get("key")))
        else:
            parts.append(f"!{expr.get('key')}")
    return ",".join(parts) or "<none>"


def _pod_template(w: Writer, template: Any) -> None:
    w.write(0, "Pod Template:\n")
    template = template if isinstance(template, dict) else {}
    tm, ts = template.get("metadata") or {}, template.get("spec") or {}
    _labels(w, "Labels", tm.get("labels"), initial="  ")
    if tm.get("annotations"):
        _annotations(w, "  Annotations", tm.get("annotations"))
    if ts.get("serviceAccountName"):
        w.write(1, f"Service Account:\t{ts['serviceAccountName']}\n")
    if ts.get("initContainers"):
        _containers(w, "Init Containers", ts["initContainers"], None, "  ", None)
    _containers(w, "Containers", ts.get("containers"), None, "  ", None)
    _volumes(w, ts.get("volumes"), "  ")
    if ts.get("priorityClassName"):
        w.write(1, f"Priority Class Name:\t{ts['priorityClassName']}\n")
    _labels(w, "Node-Selectors", ts.get("nodeSelector"), initial="  ")
    _tolerations(w, "Tolerations", ts.get("tolerations"), initial="  ")


def _pod_counts(cluster: ClusterAPI, obj: Obj) -> tuple[int, int, int, int]:
    uid = meta(obj).get("uid")
    ns = str(meta(obj).get("namespace", ""))
    counts = {"Running": 0, "Pending": 0, "Succeeded": 0, "Failed": 0}
    for pod in cluster.list("pods", ns).get("items", []):
        refs = meta(pod).get("ownerReferences") or []
        if any(r.get("uid") == uid for r in refs):  # type: ignore[attr-defined]
            phase = _d(pod, "status", "phase") or "Pending"
            counts[phase] = counts.get(phase, 0) + 1
    return counts["Running"], counts["Pending"], counts["Succeeded"], counts["Failed"]


def describe_daemonset(cluster: ClusterAPI, ds: Obj, events: bool = True) -> str:
    w = Writer()
    m, spec, status = meta(ds), ds.get("spec") or {}, ds.get("status") or {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    w.write(0, f"Selector:\t{_selector_text(spec.get('selector'))}\n")
    node_selector = _d(spec, "template", "spec", "nodeSelector") or {}
    w.write(0, f"Node-Selector:\t{format_labels(node_selector)}\n")
    _labels(w, "Labels", m.get("labels"))
    _annotations(w, "Annotations", m.get("annotations"))
    w.write(0, f"Desired Number of Nodes Scheduled: {status.get('desiredNumberScheduled', 0)}\n")
    w.write(0, f"Current Number of Nodes Scheduled: {status.get('currentNumberScheduled', 0)}\n")
    w.write(
        0,
        "Number of Nodes Scheduled with Up-to-date Pods: "
        f"{status.get('updatedNumberScheduled', 0)}\n",
    )
    w.write(
        0, f"Number of Nodes Scheduled with Available Pods: {status.get('numberAvailable', 0)}\n"
    )
    w.write(0, f"Number of Nodes Misscheduled: {status.get('numberMisscheduled', 0)}\n")
    running, waiting, succeeded, failed = _pod_counts(cluster, ds)
    w.write(
        0,
        f"Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / "
        f"{failed} Failed\n",
    )
    _pod_template(w, spec.get("template"))
    if events:
        _events(cluster, w, ds)
    return w.text()


def describe_deployment(cluster: ClusterAPI, d: Obj, events: bool = True) -> str:
    w = Writer()
    m, spec, status = meta(d), d.get("spec") or {}, d.get("status") or {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    w.write(0, f"CreationTimestamp:\t{rfc1123z(str(m.get('creationTimestamp', '')))}\n")
    _labels(w, "Labels", m.get("labels"))
    _annotations(w, "Annotations", m.get("annotations"))
    w.write(0, f"Selector:\t{_selector_text(spec.get('selector'))}\n")
    w.write(
        0,
        f"Replicas:\t{spec.get('replicas', 1)} desired | {status.get('updatedReplicas', 0)} "
        f"updated | {status.get('replicas', 0)} total | {status.get('availableReplicas', 0)} "
        f"available | {status.get('unavailableReplicas', 0)} unavailable\n",
    )
    strategy = spec.get("strategy") or {}
    w.write(0, f"StrategyType:\t{strategy.get('type', 'RollingUpdate')}\n")
    w.write(0, f"MinReadySeconds:\t{spec.get('minReadySeconds', 0)}\n")
    rolling = strategy.get("rollingUpdate")
    if isinstance(rolling, dict):
        w.write(
            0,
            f"RollingUpdateStrategy:\t{rolling.get('maxUnavailable', '25%')} max unavailable, "
            f"{rolling.get('maxSurge', '25%')} max surge\n",
        )
    _pod_template(w, spec.get("template"))
    conditions = status.get("conditions") or []
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
        w.write(1, "----\t------\t------\n")
        for c in conditions:
            w.write(1, f"{c.get('type', '')} \t{c.get('status', '')}\t{c.get('reason', '')}\n")
    uid = m.get("uid")
    sets = [
        rs
        for rs in cluster.list("replicasets.apps", str(m.get("namespace", ""))).get("items", [])
        if any(r.get("uid") == uid for r in meta(rs).get("ownerReferences") or [])  # type: ignore[attr-defined]
    ]
    if sets:
        sets.sort(key=lambda rs: str(meta(rs).get("creationTimestamp", "")))
        new, old = sets[-1:], sets[:-1]

        def names(items: list[Obj]) -> str:
            text = ", ".join(
                f"{meta(rs).get('name')} ({_d(rs, 'status', 'replicas') or 0}/"
                f"{_d(rs, 'spec', 'replicas') or 0} replicas created)"
                for rs in items
            )
            return text or "<none>"

        w.write(0, f"OldReplicaSets:\t{names(old)}\n")
        w.write(0, f"NewReplicaSet:\t{names(new)}\n")
    if events:
        _events(cluster, w, d)
    return w.text()


def describe_replicaset(cluster: ClusterAPI, rs: Obj, events: bool = True) -> str:
    w = Writer()
    m, spec, status = meta(rs), rs.get("spec") or {}, rs.get("status") or {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    w.write(0, f"Selector:\t{_selector_text(spec.get('selector'))}\n")
    _labels(w, "Labels", m.get("labels"))
    _annotations(w, "Annotations", m.get("annotations"))
    controlled = _controller(rs)
    if controlled:
        w.write(0, f"Controlled By:\t{controlled}\n")
    w.write(
        0, f"Replicas:\t{status.get('replicas', 0)} current / {spec.get('replicas', 1)} desired\n"
    )
    running, waiting, succeeded, failed = _pod_counts(cluster, rs)
    w.write(
        0,
        f"Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / "
        f"{failed} Failed\n",
    )
    _pod_template(w, spec.get("template"))
    conditions = status.get("conditions") or []
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
        w.write(1, "----\t------\t------\n")
        for c in conditions:
            w.write(1, f"{c.get('type', '')} \t{c.get('status', '')}\t{c.get('reason', '')}\n")
    if events:
        _events(cluster, w, rs)
    return w.text()


def describe_serviceaccount(cluster: ClusterAPI, sa: Obj, events: bool = True) -> str:
    w = Writer()
    m = meta(sa)
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    _labels(w, "Labels", m.get("labels"))
    _annotations(w, "Annotations", m.get("annotations"))
    names = [str(s.get("name", "")) for s in sa.get("imagePullSecrets") or []]
    header = "Image pull secrets:"
    if not names:
        w.write(0, f"{header}\t<none>\n")
    for i, name in enumerate(names):
        w.write(0, f"{header if i == 0 else ' ' * len(header)}\t{name}\n")
    if events:
        _events(cluster, w, sa)
    return w.text()


def describe_service(cluster: ClusterAPI, svc: Obj, events: bool = True) -> str:
    w = Writer()
    m, spec = meta(svc), svc.get("spec") or {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    _labels(w, "Labels", m.get("labels"))
    _annotations(w, "Annotations", m.get("annotations"))
    w.write(0, f"Selector:\t{format_labels(spec.get('selector') or {})}\n")
    w.write(0, f"Type:\t{spec.get('type', '')}\n")
    if spec.get("ipFamilyPolicy"):
        w.write(0, f"IP Family Policy:\t{spec['ipFamilyPolicy']}\n")
    families = spec.get("ipFamilies") or []
    w.write(0, f"IP Families:\t{','.join(families) if families else '<none>'}\n")
    w.write(0, f"IP:\t{spec.get('clusterIP', '')}\n")
    ips = spec.get("clusterIPs") or []
    w.write(0, f"IPs:\t{','.join(ips) if ips else '<none>'}\n")
    if spec.get("externalIPs"):
        w.write(0, f"External IPs:\t{','.join(spec['externalIPs'])}\n")
    if spec.get("externalName"):
        w.write(0, f"External Name:\t{spec['externalName']}\n")
    for port in spec.get("ports") or []:
        name = port.get("name") or "<unset>"
        protocol = port.get("protocol", "TCP")
        w.write(0, f"Port:\t{name}\t{port.get('port', 0)}/{protocol}\n")
        w.write(0, f"TargetPort:\t{port.get('targetPort', port.get('port', 0))}/{protocol}\n")
        if port.get("appProtocol"):
            w.write(0, f"AppProtocol:\t{port['appProtocol']}\n")
        if port.get("nodePort"):
            w.write(0, f"NodePort:\t{name}\t{port['nodePort']}/{protocol}\n")
        # Endpoints come from EndpointSlices, which this cluster does not serve.
        w.write(0, "Endpoints:\t<none>\n")
    w.write(0, f"Session Affinity:\t{spec.get('sessionAffinity', 'None')}\n")
    if spec.get("externalTrafficPolicy"):
        w.write(0, f"External Traffic Policy:\t{spec['externalTrafficPolicy']}\n")
    if spec.get("internalTrafficPolicy"):
        w.write(0, f"Internal Traffic Policy:\t{spec['internalTrafficPolicy']}\n")
    if events:
        _events(cluster, w, svc)
    return w.text()


def _smart_label(field: str) -> str:
    if any(not (ch.isalpha() or ch == "-") for ch in field):
        return field
    parts: list[str] = []
    current = ""
    for ch in field:
        if ch.isupper() and current and not current[-1].isupper():
            parts.append(current)
            current = ch
        else:
            current += ch
    if current:
        parts.append(current)
    words = []
    for part in parts:
        upper = part.upper()
        words.append(
            upper if upper in ("API", "URL", "UID", "GUID") else part[:1].upper() + part[1:]
        )
    return " ".join(words)


def _unstructured(
    w: Writer, level: int, content: dict[str, Any], prefix: str, skip: set[str]
) -> None:
    for key in sorted(content):
        value = content[key]
        expr = f"{prefix}.{key}"
        if expr in skip:
            continue
        if isinstance(value, dict):
            w.write(level, f"{_smart_label(key)}:\n")
            _unstructured(w, level + 1, value, expr, skip)
        elif isinstance(value, list):
            w.write(level, f"{_smart_label(key)}:\n")
            for child in value:
                if isinstance(child, dict):
                    _unstructured(w, level + 1, child, expr, skip)
                else:
                    w.write(level + 1, f"{_go(child)}\n")
        else:
            w.write(level, f"{_smart_label(key)}:\t{_go(value)}\n")


def _go(value: Any) -> str:
    from simulators.lab.kubectl.printing import go_sprint

    return go_sprint(value)


def describe_generic(cluster: ClusterAPI, obj: Obj, events: bool = True) -> str:
    w = Writer()
    m = meta(obj)
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    _labels(w, "Labels", m.get("labels"))
    _annotations(w, "Annotations", m.get("annotations"))
    skip = {
        ".metadata.managedFields",
        ".metadata.name",
        ".metadata.namespace",
        ".metadata.labels",
        ".metadata.annotations",
    }
    _unstructured(w, 0, obj, "", skip)
    if events:
        _events(cluster, w, obj)
    return w.text()


Describer = Callable[[ClusterAPI, Obj, bool], str]
DESCRIBERS: dict[str, Describer] = {
    "pods": describe_pod,
    "nodes": describe_node,
    "configmaps": describe_configmap,
    "namespaces": describe_namespace,
    "daemonsets.apps": describe_daemonset,
    "deployments.apps": describe_deployment,
    "replicasets.apps": describe_replicaset,
    "serviceaccounts": describe_serviceaccount,
    "services": describe_service,
}


def describe(cluster: ClusterAPI, info: ResourceInfo, obj: Obj, events: bool = True) -> str:
    return DESCRIBERS.get(info.key, describe_generic)(cluster, obj, events)


def run(ctx: Context, parsed: Parsed) -> Output:
    cluster = ctx.api
    all_ns = parsed.has("all-namespaces")
    ns = None if all_ns else namespace(parsed)
    args = parsed.positionals
    if not args:
        raise KubectlError(
            'error: You must specify the type of resource to describe. Use "kubectl '
            'api-resources" for a complete list of supported resources.'
        )
    groups = targets(cluster, args, verb="describe")
    found: list[tuple[ResourceInfo, Obj]] = []
    errors: list[str] = []
    prefix_match = False
    selector = parsed.value("selector") or ""
    for group in groups:
        scope = ns if group.info.namespaced else None
        if group.names:
            for name in group.names:
                try:
                    found.append((group.info, cluster.get(group.info.key, name, scope)))
                except ApiError as exc:
                    if exc.reason == "NotFound" and len(args) == 2 and "/" not in args[0]:
                        # describe matches by name prefix when the exact name is not found.
                        listed = cluster.list(group.info.key, scope).get("items", [])
                        matches = [
                            o for o in listed if str(meta(o).get("name", "")).startswith(name)
                        ]
                        if matches:
                            found += [(group.info, o) for o in matches]
                            prefix_match = True
                            continue
                    errors.append(error_text(exc))
        else:
            try:
                listed = cluster.list(group.info.key, scope, label_selector=selector)
            except ApiError as exc:
                errors.append(error_text(exc))
                continue
            found += [(group.info, o) for o in listed.get("items", [])]
    # kubectl shows events for one object found by its exact name (or when asked to).
    show_events = parsed.has("show-events") or (len(found) <= 1 and not errors and not prefix_match)
    texts = [describe(cluster, info, obj, show_events) for info, obj in found]
    if not found and not errors:
        if all_ns:
            return Output("No resources found")
        return Output(f"No resources found in {ns} namespace.")
    text = "\n\n".join(texts).rstrip("\n")
    parts = [p for p in [text, *errors] if p]
    return Output("\n".join(parts), 1 if errors else 0)


__all__ = ["describe", "describe_node", "describe_pod", "resolve", "run"]
