"""An API request as the HTTP server reads it, and the answers that need no stored object.

The resource path (``/api/v1/namespaces/<ns>/<plural>/<name>/<subresource>``) resolved against
the registry, query parameters as the API server parses them, the kind check on a body, and the
documents the server computes itself: access reviews (``access``: from RBAC) and the
autoscaling/v1 ``Scale`` view of a workload.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulators.cluster import access
from simulators.cluster.api import ApiError, Obj, ResourceInfo
from simulators.cluster.printers import format_label_selector, table
from simulators.cluster.seed import seed_defaults
from simulators.cluster.store import MockCluster

# Reviews are answered, never stored: (group, version, resource) -> kind.
REVIEWS: dict[tuple[str, str, str], str] = {
    ("authorization.k8s.io", "v1", "selfsubjectaccessreviews"): "SelfSubjectAccessReview",
    ("authorization.k8s.io", "v1", "selfsubjectrulesreviews"): "SelfSubjectRulesReview",
    ("authentication.k8s.io", "v1", "selfsubjectreviews"): "SelfSubjectReview",
}
PATCH_TYPES = {
    "application/merge-patch+json": "merge",
    "application/json-patch+json": "json",
    "application/strategic-merge-patch+json": "strategic",
}


def method_not_allowed() -> ApiError:
    """The 405 for a method the path does not take."""
    return ApiError(405, "MethodNotAllowed", "the server does not allow this method")


@dataclass
class Target:
    info: ResourceInfo
    namespace: str | None
    name: str | None
    subresource: str | None


def parse_resource_path(api: MockCluster, group: str, version: str, parts: list[str]) -> Target:
    def lookup(plural: str) -> ResourceInfo | None:
        return api.registry.by_path(group, version, plural)

    namespace: str | None = None
    if (
        len(parts) >= 3
        and parts[0] == "namespaces"
        and (info := lookup(parts[2])) is not None
        and info.namespaced
    ):
        namespace = parts[1]
        parts = parts[2:]
    if not parts:
        raise path_not_found()
    info = lookup(parts[0])
    if info is None:
        raise path_not_found()
    name = parts[1] if len(parts) > 1 else None
    sub = parts[2] if len(parts) > 2 else None
    if len(parts) > 3 or (sub is not None and sub not in info.subresources):
        raise path_not_found()
    return Target(info, namespace, name, sub)


def path_not_found() -> ApiError:
    return ApiError(
        404,
        "NotFound",
        "the server could not find the requested resource",
        {"causes": [{"reason": "UnexpectedServerResponse", "message": "404 page not found"}]},
    )


def number(query: dict[str, str], name: str) -> int | None:
    """An integer query parameter; a malformed one is the API server's 400."""
    text = query.get(name)
    if text in (None, ""):
        return None
    try:
        return int(str(text))
    except ValueError:
        raise ApiError(
            400, "BadRequest", f'invalid value "{text}" for parameter {name}: not an integer'
        ) from None


def flag(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true", "yes")


def check_kind(info: ResourceInfo, body: Obj) -> None:
    """Refuse a body whose kind is not the resource's, with the API server's wording."""
    kind = body.get("kind")
    if kind and kind != info.kind:
        raise ApiError(
            400,
            "BadRequest",
            f"the API version in the data ({body.get('apiVersion', '')}) does not match the "
            f"expected API version ({info.api_version})"
            if body.get("apiVersion") != info.api_version
            else f'{kind} in version "{info.version}" cannot be handled as a {info.kind}',
        )


def access_review(kind: str, body: object, api: MockCluster | None = None) -> Obj:
    """An access review's answer (``access.review``); without a cluster to read RBAC from, as
    the seeded cluster answers: the lab's user is a cluster admin."""
    if api is None:
        api = MockCluster(seed=0)
        seed_defaults(api, runai=False)
    return access.review(api, kind, body)


def scale_of(obj: Obj) -> Obj:
    """The ``scale`` subresource's view of a workload: an autoscaling/v1 Scale."""
    meta = obj["metadata"]
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            k: meta[k]
            for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            if k in meta
        },
        "spec": {"replicas": int((obj.get("spec") or {}).get("replicas") or 0)},
        "status": {
            "replicas": int((obj.get("status") or {}).get("replicas") or 0),
            "selector": format_label_selector((obj.get("spec") or {}).get("selector")),
        },
    }


def object_table(api: MockCluster, resource: str, obj: Obj, query: dict[str, str]) -> Obj:
    """One object as the Table a ``get`` or a watch event answers when asked ``as=Table``."""
    return table(
        api,
        resource,
        [obj],
        wide=True,
        include_object=query.get("includeObject", "Metadata"),
        resource_version=obj["metadata"].get("resourceVersion", ""),
    )
