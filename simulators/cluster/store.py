"""The mock cluster: an in-memory kube-apiserver.

It keeps objects in the API's JSON shape and enforces what the API server enforces: names,
namespaces, resourceVersions, generation, the status subresource, pod spec immutability,
quantities, owner references (background garbage collection), graceful pod deletion, bindings,
evictions against PodDisruptionBudgets. The controllers (``simulators.controllers``) make it
behave like a running cluster; the store itself never runs anything on its own.
"""

from __future__ import annotations

import builtins
import hashlib
import re
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

from simulators.cluster.api import ApiError, Obj, ResourceInfo, WatchEvent, not_found
from simulators.cluster.clock import StepClock, format_time, parse_time
from simulators.cluster.patches import apply_patch, copy_obj, deep_copy
from simulators.cluster.quantity import QuantityError, parse_quantity
from simulators.cluster.registry import REGISTRY, Registry
from simulators.cluster.selectors import (
    field_matcher,
    label_matcher,
    selector_from_match_labels,
)

FORMAT_VERSION = 1
WATCH_LOG_SIZE = 2000
DEFAULT_GRACE_SECONDS = 30
SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")

# An exec handler answers a command run in a container, or returns None to pass.
ExecHandler = Callable[["MockCluster", Obj, str, list[str]], "str | None"]
_GLOBAL_EXEC_HANDLERS: list[ExecHandler] = []


def register_exec_handler(handler: ExecHandler) -> None:
    """Answer ``kubectl exec`` commands in every mock cluster (e.g. ``nvidia-smi``)."""
    if handler not in _GLOBAL_EXEC_HANDLERS:
        _GLOBAL_EXEC_HANDLERS.append(handler)


_DNS1123_SUBDOMAIN = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
_LABEL_KEY_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
    "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
POD_UPDATE_FORBIDDEN = (
    "spec: Forbidden: pod updates may not change fields other than "
    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    "`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
)
# Kinds whose metadata.generation the API server maintains.
_GENERATION_GROUPS = frozenset({"apps", "batch", "policy"})
_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"


# The enums of the GPU Operator's ClusterPolicy schema that a learner is likely to patch; the
# API server checks a custom resource against its CRD's OpenAPI schema on every write.
_CLUSTER_POLICY_ENUMS = {("mig", "strategy"): ("single", "mixed")}


def _cluster_policy_causes(obj: Obj) -> list[tuple[str, str]]:
    causes: list[tuple[str, str]] = []
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    for (section, field), allowed in _CLUSTER_POLICY_ENUMS.items():
        value = (spec.get(section) or {}).get(field) if isinstance(spec, dict) else None
        if value is not None and value not in allowed:
            supported = ", ".join(f'"{v}"' for v in allowed)
            causes.append(
                (
                    f"spec.{section}.{field}",
                    f'Unsupported value: "{value}": supported values: {supported}',
                )
            )
    return causes


def _invalid(info: ResourceInfo, name: str, causes: list[tuple[str, str]]) -> ApiError:
    text = ", ".join(f"{field}: {msg}" for field, msg in causes)
    if len(causes) > 1:
        text = "[" + text + "]"
    return ApiError(
        422,
        "Invalid",
        f'{info.kind} "{name}" is invalid: {text}',
        {
            "name": name,
            "group": info.group,
            "kind": info.kind,
            "causes": [
                {"reason": "FieldValueInvalid", "message": msg, "field": field}
                for field, msg in causes
            ],
        },
    )


class MockCluster:
    """An in-memory API server implementing ``ClusterAPI``."""

    def __init__(
        self,
        *,
        seed: int = 0,
        clock: StepClock | None = None,
        bootstrap: bool = True,
        registry: Registry = REGISTRY,
    ) -> None:
        self.seed = seed
        self.clock = clock or StepClock()
        self.registry = registry
        self._objects: dict[str, dict[tuple[str, str], Obj]] = {}
        self._rv = 0
        self._uid_counter = 0
        self._name_counter = 0
        self._logs: dict[str, builtins.list[str]] = {}
        self._previous_logs: dict[str, builtins.list[str]] = {}
        self._watch_log: deque[tuple[int, str, str, Obj]] = deque(maxlen=WATCH_LOG_SIZE)
        self._exec_handlers: builtins.list[ExecHandler] = []
        if bootstrap:
            for ns in SYSTEM_NAMESPACES:
                self.create("namespaces", {"metadata": {"name": ns}})

    # ----------------------------------------------------------------- discovery
    def resources(self) -> builtins.list[ResourceInfo]:
        return [info for info in self.registry.infos if info.plural != "bindings"]

    def resolve(self, word: str) -> ResourceInfo:
        return self.registry.resolve(word)

    def info(self, resource: str) -> ResourceInfo:
        return self.registry.by_key(resource)

    def now(self) -> datetime:
        return self.clock.now()

    @property
    def resource_version(self) -> str:
        return str(self._rv)

    # ----------------------------------------------------------------- reads
    def _bucket(self, info: ResourceInfo) -> dict[tuple[str, str], Obj]:
        return self._objects.setdefault(info.key, {})

    def _ns(self, info: ResourceInfo, namespace: str | None) -> str:
        if not info.namespaced:
            return ""
        return namespace or "default"

    def _stored(self, info: ResourceInfo, name: str, namespace: str | None) -> Obj:
        obj = self._bucket(info).get((self._ns(info, namespace), name))
        if obj is None:
            raise not_found(info, name)
        return obj

    def get(self, resource: str, name: str, namespace: str | None = None) -> Obj:
        info = self.info(resource)
        return copy_obj(self._stored(info, name, namespace))

    def iter_objects(self, resource: str, namespace: str | None = None) -> Iterator[Obj]:
        """Stored objects without copying: read-only access for printers and controllers."""
        info = self.info(resource)
        bucket = self._bucket(info)
        for key in sorted(bucket):
            if namespace and info.namespaced and key[0] != namespace:
                continue
            yield bucket[key]

    def select(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        label_selector: str = "",
        field_selector: str = "",
    ) -> builtins.list[Obj]:
        """The stored objects ``list`` would return, uncopied: read only, and only while
        nothing writes (the HTTP server serialises them under its lock)."""
        info = self.info(resource)
        by_label = label_matcher(label_selector)
        by_field = field_matcher(info.key, field_selector)
        return [
            obj for obj in self.iter_objects(resource, namespace) if by_label(obj) and by_field(obj)
        ]

    def list(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        label_selector: str = "",
        field_selector: str = "",
    ) -> Obj:
        info = self.info(resource)
        by_label = label_matcher(label_selector)
        by_field = field_matcher(info.key, field_selector)
        items = [
            deep_copy(obj)
            for obj in self.iter_objects(resource, namespace)
            if by_label(obj) and by_field(obj)
        ]
        return {
            "apiVersion": info.api_version,
            "kind": info.list_kind,
            "metadata": {"resourceVersion": str(self._rv)},
            "items": items,
        }

    # ----------------------------------------------------------------- writes
    def _next_rv(self) -> str:
        self._rv += 1
        return str(self._rv)

    def _new_uid(self) -> str:
        self._uid_counter += 1
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"mock-cluster/{self.seed}/{self._uid_counter}"))

    def _random_suffix(self, length: int = 5) -> str:
        self._name_counter += 1
        digest = hashlib.sha256(f"{self.seed}/{self._name_counter}".encode()).digest()
        return "".join(_NAME_CHARS[b % len(_NAME_CHARS)] for b in digest[:length])

    def random_suffix(self, length: int = 5) -> str:
        """A name suffix as Kubernetes controllers make them (``7d4b9``), deterministic."""
        return self._random_suffix(length)

    def _record(self, info: ResourceInfo, event_type: str, obj: Obj) -> None:
        self._watch_log.append((self._rv, info.key, event_type, deep_copy(obj)))

    def _check_namespace(self, info: ResourceInfo, namespace: str) -> None:
        if info.namespaced and ("", namespace) not in self._objects.get("namespaces", {}):
            raise ApiError(
                404,
                "NotFound",
                f'namespaces "{namespace}" not found',
                {"name": namespace, "kind": "namespaces"},
            )

    def _validate(self, info: ResourceInfo, obj: Obj) -> None:
        meta = obj["metadata"]
        name = str(meta.get("name", ""))
        causes: builtins.list[tuple[str, str]] = []
        pattern, msg = (
            (_DNS1123_LABEL, _LABEL_MSG)
            if info.plural in ("namespaces", "services")
            else (_DNS1123_SUBDOMAIN, _SUBDOMAIN_MSG)
        )
        if len(name) > 253 or pattern.match(name) is None:
            causes.append(("metadata.name", f'Invalid value: "{name}": {msg}'))
        for key, value in (meta.get("labels") or {}).items():
            if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.match(value):
                causes.append(("metadata.labels", f'Invalid value: "{value}": {_LABEL_VALUE_MSG}'))
            prefix, _, short = str(key).rpartition("/")
            if (
                len(short) > 63
                or not _LABEL_NAME.match(short)
                or (prefix and not _DNS1123_SUBDOMAIN.match(prefix))
            ):
                causes.append(("metadata.labels", f'Invalid value: "{key}": {_LABEL_KEY_MSG}'))
        if info.kind == "Pod":
            causes.extend(_pod_causes(obj))
        if info.kind == "ClusterPolicy":
            causes.extend(_cluster_policy_causes(obj))
        if causes:
            raise _invalid(info, name, causes)

    def _check_quantities(self, info: ResourceInfo, obj: Obj) -> None:
        for path, value in _quantities(obj):
            try:
                parse_quantity(value)
            except QuantityError as error:
                raise ApiError(
                    400,
                    "BadRequest",
                    f'{info.kind} in version "{info.version}" cannot be handled as a '
                    f"{info.kind}: {error}",
                ) from error
            del path

    def create(self, resource: str, obj: Obj, namespace: str | None = None) -> Obj:
        info = self.info(resource)
        if not isinstance(obj, dict):
            raise ApiError(400, "BadRequest", "the body of the request is not an object")
        new = deep_copy(obj)
        meta = new.setdefault("metadata", {})
        if not isinstance(meta, dict):
            raise ApiError(400, "BadRequest", "metadata must be an object")
        ns = self._ns(info, namespace or meta.get("namespace"))
        if info.namespaced:
            if namespace and meta.get("namespace") and meta["namespace"] != namespace:
                raise ApiError(
                    400,
                    "BadRequest",
                    "the namespace of the provided object does not match the namespace sent "
                    "on the request",
                )
            meta["namespace"] = ns
        else:
            meta.pop("namespace", None)
        new["apiVersion"] = info.api_version
        new["kind"] = info.kind
        if not meta.get("name"):
            if meta.get("generateName"):
                base = str(meta["generateName"])
                for _ in range(50):
                    candidate = base + self._random_suffix()
                    if (ns, candidate) not in self._bucket(info):
                        meta["name"] = candidate
                        break
            else:
                raise _invalid(
                    info,
                    "",
                    [("metadata.name", "Required value: name or generateName is required")],
                )
        self._check_quantities(info, new)
        self._validate(info, new)
        if info.namespaced:
            self._check_namespace(info, ns)
            if (
                self._objects.get("namespaces", {}).get(("", ns), {}).get("status", {}).get("phase")
                == "Terminating"
            ):
                raise ApiError(
                    403,
                    "Forbidden",
                    f'{info.key} "{meta["name"]}" is forbidden: unable to create new content in '
                    f"namespace {ns} because it is being terminated",
                )
        key = (ns, str(meta["name"]))
        if key in self._bucket(info):
            raise ApiError(
                409,
                "AlreadyExists",
                f'{info.key} "{meta["name"]}" already exists',
                {"name": meta["name"], "group": info.group, "kind": info.plural},
            )
        for field in ("deletionTimestamp", "deletionGracePeriodSeconds"):
            meta.pop(field, None)
        if "status" in info.subresources and info.kind != "Node":
            # PrepareForCreate: status is the controllers' to write, through the subresource.
            new.pop("status", None)
        meta["uid"] = self._new_uid()
        meta["creationTimestamp"] = self.clock.timestamp()
        if info.group in _GENERATION_GROUPS or info.custom:
            meta["generation"] = 1
        _default(info, new, self, creating=True)
        meta["resourceVersion"] = self._next_rv()
        self._bucket(info)[key] = new
        self._record(info, "ADDED", new)
        if info.plural == "namespaces":
            self._populate_namespace(str(meta["name"]))
        return copy_obj(new)

    def _populate_namespace(self, ns: str) -> None:
        # What the service-account controller and root-CA publisher add to every namespace.
        self.create("serviceaccounts", {"metadata": {"name": "default", "namespace": ns}})
        self.create(
            "configmaps",
            {
                "metadata": {
                    "name": "kube-root-ca.crt",
                    "namespace": ns,
                    "annotations": {
                        "kubernetes.io/description": "Contains a CA bundle that can be used to "
                        "verify the kube-apiserver when using internal endpoints such as the "
                        "internal service IP or kubernetes.default.svc. No other usage is "
                        "guaranteed across distributions of Kubernetes clusters."
                    },
                },
                "data": {
                    "ca.crt": "-----BEGIN CERTIFICATE-----\n(lab)\n-----END CERTIFICATE-----\n"
                },
            },
        )

    def _store_update(
        self, info: ResourceInfo, old: Obj, new: Obj, *, subresource: str | None
    ) -> Obj:
        """Apply the API server's update rules to ``new`` (a modified copy of ``old``)."""
        meta_old = old["metadata"]
        meta = new.setdefault("metadata", {})
        rv = meta.get("resourceVersion")
        if rv and str(rv) != str(meta_old["resourceVersion"]):
            raise ApiError(
                409,
                "Conflict",
                f'Operation cannot be fulfilled on {info.key} "{meta_old["name"]}": the object has '
                "been modified; please apply your changes to the latest version and try again",
                {"name": meta_old["name"], "group": info.group, "kind": info.plural},
            )
        if meta.get("name", meta_old["name"]) != meta_old["name"]:
            raise ApiError(
                400,
                "BadRequest",
                "the name of the object "
                f"({meta.get('name')}) does not match the name on the URL ({meta_old['name']})",
            )
        new["apiVersion"] = info.api_version
        new["kind"] = info.kind
        # Fields the server owns.
        for field in (
            "name",
            "namespace",
            "uid",
            "creationTimestamp",
            "generation",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        ):
            if field in meta_old:
                meta[field] = meta_old[field]
            else:
                meta.pop(field, None)
        if subresource == "status":
            # Only status changes through the status subresource.
            status = new.get("status")
            new = {k: deep_copy(v) for k, v in old.items() if k != "status"}
            if status is not None:
                new["status"] = status
            meta = new["metadata"]
        elif "status" in info.subresources:
            if "status" in old:
                new["status"] = deep_copy(old["status"])
            else:
                new.pop("status", None)
        self._check_quantities(info, new)
        # Defaulting comes before validation, as in the API server, so a patch that drops a
        # defaulted field gets it back instead of tripping pod immutability.
        _default(info, new, self)
        if info.kind == "Pod" and subresource != "status":
            _check_pod_update(info, old, new)
        self._validate(info, new)
        if "generation" in meta_old and _spec_of(new) != _spec_of(old):
            meta["generation"] = int(meta_old["generation"]) + 1
        if new == old:
            return copy_obj(old)
        meta["resourceVersion"] = self._next_rv()
        ns = str(meta_old.get("namespace", ""))
        if meta.get("deletionTimestamp") and not meta.get("finalizers"):
            return self._remove(info, ns, str(meta_old["name"]))
        self._bucket(info)[(ns, str(meta_old["name"]))] = new
        self._record(info, "MODIFIED", new)
        return copy_obj(new)

    def update(
        self,
        resource: str,
        obj: Obj,
        namespace: str | None = None,
        *,
        subresource: str | None = None,
    ) -> Obj:
        info = self.info(resource)
        meta = obj.get("metadata") or {}
        name = str(meta.get("name", ""))
        old = self._stored(info, name, namespace or meta.get("namespace"))
        return self._store_update(info, old, deep_copy(obj), subresource=subresource)

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
        info = self.info(resource)
        old = self._stored(info, name, namespace)
        if patch_type == "strategic" and info.custom:
            raise ApiError(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types "
                "include: application/json-patch+json, application/merge-patch+json, "
                "application/apply-patch+yaml",
            )
        if patch_type != "json" and not isinstance(patch, dict):
            raise ApiError(400, "BadRequest", "the patch is not a JSON object")
        new = apply_patch(old, patch, patch_type)
        if not isinstance(new, dict):
            raise ApiError(422, "Invalid", "the patch does not result in an object")
        # The patched object keeps the stored resourceVersion unless the patch names one,
        # so only a patch that names a stale one conflicts.
        return self._store_update(info, old, new, subresource=subresource)

    def _remove(self, info: ResourceInfo, ns: str, name: str) -> Obj:
        obj = self._bucket(info).pop((ns, name))
        obj["metadata"]["resourceVersion"] = self._next_rv()
        self._record(info, "DELETED", obj)
        if info.kind == "Pod":
            prefix = f"{ns}/{name}/"
            for logs in (self._logs, self._previous_logs):
                for key in [k for k in logs if k.startswith(prefix)]:
                    del logs[key]
        if info.kind == "Namespace":
            for other in self.registry.infos:
                if not other.namespaced:
                    continue
                bucket = self._objects.get(other.key, {})
                for ns_name in [k for k in bucket if k[0] == name]:
                    if ns_name in bucket:
                        self._remove(other, ns_name[0], ns_name[1])
        self._collect_dependents(str(obj["metadata"]["uid"]))
        return copy_obj(obj)

    def _collect_dependents(self, uid: str, orphan: bool = False) -> None:
        """Background garbage collection: delete (or orphan) what the object owned."""
        for info in self.registry.infos:
            for key, obj in list(self._objects.get(info.key, {}).items()):
                refs = obj["metadata"].get("ownerReferences") or []
                if not any(ref.get("uid") == uid for ref in refs):
                    continue
                if key not in self._bucket(info):
                    continue
                remaining = [ref for ref in refs if ref.get("uid") != uid]
                if orphan or remaining:
                    self.patch(
                        info.key,
                        key[1],
                        {"metadata": {"ownerReferences": remaining or None}},
                        key[0] or None,
                    )
                else:
                    self.delete(info.key, key[1], key[0] or None)

    def delete(
        self,
        resource: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation: str = "Background",
        grace_period: int | None = None,
    ) -> Obj:
        info = self.info(resource)
        ns = self._ns(info, namespace)
        obj = self._stored(info, name, namespace)
        meta = obj["metadata"]
        if propagation == "Orphan":
            self._collect_dependents(str(meta["uid"]), orphan=True)
            obj = self._stored(info, name, namespace)
            meta = obj["metadata"]
        if info.kind == "Pod":
            grace = grace_period
            if grace is None:
                grace = int(obj.get("spec", {}).get("terminationGracePeriodSeconds", 30))
            bound = bool(obj.get("spec", {}).get("nodeName"))
            finished = obj.get("status", {}).get("phase") in ("Succeeded", "Failed")
            if grace > 0 and bound and not finished:
                deadline = self.clock.now() + timedelta(seconds=grace)
                current = meta.get("deletionTimestamp")
                if current and parse_time(str(current)) <= deadline:
                    return copy_obj(obj)
                new = deep_copy(obj)
                new["metadata"]["deletionTimestamp"] = format_time(deadline)
                new["metadata"]["deletionGracePeriodSeconds"] = grace
                new["metadata"]["resourceVersion"] = self._next_rv()
                self._bucket(info)[(ns, name)] = new
                self._record(info, "MODIFIED", new)
                return copy_obj(new)
        if meta.get("finalizers"):
            if meta.get("deletionTimestamp"):
                return copy_obj(obj)
            new = deep_copy(obj)
            new["metadata"]["deletionTimestamp"] = self.clock.timestamp()
            new["metadata"]["deletionGracePeriodSeconds"] = 0
            new["metadata"]["resourceVersion"] = self._next_rv()
            self._bucket(info)[(ns, name)] = new
            self._record(info, "MODIFIED", new)
            return copy_obj(new)
        return self._remove(info, ns, name)

    # ----------------------------------------------------------------- watch
    def watch(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        resource_version: str,
        label_selector: str = "",
        field_selector: str = "",
    ) -> builtins.list[WatchEvent]:
        info = self.info(resource)
        by_label = label_matcher(label_selector)
        by_field = field_matcher(info.key, field_selector)

        def wanted(obj: Obj) -> bool:
            if namespace and info.namespaced and obj["metadata"].get("namespace") != namespace:
                return False
            return by_label(obj) and by_field(obj)

        if resource_version in ("", "0"):
            return [
                WatchEvent("ADDED", deep_copy(obj))
                for obj in self.iter_objects(info.key, namespace)
                if wanted(obj)
            ]
        try:
            since = int(resource_version)
        except ValueError as error:
            raise ApiError(
                400, "BadRequest", f'invalid resource version "{resource_version}"'
            ) from error
        oldest = self._watch_log[0][0] if self._watch_log else self._rv + 1
        if since < oldest - 1 and since < self._rv:
            raise ApiError(410, "Expired", f"too old resource version: {since} ({oldest - 1})")
        if not label_selector and not field_selector:
            return [
                WatchEvent(event_type, deep_copy(obj))
                for rv, key, event_type, obj in self._watch_log
                if rv > since and key == info.key and wanted(obj)
            ]
        # With a selector, an object that starts or stops matching is ADDED or DELETED for
        # this watcher, as the API server's watch cache reports it. Its previous state is its
        # last earlier entry in the log; without one, it is taken to have matched as it does now.
        events: builtins.list[WatchEvent] = []
        last: dict[tuple[str, str], bool] = {}
        for rv, key, event_type, obj in self._watch_log:
            if key != info.key:
                continue
            meta = obj["metadata"]
            ident = (str(meta.get("namespace", "")), str(meta["name"]))
            matches = wanted(obj)
            before = last.get(ident, matches if event_type != "ADDED" else False)
            last[ident] = matches and event_type != "DELETED"
            if rv <= since:
                continue
            if event_type == "MODIFIED" and before != matches:
                event_type = "ADDED" if matches else "DELETED"
            elif event_type == "DELETED":
                matches = before or matches
            if matches or event_type == "DELETED":
                events.append(WatchEvent(event_type, deep_copy(obj)))
        return events

    # ----------------------------------------------------------------- subresources
    def compact_watch_log(self) -> None:
        """Forget the watch history, as etcd's compaction does: older versions get 410 Gone."""
        self._watch_log.clear()

    def bind(self, name: str, namespace: str, node: str) -> None:
        info = self.info("pods")
        pod = self._stored(info, name, namespace)
        current = pod.get("spec", {}).get("nodeName")
        if current:
            raise ApiError(
                409,
                "Conflict",
                f'Operation cannot be fulfilled on pods/binding "{name}": pod {name} is already '
                f'assigned to node "{current}"',
                {"name": name, "kind": "pods/binding"},
            )
        if pod["metadata"].get("deletionTimestamp"):
            raise ApiError(
                409,
                "Conflict",
                f'Operation cannot be fulfilled on pods/binding "{name}": pod {name} is being '
                "deleted, cannot be assigned to a host",
            )
        new = deep_copy(pod)
        new.setdefault("spec", {})["nodeName"] = node
        conditions = [
            c
            for c in new.setdefault("status", {}).get("conditions", [])
            if c["type"] != "PodScheduled"
        ]
        conditions.insert(
            0,
            {
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": self.clock.timestamp(),
            },
        )
        new["status"]["conditions"] = conditions
        new["metadata"]["resourceVersion"] = self._next_rv()
        self._bucket(info)[(namespace, name)] = new
        self._record(info, "MODIFIED", new)

    def evict(self, name: str, namespace: str) -> None:
        info = self.info("pods")
        pod = self._stored(info, name, namespace)
        if not pod["metadata"].get("deletionTimestamp") and pod.get("status", {}).get(
            "phase"
        ) not in ("Succeeded", "Failed"):
            for pdb in self.iter_objects("poddisruptionbudgets.policy", namespace):
                matches = selector_from_match_labels(pdb.get("spec", {}).get("selector"))
                if matches(pod) and self._disruptions_allowed(pdb, namespace) <= 0:
                    raise ApiError(
                        429,
                        "TooManyRequests",
                        "Cannot evict pod as it would violate the pod's disruption budget.",
                        {
                            "causes": [
                                {
                                    "reason": "DisruptionBudget",
                                    "message": f"The disruption budget {pdb['metadata']['name']} "
                                    "needs "
                                    f"{self._desired_healthy(pdb, namespace)} healthy pods and has "
                                    f"{self._healthy(pdb, namespace)} currently",
                                }
                            ]
                        },
                    )
        self.delete("pods", name, namespace)

    def _healthy(self, pdb: Obj, namespace: str) -> int:
        matches = selector_from_match_labels(pdb.get("spec", {}).get("selector"))
        return sum(
            1
            for pod in self.iter_objects("pods", namespace)
            if matches(pod) and _pod_ready(pod) and not pod["metadata"].get("deletionTimestamp")
        )

    def _desired_healthy(self, pdb: Obj, namespace: str) -> int:
        spec = pdb.get("spec", {})
        matches = selector_from_match_labels(spec.get("selector"))
        expected = sum(1 for pod in self.iter_objects("pods", namespace) if matches(pod))
        if "minAvailable" in spec:
            return _int_or_percent(spec["minAvailable"], expected, round_up=True)
        if "maxUnavailable" in spec:
            return expected - _int_or_percent(spec["maxUnavailable"], expected, round_up=True)
        return 0

    def _disruptions_allowed(self, pdb: Obj, namespace: str) -> int:
        return self._healthy(pdb, namespace) - self._desired_healthy(pdb, namespace)

    # ----------------------------------------------------------------- logs and exec
    def append_log(
        self, namespace: str, pod: str, container: str, lines: builtins.list[str]
    ) -> None:
        """The kubelet's side of ``pods/log``: lines a container wrote."""
        self._logs.setdefault(f"{namespace}/{pod}/{container}", []).extend(lines)

    def restart_log(self, namespace: str, pod: str, container: str) -> None:
        """A container restarted: its log becomes ``--previous`` and a new one starts."""
        key = f"{namespace}/{pod}/{container}"
        self._previous_logs[key] = self._logs.pop(key, [])

    def logs(
        self,
        name: str,
        namespace: str,
        *,
        container: str | None = None,
        tail: int | None = None,
        previous: bool = False,
    ) -> str:
        pod = self._stored(self.info("pods"), name, namespace)
        names = [c.get("name", "") for c in pod.get("spec", {}).get("containers", [])]
        init_names = [c.get("name", "") for c in pod.get("spec", {}).get("initContainers", [])]
        if container is None:
            if len(names) != 1:
                raise ApiError(
                    400,
                    "BadRequest",
                    f"a container name must be specified for pod {name}, choose one of: "
                    f"[{' '.join(names)}]"
                    + (
                        f" or one of the init containers: [{' '.join(init_names)}]"
                        if init_names
                        else ""
                    ),
                )
            container = names[0]
        elif container not in names and container not in init_names:
            raise ApiError(400, "BadRequest", f"container {container} is not valid for pod {name}")
        key = f"{namespace}/{name}/{container}"
        if previous:
            if key not in self._previous_logs:
                raise ApiError(
                    400,
                    "BadRequest",
                    f'previous terminated container "{container}" in pod "{name}" not found',
                )
            lines = self._previous_logs[key]
        else:
            lines = self._logs.get(key, [])
            if not lines:
                waiting = _container_waiting(pod, container)
                if waiting:
                    raise ApiError(
                        400,
                        "BadRequest",
                        f'container "{container}" in pod "{name}" is waiting to start: {waiting}',
                    )
        if tail is not None and tail >= 0:
            lines = lines[-tail:] if tail else []
        return "".join(line + "\n" for line in lines)

    def add_exec_handler(self, handler: ExecHandler) -> None:
        self._exec_handlers.append(handler)

    def exec(
        self,
        name: str,
        namespace: str,
        command: builtins.list[str],
        *,
        container: str | None = None,
    ) -> str:
        pod = self._stored(self.info("pods"), name, namespace)
        names = [c.get("name", "") for c in pod.get("spec", {}).get("containers", [])]
        container = container or (names[0] if names else "")
        if container not in names:
            raise ApiError(400, "BadRequest", f"container {container} is not valid for pod {name}")
        if pod.get("status", {}).get("phase") != "Running":
            raise ApiError(
                400,
                "BadRequest",
                f'unable to upgrade connection: container not found ("{container}")',
            )
        for handler in [*self._exec_handlers, *_GLOBAL_EXEC_HANDLERS]:
            answer = handler(self, deep_copy(pod), container, list(command))
            if answer is not None:
                return answer
        program = command[0] if command else ""
        raise ApiError(
            500,
            "InternalError",
            "Internal error occurred: error executing command in container: failed to exec in "
            f"container: failed to start exec: OCI runtime exec failed: exec failed: unable to "
            f'start container process: exec: "{program}": executable file not found in $PATH: '
            "unknown",
        )

    # ----------------------------------------------------------------- state
    def to_json(self) -> Obj:
        return {
            "format": FORMAT_VERSION,
            "seed": self.seed,
            "clock": {"seconds": self.clock.seconds, "step_seconds": self.clock.step_seconds},
            "rv": self._rv,
            "uids": self._uid_counter,
            "names": self._name_counter,
            "objects": {
                key: [deep_copy(obj) for _, obj in sorted(bucket.items())]
                for key, bucket in sorted(self._objects.items())
                if bucket
            },
            "logs": deep_copy(self._logs),
            "previous_logs": deep_copy(self._previous_logs),
            "watch_log": [[rv, key, t, deep_copy(obj)] for rv, key, t, obj in self._watch_log],
        }

    @classmethod
    def from_json(cls, data: Obj, registry: Registry = REGISTRY) -> MockCluster:
        if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
            raise ApiError(400, "BadRequest", "saved cluster state has an unknown format")
        cluster = cls(
            seed=int(data["seed"]),
            clock=StepClock(int(data["clock"]["seconds"]), int(data["clock"]["step_seconds"])),
            bootstrap=False,
            registry=registry,
        )
        cluster._rv = int(data["rv"])
        cluster._uid_counter = int(data["uids"])
        cluster._name_counter = int(data["names"])
        for key, items in data["objects"].items():
            info = registry.by_key(key)
            bucket = cluster._bucket(info)
            for obj in items:
                meta = obj["metadata"]
                bucket[(str(meta.get("namespace", "")), str(meta["name"]))] = deep_copy(obj)
        cluster._logs = deep_copy(data["logs"])
        cluster._previous_logs = deep_copy(data["previous_logs"])
        for rv, key, event_type, obj in data["watch_log"]:
            cluster._watch_log.append((int(rv), str(key), str(event_type), deep_copy(obj)))
        return cluster


# --------------------------------------------------------------------- helpers
def _spec_of(obj: Obj) -> Obj:
    return {k: v for k, v in obj.items() if k not in ("metadata", "status", "apiVersion", "kind")}


def _int_or_percent(value: Any, total: int, round_up: bool) -> int:
    if isinstance(value, str) and value.endswith("%"):
        fraction = int(value[:-1]) * total
        return -(-fraction // 100) if round_up else fraction // 100
    return int(value)


def _pod_ready(pod: Obj) -> bool:
    for condition in pod.get("status", {}).get("conditions", []) or []:
        if condition.get("type") == "Ready":
            return bool(condition.get("status") == "True")
    return False


def _container_waiting(pod: Obj, container: str) -> str | None:
    for status in pod.get("status", {}).get("containerStatuses", []) or []:
        if status.get("name") == container:
            waiting = (status.get("state") or {}).get("waiting")
            return str(waiting.get("reason", "ContainerCreating")) if waiting else None
    if pod.get("spec", {}).get("nodeName"):
        return "ContainerCreating"
    return None


def _containers(spec: Obj) -> Iterator[tuple[str, Obj]]:
    for field in ("initContainers", "containers"):
        for index, container in enumerate(spec.get(field) or []):
            if isinstance(container, dict):
                yield f"spec.{field}[{index}]", container


def _pod_spec(obj: Obj) -> Obj | None:
    kind = obj.get("kind")
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return None
    if kind == "Pod":
        return spec
    template = spec.get("template")
    if isinstance(template, dict) and isinstance(template.get("spec"), dict):
        result: Obj = template["spec"]
        return result
    return None


def _quantities(obj: Obj) -> Iterator[tuple[str, Any]]:
    spec = _pod_spec(obj)
    if spec is not None:
        for path, container in _containers(spec):
            resources = container.get("resources") or {}
            for part in ("requests", "limits"):
                for name, value in (resources.get(part) or {}).items():
                    yield f"{path}.resources.{part}[{name}]", value
    if obj.get("kind") == "Node":
        for part in ("capacity", "allocatable"):
            for name, value in (obj.get("status", {}).get(part) or {}).items():
                yield f"status.{part}[{name}]", value


def _pod_causes(pod: Obj) -> builtins.list[tuple[str, str]]:
    causes: builtins.list[tuple[str, str]] = []
    spec = pod.get("spec") or {}
    if not spec.get("containers"):
        causes.append(("spec.containers", "Required value"))
    for path, container in _containers(spec):
        if not container.get("name"):
            causes.append((f"{path}.name", "Required value"))
        if not container.get("image"):
            causes.append((f"{path}.image", "Required value"))
        resources = container.get("resources") or {}
        for part in ("requests", "limits"):
            for name, value in (resources.get(part) or {}).items():
                if "/" in name and not name.startswith("kubernetes.io/"):
                    quantity = parse_quantity(value)
                    if quantity != int(quantity):
                        causes.append(
                            (
                                f"{path}.resources.{part}[{name}]",
                                f'Invalid value: "{value}": must be an integer',
                            )
                        )
        limits = resources.get("limits") or {}
        for name, value in (resources.get("requests") or {}).items():
            if "/" in name and not name.startswith("kubernetes.io/"):
                if name not in limits:
                    causes.append(
                        (
                            f"{path}.resources.limits",
                            "Required value: Limit must be set for non overcommitable resources",
                        )
                    )
                elif parse_quantity(limits[name]) != parse_quantity(value):
                    causes.append(
                        (
                            f"{path}.resources.requests",
                            f'Invalid value: "{value}": must be equal to {name} limit of '
                            f"{limits[name]}",
                        )
                    )
    return causes


def _check_pod_update(info: ResourceInfo, old: Obj, new: Obj) -> None:
    old_spec = deep_copy(old.get("spec") or {})
    new_spec = deep_copy(new.get("spec") or {})
    for spec in (old_spec, new_spec):
        for _, container in _containers(spec):
            container.pop("image", None)
        spec.pop("activeDeadlineSeconds", None)
    old_tol = old_spec.pop("tolerations", None) or []
    new_tol = new_spec.pop("tolerations", None) or []
    tolerations_ok = all(t in new_tol for t in old_tol)
    # Graceful deletion's grace may only go 'negative -> 1'; treat as immutable otherwise.
    if old_spec != new_spec or not tolerations_ok:
        name = str(old["metadata"]["name"])
        raise ApiError(
            422,
            "Invalid",
            f'{info.kind} "{name}" is invalid: {POD_UPDATE_FORBIDDEN}',
            {
                "name": name,
                "kind": info.kind,
                "causes": [
                    {
                        "reason": "FieldValueForbidden",
                        "message": POD_UPDATE_FORBIDDEN[6:],
                        "field": "spec",
                    }
                ],
            },
        )


def _qos(spec: Obj) -> str:
    containers = [c for _, c in _containers(spec)]
    requests_any = False
    guaranteed = True
    for container in containers:
        resources = container.get("resources") or {}
        requests = resources.get("requests") or {}
        limits = resources.get("limits") or {}
        if requests or limits:
            requests_any = True
        for name in ("cpu", "memory"):
            if name not in limits or (
                name in requests and parse_quantity(requests[name]) != parse_quantity(limits[name])
            ):
                guaranteed = False
    if not requests_any:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def _default_pod_spec(spec: Obj) -> None:
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
    spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
    spec.setdefault("priority", 0)
    if "serviceAccountName" in spec or "serviceAccount" in spec:
        account = spec.get("serviceAccountName") or spec.get("serviceAccount")
        spec["serviceAccountName"] = spec["serviceAccount"] = account
    for _, container in _containers(spec):
        image = str(container.get("image", ""))
        tag = image.rpartition("/")[2]
        pull = (
            "Always"
            if (":" not in tag or tag.endswith(":latest")) and "@" not in tag
            else ("IfNotPresent")
        )
        container.setdefault("imagePullPolicy", pull)
        container.setdefault("resources", {})
        resources = container["resources"]
        # The API server copies limits into missing requests.
        for name, value in (resources.get("limits") or {}).items():
            resources.setdefault("requests", {}).setdefault(name, value)
        container.setdefault("terminationMessagePath", "/dev/termination-log")
        container.setdefault("terminationMessagePolicy", "File")
        for port in container.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("protocol", "TCP")


def _service_account_pull_secrets(cluster: MockCluster, pod: Obj, spec: Obj) -> None:
    """The ServiceAccount admission plugin: a new pod without imagePullSecrets gets its
    ServiceAccount's, so patching the account helps only pods created afterwards."""
    namespace = str(pod.get("metadata", {}).get("namespace") or "default")
    try:
        account = cluster.get("serviceaccounts", str(spec["serviceAccountName"]), namespace)
    except ApiError:
        return
    secrets = [dict(ref) for ref in account.get("imagePullSecrets") or [] if isinstance(ref, dict)]
    if secrets:
        spec["imagePullSecrets"] = secrets


def _default(info: ResourceInfo, obj: Obj, cluster: MockCluster, *, creating: bool = False) -> None:
    """What the API server's defaulting and built-in admission add on create and update."""
    kind = info.kind
    if kind == "Pod":
        spec = obj.setdefault("spec", {})
        if "serviceAccountName" not in spec and "serviceAccount" not in spec:
            spec["serviceAccountName"] = spec["serviceAccount"] = "default"
        _default_pod_spec(spec)
        if creating and not spec.get("imagePullSecrets"):
            _service_account_pull_secrets(cluster, obj, spec)
        # The DefaultTolerationSeconds admission plugin acts on create only.
        tolerations = spec.setdefault("tolerations", []) if creating else []
        for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
            if not any(t.get("key") == key for t in tolerations):
                tolerations.append(
                    {
                        "key": key,
                        "operator": "Exists",
                        "effect": "NoExecute",
                        "tolerationSeconds": 300,
                    }
                )
        status = obj.setdefault("status", {})
        status.setdefault("phase", "Pending")
        status["qosClass"] = _qos(spec)
    elif kind in ("Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job"):
        spec = obj.setdefault("spec", {})
        template = spec.setdefault("template", {})
        _default_pod_spec(template.setdefault("spec", {}))
        if kind in ("Deployment", "ReplicaSet", "StatefulSet"):
            spec.setdefault("replicas", 1)
        if kind == "Deployment":
            spec.setdefault(
                "strategy",
                {
                    "type": "RollingUpdate",
                    "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
                },
            )
            spec.setdefault("revisionHistoryLimit", 10)
            spec.setdefault("progressDeadlineSeconds", 600)
        if kind == "DaemonSet":
            spec.setdefault(
                "updateStrategy",
                {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
            )
            spec.setdefault("revisionHistoryLimit", 10)
        if kind == "Job":
            spec.setdefault("backoffLimit", 6)
            spec.setdefault("completions", 1)
            spec.setdefault("parallelism", 1)
            spec.setdefault("completionMode", "NonIndexed")
            spec.setdefault("suspend", False)
        obj.setdefault("status", {})
    elif kind == "Namespace":
        name = obj["metadata"]["name"]
        obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = name
        obj.setdefault("spec", {"finalizers": ["kubernetes"]})
        obj.setdefault("status", {"phase": "Active"})
    elif kind == "Service":
        spec = obj.setdefault("spec", {})
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        if "clusterIP" not in spec:
            digest = hashlib.sha256(
                f"{obj['metadata'].get('namespace')}/{obj['metadata']['name']}".encode()
            ).digest()
            spec["clusterIP"] = f"10.{96 + digest[0] % 16}.{digest[1]}.{1 + digest[2] % 254}"
            spec["clusterIPs"] = [spec["clusterIP"]]
        for port in spec.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("protocol", "TCP")
                port.setdefault("targetPort", port.get("port"))
        obj.setdefault("status", {"loadBalancer": {}})
    elif kind == "ServiceAccount":
        pass
    elif kind == "Secret":
        obj.setdefault("type", "Opaque")
    del cluster
