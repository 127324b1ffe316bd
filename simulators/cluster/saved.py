"""The store's saved form: every object, the counters, logs and watch history, as JSON data;
and its fork, the same state shared with a new store.

``dump`` and ``restore`` round-trip exactly (a restored store answers every request as the
saved one would, resourceVersions and generated names included). Functions of the store
(``simulators.cluster.store.MockCluster``), which calls them from ``to_json``/``from_json``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from simulators.cluster.api import ApiError, Obj
from simulators.cluster.clock import StepClock
from simulators.cluster.packing import all_buckets
from simulators.cluster.patches import deep_copy
from simulators.cluster.sharing import donor, identical, interned_copy, share_parts

if TYPE_CHECKING:
    from simulators.cluster.registry import Registry
    from simulators.cluster.store import MockCluster

FORMAT_VERSION = 1


def _shared(value: Any) -> Any:
    return value


def dump(store: MockCluster, *, copy: bool = True) -> Obj:
    """The store as JSON data. With copy=False it shares the store's own objects: only for
    encoding at once (a lab's snapshot, where the copies were 40% of the time), never to
    keep or change."""
    keep: Callable[[Any], Any] = deep_copy if copy else _shared
    lines, previous = store.read_logs()
    return {
        "format": FORMAT_VERSION,
        "seed": store.seed,
        "clock": {"seconds": store.clock.seconds, "step_seconds": store.clock.step_seconds},
        "rv": store._rv,
        "uids": store._uid_counter,
        "names": store._name_counter,
        "objects": {
            key: [keep(obj) for _, obj in sorted(bucket.items())]
            for key, bucket in sorted(all_buckets(store).items())
            if bucket
        },
        # Sorted, as the objects are: the same store saves the same text, whatever order its
        # containers first wrote in (a store read back from its saved changes, lab.resting).
        "logs": keep(dict(sorted(lines.items()))),
        "previous_logs": keep(dict(sorted(previous.items()))),
        "watch_log": [[rv, key, t, keep(obj)] for rv, key, t, obj in store._watch_log],
    }


def load[Store: MockCluster](kind: type[Store], data: Obj, registry: Registry) -> Store:
    """A store of the given class holding what ``dump`` saved."""
    if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
        raise ApiError(400, "BadRequest", "saved cluster state has an unknown format")
    store = kind(
        seed=int(data["seed"]),
        clock=StepClock(int(data["clock"]["seconds"]), int(data["clock"]["step_seconds"])),
        bootstrap=False,
        registry=registry,
    )
    store._rv = int(data["rv"])
    store._uid_counter = int(data["uids"])
    store._name_counter = int(data["names"])
    strings: dict[str, str] = {}
    for key, items in data["objects"].items():
        info = store.registry.by_key(key)
        for obj in items:
            meta = obj["metadata"]
            new = interned_copy(obj, strings)
            store._put(info, (str(meta.get("namespace", "")), str(meta["name"])), new)
    store._logs = interned_copy(data["logs"], strings)
    store._previous_logs = interned_copy(data["previous_logs"], strings)
    for rv, key, event_type, obj in data["watch_log"]:
        store._watch_log.append((int(rv), str(key), str(event_type), deep_copy(obj)))
    return store


def fork[Store: MockCluster](store: Store) -> Store:
    """``MockCluster.fork``: a new store of the same class holding the same state, sharing the
    stored objects (never changed in place) and copying only the indexes over them."""
    other = type(store)(
        seed=store.seed,
        clock=StepClock(store.clock.seconds, store.clock.step_seconds),
        bootstrap=False,
        registry=store.registry,
    )
    # The buckets too, each copied by the first write to it, in either store.
    other._objects = dict(all_buckets(store))
    store._shared_buckets = set(store._objects)
    other._shared_buckets = set(store._objects)
    # The indexes' values and the log lists are replaced, never edited (MockCluster._sort_in,
    # _put, _disown, append_log): shared.
    other._sorted_keys = dict(store._sorted_keys)
    other._owned = dict(store._owned)
    other._rv, other._uid_counter = store._rv, store._uid_counter
    other._name_counter = store._name_counter
    lines, previous = store.read_logs()
    other._logs, other._previous_logs = dict(lines), dict(previous)
    # Watch entries are copies made for the log, never changed: shared.
    other._watch_log = deque(store._watch_log, maxlen=store._watch_log.maxlen)
    other._exec_handlers = list(store._exec_handlers)
    # The original's objects are the donors of the fork's new ones (sharing.donor).
    other._base = store
    other.changes = store.changes.fork()
    return other


def share(store: MockCluster, other: MockCluster) -> None:
    """``MockCluster.share_with``: each of the store's objects identical to the other's under
    the same name becomes the other's; of the rest, each identical part (to the depth a write
    shares) becomes the other's object's, or its donor's (``sharing.donor``: a pod that
    replaced one of the other's holds its siblings' parts). The other store is the base of the
    store's next writes' donors from then on, as a fork's original is."""
    store._base = other
    their_buckets = all_buckets(other)
    for key, bucket in list(all_buckets(store).items()):
        theirs = their_buckets.get(key, {})
        info = store.registry.by_key(key)
        same: list[tuple[tuple[str, str], Obj]] = []
        for name, obj in bucket.items():
            their = theirs.get(name)
            if their is obj:
                continue
            if their is not None and identical(obj, their):
                same.append((name, their))
                continue
            like = their if their is not None else donor(store, info, obj)
            if like is not None and like is not obj:
                share_parts(like, obj)
        if same:
            store._writable(info).update(same)


def dump_changes(store: MockCluster, base: MockCluster) -> Obj:
    """What ``store`` holds beyond ``base``, the store it was forked from (``fork``), as JSON
    data: the objects that are not base's own (a fork shares base's unchanged objects, so
    identity tells), the names base has and store does not, the logs that differ, and the
    counters and clock. Shares the store's objects: only for encoding at once. No watch
    history: a store saved this way has no watchers (``load_changes`` starts with none)."""

    def logs(mine: dict[str, list[str]], theirs: dict[str, list[str]]) -> Obj:
        return {
            "set": {key: lines for key, lines in sorted(mine.items()) if theirs.get(key) != lines},
            "removed": [key for key in theirs if key not in mine],
        }

    objects: dict[str, list[Obj]] = {}
    removed: dict[str, list[list[str]]] = {}
    # Resources in their keys' order too: a bucket unpacked (packing) comes back at the end.
    mine_all, base_all = all_buckets(store), all_buckets(base)
    for key, bucket in sorted(mine_all.items()):
        theirs = base_all.get(key, {})
        # In the keys' order, not the bucket's: a store read back from this form (its bucket
        # filled in another order) saves the same text again.
        changed = [obj for name, obj in sorted(bucket.items()) if theirs.get(name) is not obj]
        if changed:
            objects[key] = changed
    for key, theirs in base_all.items():
        mine = mine_all.get(key, {})
        gone = [[ns, name] for ns, name in theirs if (ns, name) not in mine]
        if gone:
            removed[key] = gone
    (lines, previous), (base_lines, base_previous) = store.read_logs(), base.read_logs()
    return {
        "format": FORMAT_VERSION,
        "seed": store.seed,
        "clock": {"seconds": store.clock.seconds, "step_seconds": store.clock.step_seconds},
        "rv": store._rv,
        "uids": store._uid_counter,
        "names": store._name_counter,
        "objects": objects,
        "removed": removed,
        "logs": logs(lines, base_lines),
        "previous_logs": logs(previous, base_previous),
    }


def load_changes[Store: MockCluster](base: Store, data: Obj) -> Store:
    """A fork of ``base`` with what ``dump_changes`` saved applied: the store it saved."""
    if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
        raise ApiError(400, "BadRequest", "saved cluster state has an unknown format")
    store = fork(base)
    store.compact_watch_log()
    store.seed = int(data["seed"])
    store.clock = StepClock(int(data["clock"]["seconds"]), int(data["clock"]["step_seconds"]))
    store._rv = int(data["rv"])
    store._uid_counter = int(data["uids"])
    store._name_counter = int(data["names"])
    for key, names in data["removed"].items():
        info = store.registry.by_key(key)
        for ns, name in names:
            store._pop(info, (str(ns), str(name)))
    # One string object per text across what was saved (sharing.interned_copy).
    strings: dict[str, str] = {}
    for key, items in data["objects"].items():
        info = store.registry.by_key(key)
        for obj in items:
            meta = obj["metadata"]
            new = interned_copy(obj, strings)
            store._put(info, (str(meta.get("namespace", "")), str(meta["name"])), new)
    for mine, saved in ((store._logs, data["logs"]), (store._previous_logs, data["previous_logs"])):
        for key in saved["removed"]:
            mine.pop(str(key))
        for key, lines in saved["set"].items():
            mine[str(key)] = [strings.setdefault(line, line) for line in map(str, lines)]
    return store
