"""Who the lab's user is and what RBAC lets them do: access reviews and service account tokens.

The user is ``kubernetes-admin`` in the groups ``kubeadm:cluster-admins`` and
``system:authenticated`` (a kubeadm cluster's admin.conf). ``SelfSubjectAccessReview`` (``kubectl
auth can-i``) and ``SelfSubjectRulesReview`` (``can-i --list``) are answered from the stored
ClusterRoleBindings, RoleBindings, ClusterRoles and Roles, as the RBAC authorizer does; the
world seeds the bindings a kubeadm cluster has (``simulators/cluster/seed.py``), so the user is
a cluster admin until a ticket changes them. ``TokenRequest`` (``kubectl create token``) answers
a JWT-shaped token for the service account, its signature a digest of its claims, which
``token_identity`` checks when a kubeconfig user presents it (``kubectl config set-credentials
--token``).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo, stored_items

USER = "kubernetes-admin"
GROUPS = ["kubeadm:cluster-admins", "system:authenticated"]
RBAC = "rbac.authorization.k8s.io"
SERVICE_ACCOUNT = "system:serviceaccount:"
MASTERS = "system:masters"


@dataclass(frozen=True)
class Identity:
    """Who a request acts as: the lab's admin, or whom it impersonates."""

    user: str
    groups: tuple[str, ...]


ADMIN = Identity(USER, tuple(GROUPS))
# Who a request without credentials is, where anonymous requests are allowed (kubeadm's default).
ANONYMOUS = Identity("system:anonymous", ("system:unauthenticated",))


def impersonated(user: str, groups: list[str]) -> Identity:
    """The identity kube-apiserver's impersonation gives a request (`--as`, `--as-group`; the
    Impersonate-User and Impersonate-Group headers): the groups given, or a service account's
    own (`system:serviceaccounts`, `system:serviceaccounts:NS`); every user but the anonymous
    one is also `system:authenticated`."""
    found = list(groups)
    if not found and user.startswith(SERVICE_ACCOUNT) and user.count(":") == 3:
        namespace = user.split(":")[2]
        found = ["system:serviceaccounts", f"system:serviceaccounts:{namespace}"]
    if user != "system:anonymous" and "system:authenticated" not in found:
        found.append("system:authenticated")
    return Identity(user, tuple(found))


def user_info(who: Identity = ADMIN) -> Obj:
    return {"username": who.user, "groups": list(who.groups)}


def _items(api: ClusterAPI, resource: str, namespace: str | None = None) -> list[Obj]:
    """The RBAC objects, in name order; on the mock store its own, read only (no copies: the
    authorizer reads every binding on every request)."""
    try:
        return stored_items(api, f"{resource}.{RBAC}", namespace)
    except ApiError:
        return []


def _role(api: ClusterAPI, resource: str, name: str, namespace: str | None = None) -> Obj:
    """A role by name (ApiError if missing); on the mock store its own, read only."""
    peek = getattr(api, "peek", None)
    key = f"{resource}.{RBAC}"
    found: Obj = peek(key, name, namespace) if peek is not None else api.get(key, name, namespace)
    return found


def _subject(binding: Obj, who: Identity) -> str | None:
    """How the binding names `who` ('Group "x"'), or None if it does not."""
    for subject in binding.get("subjects") or []:
        kind, name = subject.get("kind"), subject.get("name")
        account = f"{SERVICE_ACCOUNT}{subject.get('namespace', '')}:{name}"
        if (
            (kind == "User" and name == who.user)
            or (kind == "Group" and name in who.groups)
            or (kind == "ServiceAccount" and account == who.user)
        ):
            return f'{kind} "{name}"'
    return None


def _bindings(api: ClusterAPI, namespace: str, who: Identity) -> Iterator[tuple[str, Obj, str]]:
    """(binding's description, the role it grants, the subject) for every binding of `who`."""
    for binding in _items(api, "clusterrolebindings"):
        yield from _granted(api, binding, "ClusterRoleBinding", None, who)
    if namespace:
        for binding in _items(api, "rolebindings", namespace):
            yield from _granted(api, binding, "RoleBinding", namespace, who)


def _granted(
    api: ClusterAPI, binding: Obj, kind: str, namespace: str | None, who: Identity
) -> Iterator[tuple[str, Obj, str]]:
    subject = _subject(binding, who)
    if subject is None:
        return
    ref = binding.get("roleRef") or {}
    role_kind, role_name = ref.get("kind"), str(ref.get("name", ""))
    try:
        if role_kind == "ClusterRole":
            role = _role(api, "clusterroles", role_name)
        elif role_kind == "Role" and namespace:
            role = _role(api, "roles", role_name, namespace)
        else:
            return
    except ApiError:
        return
    name = binding["metadata"]["name"]
    where = f"{name}/{namespace}" if namespace else name
    yield f'{kind} "{where}" of {role_kind} "{role_name}" to {subject}', role, subject


def _has(values: Any, wanted: str) -> bool:
    return isinstance(values, list) and ("*" in values or wanted in values)


def _rule_allows(rule: Obj, attrs: Obj) -> bool:
    verb = str(attrs.get("verb", ""))
    if not _has(rule.get("verbs"), verb):
        return False
    if "path" in attrs:
        path = str(attrs["path"])
        return any(
            url == "*" or url == path or (url.endswith("*") and path.startswith(url[:-1]))
            for url in rule.get("nonResourceURLs") or []
        )
    resource = str(attrs.get("resource", ""))
    sub = attrs.get("subresource")
    wanted = f"{resource}/{sub}" if sub else resource
    resources = rule.get("resources") or []
    if not (
        "*" in resources or wanted in resources or (sub and f"*/{sub}" in resources)
    ) or not _has(rule.get("apiGroups"), str(attrs.get("group", ""))):
        return False
    names = rule.get("resourceNames") or []
    return not names or attrs.get("name") in names


def can(api: ClusterAPI, attrs: Obj, who: Identity = ADMIN) -> tuple[bool, str]:
    """Whether RBAC allows `who` ``attrs`` (resourceAttributes or nonResourceAttributes), and
    why."""
    if MASTERS in who.groups:
        # kube-apiserver's privileged-group authorizer, ahead of RBAC: no binding needed.
        return True, ""
    namespace = "" if "path" in attrs else str(attrs.get("namespace") or "")
    for why, role, _subject_name in _bindings(api, namespace, who):
        if any(_rule_allows(rule, attrs) for rule in role.get("rules") or []):
            return True, f"RBAC: allowed by {why}"
    return False, ""


def review(api: ClusterAPI, kind: str, body: object, who: Identity = ADMIN) -> Obj:
    """The answer to a self-subject review by `who` (never stored)."""
    spec = body.get("spec") if isinstance(body, dict) else None
    spec = spec if isinstance(spec, dict) else {}
    group = "authentication.k8s.io" if kind == "SelfSubjectReview" else "authorization.k8s.io"
    answer: Obj = {
        "kind": kind,
        "apiVersion": f"{group}/v1",
        "metadata": {"creationTimestamp": None},  # as the API server answers a review
    }
    if kind == "SelfSubjectReview":
        answer["status"] = {"userInfo": user_info(who)}
    elif kind == "SelfSubjectRulesReview":
        answer["spec"] = spec
        answer["status"] = rules(api, str(spec.get("namespace") or ""), who)
    else:
        attrs = spec.get("resourceAttributes") or spec.get("nonResourceAttributes") or {}
        allowed, reason = can(api, attrs if isinstance(attrs, dict) else {}, who)
        answer["spec"] = spec
        answer["status"] = {"allowed": allowed, **({"reason": reason} if reason else {})}
    return answer


def rules(api: ClusterAPI, namespace: str, who: Identity = ADMIN) -> Obj:
    """SelfSubjectRulesReview's status: every rule `who`'s bindings grant in ``namespace``."""
    resource_rules: list[Obj] = []
    url_rules: list[Obj] = []
    for _why, role, _subject_name in _bindings(api, namespace, who):
        for rule in role.get("rules") or []:
            verbs = list(rule.get("verbs") or [])
            if rule.get("nonResourceURLs"):
                url_rules.append({"verbs": verbs, "nonResourceURLs": list(rule["nonResourceURLs"])})
            if rule.get("resources"):
                entry: Obj = {
                    "verbs": verbs,
                    "apiGroups": list(rule.get("apiGroups") or []),
                    "resources": list(rule["resources"]),
                }
                if rule.get("resourceNames"):
                    entry["resourceNames"] = list(rule["resourceNames"])
                resource_rules.append(entry)
    return {
        "resourceRules": resource_rules,
        "nonResourceRules": url_rules,
        "incomplete": False,
    }


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _signed(payload: bytes) -> bytes:
    return hashlib.sha512(payload).digest() * 4  # RS256 signatures are 256 bytes


def token_identity(api: ClusterAPI, token: str) -> Identity | None:
    """The service account a bearer token from ``token_request`` authenticates, as the
    apiserver's service account authenticator does: signed here, not expired, and the account
    still there with the same uid; None (401) for anything else."""
    parts = token.split(".")
    if len(parts) != 3 or len(token) > 8192:
        return None
    try:
        payload = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4))
        signature = base64.urlsafe_b64decode(parts[2] + "=" * (-len(parts[2]) % 4))
        claims = json.loads(payload)
        account = claims["kubernetes.io"]["serviceaccount"]
        namespace, name = str(claims["kubernetes.io"]["namespace"]), str(account["name"])
        expires = float(claims["exp"])
    except (ValueError, KeyError, TypeError):
        return None
    if signature != _signed(payload) or expires <= api.now().timestamp():
        return None
    try:
        found = api.get("serviceaccounts", name, namespace)
    except ApiError:
        return None
    if str(found["metadata"].get("uid", "")) != str(account.get("uid", "")):
        return None
    return impersonated(f"{SERVICE_ACCOUNT}{namespace}:{name}", [])


def token_request(api: ClusterAPI, namespace: str, name: str, body: object) -> Obj:
    """``serviceaccounts/<name>/token``: a bound token for the service account (1 hour default)."""
    account = api.get("serviceaccounts", name, namespace)
    spec = body.get("spec") if isinstance(body, dict) else None
    spec = dict(spec) if isinstance(spec, dict) else {}
    seconds = int(spec.get("expirationSeconds") or 3600)
    if seconds < 600:
        raise ApiError(
            422,
            "Invalid",
            f'TokenRequest.authentication.k8s.io "{name}" is invalid: spec.expirationSeconds: '
            "Invalid value: "
            f"{seconds}: may not specify a duration less than 10 minutes",
        )
    audiences = list(spec.get("audiences") or ["https://kubernetes.default.svc.cluster.local"])
    now = int(api.now().timestamp())
    uid = str(account["metadata"].get("uid", ""))
    claims = {
        "aud": audiences,
        "exp": now + seconds,
        "iat": now,
        "iss": "https://kubernetes.default.svc.cluster.local",
        "kubernetes.io": {
            "namespace": namespace,
            "serviceaccount": {"name": name, "uid": uid},
        },
        "nbf": now,
        "sub": f"system:serviceaccount:{namespace}:{name}",
    }
    header = {"alg": "RS256", "kid": hashlib.sha256(b"lab-sa-key").hexdigest()[:43]}
    payload = json.dumps(claims, separators=(",", ":")).encode()
    signature = _signed(payload)
    token = ".".join(
        (_b64(json.dumps(header, separators=(",", ":")).encode()), _b64(payload), _b64(signature))
    )
    spec.update(audiences=audiences, expirationSeconds=seconds)
    expires = api.now().timestamp() + seconds
    return {
        "kind": "TokenRequest",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"name": name, "namespace": namespace, "creationTimestamp": None},
        "spec": spec,
        "status": {
            "token": token,
            "expirationTimestamp": datetime.fromtimestamp(expires, UTC).strftime(
                "%Y-%m-%dT%H:%M:%SZ"
            ),
        },
    }


def forbidden(who: Identity, verb: str, attrs: Obj) -> ApiError:
    """kube-apiserver's 403 for a request RBAC did not allow (responsewriters.Forbidden and
    errors.NewForbidden): `pods "web" is forbidden: User "x" cannot get resource "pods" in API
    group "" in the namespace "dev"`, or `... at the cluster scope`."""
    resource, group = str(attrs["resource"]), str(attrs.get("group", ""))
    shown = f"{resource}/{attrs['subresource']}" if attrs.get("subresource") else resource
    where = (
        f'in the namespace "{attrs["namespace"]}"'
        if attrs.get("namespace")
        else "at the cluster scope"
    )
    reason = f'User "{who.user}" cannot {verb} resource "{shown}" in API group "{group}" {where}'
    qualified = f"{resource}.{group}" if group else resource
    name = str(attrs.get("name") or "")
    head = f'{qualified} "{name}" is forbidden' if name else f"{qualified} is forbidden"
    return ApiError(
        403, "Forbidden", f"{head}: {reason}", {"name": name, "group": group, "kind": resource}
    )


def authorize(
    api: ClusterAPI,
    who: Identity,
    verb: str,
    info: ResourceInfo,
    namespace: str | None = None,
    name: str | None = None,
    subresource: str | None = None,
) -> None:
    """Raise the API server's Forbidden unless RBAC lets `who` do `verb` on the resource. The
    admin is never asked (kubeadm's cluster-admins group is bound to cluster-admin, and a
    ticket that unbinds it changes what `auth can-i` says, not what the lab's own tools do)."""
    if who == ADMIN:
        return
    attrs: Obj = {"verb": verb, "resource": info.plural, "group": info.group}
    if info.namespaced and namespace:
        attrs["namespace"] = namespace
    elif (info.group, info.plural) == ("", "namespaces") and name:
        attrs["namespace"] = name  # RequestInfo: /api/v1/namespaces/NAME is in NAME
    if name:
        attrs["name"] = name
    if subresource:
        attrs["subresource"] = subresource
    allowed, _why = can(api, attrs, who)
    if not allowed:
        raise forbidden(who, verb, attrs)


def request_verb(method: str, name: str | None, watch: bool) -> str:
    """The authorizer's verb for an HTTP request on a resource (RequestInfoFactory)."""
    if method == "GET":
        return "get" if name else "watch" if watch else "list"
    if method == "DELETE":
        return "delete" if name else "deletecollection"
    return {"POST": "create", "PUT": "update", "PATCH": "patch"}.get(method, method.lower())
