"""A bucket held packed between a lab's commands: the objects that differ from its base's
bucket (the ticket's template, which the lab was forked from), pickled and compressed,
unpacked by the first read of it.

A kept lab's live store holds every object its learner's commands made or changed as the API's
JSON dicts, parts shared with the template where identical (``simulators.cluster.sharing``):
a solved MIG ticket, about 80 Events and a dozen replaced pods, 230 KB. Packed, the same
objects are a tenth of that. Most commands read a few buckets and write fewer, so between two
commands a lab holds packed what it holds, and a command pays for the buckets it touches: the
unpacking of each one it reads, the packing of each one it wrote (``MockCluster.pack_idle``).
A bucket whose own objects pickle to fewer than PACK_FROM bytes stays as it is: a few objects
cost little to hold, and a small bucket read or written at every command (the nodes' leases,
a node a learner labelled) would cost an unpacking per command for a few KB. One unpacked and
then left that small shares the base's parts again (``_share_again``).

Exact: a bucket unpacked holds equal objects (of the same types: pickle, not JSON) under the
same keys in the same order (the order a scan of the store sees), the base's own objects where
the bucket held them. The unpacked objects are new ones, not the ones packed: nothing outside
the store holds a stored object across commands (readers get copies, or read under the lab's
lock within one command; the scheduler's quiet cycle keeps only its events' references,
``controllers.engine._referenced``). Pickle reads only what this process packed: a blob never
leaves the store, is never saved and never comes from outside.
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from simulators.cluster.api import Obj

if TYPE_CHECKING:
    from simulators.cluster.containers import ContainerIO
    from simulators.cluster.store import MockCluster

# zlib's fastest level: packing is paid on the command's thread, and the objects are mostly
# repeated keys, names and timestamps, which the fastest level already packs 6-10x.
LEVEL = 1
# A bucket whose own objects pickle to fewer bytes than this is not packed: a solved
# toolkit-runtime's events and pods (6.3 and 5.4 KB) are, a new lab's few changed nodes (4.8 KB
# after 60 of bench_load's commands) are not.
PACK_FROM = 5120
# Commands in a row that did not read a bucket too small to pack before it is packed anyway.
IDLE_COMMANDS = 3

Key = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Packed:
    """A bucket packed: its entries in order, each the index of the base's key (the base's own
    object) or the key and the object, pickled and compressed; and how many objects it holds."""

    blob: bytes
    size: int
    # Packed though under PACK_FROM, because no command read it for a while (pack_idle).
    small: bool = False


def pack(bucket: Mapping[Key, Obj], base: Mapping[Key, Obj], small: bool = False) -> Packed | None:
    """``bucket`` packed against ``base``, the same resource's bucket in the store's base; None
    if the objects that are not the base's pickle to fewer than PACK_FROM bytes (unless
    ``small``: packed whatever its size)."""
    index = {key: i for i, key in enumerate(base)}
    entries: list[int | tuple[str, str, Obj]] = []
    for key, obj in bucket.items():
        i = index.get(key)
        entries.append(i if i is not None and base[key] is obj else (key[0], key[1], obj))
    pickled = pickle.dumps(entries, pickle.HIGHEST_PROTOCOL)
    if len(pickled) < PACK_FROM and not small:
        return None
    return Packed(zlib.compress(pickled, LEVEL), len(bucket), small)


def unpack(packed: Packed, base: Mapping[Key, Obj]) -> dict[Key, Obj]:
    """The bucket ``pack`` packed against ``base``."""
    keys = list(base)
    bucket: dict[Key, Obj] = {}
    for entry in pickle.loads(zlib.decompress(packed.blob)):
        if type(entry) is int:
            key = keys[entry]
            bucket[key] = base[key]
        else:
            namespace, name, obj = entry
            bucket[(namespace, name)] = obj
    return bucket


# --------------------------------------------------------------------- the store's
# Functions of the store (``simulators.cluster.store.MockCluster``), which calls them.
def live(store: MockCluster, key: str, create: bool = True, read: bool = True) -> dict[Key, Obj]:
    """The resource's bucket, unpacked if it was packed (and kept so until a write: ``clean``);
    a new empty one if it has none (kept only with ``create``). Marked read (``pack_idle``)
    unless ``read`` is False: a snapshot's reading of every bucket is no command's."""
    if read:
        store._read.add(key)
    bucket = store._objects.get(key)
    if bucket is not None:
        return bucket
    packed = store._packed.pop(key, None)
    if packed is None:
        bucket = {}
        if not create:
            return bucket
    else:
        bucket = unpack(packed, _base_bucket(store, key))
        store._clean[key] = packed
        store._fresh.add(key)
    store._objects[key] = bucket
    return bucket


def all_buckets(store: MockCluster) -> dict[str, dict[Key, Obj]]:
    """Every bucket of the store, each unpacked."""
    for key in list(store._packed):
        live(store, key, read=False)
    return store._objects


def sizes(store: MockCluster) -> dict[str, int]:
    """How many objects each resource has, packed or not, unpacking none."""
    counted = {key: len(bucket) for key, bucket in store._objects.items()}
    counted.update((key, packed.size) for key, packed in store._packed.items())
    return counted


def pack_idle(store: MockCluster) -> None:
    """Pack every bucket the store holds of its own (not its base's, shared since the fork):
    one unchanged since it was unpacked goes back to what it was packed as, one written is
    packed anew; the containers' logs too (``pack_logs``). A bucket too small to pack
    (``PACK_FROM``) waits until no command has read it for IDLE_COMMANDS (the daemonsets and
    revisions a MIG ticket changed, 16 KB of a solved lab, which a look around never reads),
    and one of those read again stays unpacked. With a bucket go what only speeds up the
    next write or scan of it: its last stored object (a new object's donor of parts,
    ``sharing.donor``) and its keys in order (sorted again by the next scan). Nothing for a
    store with no base (nothing to pack against)."""
    if store._base is None:
        return
    read, store._read = store._read, set()
    small = store._small
    for key in [key for key in store._objects if key not in store._shared_buckets]:
        idle = small.get(key)
        if idle is not None:
            if key in read or idle + 1 < IDLE_COMMANDS:
                small[key] = 0 if key in read else idle + 1
                continue
            packed = pack(store._objects[key], _base_bucket(store, key), small=True)
        else:
            packed = store._clean.pop(key, None)
            if packed is not None and packed.small and key in read:
                packed = None  # a small one read again: unpacked it stays
            elif packed is None:
                packed = pack(store._objects[key], _base_bucket(store, key))
            if packed is None:
                small[key] = 0  # until its next write
                if key in store._fresh:
                    _share_again(store, key)
                continue
        assert packed is not None
        small.pop(key, None)
        store._fresh.discard(key)
        del store._objects[key]
        store._packed[key] = packed
        store._last_stored.pop(key, None)
        store._sorted_keys.pop(key, None)
    pack_logs(store)


def pack_logs(store: MockCluster) -> None:
    """Hold the store's logs packed (``pack_idle``), if the lines that are not its base's pickle
    to PACK_FROM bytes or more: a solved MIG lab's restarted operator pods wrote 14-18 KB of
    them, which a learner reads with ``kubectl logs`` now and then, and nothing else reads.
    Logs only read since they were unpacked go back to what they were packed as."""
    base = store._base
    if base is None or store._packed_logs is not None or store._small_logs:
        return
    blob = store._clean_logs
    if blob is None:
        base_lines, base_previous = base.read_logs()
        entries = (
            _log_entries(store._log_lines, base_lines),
            _log_entries(store._previous_log_lines, base_previous),
        )
        pickled = pickle.dumps(entries, pickle.HIGHEST_PROTOCOL)
        if len(pickled) < PACK_FROM:
            store._small_logs = True  # not weighed again until written
            return
        blob = zlib.compress(pickled, LEVEL)
    store._packed_logs, store._clean_logs = blob, None
    del store._log_lines, store._previous_log_lines


def unpack_logs(store: ContainerIO) -> None:
    """The logs ``pack_logs`` packed, live again, kept clean (as packed) until written."""
    blob = store._packed_logs
    if blob is None:
        return
    base = cast("MockCluster", store)._base
    assert base is not None  # only a fork packs its logs
    lines, previous = pickle.loads(zlib.decompress(blob))
    base_lines, base_previous = base.read_logs()
    store._log_lines = _from_entries(lines, base_lines)
    store._previous_log_lines = _from_entries(previous, base_previous)
    store._packed_logs, store._clean_logs = None, blob


def _log_entries(
    logs: dict[str, list[str]], base: dict[str, list[str]]
) -> list[int | tuple[str, list[str]]]:
    index = {key: i for i, key in enumerate(base)}
    entries: list[int | tuple[str, list[str]]] = []
    for key, lines in logs.items():
        i = index.get(key)
        entries.append(i if i is not None and base[key] is lines else (key, lines))
    return entries


def _from_entries(
    entries: list[int | tuple[str, list[str]]], base: dict[str, list[str]]
) -> dict[str, list[str]]:
    keys = list(base)
    logs: dict[str, list[str]] = {}
    for entry in entries:
        if type(entry) is int:
            key = keys[entry]
            logs[key] = base[key]
        else:
            key, lines = cast("tuple[str, list[str]]", entry)
            logs[key] = lines
    return logs


def _share_again(store: MockCluster, key: str) -> None:
    """A bucket unpacked, then left too small to pack again: its objects share the base's
    identical parts again, as they did before they were packed (unpickled, they share none)."""
    from simulators.cluster.sharing import share_parts  # sharing reads buckets through live

    store._fresh.discard(key)
    base = _base_bucket(store, key)
    for name, obj in store._objects[key].items():
        like = base.get(name)
        if like is not None and like is not obj:
            share_parts(like, obj)


def _base_bucket(store: MockCluster, key: str) -> Mapping[Key, Obj]:
    base = store._base
    return live(base, key, create=False) if base is not None else {}
