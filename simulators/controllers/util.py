"""Small helpers the controllers share: reading objects, owner references, events, requests.

Everything here goes through the :class:`~simulators.cluster.api.ClusterAPI`; nothing
reaches into a store.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj, stored_items
from simulators.cluster.clock import format_time
from simulators.cluster.quantity import QuantityError, parse_quantity

# Kubernetes' rand.SafeEncodeString alphabet: no vowels, no look-alike characters.
SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

DEFAULT_SCHEDULER = "default-scheduler"
RUNAI_SCHEDULER = "runai-scheduler"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def items(api: ClusterAPI, resource: str, namespace: str | None = None, **kw: str) -> list[Obj]:
    """The objects of a list call, sorted by namespace and name for stable controllers.

    Controllers only read what they list (every change goes through a verb), so on the mock
    store they read its objects in place instead of paying for a deep copy of each.
    """
    if not any(kw.values()):
        return stored_items(api, resource, namespace)
    listed = api.list(resource, namespace, **kw)
    objs: list[Obj] = list(listed.get("items", []))
    objs.sort(key=lambda o: (namespace_of(o), name_of(o)))
    return objs


def get_or_none(
    api: ClusterAPI, resource: str, name: str, namespace: str | None = None
) -> Obj | None:
    """The object, or None. On the mock store this is the stored object itself: read only."""
    iterate = getattr(api, "iter_objects", None)
    if iterate is not None:
        for obj in iterate(resource, namespace):
            if obj.get("metadata", {}).get("name") == name:
                result: Obj = obj
                return result
        return None
    try:
        return api.get(resource, name, namespace)
    except ApiError as exc:
        if exc.code == 404:
            return None
        raise


def name_of(obj: Obj) -> str:
    return str(obj.get("metadata", {}).get("name", ""))


def namespace_of(obj: Obj) -> str:
    return str(obj.get("metadata", {}).get("namespace", "") or "")


def uid_of(obj: Obj) -> str:
    return str(obj.get("metadata", {}).get("uid", ""))


def labels_of(obj: Obj) -> dict[str, str]:
    return dict(obj.get("metadata", {}).get("labels") or {})


def annotations_of(obj: Obj) -> dict[str, str]:
    return dict(obj.get("metadata", {}).get("annotations") or {})


def spec(obj: Obj) -> dict[str, Any]:
    value = obj.get("spec") or {}
    assert isinstance(value, dict)
    return value


def status(obj: Obj) -> dict[str, Any]:
    value = obj.get("status") or {}
    assert isinstance(value, dict)
    return value


def dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def is_deleting(obj: Obj) -> bool:
    return bool(obj.get("metadata", {}).get("deletionTimestamp"))


def owner_ref(owner: Obj, *, controller: bool = True) -> dict[str, Any]:
    return {
        "apiVersion": owner.get("apiVersion", "v1"),
        "kind": owner.get("kind", ""),
        "name": name_of(owner),
        "uid": uid_of(owner),
        "controller": controller,
        "blockOwnerDeletion": True,
    }


def controller_of(obj: Obj) -> dict[str, Any] | None:
    for ref in obj.get("metadata", {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return dict(ref)
    return None


def owned_by(obj: Obj, owner: Obj) -> bool:
    ref = controller_of(obj)
    return ref is not None and ref.get("uid") == uid_of(owner)


def timestamp(api: ClusterAPI) -> str:
    return format_time(api.now())


def stable_hash(*parts: object) -> int:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def sha256_hex(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()


# ---------------------------------------------------------------------------- events


def emit(
    api: ClusterAPI,
    involved: Obj,
    type_: str,
    reason: str,
    message: str,
    component: str,
    host: str | None = None,
) -> None:
    """Record an Event as the component would (aggregated like the event recorder does).

    Best effort, like client-go's recorder, which drops an event the API server refuses
    (over the quota, say) rather than fail the controller's sync.
    """
    from simulators.cluster.events import record_event

    with contextlib.suppress(ApiError):
        record_event(api, involved, type_, reason, message, component, host=host)


# ---------------------------------------------------------------------------- resources


def quantity(value: object) -> Decimal:
    try:
        return parse_quantity(value)
    except QuantityError:
        return Decimal(0)


def pod_requests(pod: Obj) -> dict[str, Decimal]:
    """What a pod asks the scheduler for: the sum of its containers' requests.

    As the API server defaults them, a limit without a request counts as the request
    (always so for extended resources such as nvidia.com/gpu). Init containers take
    the maximum, as kube-scheduler computes it.
    """
    total: dict[str, Decimal] = {}
    for container in spec(pod).get("containers") or []:
        for key, value in container_requests(container).items():
            total[key] = total.get(key, Decimal(0)) + value
    for container in spec(pod).get("initContainers") or []:
        for key, value in container_requests(container).items():
            total[key] = max(total.get(key, Decimal(0)), value)
    return total


def container_requests(container: dict[str, Any]) -> dict[str, Decimal]:
    resources = container.get("resources") or {}
    requests = dict(resources.get("requests") or {})
    for key, value in (resources.get("limits") or {}).items():
        requests.setdefault(key, value)
    return {str(k): quantity(v) for k, v in requests.items()}


def gpu_requests(pod: Obj) -> dict[str, Decimal]:
    return {k: v for k, v in pod_requests(pod).items() if k.startswith("nvidia.com/") and v > 0}


def holds_resources(pod: Obj) -> bool:
    """A pod counts against its node until it has finished (Succeeded or Failed)."""
    return bool(spec(pod).get("nodeName")) and status(pod).get("phase") not in (
        "Succeeded",
        "Failed",
    )


def node_allocatable(node: Obj) -> dict[str, Decimal]:
    return {str(k): quantity(v) for k, v in (status(node).get("allocatable") or {}).items()}


def node_usage(pods: Iterable[Obj], node_name: str) -> tuple[dict[str, Decimal], int]:
    """Requests held on a node by its pods, and how many pods it runs."""
    used: dict[str, Decimal] = {}
    count = 0
    for pod in pods:
        if spec(pod).get("nodeName") != node_name or not holds_resources(pod):
            continue
        count += 1
        for key, value in pod_requests(pod).items():
            used[key] = used.get(key, Decimal(0)) + value
    return used, count


def tolerates(tolerations: list[dict[str, Any]], taint: dict[str, Any]) -> bool:
    """core/v1 Toleration.ToleratesTaint."""
    for tol in tolerations or []:
        effect = tol.get("effect", "")
        if effect and effect != taint.get("effect"):
            continue
        key = tol.get("key", "")
        operator = tol.get("operator", "Equal") or "Equal"
        if key == "" and operator == "Exists":
            return True
        if key != taint.get("key"):
            continue
        if operator == "Exists":
            return True
        if operator == "Equal" and str(tol.get("value", "")) == str(taint.get("value", "")):
            return True
    return False


def untolerated_taint(
    node: Obj,
    tolerations: list[dict[str, Any]],
    effects: tuple[str, ...] = ("NoSchedule", "NoExecute"),
) -> dict[str, Any] | None:
    for taint in spec(node).get("taints") or []:
        if taint.get("effect") not in effects:
            continue
        if not tolerates(tolerations, taint):
            return dict(taint)
    return None


def matches_node_selector(pod_spec: dict[str, Any], node: Obj) -> bool:
    """nodeSelector plus required node affinity (matchExpressions with In/NotIn/Exists)."""
    labels = labels_of(node)
    for key, value in (pod_spec.get("nodeSelector") or {}).items():
        if labels.get(key) != str(value):
            return False
    required = dig(
        pod_spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"
    )
    terms = (required or {}).get("nodeSelectorTerms") if isinstance(required, dict) else None
    if not terms:
        return True
    return any(_term_matches(term, labels, node) for term in terms)


def _term_matches(term: dict[str, Any], labels: dict[str, str], node: Obj) -> bool:
    for expr in term.get("matchExpressions") or []:
        if not _expr_matches(expr, labels):
            return False
    fields = {"metadata.name": name_of(node)}
    for expr in term.get("matchFields") or []:
        if not _expr_matches(expr, fields):
            return False
    return bool(term.get("matchExpressions") or term.get("matchFields"))


def _expr_matches(expr: dict[str, Any], labels: dict[str, str]) -> bool:
    key = str(expr.get("key", ""))
    op = expr.get("operator")
    values = [str(v) for v in expr.get("values") or []]
    if op == "In":
        return labels.get(key) in values
    if op == "NotIn":
        return labels.get(key) not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    if op in ("Gt", "Lt") and key in labels and values:
        try:
            have, want = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want
    return False
