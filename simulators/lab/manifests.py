"""Objects to Kubernetes manifests (for -o yaml/json/jsonpath) and manifests to objects.

`kubectl apply -f` and `create -f` read the home folder's YAML through here;
`kubectl get -o yaml` prints what these functions build. Only the fields the lab
models are kept, but the shapes (apiVersion, kind, metadata, spec, status) are
the real ones so jsonpath expressions from the guide work.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

from simulators.backends.base import (
    DEFAULT_SCHEDULER,
    ClusterPolicy,
    ConfigMap,
    Container,
    Event,
    Node,
    Pod,
    is_valid_quantity,
    parse_quantity,
)
from simulators.lab.state import sim_datetime


class ManifestError(Exception):
    """A manifest kubectl would refuse; the message is kubectl's words."""


def timestamp(seconds: int) -> str:
    return sim_datetime(seconds).strftime("%Y-%m-%dT%H:%M:%SZ")


def load_documents(text: str, filename: str = "-") -> list[dict[str, Any]]:
    try:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or "could not parse"
        raise ManifestError(
            f"error: error parsing {filename}: error converting YAML to JSON: yaml: {line}{problem}"
        ) from None
    for doc in docs:
        if not isinstance(doc, dict):
            raise ManifestError(
                f'error: error validating "{filename}": error validating data: '
                "invalid object to validate"
            )
        if "kind" not in doc or "apiVersion" not in doc:
            missing = "kind" if "kind" not in doc else "apiVersion"
            raise ManifestError(
                f'error: error validating "{filename}": error validating data: '
                f"[{missing} not set]; if you choose to ignore these errors, "
                "turn validation off with --validate=false"
            )
    return docs


def _name(doc: dict[str, Any], filename: str) -> str:
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if not isinstance(name, str) or not name:
        raise ManifestError(
            f'error: error when retrieving current configuration of resource from "{filename}": '
            "resource name may not be empty"
        )
    return name


def _str_dict(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items()}


def pod_from_manifest(
    doc: dict[str, Any], default_namespace: str, created: int, filename: str = "-"
) -> Pod:
    name = _name(doc, filename)
    meta = doc.get("metadata") or {}
    spec = doc.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("containers"), list):
        raise ManifestError(
            f'error: error validating "{filename}": error validating data: '
            'ValidationError(Pod.spec): missing required field "containers" in '
            "io.k8s.api.core.v1.PodSpec; if you choose to ignore these errors, turn validation "
            "off with --validate=false"
        )
    containers: list[Container] = []
    for i, raw in enumerate(spec["containers"]):
        if not isinstance(raw, dict) or not raw.get("name") or not raw.get("image"):
            raise ManifestError(
                f'The Pod "{name}" is invalid: spec.containers[{i}].image: Required value'
            )
        resources = raw.get("resources") or {}
        limits = _str_dict(resources.get("limits") if isinstance(resources, dict) else None)
        requests = _str_dict(resources.get("requests") if isinstance(resources, dict) else None)
        for kind, table in (("limits", limits), ("requests", requests)):
            for key, value in table.items():
                if not is_valid_quantity(value):
                    raise ManifestError(
                        f'Error from server (BadRequest): error when creating "{filename}": '
                        f'Pod in version "v1" cannot be handled as a Pod: quantities must match '
                        f"the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
                    )
                if key.startswith("nvidia.com/") and parse_quantity(value) != int(
                    parse_quantity(value)
                ):
                    raise ManifestError(
                        f'The Pod "{name}" is invalid: spec.containers[{i}].resources.'
                        f'{kind}[{key}]: Invalid value: "{value}": must be an integer'
                    )
        # Extended resources: requests default to limits, as the API server does.
        for key, value in limits.items():
            requests.setdefault(key, value)
        command = raw.get("command") or []
        args = raw.get("args") or []
        containers.append(
            Container(
                name=str(raw["name"]),
                image=str(raw["image"]),
                limits=limits,
                requests=requests,
                command=[str(c) for c in [*command, *args]] if isinstance(command, list) else [],
            )
        )
    namespace = str(meta.get("namespace") or default_namespace)
    return Pod(
        name=name,
        namespace=namespace,
        containers=containers,
        labels=_str_dict(meta.get("labels")),
        node_selector=_str_dict(spec.get("nodeSelector")),
        scheduler_name=str(spec.get("schedulerName") or DEFAULT_SCHEDULER),
        created=created,
        applied_manifest=copy.deepcopy(doc),
    )


def configmap_from_manifest(
    doc: dict[str, Any], default_namespace: str, created: int, filename: str = "-"
) -> ConfigMap:
    name = _name(doc, filename)
    meta = doc.get("metadata") or {}
    data = doc.get("data") or {}
    if not isinstance(data, dict):
        raise ManifestError(
            f'error: error validating "{filename}": error validating data: '
            "ValidationError(ConfigMap.data): invalid type for "
            'io.k8s.api.core.v1.ConfigMap.data: got "string", expected "map"'
        )
    return ConfigMap(
        name=name,
        namespace=str(meta.get("namespace") or default_namespace),
        data={str(k): v if isinstance(v, str) else str(v) for k, v in data.items()},
        labels=_str_dict(meta.get("labels")),
        created=created,
        applied_manifest=copy.deepcopy(doc),
    )


# ---------------------------------------------------------------------------- to manifests


def pod_manifest(pod: Pod, now: int) -> dict[str, Any]:
    containers = []
    for c in pod.containers:
        entry: dict[str, Any] = {"name": c.name, "image": c.image}
        if c.command:
            entry["command"] = list(c.command)
        if c.limits or c.requests:
            entry["resources"] = {}
            if c.limits:
                entry["resources"]["limits"] = dict(c.limits)
            if c.requests:
                entry["resources"]["requests"] = dict(c.requests)
        containers.append(entry)
    metadata: dict[str, Any] = {
        "creationTimestamp": timestamp(pod.created),
        "labels": dict(pod.labels),
        "name": pod.name,
        "namespace": pod.namespace,
    }
    if pod.owner_kind and pod.owner_kind != "RunaiWorkload":
        metadata["ownerReferences"] = [
            {"kind": pod.owner_kind, "name": pod.owner_name, "controller": True}
        ]
    spec: dict[str, Any] = {"containers": containers}
    if pod.node_name:
        spec["nodeName"] = pod.node_name
    if pod.node_selector:
        spec["nodeSelector"] = dict(pod.node_selector)
    if pod.priority_class:
        spec["priorityClassName"] = pod.priority_class
    spec["schedulerName"] = pod.scheduler_name
    spec["serviceAccountName"] = pod.service_account
    status: dict[str, Any] = {"phase": pod.phase}
    if pod.ip:
        status["podIP"] = pod.ip
    if pod.started is not None:
        status["startTime"] = timestamp(pod.started)
    status["containerStatuses"] = [
        {
            "name": c.name,
            "image": c.image,
            "ready": pod.ready_count > 0,
            "restartCount": pod.restarts,
        }
        for c in pod.containers
    ]
    if pod.reason == "CrashLoopBackOff":
        for cs in status["containerStatuses"]:
            cs["state"] = {"waiting": {"reason": "CrashLoopBackOff"}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}


def node_manifest(node: Node) -> dict[str, Any]:
    spec: dict[str, Any] = {"podCIDR": "10.244.0.0/24"}
    if node.unschedulable:
        spec["taints"] = [{"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable"}]
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": dict(node.annotations),
            "creationTimestamp": timestamp(node.created),
            "labels": dict(sorted(node.labels.items())),
            "name": node.name,
        },
        "spec": spec,
        "status": {
            "addresses": [
                {"address": node.internal_ip, "type": "InternalIP"},
                {"address": node.name, "type": "Hostname"},
            ],
            "allocatable": dict(node.allocatable),
            "capacity": dict(node.capacity),
            "nodeInfo": {
                "architecture": "amd64",
                "containerRuntimeVersion": node.container_runtime,
                "kernelVersion": node.kernel_version,
                "kubeletVersion": node.kubelet_version,
                "operatingSystem": "linux",
                "osImage": node.os_image,
            },
        },
    }


def configmap_manifest(cm: ConfigMap) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "creationTimestamp": timestamp(cm.created),
        "name": cm.name,
        "namespace": cm.namespace,
    }
    if cm.labels:
        meta["labels"] = dict(cm.labels)
    return {"apiVersion": "v1", "data": dict(cm.data), "kind": "ConfigMap", "metadata": meta}


def cluster_policy_manifest(policy: ClusterPolicy) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {"creationTimestamp": timestamp(policy.created), "name": policy.name},
        "spec": copy.deepcopy(policy.spec),
        "status": {"namespace": "gpu-operator", "state": policy.state},
    }


def event_manifest(event: Event) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "count": event.count,
        "firstTimestamp": timestamp(event.first_seen),
        "involvedObject": {"kind": event.kind, "name": event.name, "namespace": event.namespace},
        "kind": "Event",
        "lastTimestamp": timestamp(event.last_seen),
        "message": event.message,
        "metadata": {"name": f"{event.name}.{event.first_seen:x}", "namespace": event.namespace},
        "reason": event.reason,
        "source": {"component": event.source},
        "type": event.type,
    }


def list_manifest(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


class _Dumper(yaml.SafeDumper):
    """kubectl prints multi-line strings (a ConfigMap's config.yaml) as literal blocks."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def to_yaml(doc: Any) -> str:
    return str(
        yaml.dump(doc, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=1000)
    )
