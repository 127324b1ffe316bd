"""The cluster API every lab tool, controller and the HTTP server speaks.

Objects are Kubernetes objects in the API's own JSON shape (plain dicts). Resources are named as
kubectl's REST paths name them: the plural, qualified by group outside the core group
(``"pods"``, ``"deployments.apps"``, ``"queues.scheduling.run.ai"``).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

Obj = dict[str, Any]

ALL_VERBS: tuple[str, ...] = (
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
)


class ApiError(Exception):
    """What the API server puts in a ``Status`` object when a request fails."""

    def __init__(
        self, code: int, reason: str, message: str, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details: dict[str, Any] = details or {}

    def status(self) -> Obj:
        """The ``Status`` object the API server returns for this error."""
        status: Obj = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if self.details:
            status["details"] = self.details
        return status

    def __repr__(self) -> str:
        return f"ApiError({self.code}, {self.reason!r}, {self.message!r})"


def not_found(info: ResourceInfo, name: str) -> ApiError:
    return ApiError(
        404,
        "NotFound",
        f'{info.key} "{name}" not found',
        {"name": name, "group": info.group, "kind": info.plural},
    )


@dataclass(frozen=True)
class ResourceInfo:
    """One resource type as discovery describes it."""

    group: str
    version: str
    kind: str
    plural: str
    singular: str
    short_names: tuple[str, ...] = ()
    namespaced: bool = True
    verbs: tuple[str, ...] = ALL_VERBS
    categories: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()
    # additionalPrinterColumns of a custom resource (``name``, ``type``, ``jsonPath``,
    # optional ``priority``/``format``/``description``); empty for built-in kinds.
    printer_columns: tuple[dict[str, Any], ...] = field(default=(), hash=False, compare=False)
    custom: bool = False

    @property
    def key(self) -> str:
        """The name kubectl's messages use: ``pods``, ``deployments.apps``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"


@dataclass(frozen=True)
class WatchEvent:
    type: str  # ADDED | MODIFIED | DELETED | BOOKMARK | ERROR
    object: Obj

    def to_json(self) -> Obj:
        return {"type": self.type, "object": self.object}


class ClusterAPI(Protocol):
    """The verbs of a kube-apiserver. ``MockCluster`` implements it in memory."""

    def resources(self) -> builtins.list[ResourceInfo]: ...

    def resolve(self, word: str) -> ResourceInfo: ...

    def get(self, resource: str, name: str, namespace: str | None = None) -> Obj: ...

    def list(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        label_selector: str = "",
        field_selector: str = "",
    ) -> Obj: ...

    def create(self, resource: str, obj: Obj, namespace: str | None = None) -> Obj: ...

    def update(
        self,
        resource: str,
        obj: Obj,
        namespace: str | None = None,
        *,
        subresource: str | None = None,
    ) -> Obj: ...

    def patch(
        self,
        resource: str,
        name: str,
        patch: Any,
        namespace: str | None = None,
        *,
        patch_type: str = "merge",
        subresource: str | None = None,
    ) -> Obj: ...

    def delete(
        self,
        resource: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation: str = "Background",
        grace_period: int | None = None,
    ) -> Obj: ...

    def watch(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        resource_version: str,
        label_selector: str = "",
        field_selector: str = "",
    ) -> builtins.list[WatchEvent]: ...

    def bind(self, name: str, namespace: str, node: str) -> None: ...

    def evict(self, name: str, namespace: str) -> None: ...

    def logs(
        self,
        name: str,
        namespace: str,
        *,
        container: str | None = None,
        tail: int | None = None,
        previous: bool = False,
    ) -> str: ...

    def exec(
        self,
        name: str,
        namespace: str,
        command: builtins.list[str],
        *,
        container: str | None = None,
    ) -> str: ...

    def now(self) -> datetime: ...


def stored_items(api: ClusterAPI, resource: str, namespace: str | None = None) -> list[Obj]:
    """The objects of a list call, sorted by namespace and name. On the mock store they are its
    own, without a copy each (``iter_objects``): read only, for the controllers and the RBAC
    authorizer, which read many objects on every step or request."""
    iterate = getattr(api, "iter_objects", None)
    if iterate is not None:
        return list(iterate(resource, namespace))
    objs: list[Obj] = list(api.list(resource, namespace).get("items", []))
    objs.sort(
        key=lambda o: (
            o.get("metadata", {}).get("namespace", ""),
            o.get("metadata", {}).get("name", ""),
        )
    )
    return objs
