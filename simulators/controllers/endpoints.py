"""The Endpoints and EndpointSlice controllers, and the API server's own ``kubernetes`` endpoints.

For each Service with a selector: one Endpoints object of the same name (the service's labels;
ready pods under ``addresses``, the others under ``notReadyAddresses``, sorted by IP; the
service's ports with their target port numbers) and one EndpointSlice ``<service>-<5 chars>``
(owned by the service, labelled ``kubernetes.io/service-name`` and managed by
``endpointslice-controller.k8s.io``; each pod an endpoint with its ready/serving/terminating
conditions). Only pods with an IP count. The ``kubernetes`` Service in ``default`` has no
selector: the API server keeps its endpoints at its own address, ``10.0.0.10:6443`` (the lab's
kubeconfig's server). Objects change only when what they hold changes.
"""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.patches import deep_copy
from simulators.controllers.util import (
    get_or_none,
    is_deleting,
    items,
    name_of,
    namespace_of,
    owner_ref,
    spec,
    status,
    uid_of,
)
from simulators.controllers.workload_pods import pod_ready

API_SERVER = ("10.0.0.10", 6443)
SLICES = "endpointslices.discovery.k8s.io"
MANAGED_BY = "endpointslice-controller.k8s.io"


def _ports(service: Obj) -> list[Obj]:
    ports: list[Obj] = []
    for port in spec(service).get("ports") or []:
        target = port.get("targetPort", port.get("port"))
        entry: Obj = {
            "port": target if isinstance(target, int) else port.get("port"),
            "protocol": port.get("protocol", "TCP"),
        }
        if port.get("name"):
            entry = {"name": port["name"], **entry}
        ports.append(entry)
    return ports


def _matches(selector: dict[str, Any], pod: Obj) -> bool:
    labels = pod.get("metadata", {}).get("labels") or {}
    return all(labels.get(k) == v for k, v in selector.items())


def _target(pod: Obj) -> Obj:
    return {"kind": "Pod", "name": name_of(pod), "namespace": namespace_of(pod), "uid": uid_of(pod)}


def _ip_key(pod: Obj) -> tuple[int, ...]:
    return tuple(int(p) for p in str(status(pod).get("podIP", "0")).split(".") if p.isdigit())


def _write(api: ClusterAPI, resource: str, current: Obj | None, wanted: Obj, ns: str) -> None:
    if current is None:
        api.create(resource, wanted, ns)
        return
    keys = [k for k in wanted if k not in ("metadata", "apiVersion", "kind")]
    labels = wanted["metadata"].get("labels")
    if all(current.get(k) == wanted[k] for k in keys) and current["metadata"].get("labels") == (
        labels
    ):
        return
    updated = deep_copy(current)
    for key in keys:
        updated[key] = wanted[key]
    for key in [
        k for k in updated if k not in keys and k not in ("metadata", "apiVersion", "kind")
    ]:
        del updated[key]
    updated["metadata"]["labels"] = labels
    try:
        api.update(resource, updated, ns)
    except ApiError as error:
        if error.code != 409:  # a conflict is fixed next step
            raise


def _sync(api: ClusterAPI, service: Obj, pods: list[Obj]) -> None:
    ns, name = namespace_of(service), name_of(service)
    labels = dict(service.get("metadata", {}).get("labels") or {})
    ports = _ports(service)
    ready = sorted((p for p in pods if pod_ready(p) and not is_deleting(p)), key=_ip_key)
    waiting = sorted((p for p in pods if p not in ready), key=_ip_key)

    def address(pod: Obj) -> Obj:
        entry: Obj = {"ip": status(pod)["podIP"]}
        if spec(pod).get("nodeName"):
            entry["nodeName"] = spec(pod)["nodeName"]
        entry["targetRef"] = _target(pod)
        return entry

    subset: Obj = {}
    if ready:
        subset["addresses"] = [address(p) for p in ready]
    if waiting:
        subset["notReadyAddresses"] = [address(p) for p in waiting]
    endpoints: Obj = {"metadata": {"name": name, "namespace": ns, "labels": labels}}
    if subset:
        endpoints["subsets"] = [{**subset, "ports": ports}]
    _write(api, "endpoints", get_or_none(api, "endpoints", name, ns), endpoints, ns)

    slice_labels = {
        **labels,
        "endpointslice.kubernetes.io/managed-by": MANAGED_BY,
        "kubernetes.io/service-name": name,
    }
    slice_obj: Obj = {
        "metadata": {
            "generateName": f"{name}-",
            "namespace": ns,
            "labels": slice_labels,
            "ownerReferences": [owner_ref({"apiVersion": "v1", "kind": "Service", **service})],
        },
        "addressType": "IPv4",
        "endpoints": [
            {
                "addresses": [status(p)["podIP"]],
                "conditions": {
                    "ready": p in ready,
                    "serving": pod_ready(p),
                    "terminating": is_deleting(p),
                },
                **({"nodeName": spec(p)["nodeName"]} if spec(p).get("nodeName") else {}),
                "targetRef": _target(p),
            }
            for p in sorted(pods, key=_ip_key)
        ],
        # A slice's ports always carry their name ("" when the service's port has none).
        "ports": [{"name": "", **port} for port in ports],
    }
    existing = [
        s
        for s in items(api, SLICES, ns)
        if (s.get("metadata", {}).get("labels") or {}).get("kubernetes.io/service-name") == name
    ]
    _write(api, SLICES, existing[0] if existing else None, slice_obj, ns)


def _api_server_endpoints(api: ClusterAPI) -> None:
    ip, port = API_SERVER
    endpoints: Obj = {
        "metadata": {
            "name": "kubernetes",
            "namespace": "default",
            "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"},
        },
        "subsets": [
            {
                "addresses": [{"ip": ip}],
                "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
            }
        ],
    }
    _write(
        api,
        "endpoints",
        get_or_none(api, "endpoints", "kubernetes", "default"),
        endpoints,
        "default",
    )
    slice_obj: Obj = {
        "metadata": {
            "name": "kubernetes",
            "namespace": "default",
            "labels": {"kubernetes.io/service-name": "kubernetes"},
        },
        "addressType": "IPv4",
        "endpoints": [{"addresses": [ip], "conditions": {"ready": True}}],
        "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
    }
    _write(api, SLICES, get_or_none(api, SLICES, "kubernetes", "default"), slice_obj, "default")


def run(api: ClusterAPI) -> None:
    """Keep every Service's Endpoints and EndpointSlice in step with its pods."""
    services = items(api, "services")
    if not services:
        return
    # Only the namespaces of services with a selector have pods to read (kube-system's DNS).
    pods_by_ns: dict[str, list[Obj]] = {}
    for ns in sorted({namespace_of(s) for s in services if spec(s).get("selector")}):
        pods_by_ns[ns] = [
            pod
            for pod in items(api, "pods", ns)
            if (pod_status := pod.get("status") or {}).get("podIP")
            and pod_status.get("phase") not in ("Succeeded", "Failed")
        ]
    for service in services:
        if is_deleting(service):
            continue
        selector = spec(service).get("selector")
        if not selector:
            if (namespace_of(service), name_of(service)) == ("default", "kubernetes"):
                _api_server_endpoints(api)
            continue
        pods = [p for p in pods_by_ns.get(namespace_of(service), []) if _matches(selector, p)]
        _sync(api, service, pods)
