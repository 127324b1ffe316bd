"""Who asks the cluster's REST API (simulators.cluster.http_api), and whether they may: a bearer
token authenticated as kube-apiserver's authenticators take it, impersonation headers, and the
request's attributes read from its path alone (``request_info``, kube-apiserver's
RequestInfoFactory) for RBAC before the request is routed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from simulators.cluster import access
from simulators.cluster.api import ApiError, Obj
from simulators.cluster.http_messages import Headers, StatusError
from simulators.cluster.request import (
    flag,
)
from simulators.cluster.store import MockCluster


# --------------------------------------------------------------------- who asks
def authenticate(api: MockCluster, headers: Headers) -> access.Identity | None:
    """Whom a request's bearer token authenticates (kube-apiserver's bearer token
    authenticator, then the anonymous one kubeadm leaves on): a service account's token from
    TokenRequest, no token (or another scheme) the anonymous user, and None (401) for a token
    it does not know."""
    auth = (headers.get("Authorization") or "").strip()
    parts = auth.split(" ", 2)
    if len(parts) < 2 or parts[0].lower() != "bearer" or not parts[1]:
        return access.ANONYMOUS
    return access.token_identity(api, parts[1])


def unauthorized() -> ApiError:
    return ApiError(401, "Unauthorized", "Unauthorized")


def impersonating(api: MockCluster, who: access.Identity, headers: Headers) -> access.Identity:
    """Whom the request acts as once its Impersonate-User and Impersonate-Group headers are
    taken: the admin may be anyone; anyone else needs RBAC's `impersonate` on each (users,
    serviceaccounts in their namespace, groups), or gets the 403."""
    user = headers.get("Impersonate-User")
    if not user:
        return who
    groups = headers.get_all("Impersonate-Group")
    if who != access.ADMIN:
        asked: list[Obj] = []
        if user.startswith(access.SERVICE_ACCOUNT) and user.count(":") == 3:
            _, _, namespace, name = user.split(":")
            asked.append({"resource": "serviceaccounts", "namespace": namespace, "name": name})
        else:
            asked.append({"resource": "users", "name": user})
        asked.extend({"resource": "groups", "name": group} for group in groups)
        for attrs in asked:
            attrs.update(verb="impersonate", group="")
            allowed, _ = access.can(api, attrs, who)
            if not allowed:
                raise access.forbidden(who, "impersonate", attrs)
    return access.impersonated(user, groups)


@dataclass(frozen=True)
class RequestInfo:
    """What kube-apiserver's RequestInfoFactory reads from a path, for the authorizer."""

    resource_request: bool
    verb: str
    path: str = ""
    group: str = ""
    version: str = ""
    namespace: str = ""
    resource: str = ""
    name: str = ""
    subresource: str = ""


def request_info(method: str, path: str, query: dict[str, str]) -> RequestInfo:
    """The request's attributes as RequestInfoFactory.NewRequestInfo finds them."""
    parts = [p for p in path.split("/") if p]
    plain = RequestInfo(False, method.lower(), path=path)
    if len(parts) < 3 or parts[0] not in ("api", "apis"):
        return plain
    grouped = parts[0] == "apis"
    parts = parts[1:]
    group = ""
    if grouped:
        if len(parts) < 3:
            return plain
        group, parts = parts[0], parts[1:]
    version, parts = parts[0], parts[1:]
    verbs = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch"}
    verb_of = verbs.get(method, "delete" if method == "DELETE" else "")
    if parts[0] in ("proxy", "watch") and len(parts) >= 2:  # /api/v1/watch/pods
        verb_of, parts = parts[0], parts[1:]
    namespace = ""
    if parts[0] == "namespaces" and len(parts) > 1:
        namespace = parts[1]
        if len(parts) > 2 and parts[2] not in ("status", "finalize"):
            parts = parts[2:]
    resource = parts[0]
    name = parts[1] if len(parts) >= 2 else ""
    subresource = parts[2] if len(parts) >= 3 and verb_of != "proxy" else ""
    if not name and verb_of == "get":
        verb_of = "watch" if flag(query.get("watch")) else "list"
        for term in query.get("fieldSelector", "").split(","):  # RequiresExactMatch
            wanted = re.fullmatch(r"\s*metadata\.name\s*==?\s*([^\s/]+)\s*", term)
            if wanted and wanted.group(1) not in (".", ".."):
                name = wanted.group(1)
    if not name and verb_of == "delete":
        verb_of = "deletecollection"
    return RequestInfo(True, verb_of, path, group, version, namespace, resource, name, subresource)


def authorize(api: MockCluster, who: access.Identity, info: RequestInfo) -> None:
    """kube-apiserver's authorization filter: RBAC's answer for `who`, or its 403."""
    if who == access.ADMIN:
        return
    if not info.resource_request:
        allowed, _ = access.can(api, {"verb": info.verb, "path": info.path}, who)
        if not allowed:
            raise StatusError(
                403,
                "Forbidden",
                f'forbidden: User "{who.user}" cannot {info.verb} path "{info.path}"',
            )
        return
    verb = info.verb
    if info.subresource in ("exec", "attach", "portforward"):
        verb = "create"  # a websocket's GET is authorized as the POST it replaces
    attrs: Obj = {"verb": verb, "resource": info.resource, "group": info.group}
    served = api.registry.by_path(info.group, info.version, info.resource)
    # A cluster-scoped kind is authorized at the cluster scope, as the lab's kubectl asks,
    # but for a namespace itself: RequestInfo takes `/api/v1/namespaces/NAME` as in NAME.
    itself = (info.group, info.resource) == ("", "namespaces")
    if info.namespace and (served is None or served.namespaced or itself):
        attrs["namespace"] = info.namespace
    if info.name:
        attrs["name"] = info.name
    if info.subresource:
        attrs["subresource"] = info.subresource
    allowed, _ = access.can(api, attrs, who)
    if not allowed:
        raise access.forbidden(who, verb, attrs)
