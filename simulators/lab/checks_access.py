"""Checks for the ci-service-account ticket: what RBAC lets the CI pipeline's ServiceAccount do,
asked of the cluster's authorizer (simulators.cluster.access) as `kubectl auth can-i --as`
asks it, and whether the admin host's kubeconfig holds the account's own token.

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


def _can(world: World, verb: str, resource: str, group: str, namespace: str | None) -> bool:
    attrs = {"verb": verb, "resource": resource, "group": group, "namespace": namespace or ""}
    return access.can(world.api, attrs, WHO)[0]


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


CHECKS: dict[str, dict[str, Check]] = {
    "ci-service-account": {
        "can-restart": can_restart,
        "can-watch": can_watch,
        "least-privilege": least_privilege,
        "checked-as-pipeline": checked_as_pipeline,
    }
}
