"""Admission: what the API server checks and fills in before it stores an object.

Validation (names and labels as RFC 1123 / label syntax, pod containers and extended-resource
requests, the ClusterPolicy enums a learner is likely to patch, pod spec immutability, quantities)
and defaulting (the fields and built-in admission plugins' additions the API server writes on
create and update). These are pure functions of the object; only the ServiceAccount plugin reads
the cluster. ``simulators.cluster.store`` calls them on every write.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

from simulators.cluster import kinds
from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo
from simulators.cluster.patches import deep_copy
from simulators.cluster.quantity import QuantityError, parse_quantity

DEFAULT_GRACE_SECONDS = 30

_DNS1123_SUBDOMAIN = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
_LABEL_KEY_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
    "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
POD_UPDATE_FORBIDDEN = (
    "spec: Forbidden: pod updates may not change fields other than "
    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    "`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
)


# The enums of the GPU Operator's ClusterPolicy schema that a learner is likely to patch; the
# API server checks a custom resource against its CRD's OpenAPI schema on every write.
_CLUSTER_POLICY_ENUMS = {("mig", "strategy"): ("single", "mixed")}


def _cluster_policy_causes(obj: Obj) -> list[tuple[str, str]]:
    causes: list[tuple[str, str]] = []
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    for (section, field), allowed in _CLUSTER_POLICY_ENUMS.items():
        value = (spec.get(section) or {}).get(field) if isinstance(spec, dict) else None
        if value is not None and value not in allowed:
            supported = ", ".join(f'"{v}"' for v in allowed)
            causes.append(
                (
                    f"spec.{section}.{field}",
                    f'Unsupported value: "{value}": supported values: {supported}',
                )
            )
    return causes


def invalid(info: ResourceInfo, name: str, causes: list[tuple[str, str]]) -> ApiError:
    """The API server's 422 Invalid Status for ``causes`` (field, message) on ``name``."""
    text = ", ".join(f"{field}: {msg}" for field, msg in causes)
    if len(causes) > 1:
        text = "[" + text + "]"
    return ApiError(
        422,
        "Invalid",
        f'{info.kind} "{name}" is invalid: {text}',
        {
            "name": name,
            "group": info.group,
            "kind": info.kind,
            "causes": [
                {"reason": "FieldValueInvalid", "message": msg, "field": field}
                for field, msg in causes
            ],
        },
    )


def validate(info: ResourceInfo, obj: Obj) -> None:
    """Raise the API server's 422 Invalid for a bad name, label, pod or ClusterPolicy."""
    meta = obj["metadata"]
    name = str(meta.get("name", ""))
    causes: list[tuple[str, str]] = []
    pattern, msg = (
        (_DNS1123_LABEL, _LABEL_MSG)
        if info.plural in ("namespaces", "services")
        else (_DNS1123_SUBDOMAIN, _SUBDOMAIN_MSG)
    )
    if info.group == "rbac.authorization.k8s.io":
        # RBAC names are path segments ("system:discovery"), as ValidateRBACName checks.
        for bad in ("/", "%"):
            if bad in name:
                causes.append(
                    ("metadata.name", f"Invalid value: \"{name}\": may not contain '{bad}'")
                )
        if name in (".", ".."):
            causes.append(("metadata.name", f"Invalid value: \"{name}\": may not be '{name}'"))
    elif len(name) > 253 or pattern.match(name) is None:
        causes.append(("metadata.name", f'Invalid value: "{name}": {msg}'))
    for key, value in (meta.get("labels") or {}).items():
        if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.match(value):
            causes.append(("metadata.labels", f'Invalid value: "{value}": {_LABEL_VALUE_MSG}'))
        prefix, _, short = str(key).rpartition("/")
        if (
            len(short) > 63
            or not _LABEL_NAME.match(short)
            or (prefix and not _DNS1123_SUBDOMAIN.match(prefix))
        ):
            causes.append(("metadata.labels", f'Invalid value: "{key}": {_LABEL_KEY_MSG}'))
    if info.kind == "Pod":
        causes.extend(_pod_causes(obj))
    if info.kind == "ClusterPolicy":
        causes.extend(_cluster_policy_causes(obj))
    if causes:
        raise invalid(info, name, causes)


def check_quantities(info: ResourceInfo, obj: Obj) -> None:
    """Raise the 400 the API server answers when a quantity cannot be decoded."""
    for _path, value in _quantities(obj):
        try:
            parse_quantity(value)
        except QuantityError as error:
            raise ApiError(
                400,
                "BadRequest",
                f'{info.kind} in version "{info.version}" cannot be handled as a '
                f"{info.kind}: {error}",
            ) from error


def _containers(spec: Obj) -> Iterator[tuple[str, Obj]]:
    for field in ("initContainers", "containers"):
        for index, container in enumerate(spec.get(field) or []):
            if isinstance(container, dict):
                yield f"spec.{field}[{index}]", container


def _pod_spec(obj: Obj) -> Obj | None:
    kind = obj.get("kind")
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return None
    if kind == "Pod":
        return spec
    template = spec.get("template")
    if isinstance(template, dict) and isinstance(template.get("spec"), dict):
        result: Obj = template["spec"]
        return result
    return None


def _quantities(obj: Obj) -> Iterator[tuple[str, Any]]:
    spec = _pod_spec(obj)
    if spec is not None:
        for path, container in _containers(spec):
            resources = container.get("resources") or {}
            for part in ("requests", "limits"):
                for name, value in (resources.get(part) or {}).items():
                    yield f"{path}.resources.{part}[{name}]", value
    if obj.get("kind") == "Node":
        for part in ("capacity", "allocatable"):
            for name, value in (obj.get("status", {}).get(part) or {}).items():
                yield f"status.{part}[{name}]", value


def _pod_causes(pod: Obj) -> list[tuple[str, str]]:
    causes: list[tuple[str, str]] = []
    spec = pod.get("spec") or {}
    if not spec.get("containers"):
        causes.append(("spec.containers", "Required value"))
    for path, container in _containers(spec):
        if not container.get("name"):
            causes.append((f"{path}.name", "Required value"))
        if not container.get("image"):
            causes.append((f"{path}.image", "Required value"))
        resources = container.get("resources") or {}
        for part in ("requests", "limits"):
            for name, value in (resources.get(part) or {}).items():
                if "/" in name and not name.startswith("kubernetes.io/"):
                    quantity = parse_quantity(value)
                    if quantity != int(quantity):
                        causes.append(
                            (
                                f"{path}.resources.{part}[{name}]",
                                f'Invalid value: "{value}": must be an integer',
                            )
                        )
        limits = resources.get("limits") or {}
        for name, value in (resources.get("requests") or {}).items():
            if "/" in name and not name.startswith("kubernetes.io/"):
                if name not in limits:
                    causes.append(
                        (
                            f"{path}.resources.limits",
                            "Required value: Limit must be set for non overcommitable resources",
                        )
                    )
                elif parse_quantity(limits[name]) != parse_quantity(value):
                    causes.append(
                        (
                            f"{path}.resources.requests",
                            f'Invalid value: "{value}": must be equal to {name} limit of '
                            f"{limits[name]}",
                        )
                    )
    return causes


def check_update(info: ResourceInfo, old: Obj, new: Obj, subresource: str | None) -> None:
    """Refuse an update that changes an immutable field (a pod's spec, a binding's roleRef, a
    RuntimeClass's handler: ``ValidateImmutableField``'s "field is immutable")."""
    if info.kind == "Pod" and subresource != "status":
        check_pod_update(info, old, new)
    elif info.kind in ("RoleBinding", "ClusterRoleBinding") and _role_ref(old) != _role_ref(new):
        # ValidateRoleBindingUpdate, the value as Go's %#v of the internal rbac.RoleRef.
        group, kind, ref = (json.dumps(v, ensure_ascii=False) for v in _role_ref(new))
        value = f"rbac.RoleRef{{APIGroup:{group}, Kind:{kind}, Name:{ref}}}"
        _refuse_field(info, old, "roleRef", f"Invalid value: {value}: cannot change roleRef")
    elif info.kind == "RuntimeClass" and old.get("handler") != new.get("handler"):
        handler = new.get("handler") or ""
        _refuse_field(info, old, "handler", f'Invalid value: "{handler}": field is immutable')


def _role_ref(binding: Obj) -> tuple[str, str, str]:
    ref = binding.get("roleRef")
    if not isinstance(ref, dict):
        return ("", "", "")
    return (str(ref.get("apiGroup") or ""), str(ref.get("kind") or ""), str(ref.get("name") or ""))


def _refuse_field(info: ResourceInfo, old: Obj, field: str, message: str) -> None:
    """The API server's 422 for one invalid field of an update."""
    name = str(old["metadata"]["name"])
    raise ApiError(
        422,
        "Invalid",
        f'{info.kind}.{info.group} "{name}" is invalid: {field}: {message}',
        {
            "name": name,
            "group": info.group,
            "kind": info.kind,
            "causes": [{"reason": "FieldValueInvalid", "message": message, "field": field}],
        },
    )


def check_pod_update(info: ResourceInfo, old: Obj, new: Obj) -> None:
    """Refuse a pod update that changes more than the few mutable spec fields."""
    old_spec = deep_copy(old.get("spec") or {})
    new_spec = deep_copy(new.get("spec") or {})
    for spec in (old_spec, new_spec):
        for _, container in _containers(spec):
            container.pop("image", None)
        spec.pop("activeDeadlineSeconds", None)
    old_tol = old_spec.pop("tolerations", None) or []
    new_tol = new_spec.pop("tolerations", None) or []
    tolerations_ok = all(t in new_tol for t in old_tol)
    # Graceful deletion's grace may only go 'negative -> 1'; treat as immutable otherwise.
    if old_spec != new_spec or not tolerations_ok:
        name = str(old["metadata"]["name"])
        raise ApiError(
            422,
            "Invalid",
            f'{info.kind} "{name}" is invalid: {POD_UPDATE_FORBIDDEN}',
            {
                "name": name,
                "kind": info.kind,
                "causes": [
                    {
                        "reason": "FieldValueForbidden",
                        "message": POD_UPDATE_FORBIDDEN[6:],
                        "field": "spec",
                    }
                ],
            },
        )


def _qos(spec: Obj) -> str:
    containers = [c for _, c in _containers(spec)]
    requests_any = False
    guaranteed = True
    for container in containers:
        resources = container.get("resources") or {}
        requests = resources.get("requests") or {}
        limits = resources.get("limits") or {}
        if requests or limits:
            requests_any = True
        for name in ("cpu", "memory"):
            if name not in limits or (
                name in requests and parse_quantity(requests[name]) != parse_quantity(limits[name])
            ):
                guaranteed = False
    if not requests_any:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def _default_pod_spec(spec: Obj) -> None:
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
    spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
    spec.setdefault("priority", 0)
    if "serviceAccountName" in spec or "serviceAccount" in spec:
        account = spec.get("serviceAccountName") or spec.get("serviceAccount")
        spec["serviceAccountName"] = spec["serviceAccount"] = account
    for _, container in _containers(spec):
        image = str(container.get("image", ""))
        tag = image.rpartition("/")[2]
        pull = (
            "Always"
            if (":" not in tag or tag.endswith(":latest")) and "@" not in tag
            else ("IfNotPresent")
        )
        container.setdefault("imagePullPolicy", pull)
        container.setdefault("resources", {})
        resources = container["resources"]
        # The API server copies limits into missing requests.
        for name, value in (resources.get("limits") or {}).items():
            resources.setdefault("requests", {}).setdefault(name, value)
        container.setdefault("terminationMessagePath", "/dev/termination-log")
        container.setdefault("terminationMessagePolicy", "File")
        for port in container.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("protocol", "TCP")


def _service_account_pull_secrets(cluster: ClusterAPI, pod: Obj, spec: Obj) -> None:
    """The ServiceAccount admission plugin: a new pod without imagePullSecrets gets its
    ServiceAccount's, so patching the account helps only pods created afterwards."""
    namespace = str(pod.get("metadata", {}).get("namespace") or "default")
    try:
        account = cluster.get("serviceaccounts", str(spec["serviceAccountName"]), namespace)
    except ApiError:
        return
    secrets = [dict(ref) for ref in account.get("imagePullSecrets") or [] if isinstance(ref, dict)]
    if secrets:
        spec["imagePullSecrets"] = secrets


def _job_selector(job: Obj, spec: Obj, template: Obj) -> None:
    """The Job strategy's generateSelector: the Job's uid selects its pods (``kubectl logs
    job/NAME`` and the Job controller read it)."""
    uid, name = str(job["metadata"].get("uid", "")), str(job["metadata"].get("name", ""))
    spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    labels = template.setdefault("metadata", {}).setdefault("labels", {})
    for key, value in (
        ("batch.kubernetes.io/controller-uid", uid),
        ("batch.kubernetes.io/job-name", name),
        ("controller-uid", uid),
        ("job-name", name),
    ):
        labels.setdefault(key, value)


def _string_data(secret: Obj) -> None:
    """A Secret's ``stringData`` is write-only: the API server's conversion writes each value
    into ``data`` (base64, over a value of the same key) and stores no ``stringData``."""
    given = secret.pop("stringData", None)
    if not isinstance(given, dict) or not given:
        return
    data = secret.get("data")
    data = dict(data) if isinstance(data, dict) else {}
    for key, value in given.items():
        text = value if isinstance(value, str) else str(value)
        data[key] = base64.b64encode(text.encode()).decode()
    secret["data"] = data


def apply_defaults(
    info: ResourceInfo, obj: Obj, cluster: ClusterAPI, *, creating: bool = False
) -> None:
    """What the API server's defaulting and built-in admission add on create and update."""
    kind = info.kind
    if kind == "Pod":
        spec = obj.setdefault("spec", {})
        if "serviceAccountName" not in spec and "serviceAccount" not in spec:
            spec["serviceAccountName"] = spec["serviceAccount"] = "default"
        _default_pod_spec(spec)
        if creating:
            kinds.pod_priority(cluster, spec)
            kinds.pod_runtime_class(cluster, obj)
        if creating and not spec.get("imagePullSecrets"):
            _service_account_pull_secrets(cluster, obj, spec)
        # The DefaultTolerationSeconds admission plugin acts on create only.
        tolerations = spec.setdefault("tolerations", []) if creating else []
        for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
            if not any(t.get("key") == key for t in tolerations):
                tolerations.append(
                    {
                        "key": key,
                        "operator": "Exists",
                        "effect": "NoExecute",
                        "tolerationSeconds": 300,
                    }
                )
        status = obj.setdefault("status", {})
        status.setdefault("phase", "Pending")
        status["qosClass"] = _qos(spec)
    elif kind in ("Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job"):
        spec = obj.setdefault("spec", {})
        template = spec.setdefault("template", {})
        _default_pod_spec(template.setdefault("spec", {}))
        if kind in ("Deployment", "ReplicaSet", "StatefulSet"):
            spec.setdefault("replicas", 1)
        if kind == "Deployment" and not (spec.get("strategy") or {}).get("type"):
            # kubectl's generator sends ``strategy: {}``, which the API server defaults too.
            spec["strategy"] = {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
            }
        if kind == "Deployment":
            spec.setdefault("revisionHistoryLimit", 10)
            spec.setdefault("progressDeadlineSeconds", 600)
        if kind == "DaemonSet":
            spec.setdefault(
                "updateStrategy",
                {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
            )
            spec.setdefault("revisionHistoryLimit", 10)
        if kind == "Job":
            spec.setdefault("backoffLimit", 6)
            spec.setdefault("completions", 1)
            spec.setdefault("parallelism", 1)
            spec.setdefault("completionMode", "NonIndexed")
            spec.setdefault("suspend", False)
            if creating and not spec.get("manualSelector"):
                _job_selector(obj, spec, template)
        obj.setdefault("status", {})
    elif kind == "Namespace":
        name = obj["metadata"]["name"]
        obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = name
        if not obj.get("spec"):  # kubectl create namespace sends ``spec: {}``
            obj["spec"] = {"finalizers": ["kubernetes"]}
        if not obj.get("status"):
            obj["status"] = {"phase": "Active"}
    elif kind == "Service":
        spec = obj.setdefault("spec", {})
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        if "clusterIP" not in spec:
            digest = hashlib.sha256(
                f"{obj['metadata'].get('namespace')}/{obj['metadata']['name']}".encode()
            ).digest()
            spec["clusterIP"] = f"10.{96 + digest[0] % 16}.{digest[1]}.{1 + digest[2] % 254}"
            spec["clusterIPs"] = [spec["clusterIP"]]
        for port in spec.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("protocol", "TCP")
                port.setdefault("targetPort", port.get("port"))
        obj.setdefault("status", {"loadBalancer": {}})
    elif kind == "Secret":
        obj.setdefault("type", "Opaque")
        _string_data(obj)
    elif kind == "CronJob":
        _default_pod_spec(kinds.cronjob_defaults(obj.setdefault("spec", {})))
    elif kind in kinds.DEFAULTS and creating:
        kinds.DEFAULTS[kind](obj, cluster)
