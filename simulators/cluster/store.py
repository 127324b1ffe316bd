"""The mock cluster: an in-memory kube-apiserver.

It keeps objects in the API's JSON shape and enforces what the API server enforces: names,
namespaces, resourceVersions, generation, the status subresource, pod spec immutability,
quantities, owner references (background garbage collection), graceful pod deletion, bindings,
evictions against PodDisruptionBudgets. The controllers (``simulators.controllers``) make it
behave like a running cluster; the store itself never runs anything on its own.

The store keeps the objects and applies the write rules; what it checks and fills in on a write
is in ``admission``, deletion and garbage collection in ``lifecycle``, the saved form in
``saved``, the pod subresources' rules in ``subresources``, containers' logs and exec in
``containers``, watch replay in ``watchlog``.

A stored object is never changed in place: every write stores a new object (a changed copy),
so ``fork`` can share the objects themselves between stores.
"""

from __future__ import annotations

import bisect
import builtins
import hashlib
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from simulators.cluster import admission, lifecycle, limits, packing, saved, schema, sharing
from simulators.cluster.api import ApiError, Obj, ResourceInfo, WatchEvent, not_found
from simulators.cluster.changes import Changes, renews_heartbeat_only
from simulators.cluster.clock import StepClock
from simulators.cluster.containers import ContainerIO, ExecHandler
from simulators.cluster.patches import apply_patch, copy_obj, deep_copy
from simulators.cluster.registry import REGISTRY, Registry
from simulators.cluster.selectors import field_matcher, label_matcher
from simulators.cluster.subresources import bound_pod, check_disruption_budgets
from simulators.cluster.watchlog import Entry, parse_since, replay

FORMAT_VERSION = saved.FORMAT_VERSION
WATCH_LOG_SIZE = 2000
SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")


# Kinds whose metadata.generation the API server maintains.
_GENERATION_GROUPS = frozenset({"apps", "batch", "policy"})
_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"


class MockCluster(ContainerIO):
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
        # Buckets this store shares with a fork or its original (saved.fork): copied on the
        # first write (_writable), so a fork costs an entry per resource, not per object.
        self._shared_buckets: set[str] = set()
        # Buckets held packed between a lab's commands (pack_idle, simulators.cluster.packing),
        # absent from _objects until read; and those unpacked and not written since, with
        # what they were packed as.
        self._packed: dict[str, packing.Packed] = {}
        self._clean: dict[str, packing.Packed] = {}
        # Buckets found too small to pack and not written since, with the commands in a row
        # that did not read them; those read since the last pack_idle; and those unpacked
        # since they were last packed (their objects share no parts with the base's).
        self._small: dict[str, int] = {}
        self._read: set[str] = set()
        self._fresh: set[str] = set()
        # Kept by _put and _pop, the only writers of the buckets: each listed bucket's keys in
        # order, and what each owner uid owns, so a listing sorts nothing and a delete finds
        # its dependents without a scan. Both hold values replaced, never edited (a new list,
        # a new dict of new frozensets), so a fork shares them and copies only the outer dict.
        self._sorted_keys: dict[str, builtins.list[tuple[str, str]]] = {}
        self._owned: dict[str, dict[str, frozenset[tuple[str, str]]]] = {}
        self._rv = 0
        self._uid_counter = 0
        self._name_counter = 0
        # Containers' log lines (ContainerIO, which packs them between a lab's commands).
        self._logs = {}
        self._previous_logs = {}
        self._watch_log: deque[Entry] = deque(maxlen=WATCH_LOG_SIZE)
        # Where a new object finds parts to share (sharing.donor): the store this one was
        # forked from, and the last object stored of each resource.
        self._base: MockCluster | None = None
        self._last_stored: dict[str, Obj] = {}
        self._exec_handlers: builtins.list[ExecHandler] = []
        self.changes = Changes()
        # Called on every write: the lab sets its command's pacing here while the controllers
        # run (budget.give_way), so a long step gives way to other learners write by write.
        self.give_way: Callable[[], None] = _nothing
        # A store made by dry_run: its writes answer as a server's dry run does.
        self.dry = False
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
        self.changes.read_clock()
        return self.clock.now()

    @property
    def resource_version(self) -> str:
        return str(self._rv)

    # ----------------------------------------------------------------- reads
    def _bucket(self, info: ResourceInfo) -> dict[tuple[str, str], Obj]:
        self.give_way()
        self.changes.read(info.key)
        return packing.live(self, info.key)

    def _writable(self, info: ResourceInfo) -> dict[tuple[str, str], Obj]:
        """The resource's bucket to write into: this store's own (see _shared_buckets)."""
        bucket = self._bucket(info)
        self._clean.pop(info.key, None)
        self._small.pop(info.key, None)
        if info.key in self._shared_buckets:
            self._shared_buckets.discard(info.key)
            bucket = self._objects[info.key] = dict(bucket)
        return bucket

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

    def peek(self, resource: str, name: str, namespace: str | None = None) -> Obj:
        """The stored object itself, not a copy (``get``'s errors): read only, for the RBAC
        authorizer, which reads a role on every request."""
        return self._stored(self.info(resource), name, namespace)

    def iter_objects(self, resource: str, namespace: str | None = None) -> Iterator[Obj]:
        """Stored objects without copying: read-only access for printers and controllers."""
        info = self.info(resource)
        bucket = self._bucket(info)
        keys = self._sorted_keys.get(info.key)
        if keys is None:
            keys = self._sorted_keys[info.key] = sorted(bucket)
        if not (namespace and info.namespaced):
            for key in keys:
                yield bucket[key]
            return
        # A namespace's keys are one run of the sorted list.
        for i in range(bisect.bisect_left(keys, (namespace, "")), len(keys)):
            key = keys[i]
            if key[0] != namespace:
                return
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
        selected = self.select(
            resource, namespace, label_selector=label_selector, field_selector=field_selector
        )
        items = [deep_copy(obj) for obj in selected]
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

    def random_suffix(self, length: int = 5) -> str:
        """A name suffix as Kubernetes controllers make them (``7d4b9``), deterministic."""
        self._name_counter += 1
        digest = hashlib.sha256(f"{self.seed}/{self._name_counter}".encode()).digest()
        return "".join(_NAME_CHARS[b % len(_NAME_CHARS)] for b in digest[:length])

    def _record(self, info: ResourceInfo, event_type: str, obj: Obj, counted: bool = True) -> None:
        self.give_way()
        if counted:
            self.changes.changed(info.key)
        if self._watch_log.maxlen:
            self._watch_log.append((self._rv, info.key, event_type, deep_copy(obj)))

    def _put(self, info: ResourceInfo, key: tuple[str, str], obj: Obj) -> None:
        bucket = self._writable(info)
        old = bucket.get(key)
        # The new version keeps the old one's unchanged parts, and a new object its donor's
        # identical ones, not equal copies of them: a lab forked from a template holds only
        # what its writes changed (see fork and simulators.cluster.sharing).
        like = old if old is not None else sharing.donor(self, info, obj)
        if like is not None and like is not obj:
            sharing.share_parts(like, obj)
        if old is None:
            self._sort_in(info.key, key, present=True)
            self._last_stored[info.key] = obj
        before = _owner_uids(old) if old is not None else ()
        after = _owner_uids(obj)
        if before != after:
            self._disown(info, key, before)
            for uid in after:
                by_resource = self._owned.get(uid, {})
                owned = by_resource.get(info.key, frozenset())
                self._owned[uid] = {**by_resource, info.key: owned | {key}}
        bucket[key] = obj

    def _pop(self, info: ResourceInfo, key: tuple[str, str]) -> Obj:
        obj = self._writable(info).pop(key)
        if self._last_stored.get(info.key) is obj:
            del self._last_stored[info.key]
        self._sort_in(info.key, key, present=False)
        self._disown(info, key, _owner_uids(obj))
        return obj

    def _sort_in(self, resource: str, key: tuple[str, str], *, present: bool) -> None:
        keys = self._sorted_keys.get(resource)
        if keys is None:
            return
        # A new list, not an edit: a listing under way goes on over the keys it started with.
        keys = builtins.list(keys)
        at = bisect.bisect_left(keys, key)
        if present:
            keys.insert(at, key)
        else:
            del keys[at]
        self._sorted_keys[resource] = keys

    def _disown(self, info: ResourceInfo, key: tuple[str, str], uids: tuple[str, ...]) -> None:
        for uid in uids:
            by_resource = self._owned.get(uid)
            if by_resource is None or key not in by_resource.get(info.key, ()):
                continue
            keys = by_resource[info.key] - {key}
            rest = {k: v for k, v in by_resource.items() if k != info.key}
            if keys:
                rest[info.key] = keys
            if rest:
                self._owned[uid] = rest
            else:
                del self._owned[uid]

    def _check_namespace(self, info: ResourceInfo, namespace: str) -> None:
        if info.namespaced and ("", namespace) not in packing.live(self, "namespaces", False):
            raise ApiError(
                404,
                "NotFound",
                f'namespaces "{namespace}" not found',
                {"name": namespace, "kind": "namespaces"},
            )

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
                    candidate = base + self.random_suffix()
                    if (ns, candidate) not in self._bucket(info):
                        meta["name"] = candidate
                        break
            else:
                raise admission.invalid(
                    info,
                    "",
                    [("metadata.name", "Required value: name or generateName is required")],
                )
        schema.check_body(info, new)
        admission.check_quantities(info, new)
        admission.validate(info, new)
        if info.namespaced:
            self._check_namespace(info, ns)
            space = packing.live(self, "namespaces", False).get(("", ns), {})
            if space.get("status", {}).get("phase") == "Terminating":
                raise ApiError(
                    403,
                    "Forbidden",
                    f'{info.key} "{meta["name"]}" is forbidden: unable to create new content in '
                    f"namespace {ns} because it is being terminated",
                )
        key = (ns, str(meta["name"]))
        bucket = self._bucket(info)
        limits.check_create(lambda: packing.sizes(self), bucket, info, ns, key[1])
        if key in bucket:
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
        admission.apply_defaults(info, new, self, creating=True)
        meta["resourceVersion"] = self._next_rv()
        self._put(info, key, new)
        self._record(info, "ADDED", new)
        if info.plural == "namespaces":
            lifecycle.populate_namespace(self, str(meta["name"]))
        created = copy_obj(new)
        if self.dry:
            created["metadata"].pop("resourceVersion", None)
        return created

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
        admission.check_quantities(info, new)
        # Defaulting comes before validation, as in the API server, so a patch that drops a
        # defaulted field gets it back instead of tripping pod immutability.
        admission.apply_defaults(info, new, self)
        admission.check_update(info, old, new, subresource)
        admission.validate(info, new)
        if "generation" in meta_old and _spec_of(new) != _spec_of(old):
            meta["generation"] = int(meta_old["generation"]) + 1
        if new == old:
            return copy_obj(old)
        unseen = info.kind == "Node" and renews_heartbeat_only(old, new)
        meta["resourceVersion"] = self._next_rv()
        ns = str(meta_old.get("namespace", ""))
        if meta.get("deletionTimestamp") and not meta.get("finalizers"):
            return lifecycle.remove(self, info, ns, str(meta_old["name"]))
        self._put(info, (ns, str(meta_old["name"])), new)
        self._record(info, "MODIFIED", new, counted=not unseen)
        updated = copy_obj(new)
        if self.dry:
            updated["metadata"]["resourceVersion"] = meta_old["resourceVersion"]
        return updated

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
        schema.check_body(info, obj)
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
        # Patched from a copy: a merge shares the parts a patch leaves alone, and the update
        # rules below write into the new object's metadata (stored objects never change).
        new = apply_patch(old if patch_type == "json" else copy_obj(old), patch, patch_type)
        if not isinstance(new, dict):
            raise ApiError(422, "Invalid", "the patch does not result in an object")
        schema.check_patched(info, new)
        # The patched object keeps the stored resourceVersion unless the patch names one,
        # so only a patch that names a stale one conflicts.
        return self._store_update(info, old, new, subresource=subresource)

    def delete(
        self,
        resource: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation: str = "Background",
        grace_period: int | None = None,
    ) -> Obj:
        """Delete as the API server does (``lifecycle.delete``): a bound pod gracefully, an
        object with finalizers once they are gone, dependents by garbage collection."""
        return lifecycle.delete(self, resource, name, namespace, propagation, grace_period)

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
        since = parse_since(resource_version, self._watch_log, self._rv)
        return replay(
            self._watch_log,
            info.key,
            since,
            wanted,
            selective=bool(label_selector or field_selector),
        )

    # ----------------------------------------------------------------- subresources
    def compact_watch_log(self) -> None:
        """Forget the watch history, as etcd's compaction does: older versions get 410 Gone."""
        self._watch_log.clear()

    def keep_watch_history(self, entries: int) -> None:
        """Keep the last ``entries`` changes for watches to resume from (0: a store nobody
        watches, such as the browser lab's, keeps none and saves the copies)."""
        if self._watch_log.maxlen != entries:
            self._watch_log = deque(self._watch_log, maxlen=entries)

    def watch_reaches(self, resource_version: str) -> bool:
        """Whether a watch can resume after ``resource_version``: the history holds every
        change since (no 410)."""
        try:
            parse_since(resource_version, self._watch_log, self._rv)
        except ApiError:
            return False
        return True

    def bind(self, name: str, namespace: str, node: str) -> None:
        info = self.info("pods")
        new = bound_pod(self._stored(info, name, namespace), node, self.clock.timestamp())
        new["metadata"]["resourceVersion"] = self._next_rv()
        self._put(info, (namespace, name), new)
        self._record(info, "MODIFIED", new)

    def evict(self, name: str, namespace: str) -> None:
        pod = self._stored(self.info("pods"), name, namespace)
        check_disruption_budgets(
            pod,
            self.iter_objects("poddisruptionbudgets.policy", namespace),
            self.iter_objects("pods", namespace),
        )
        self.delete("pods", name, namespace)

    # ----------------------------------------------------------------- state
    def fork(self) -> MockCluster:
        """An independent store equal to this one (same objects, counters, clock, logs, watch
        history, change counts), made without copying any object: both share the stored
        objects, which no write changes in place, so a write to either stores its own new
        object. Its cost is a few outer dicts (an entry per resource, owner and log; each
        bucket is copied by the first write to it), not the objects' size: a lab started from
        a ticket's template world (simulators.lab.world)."""
        return saved.fork(self)

    def dry_run(self) -> MockCluster:
        """A fork whose writes go through every rule and answer as the API server answers a
        dry run (``?dryRun=All``): the caller drops it, so nothing is kept. As the apiserver's
        DryRunnableStorage, a created object comes back with no resourceVersion (none was
        stored) and an updated one with the stored version's."""
        other = self.fork()
        other.dry = True
        return other

    def pack_idle(self) -> None:
        """Hold what this store changed since its fork packed until it is read again
        (``packing.pack_idle``): a lab between two commands."""
        packing.pack_idle(self)

    def share_with(self, other: MockCluster) -> None:
        """Hold ``other``'s objects (and parts) wherever this store's are equal to them: a lab
        restored from its saved form shares what it still has in common with its template."""
        saved.share(self, other)

    def to_json(self, *, copy: bool = True) -> Obj:
        """The store as JSON data (``saved.dump``; copy=False shares the store's own objects,
        only for encoding at once)."""
        return saved.dump(self, copy=copy)

    @classmethod
    def from_json(cls, data: Obj, registry: Registry = REGISTRY) -> MockCluster:
        """The store ``to_json`` saved, exactly (``saved.load``)."""
        return saved.load(cls, data, registry)


# --------------------------------------------------------------------- helpers
def _nothing() -> None:
    return None


def _owner_uids(obj: Obj) -> tuple[str, ...]:
    refs = obj["metadata"].get("ownerReferences")
    if not isinstance(refs, builtins.list):
        return ()
    return tuple(
        ref["uid"] for ref in refs if isinstance(ref, dict) and isinstance(ref.get("uid"), str)
    )


def _spec_of(obj: Obj) -> Obj:
    return {k: v for k, v in obj.items() if k not in ("metadata", "status", "apiVersion", "kind")}
