"""The objects every cluster has from its first minute, seeded into each world.

A kubeadm cluster's RBAC bootstrap (``simulators.cluster.bootstrap_policy``: ``cluster-admin``,
``admin``, ``edit``, ``view``, the components' and discovery roles, and the
``kubeadm:cluster-admins`` binding that makes admin.conf's user a cluster admin), the CRDs of the
custom kinds (``simulators.cluster.crds``), the two system
PriorityClasses, the control plane's leader-election Leases in kube-system, and one default
StorageClass (local-path, as on-prem clusters without a storage vendor commonly use). With Run:ai
installed, the PriorityClasses its cluster installation creates, with its values (``kubectl get
priorityclass`` on a Run:ai cluster): train 50, interactive-preemptible 75, build 100,
inference 125, runai-critical and runai-engine-critical 1000000000.
"""

from __future__ import annotations

import hashlib

from simulators.cluster import bootstrap_policy, crds
from simulators.cluster.api import ClusterAPI
from simulators.cluster.bootstrap_policy import RBAC
from simulators.cluster.registry import RESOURCES

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
    for role in bootstrap_policy.cluster_roles():
        api.create(f"clusterroles.{RBAC}", role)
    for binding in bootstrap_policy.cluster_role_bindings():
        api.create(f"clusterrolebindings.{RBAC}", binding)
    created = api.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    for crd in crds.definitions(RESOURCES, created, runai=runai):
        # The status as the apiextensions controller writes it once the names are accepted.
        status = crd.pop("status")
        api.create(crds.CRDS, crd)
        api.patch(crds.CRDS, crd["metadata"]["name"], {"status": status}, subresource="status")
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
