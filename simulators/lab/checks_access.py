"""Checks for the RBAC tickets, asked of the cluster's authorizer (simulators.cluster.access) as
`kubectl auth can-i --as` asks it: ci-service-account (what the CI pipeline's ServiceAccount
may do, and whether the admin host's kubeconfig holds the account's own token) and oncall-view
(what the on-call group may read, and that it may change nothing).

Like simulators.lab.checks, each reads the state (the cluster, the home folder), never the
commands typed.
"""

from __future__ import annotations

from collections.abc import Callable

from simulators.cluster import access
from simulators.lab import kubeconfig
from simulators.lab.world import World

Check = Callable[[World], bool]

NAMESPACE = "runai-team-ml"
ACCOUNT = "ci-deployer"
WHO = access.impersonated(f"{access.SERVICE_ACCOUNT}{NAMESPACE}:{ACCOUNT}", [])

# What the pipeline's two steps ask: rollout restart (get, patch), then get -w on pods.
RESTART = [("get", "deployments", "apps"), ("patch", "deployments", "apps")]
WATCH = [("get", "pods", ""), ("list", "pods", ""), ("watch", "pods", "")]
# What it must not be able to do: Secrets, deleting or creating, binding, other namespaces,
# the cluster scope.
FORBIDDEN: list[tuple[str, str, str, str | None]] = [
    ("get", "secrets", "", NAMESPACE),
    ("list", "secrets", "", NAMESPACE),
    ("delete", "pods", "", NAMESPACE),
    ("delete", "deployments", "apps", NAMESPACE),
    ("create", "deployments", "apps", NAMESPACE),
    ("create", "pods", "", NAMESPACE),
    ("create", "rolebindings", "rbac.authorization.k8s.io", NAMESPACE),
    ("list", "pods", "", "default"),
    ("patch", "deployments", "apps", "kube-system"),
    ("list", "nodes", "", None),
    ("list", "secrets", "", None),
]


def _can(
    world: World,
    verb: str,
    resource: str,
    group: str,
    namespace: str | None,
    who: access.Identity = WHO,
) -> bool:
    resource, _, subresource = resource.partition("/")
    attrs = {"verb": verb, "resource": resource, "group": group, "namespace": namespace or ""}
    if subresource:
        attrs["subresource"] = subresource
    return access.can(world.api, attrs, who)[0]


def can_restart(world: World) -> bool:
    return all(_can(world, *asked, NAMESPACE) for asked in RESTART)


def can_watch(world: World) -> bool:
    return all(_can(world, *asked, NAMESPACE) for asked in WATCH)


def least_privilege(world: World) -> bool:
    """Nothing of FORBIDDEN is allowed (and the account can still do its job: a binding
    removed altogether is not least privilege, it is no privilege)."""
    return can_restart(world) and not any(_can(world, *asked) for asked in FORBIDDEN)


def checked_as_pipeline(world: World) -> bool:
    """A user in ~/.kube/config holds a token the cluster takes for ci-deployer."""
    text = world.state.files.get(kubeconfig.NAME)
    if text is None:
        return False
    try:
        users = kubeconfig.named(kubeconfig.load(text), "users")
    except kubeconfig.KubeconfigError:
        return False
    return any(
        access.token_identity(world.api, str(user.get("token") or "")) == WHO
        for user in users.values()
        if user.get("token")
    )


ONCALL_NAMESPACE = "runai-team-vision"
# Wen, on call this week, in the identity provider's group.
ONCALL = access.impersonated("wen", ["gpu-oncall"])
LOOK = [
    (verb, resource, group)
    for resource, group in (("pods", ""), ("deployments", "apps"), ("events", ""))
    for verb in ("get", "list", "watch")
] + [("get", "pods/log", "")]
WORKLOADS = [
    (verb, resource, "run.ai")
    for resource in ("trainingworkloads", "interactiveworkloads")
    for verb in ("get", "list")
]
# A change of any kind, the Secrets, the cluster scope and other namespaces.
CHANGES: list[tuple[str, str, str, str | None]] = [
    (verb, resource, group, ONCALL_NAMESPACE)
    for verb in ("create", "patch", "update", "delete", "deletecollection")
    for resource, group in (
        ("pods", ""),
        ("deployments", "apps"),
        ("trainingworkloads", "run.ai"),
        ("interactiveworkloads", "run.ai"),
        ("configmaps", ""),
        ("rolebindings", "rbac.authorization.k8s.io"),
    )
] + [
    ("create", "pods/exec", "", ONCALL_NAMESPACE),
    ("create", "pods/eviction", "", ONCALL_NAMESPACE),
    ("patch", "deployments/scale", "apps", ONCALL_NAMESPACE),
    ("impersonate", "serviceaccounts", "", ONCALL_NAMESPACE),
    ("get", "secrets", "", ONCALL_NAMESPACE),
    ("list", "secrets", "", ONCALL_NAMESPACE),
    ("watch", "secrets", "", ONCALL_NAMESPACE),
    ("list", "pods", "", "runai-team-ml"),
    ("list", "secrets", "", None),
    ("patch", "nodes", "", None),
]


def can_look(world: World) -> bool:
    return all(_can(world, *asked, ONCALL_NAMESPACE, ONCALL) for asked in LOOK)


def sees_workloads(world: World) -> bool:
    return all(_can(world, *asked, ONCALL_NAMESPACE, ONCALL) for asked in WORKLOADS)


def read_only(world: World) -> bool:
    """Nothing of CHANGES is allowed, and the group can still look (no binding at all is not
    read-only access, it is no access)."""
    return can_look(world) and not any(_can(world, *asked, ONCALL) for asked in CHANGES)


CHECKS: dict[str, dict[str, Check]] = {
    "ci-service-account": {
        "can-restart": can_restart,
        "can-watch": can_watch,
        "least-privilege": least_privilege,
        "checked-as-pipeline": checked_as_pipeline,
    },
    "oncall-view": {
        "can-look": can_look,
        "sees-workloads": sees_workloads,
        "read-only": read_only,
    },
}
