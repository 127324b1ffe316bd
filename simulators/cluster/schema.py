"""The types of the fields that the controllers and printers compute with, checked before a
write is stored.

kube-apiserver decodes every body into its Go type, so ``{"spec": {"replicas": "x"}}`` never
reaches etcd: a create or an update is a 400 (``Deployment in version "v1" cannot be handled as
a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of
type int32``), a merge or JSON patch a 422 whose cause is the patched document
(``patch: Invalid value: "{...}": json: cannot unmarshal ...``). The store holds plain JSON, so
this module checks the fields whose type the simulated cluster relies on (counts, switches,
maps of strings); a wrong one stored would break every later step of the controllers.
"""

from __future__ import annotations

import json
from typing import Any

from simulators.cluster.api import ApiError, Obj, ResourceInfo

INT32 = "int32"
INT64 = "int64"
BOOL = "bool"
STRING = "string"
STRING_MAP = "map[string]string"

# kind -> (path, Go struct holding the field, Go type). Paths are the JSON field names.
_SPEC_FIELDS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "Deployment": (
        ("spec.replicas", "DeploymentSpec", INT32),
        ("spec.minReadySeconds", "DeploymentSpec", INT32),
        ("spec.revisionHistoryLimit", "DeploymentSpec", INT32),
        ("spec.progressDeadlineSeconds", "DeploymentSpec", INT32),
        ("spec.paused", "DeploymentSpec", BOOL),
    ),
    "ReplicaSet": (
        ("spec.replicas", "ReplicaSetSpec", INT32),
        ("spec.minReadySeconds", "ReplicaSetSpec", INT32),
    ),
    "StatefulSet": (
        ("spec.replicas", "StatefulSetSpec", INT32),
        ("spec.minReadySeconds", "StatefulSetSpec", INT32),
    ),
    "DaemonSet": (("spec.minReadySeconds", "DaemonSetSpec", INT32),),
    "Job": (
        ("spec.parallelism", "JobSpec", INT32),
        ("spec.completions", "JobSpec", INT32),
        ("spec.backoffLimit", "JobSpec", INT32),
        ("spec.activeDeadlineSeconds", "JobSpec", INT64),
        ("spec.ttlSecondsAfterFinished", "JobSpec", INT32),
        ("spec.suspend", "JobSpec", BOOL),
    ),
    "Pod": (
        ("spec.terminationGracePeriodSeconds", "PodSpec", INT64),
        ("spec.activeDeadlineSeconds", "PodSpec", INT64),
        ("spec.priority", "PodSpec", INT32),
        ("spec.nodeName", "PodSpec", STRING),
    ),
    "Node": (("spec.unschedulable", "NodeSpec", BOOL),),
    "ConfigMap": (("data", "ConfigMap", STRING_MAP),),
}
_META_FIELDS = (
    ("metadata.name", "ObjectMeta", STRING),
    ("metadata.namespace", "ObjectMeta", STRING),
    ("metadata.labels", "ObjectMeta", STRING_MAP),
    ("metadata.annotations", "ObjectMeta", STRING_MAP),
)
_RANGES = {INT32: 2**31, INT64: 2**63}

# Custom resources: kind -> (path, OpenAPI type) from their CRDs' schemas (KAI Scheduler's
# deployments/kai-scheduler/crds), the fields the scheduler engine computes with.
_QUEUE_RESOURCE = ("quota", "limit", "overQuotaWeight")
_CRD_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "Queue": (
        ("spec.priority", "integer"),
        *(
            (f"spec.resources.{kind}.{field}", "number")
            for kind in ("gpu", "cpu", "memory")
            for field in _QUEUE_RESOURCE
        ),
    ),
    "PodGroup": (("spec.minMember", "integer"), ("spec.priority", "integer")),
}


def _json_kind(value: Any) -> str:
    """encoding/json's name for a JSON value in an UnmarshalTypeError."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return f"number {value}" if not isinstance(value, int) else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _mismatch(value: Any, go_type: str) -> tuple[str, str] | None:
    """(JSON kind, Go type) if `value` does not decode into `go_type`, else None."""
    if value is None:
        return None
    if go_type in _RANGES:
        if isinstance(value, int) and not isinstance(value, bool):
            if -_RANGES[go_type] <= value < _RANGES[go_type]:
                return None
            return f"number {value}", go_type
        return _json_kind(value), go_type
    if go_type == BOOL:
        return None if isinstance(value, bool) else (_json_kind(value), go_type)
    if go_type == STRING:
        return None if isinstance(value, str) else (_json_kind(value), go_type)
    if not isinstance(value, dict):
        return _json_kind(value), go_type
    for item in value.values():
        if item is not None and not isinstance(item, str):
            return _json_kind(item), STRING
    return None


def type_error(info: ResourceInfo, obj: Obj) -> str | None:
    """encoding/json's error for the first field of `obj` whose value its Go type refuses."""
    for path, struct, go_type in (*_META_FIELDS, *_SPEC_FIELDS.get(info.kind, ())):
        value: Any = obj
        for part in path.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        found = _mismatch(value, go_type)
        if found is not None:
            kind, into = found
            return (
                f"json: cannot unmarshal {kind} into Go struct field {struct}.{path} of type {into}"
            )
    return None


def _openapi_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def check_custom(info: ResourceInfo, obj: Obj) -> None:
    """A custom resource against its CRD's schema: the API server's 422, as its structural
    schema validation words it."""
    for path, wanted in _CRD_FIELDS.get(info.kind, ()):
        value: Any = obj
        for part in path.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            continue
        if wanted == "integer" and isinstance(value, int) and not isinstance(value, bool):
            continue
        if wanted == "number" and isinstance(value, int | float) and not isinstance(value, bool):
            continue
        given = _openapi_type(value)
        name = str((obj.get("metadata") or {}).get("name", ""))
        message = f'Invalid value: "{given}": {path} in body must be of type {wanted}: "{given}"'
        raise ApiError(
            422,
            "Invalid",
            f'{info.kind}.{info.group} "{name}" is invalid: {path}: {message}',
            {
                "name": name,
                "group": info.group,
                "kind": info.kind,
                "causes": [{"reason": "FieldValueTypeInvalid", "message": message, "field": path}],
            },
        )


def check_body(info: ResourceInfo, obj: Obj) -> None:
    """A create's or an update's body: kube-apiserver's 400 if a field has the wrong type."""
    if info.custom:
        check_custom(info, obj)
    error = type_error(info, obj)
    if error is not None:
        raise ApiError(
            400,
            "BadRequest",
            f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: {error}',
        )


def check_patched(info: ResourceInfo, obj: Obj) -> None:
    """A patch's result: kube-apiserver's 422 (the cause holds the patched document)."""
    if info.custom:
        check_custom(info, obj)
    error = type_error(info, obj)
    if error is None:
        return
    value = json.dumps(json.dumps(obj, separators=(",", ":"), default=str))
    message = f"Invalid value: {value}: {error}"
    raise ApiError(
        422,
        "Invalid",
        f' "" is invalid: patch: {message}',
        {"causes": [{"reason": "FieldValueInvalid", "message": message, "field": "patch"}]},
    )
