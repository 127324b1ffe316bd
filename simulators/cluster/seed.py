"""The objects every cluster has from its first minute, seeded into each world.

A kubeadm cluster's RBAC bootstrap (``cluster-admin`` and the discovery roles, and the
``kubeadm:cluster-admins`` binding that makes admin.conf's user a cluster admin), the two system
PriorityClasses, the control plane's leader-election Leases in kube-system, and one default
StorageClass (local-path, as on-prem clusters without a storage vendor commonly use). With Run:ai
installed, the PriorityClasses its cluster installation creates, with its values (``kubectl get
priorityclass`` on a Run:ai cluster): train 50, interactive-preemptible 75, build 100,
inference 125, runai-critical and runai-engine-critical 1000000000.
"""

from __future__ import annotations

import hashlib

from simulators.cluster.api import ClusterAPI, Obj

RBAC = "rbac.authorization.k8s.io"
_BOOTSTRAP = {
    "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
    "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"},
}
_PUBLIC_URLS = ["/healthz", "/livez", "/readyz", "/version", "/version/"]
CLUSTER_ROLES: dict[str, list[Obj]] = {
    "cluster-admin": [
        {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
        {"nonResourceURLs": ["*"], "verbs": ["*"]},
    ],
    "system:basic-user": [
        {
            "apiGroups": ["authentication.k8s.io"],
            "resources": ["selfsubjectreviews"],
            "verbs": ["create"],
        },
        {
            "apiGroups": ["authorization.k8s.io"],
            "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
            "verbs": ["create"],
        },
    ],
    "system:discovery": [
        {
            "nonResourceURLs": [
                "/api",
                "/api/*",
                "/apis",
                "/apis/*",
                "/healthz",
                "/livez",
                "/openapi",
                "/openapi/*",
                "/readyz",
                "/version",
                "/version/",
            ],
            "verbs": ["get"],
        }
    ],
    "system:public-info-viewer": [{"nonResourceURLs": _PUBLIC_URLS, "verbs": ["get"]}],
}
# binding name -> (cluster role, groups)
CLUSTER_ROLE_BINDINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cluster-admin": ("cluster-admin", ("system:masters",)),
    "kubeadm:cluster-admins": ("cluster-admin", ("kubeadm:cluster-admins",)),
    "system:basic-user": ("system:basic-user", ("system:authenticated",)),
    "system:discovery": ("system:discovery", ("system:authenticated",)),
    "system:public-info-viewer": (
        "system:public-info-viewer",
        ("system:authenticated", "system:unauthenticated"),
    ),
}
SYSTEM_PRIORITY_CLASSES = {
    "system-cluster-critical": (
        2000000000,
        "Used for system critical pods that must run in the cluster, but can be moved to "
        "another node if necessary.",
    ),
    "system-node-critical": (
        2000001000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
}
RUNAI_PRIORITY_CLASSES = {
    "train": 50,
    "interactive-preemptible": 75,
    "build": 100,
    "inference": 125,
    "runai-critical": 1000000000,
    "runai-engine-critical": 1000000000,
}
CONTROL_PLANE = "dgx-control-plane"


def _holder(component: str) -> str:
    digest = hashlib.sha256(component.encode()).hexdigest()
    return (
        f"{CONTROL_PLANE}_{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-"
        f"{digest[20:32]}"
    )


def seed_defaults(api: ClusterAPI, *, runai: bool = True) -> None:
    """Create the objects above (call once, when a world's cluster is built)."""
    for name, rules in CLUSTER_ROLES.items():
        api.create(
            f"clusterroles.{RBAC}",
            {"metadata": {"name": name, **_BOOTSTRAP}, "rules": rules},
        )
    for name, (role, groups) in CLUSTER_ROLE_BINDINGS.items():
        meta: Obj = {"name": name} if name.startswith("kubeadm:") else {"name": name, **_BOOTSTRAP}
        api.create(
            f"clusterrolebindings.{RBAC}",
            {
                "metadata": meta,
                "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role},
                "subjects": [{"apiGroup": RBAC, "kind": "Group", "name": g} for g in groups],
            },
        )
    for name, (value, description) in SYSTEM_PRIORITY_CLASSES.items():
        api.create(
            "priorityclasses.scheduling.k8s.io",
            {"metadata": {"name": name}, "value": value, "description": description},
        )
    if runai:
        for name, value in RUNAI_PRIORITY_CLASSES.items():
            api.create(
                "priorityclasses.scheduling.k8s.io", {"metadata": {"name": name}, "value": value}
            )
    api.create(
        "storageclasses.storage.k8s.io",
        {
            "metadata": {
                "name": "local-path",
                "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
            },
            "provisioner": "rancher.io/local-path",
            "reclaimPolicy": "Delete",
            "volumeBindingMode": "WaitForFirstConsumer",
        },
    )
    now = api.now().strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    for component in ("kube-controller-manager", "kube-scheduler"):
        api.create(
            "leases.coordination.k8s.io",
            {
                "metadata": {"name": component, "namespace": "kube-system"},
                "spec": {
                    "holderIdentity": _holder(component),
                    "leaseDurationSeconds": 15,
                    "acquireTime": now,
                    "renewTime": now,
                    "leaseTransitions": 0,
                },
            },
        )
