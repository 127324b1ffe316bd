"""The cluster's API as another user sees it: `kubectl --as=USER [--as-group=GROUP]`.

kube-apiserver authorizes every request it gets: the lab's admin may do anything (kubeadm binds
its group to cluster-admin), and a request that impersonates someone else (the Impersonate-User
header kubectl's `--as` sets) is authorized as that user. `Impersonating` wraps the lab's
in-process API the same way: each verb of ClusterAPI (and the store's own list for printing,
`select`, and its server dry run) asks RBAC first (access.authorize), with the verb and
subresource kube-apiserver's RequestInfo would give the request, and raises its Forbidden;
everything else (discovery, schemas, the clock) passes through. The HTTP server does the same
for the real kubectl (simulators.cluster.server).
"""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Any

from simulators.cluster import access
from simulators.cluster.api import ClusterAPI, Obj, ResourceInfo, WatchEvent


class Impersonating:
    """`api` as `who`: the ClusterAPI verbs authorized, the rest of `api` as it is."""

    def __init__(self, api: ClusterAPI, who: access.Identity) -> None:
        self.inner, self.who = api, who

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _check(
        self,
        verb: str,
        resource: str,
        namespace: str | None,
        name: str | None = None,
        subresource: str | None = None,
    ) -> None:
        info = self.inner.resolve(resource)
        access.authorize(self.inner, self.who, verb, info, namespace, name, subresource)

    def resources(self) -> builtins.list[ResourceInfo]:
        return self.inner.resources()

    def resolve(self, word: str) -> ResourceInfo:
        return self.inner.resolve(word)

    def now(self) -> datetime:
        return self.inner.now()

    def select(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        label_selector: str = "",
        field_selector: str = "",
    ) -> builtins.list[Obj]:
        """The store's list for printing (MockCluster.select), authorized as a list."""
        self._check("list", resource, namespace)
        selected: builtins.list[Obj] = self.inner.select(  # type: ignore[attr-defined]
            resource, namespace, label_selector=label_selector, field_selector=field_selector
        )
        return selected

    def dry_run(self) -> Impersonating:
        """The store's server dry run (MockCluster.dry_run), as the same user."""
        return Impersonating(self.inner.dry_run(), self.who)  # type: ignore[attr-defined]

    def get(self, resource: str, name: str, namespace: str | None = None) -> Obj:
        self._check("get", resource, namespace, name)
        return self.inner.get(resource, name, namespace)

    def list(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        label_selector: str = "",
        field_selector: str = "",
    ) -> Obj:
        self._check("list", resource, namespace)
        return self.inner.list(
            resource, namespace, label_selector=label_selector, field_selector=field_selector
        )

    def watch(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        resource_version: str,
        label_selector: str = "",
        field_selector: str = "",
    ) -> builtins.list[WatchEvent]:
        self._check("watch", resource, namespace)
        return self.inner.watch(
            resource,
            namespace,
            resource_version=resource_version,
            label_selector=label_selector,
            field_selector=field_selector,
        )

    def create(self, resource: str, obj: Obj, namespace: str | None = None) -> Obj:
        # A create is authorized before the object has a name.
        self._check("create", resource, namespace or _namespace(obj))
        return self.inner.create(resource, obj, namespace)

    def update(
        self,
        resource: str,
        obj: Obj,
        namespace: str | None = None,
        *,
        subresource: str | None = None,
    ) -> Obj:
        name = str((obj.get("metadata") or {}).get("name") or "")
        self._check("update", resource, namespace or _namespace(obj), name, subresource)
        return self.inner.update(resource, obj, namespace, subresource=subresource)

    def patch(
        self,
        resource: str,
        name: str,
        patch: Any,
        namespace: str | None = None,
        *,
        patch_type: str = "merge",
        subresource: str | None = None,
    ) -> Obj:
        self._check("patch", resource, namespace, name, subresource)
        return self.inner.patch(
            resource, name, patch, namespace, patch_type=patch_type, subresource=subresource
        )

    def delete(
        self,
        resource: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation: str = "Background",
        grace_period: int | None = None,
    ) -> Obj:
        self._check("delete", resource, namespace, name)
        return self.inner.delete(
            resource, name, namespace, propagation=propagation, grace_period=grace_period
        )

    def bind(self, name: str, namespace: str, node: str) -> None:
        self._check("create", "pods", namespace, name, "binding")
        self.inner.bind(name, namespace, node)

    def evict(self, name: str, namespace: str) -> None:
        self._check("create", "pods", namespace, name, "eviction")
        self.inner.evict(name, namespace)

    def logs(
        self,
        name: str,
        namespace: str,
        *,
        container: str | None = None,
        tail: int | None = None,
        previous: bool = False,
    ) -> str:
        self._check("get", "pods", namespace, name, "log")
        return self.inner.logs(name, namespace, container=container, tail=tail, previous=previous)

    def exec(
        self,
        name: str,
        namespace: str,
        command: builtins.list[str],
        *,
        container: str | None = None,
    ) -> str:
        self._check("create", "pods", namespace, name, "exec")
        return self.inner.exec(name, namespace, command, container=container)


def _namespace(obj: Obj) -> str | None:
    found = (obj.get("metadata") or {}).get("namespace")
    return str(found) if found else None
