"""Go's JSON field order for the typed objects kubectl prints with -o json (a created object is
printed from its Go struct, so its fields come in declaration order; a map's keys sorted)."""

from __future__ import annotations

from typing import Any

# The Go structs' field order, merged into one order that agrees with each of them (Pod,
# Deployment, Job, Service, Secret, ConfigMap, ServiceAccount, Namespace and their parts): kubectl
# prints a typed object's JSON in field order, a map's keys sorted.
FIELD_ORDER = {
    key: rank
    for rank, key in enumerate(
        [
            "kind",
            "apiVersion",
            "metadata",
            "name",
            "generateName",
            "namespace",
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "labels",
            "annotations",
            "ownerReferences",
            "finalizers",
            "immutable",
            "data",
            "stringData",
            "binaryData",
            "secrets",
            "imagePullSecrets",
            "automountServiceAccountToken",
            "subjects",
            "roleRef",
            "spec",
            "schedule",
            "volumes",
            "initContainers",
            "containers",
            "image",
            "command",
            "args",
            "workingDir",
            "ports",
            "replicas",
            "parallelism",
            "completions",
            "hostPort",
            "containerPort",
            "protocol",
            "port",
            "targetPort",
            "nodePort",
            "envFrom",
            "env",
            "value",
            "resources",
            "minAvailable",
            "selector",
            "maxUnavailable",
            "template",
            "jobTemplate",
            "strategy",
            "restartPolicy",
            "dnsPolicy",
            "clusterIP",
            "type",
            "externalName",
            "ingressClassName",
            "defaultBackend",
            "tls",
            "rules",
            "host",
            "http",
            "paths",
            "path",
            "pathType",
            "backend",
            "service",
            "number",
            "preemptionPolicy",
            "description",
            "globalDefault",
            "hard",
            "status",
            "observedGeneration",
            "disruptionsAllowed",
            "currentHealthy",
            "desiredHealthy",
            "expectedPods",
            "loadBalancer",
        ]
    )
}
# Structs whose order differs from the merged one, by the field that holds them.
OVERRIDES = {
    "roleRef": ("apiGroup", "kind", "name"),
    "subjects": ("kind", "apiGroup", "name", "namespace"),
}
_MAPS = {
    "labels",
    "annotations",
    "data",
    "stringData",
    "binaryData",
    "matchLabels",
    "nodeSelector",
    "limits",
    "requests",
    "hard",
}


def struct_order(value: Any, key: str = "") -> Any:
    """`value` with each typed object's fields in Go's order (maps keep sorted keys)."""
    if isinstance(value, list):
        return [struct_order(v, key) for v in value]
    if not isinstance(value, dict):
        return value
    is_map = key in _MAPS or (key == "selector" and all(isinstance(v, str) for v in value.values()))
    if is_map:
        return {k: value[k] for k in sorted(value)}
    if key in OVERRIDES:
        order = OVERRIDES[key]
        keys = sorted(value, key=lambda k: (order.index(k) if k in order else len(order), k))
    else:
        keys = sorted(value, key=lambda k: (FIELD_ORDER.get(k, len(FIELD_ORDER)), k))
    return {k: struct_order(value[k], k) for k in keys}
