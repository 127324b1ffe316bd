"""The typed objects kubectl prints for `kubectl set` under --local or a client dry run: the
object it decoded into its Go struct, so every struct field Go encodes even when empty or zero
(a status, `resources: {}`, a template's `metadata: {}`, a binding's roleRef) is there, as
`kubectl set env -f deploy.yaml --local -o yaml` shows beside what the file held."""

from __future__ import annotations

import copy
from typing import Any

from simulators.cluster.api import Obj, ResourceInfo

# The kinds whose pod spec is their template's (polymorphichelpers.UpdatePodSpecForObject).
TEMPLATED = {
    ("", "ReplicationController"),
    ("apps", "Deployment"),
    ("apps", "DaemonSet"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("extensions", "Deployment"),
    ("extensions", "DaemonSet"),
    ("extensions", "ReplicaSet"),
    ("batch", "Job"),
}

# The status fields Go encodes even at their zero value (no `omitempty`).
_ZERO_STATUS: dict[tuple[str, str], dict[str, Any]] = {
    ("", "Pod"): {},
    ("", "ReplicationController"): {"replicas": 0},
    ("", "Service"): {"loadBalancer": {}},
    ("apps", "Deployment"): {},
    ("apps", "DaemonSet"): {
        "currentNumberScheduled": 0,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": 0,
        "numberReady": 0,
    },
    ("apps", "ReplicaSet"): {"replicas": 0},
    ("apps", "StatefulSet"): {"replicas": 0, "availableReplicas": 0},
    ("batch", "Job"): {},
    ("batch", "CronJob"): {},
}
# The spec fields Go encodes even at their zero value, beside the pod template's.
_ZERO_SPEC: dict[tuple[str, str], dict[str, Any]] = {
    ("apps", "Deployment"): {"selector": None, "strategy": {}},
    ("apps", "DaemonSet"): {"selector": None, "updateStrategy": {}},
    ("apps", "ReplicaSet"): {"selector": None},
    ("apps", "StatefulSet"): {"selector": None, "serviceName": "", "updateStrategy": {}},
}


def typed(info: ResourceInfo, obj: Obj) -> Obj:
    """`obj` as kubectl prints the typed object it decoded (a file's object under --local, or
    what a client dry run changed): the struct fields Go encodes even when empty or zero (a
    status, `resources: {}`, a template's `metadata: {}`, a binding's roleRef) filled in."""
    kind = (info.group, info.kind)
    out = copy.deepcopy(obj)
    if kind in _ZERO_STATUS:
        status = out.get("status")
        out["status"] = {**_ZERO_STATUS[kind], **(status if isinstance(status, dict) else {})}
    if kind in _ZERO_SPEC or kind in TEMPLATED or kind in (("", "Pod"), ("batch", "CronJob")):
        spec = out.get("spec")
        spec = out["spec"] = {
            **_ZERO_SPEC.get(kind, {}),
            **(spec if isinstance(spec, dict) else {}),
        }
        if kind == ("", "Pod"):
            _typed_pod_spec(spec)
        elif kind == ("batch", "CronJob"):
            job = spec.setdefault("jobTemplate", {})
            job.setdefault("metadata", {})
            _typed_template(job.setdefault("spec", {}))
        else:
            _typed_template(spec)
    if kind == ("", "Service"):
        spec = out.setdefault("spec", {})
        for port in spec.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("targetPort", 0)
    if info.group == "rbac.authorization.k8s.io" and info.kind in (
        "RoleBinding",
        "ClusterRoleBinding",
    ):
        ref = out.get("roleRef")
        out["roleRef"] = {
            "apiGroup": "",
            "kind": "",
            "name": "",
            **(ref if isinstance(ref, dict) else {}),
        }
    return out


def _typed_template(spec: dict[str, Any]) -> None:
    template = spec.get("template")
    if not isinstance(template, dict):
        template = spec["template"] = {}
    template.setdefault("metadata", {})
    pod = template.get("spec")
    _typed_pod_spec(pod if isinstance(pod, dict) else template.setdefault("spec", {}))


def _typed_pod_spec(spec: dict[str, Any]) -> None:
    spec.setdefault("containers", None)
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            if isinstance(container, dict):
                container.setdefault("resources", {})
