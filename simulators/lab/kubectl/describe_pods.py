"""kubectl describe for pods and nodes: the two describers a GPU learner reads most.

``describe_node`` includes the node's lease, its non-terminated pods and the allocated resources
(GPUs among them), summed as kubectl's resourcehelper does.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.quantity import QuantityError, parse_quantity
from simulators.lab.kubectl.common import meta, read_list, rfc1123z, since
from simulators.lab.kubectl.describe_common import (
    Writer,
    controller_of,
    dig,
    write_annotations,
    write_containers,
    write_events,
    write_labels,
    write_labels_and_annotations,
    write_taints,
    write_tolerations,
    write_volumes,
)


def _qos(pod: Obj) -> str:
    containers = dig(pod, "spec", "containers") or []
    requests: list[dict[str, Any]] = []
    limits: list[dict[str, Any]] = []
    for c in containers:
        requests.append(dig(c, "resources", "requests") or {})
        limits.append(dig(c, "resources", "limits") or {})
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
    write_labels_and_annotations(w, m)
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
    controlled = controller_of(pod)
    if controlled:
        w.write(0, f"Controlled By:\t{controlled}\n")
    if status.get("nominatedNodeName"):
        w.write(0, f"NominatedNodeName:\t{status['nominatedNodeName']}\n")
    if spec.get("initContainers"):
        write_containers(
            w,
            "Init Containers",
            spec["initContainers"],
            status.get("initContainerStatuses") or [],
            "",
            pod,
        )
    write_containers(
        w, "Containers", spec.get("containers"), status.get("containerStatuses") or [], "", pod
    )
    conditions = status.get("conditions") or []
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\n")
        for c in conditions:
            w.write(1, f"{c.get('type', '')} \t{c.get('status', '')} \n")
    write_volumes(w, spec.get("volumes"), "")
    w.write(0, f"QoS Class:\t{status.get('qosClass') or _qos(pod)}\n")
    write_labels(w, "Node-Selectors", spec.get("nodeSelector"))
    write_tolerations(w, "Tolerations", spec.get("tolerations"))
    if events:
        write_events(cluster, w, pod)
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
    for c in dig(pod, "spec", "containers") or []:
        for name, value in (dig(c, "resources", key) or {}).items():
            totals[name] = totals.get(name, Decimal(0)) + _q(value)
    for c in dig(pod, "spec", "initContainers") or []:
        for name, value in (dig(c, "resources", key) or {}).items():
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
    write_labels(w, "Labels", labels)
    write_annotations(w, "Annotations", m.get("annotations"))
    w.write(0, f"CreationTimestamp:\t{rfc1123z(str(m.get('creationTimestamp', '')))}\n")
    write_taints(w, "Taints", spec.get("taints"))
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
    try:
        _node_resources(cluster, w, node)
    except ApiError as exc:
        # A user who may see the node but not its pods (canViewPods).
        if exc.code != 403:
            raise
        w.write(0, "Pods:\tnot authorized\n")
    if events:
        write_events(cluster, w, node)
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
    # The field selector kubectl's node describer sends.
    selector = f"spec.nodeName={name},status.phase!=Failed,status.phase!=Succeeded"
    pods = read_list(cluster, "pods", field_selector=selector)
    return [
        p
        for p in pods
        if dig(p, "spec", "nodeName") == name
        and dig(p, "status", "phase") not in ("Succeeded", "Failed")
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
