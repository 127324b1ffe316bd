"""An object's life in the store beyond a plain write: what a new namespace gets, and deletion.

Deletion follows the API server: a bound, running pod is deleted gracefully (a
``deletionTimestamp`` ``terminationGracePeriodSeconds`` ahead; the kubelet removes it); an
object with finalizers gets a ``deletionTimestamp`` and goes when the last finalizer does; a
namespace takes its contents with it; and background garbage collection deletes (or, with
``propagation="Orphan"``, orphans) what the object owned. Functions of the store
(``simulators.cluster.store.MockCluster``), which calls them from its verbs.
"""

from __future__ import annotations

import builtins
from datetime import timedelta
from typing import TYPE_CHECKING

from simulators.cluster.api import Obj, ResourceInfo
from simulators.cluster.changes import LOGS
from simulators.cluster.clock import format_time, parse_time
from simulators.cluster.packing import live
from simulators.cluster.patches import copy_obj, deep_copy

MAX_GRACE_SECONDS = 100 * 365 * 24 * 3600

if TYPE_CHECKING:
    from simulators.cluster.store import MockCluster

ROOT_CA_DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters."
)


def populate_namespace(store: MockCluster, ns: str) -> None:
    """What the service-account controller and root-CA publisher add to every namespace."""
    store.create("serviceaccounts", {"metadata": {"name": "default", "namespace": ns}})
    store.create(
        "configmaps",
        {
            "metadata": {
                "name": "kube-root-ca.crt",
                "namespace": ns,
                "annotations": {"kubernetes.io/description": ROOT_CA_DESCRIPTION},
            },
            "data": {"ca.crt": "-----BEGIN CERTIFICATE-----\n(lab)\n-----END CERTIFICATE-----\n"},
        },
    )


def delete(
    store: MockCluster,
    resource: str,
    name: str,
    namespace: str | None,
    propagation: str,
    grace_period: int | None,
) -> Obj:
    """``MockCluster.delete``: the object as it stands after the request."""
    info = store.info(resource)
    ns = store._ns(info, namespace)
    obj = store._stored(info, name, namespace)
    meta = obj["metadata"]
    if propagation == "Orphan":
        collect_dependents(store, str(meta["uid"]), orphan=True)
        obj = store._stored(info, name, namespace)
        meta = obj["metadata"]
    if info.kind == "Pod":
        grace = grace_period
        if grace is None:
            grace = int(obj.get("spec", {}).get("terminationGracePeriodSeconds", 30))
        bound = bool(obj.get("spec", {}).get("nodeName"))
        finished = obj.get("status", {}).get("phase") in ("Succeeded", "Failed")
        if grace > 0 and bound and not finished:
            # Go's time arithmetic wraps past int64 nanoseconds; Python's raises: a grace
            # period of more than a century waits a century.
            deadline = store.clock.now() + timedelta(seconds=min(grace, MAX_GRACE_SECONDS))
            current = meta.get("deletionTimestamp")
            if current and parse_time(str(current)) <= deadline:
                return copy_obj(obj)
            new = deep_copy(obj)
            new["metadata"]["deletionTimestamp"] = format_time(deadline)
            new["metadata"]["deletionGracePeriodSeconds"] = grace
            new["metadata"]["resourceVersion"] = store._next_rv()
            store._put(info, (ns, name), new)
            store._record(info, "MODIFIED", new)
            return copy_obj(new)
    if meta.get("finalizers"):
        if meta.get("deletionTimestamp"):
            return copy_obj(obj)
        new = deep_copy(obj)
        new["metadata"]["deletionTimestamp"] = store.clock.timestamp()
        new["metadata"]["deletionGracePeriodSeconds"] = 0
        new["metadata"]["resourceVersion"] = store._next_rv()
        store._put(info, (ns, name), new)
        store._record(info, "MODIFIED", new)
        return copy_obj(new)
    return remove(store, info, ns, name)


def remove(store: MockCluster, info: ResourceInfo, ns: str, name: str) -> Obj:
    """Take the object out of the store now, with its logs, a namespace's contents and its
    dependents."""
    stored = store._pop(info, (ns, name))
    # The deleted object's last version is a new object: stored ones never change (fork).
    obj = {**stored, "metadata": {**stored["metadata"], "resourceVersion": store._next_rv()}}
    store._record(info, "DELETED", obj)
    if info.kind == "Pod":
        prefix = f"{ns}/{name}/"
        store.changes.changed(LOGS)
        if any(key.startswith(prefix) for logs in store.read_logs() for key in logs):
            for logs in (store._logs, store._previous_logs):
                for key in [k for k in logs if k.startswith(prefix)]:
                    del logs[key]
    if info.kind == "Namespace":
        for other in store.registry.infos:
            if not other.namespaced:
                continue
            bucket = live(store, other.key, create=False)
            for ns_name in [k for k in bucket if k[0] == name]:
                if ns_name in bucket:
                    remove(store, other, ns_name[0], ns_name[1])
    collect_dependents(store, str(obj["metadata"]["uid"]))
    return copy_obj(obj)


def collect_dependents(store: MockCluster, uid: str, orphan: bool = False) -> None:
    """Background garbage collection: delete (or orphan) what the object owned.

    Dependents go resource by resource in registry order, each resource's in the order of
    its bucket, each as it stood when its resource's turn came: the order (and so every
    resourceVersion and event) of a scan of the whole store."""
    if uid not in store._owned:
        return
    for info in store.registry.infos:
        owned = store._owned.get(uid, {}).get(info.key)
        if not owned:
            continue
        bucket = live(store, info.key)
        keys = builtins.list(owned) if len(owned) == 1 else [k for k in bucket if k in owned]
        for key, obj in [(k, bucket[k]) for k in keys]:
            refs = obj["metadata"]["ownerReferences"]
            if key not in store._bucket(info):
                continue
            remaining = [ref for ref in refs if ref.get("uid") != uid]
            if orphan or remaining:
                store.patch(
                    info.key,
                    key[1],
                    {"metadata": {"ownerReferences": remaining or None}},
                    key[0] or None,
                )
            else:
                store.delete(info.key, key[1], key[0] or None)
