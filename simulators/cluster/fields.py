"""Strict field validation: the fields a built-in kind declares, for ``fieldValidation=Strict``.

kubectl (≥1.27) asks the API server to refuse unknown fields, so a typo in a manifest
(``contianers:``) is an error, not a silently dropped field. The shapes below cover the
objects a learner writes (pods and the workloads around them, config maps, secrets,
namespaces, services); deeper structures (probes, affinity, volume sources) are not checked.
Custom resources are not checked either.
"""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ApiError, Obj, ResourceInfo

# A shape: None (anything), a dict of field -> shape, or a one-item list [shape] for a list
# whose items have that shape.
Shape = Any

_META: Shape = dict.fromkeys(
    (
        "annotations",
        "creationTimestamp",
        "deletionGracePeriodSeconds",
        "deletionTimestamp",
        "finalizers",
        "generateName",
        "generation",
        "labels",
        "managedFields",
        "name",
        "namespace",
        "ownerReferences",
        "resourceVersion",
        "selfLink",
        "uid",
    )
)
_RESOURCES: Shape = {"claims": None, "limits": None, "requests": None}
_CONTAINER: Shape = {
    **dict.fromkeys(
        (
            "args",
            "command",
            "env",
            "envFrom",
            "image",
            "imagePullPolicy",
            "lifecycle",
            "livenessProbe",
            "name",
            "ports",
            "readinessProbe",
            "resizePolicy",
            "restartPolicy",
            "securityContext",
            "startupProbe",
            "stdin",
            "stdinOnce",
            "terminationMessagePath",
            "terminationMessagePolicy",
            "tty",
            "volumeDevices",
            "volumeMounts",
            "workingDir",
        )
    ),
    "resources": _RESOURCES,
}
_POD_SPEC: Shape = {
    **dict.fromkeys(
        (
            "activeDeadlineSeconds",
            "affinity",
            "automountServiceAccountToken",
            "dnsConfig",
            "dnsPolicy",
            "enableServiceLinks",
            "ephemeralContainers",
            "hostAliases",
            "hostIPC",
            "hostNetwork",
            "hostPID",
            "hostUsers",
            "hostname",
            "imagePullSecrets",
            "nodeName",
            "nodeSelector",
            "os",
            "overhead",
            "preemptionPolicy",
            "priority",
            "priorityClassName",
            "readinessGates",
            "resourceClaims",
            "restartPolicy",
            "runtimeClassName",
            "schedulerName",
            "schedulingGates",
            "securityContext",
            "serviceAccount",
            "serviceAccountName",
            "setHostnameAsFQDN",
            "shareProcessNamespace",
            "subdomain",
            "terminationGracePeriodSeconds",
            "tolerations",
            "topologySpreadConstraints",
            "volumes",
        )
    ),
    "containers": [_CONTAINER],
    "initContainers": [_CONTAINER],
}
_TEMPLATE: Shape = {"metadata": _META, "spec": _POD_SPEC}
_TOP: tuple[str, ...] = ("apiVersion", "kind", "status")


def _top(spec: Shape, **extra: Shape) -> Shape:
    return {**dict.fromkeys(_TOP), "metadata": _META, "spec": spec, **extra}


SHAPES: dict[str, Shape] = {
    "pods": _top(_POD_SPEC),
    "deployments.apps": _top(
        {
            **dict.fromkeys(
                (
                    "minReadySeconds",
                    "paused",
                    "progressDeadlineSeconds",
                    "replicas",
                    "revisionHistoryLimit",
                    "selector",
                    "strategy",
                )
            ),
            "template": _TEMPLATE,
        }
    ),
    "replicasets.apps": _top(
        {**dict.fromkeys(("minReadySeconds", "replicas", "selector")), "template": _TEMPLATE}
    ),
    "daemonsets.apps": _top(
        {
            **dict.fromkeys(
                ("minReadySeconds", "revisionHistoryLimit", "selector", "updateStrategy")
            ),
            "template": _TEMPLATE,
        }
    ),
    "statefulsets.apps": _top(
        {
            **dict.fromkeys(
                (
                    "minReadySeconds",
                    "ordinals",
                    "persistentVolumeClaimRetentionPolicy",
                    "podManagementPolicy",
                    "replicas",
                    "revisionHistoryLimit",
                    "selector",
                    "serviceName",
                    "updateStrategy",
                    "volumeClaimTemplates",
                )
            ),
            "template": _TEMPLATE,
        }
    ),
    "jobs.batch": _top(
        {
            **dict.fromkeys(
                (
                    "activeDeadlineSeconds",
                    "backoffLimit",
                    "backoffLimitPerIndex",
                    "completionMode",
                    "completions",
                    "managedBy",
                    "manualSelector",
                    "maxFailedIndexes",
                    "parallelism",
                    "podFailurePolicy",
                    "podReplacementPolicy",
                    "selector",
                    "successPolicy",
                    "suspend",
                    "ttlSecondsAfterFinished",
                )
            ),
            "template": _TEMPLATE,
        }
    ),
    "configmaps": {
        **dict.fromkeys(("apiVersion", "kind", "binaryData", "data", "immutable")),
        "metadata": _META,
    },
    "secrets": {
        **dict.fromkeys(("apiVersion", "kind", "data", "immutable", "stringData", "type")),
        "metadata": _META,
    },
    "namespaces": _top(None),
    "services": _top(None),
    "serviceaccounts": {
        **dict.fromkeys(
            ("apiVersion", "kind", "automountServiceAccountToken", "imagePullSecrets", "secrets")
        ),
        "metadata": _META,
    },
}


def unknown_fields(resource: str, obj: Obj) -> list[str]:
    """The paths of fields ``obj`` has that its kind does not declare, in kubectl's spelling
    (``spec.containers[0].imagee``); empty for kinds without a shape here."""
    shape = SHAPES.get(resource)
    found: list[str] = []
    if shape is not None:
        _walk(obj, shape, "", found)
    return found


def _walk(value: Any, shape: Shape, path: str, found: list[str]) -> None:
    if shape is None:
        return
    if isinstance(shape, list):
        if isinstance(value, list):
            for index, item in enumerate(value):
                _walk(item, shape[0], f"{path}[{index}]", found)
        return
    if not isinstance(value, dict):
        return
    for key in sorted(value):
        if key.startswith("$"):
            continue  # strategic-merge directives ($patch, $setElementOrder/...)
        where = f"{path}.{key}" if path else key
        if key not in shape:
            found.append(where)
        else:
            _walk(value[key], shape[key], where, found)


def check_fields(info: ResourceInfo, obj: Obj) -> None:
    """Raise the API server's strict-decoding error when ``obj`` has unknown fields."""
    unknown = unknown_fields(info.key, obj)
    if unknown:
        listed = ", ".join(f'unknown field "{path}"' for path in unknown)
        raise ApiError(
            400,
            "BadRequest",
            f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: '
            f"strict decoding error: {listed}",
        )
