"""Structural sharing between stored objects: a new object holds another's parts (and strings)
wherever they are identical, instead of equal copies of them.

Safe because a stored object, and so every part of it, is never changed in place (see
``simulators.cluster.store``): a part held by two objects, two versions of one object, or a lab
and its ticket's template, stays what both expect. Sharing never changes what an object says:
a part is replaced only by one identical to it, the order of its keys and the type of every
value included (``1`` is not ``1.0`` nor ``True``, ``{"a", "b"}`` is not ``{"b", "a"}``), so its
JSON is the same byte for byte.

Functions of the store (``simulators.cluster.store.MockCluster._put``), which calls
``share_parts`` on every write: a new version against its old one, a new object against a
*donor*, an object like it already stored (``donor``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simulators.cluster.api import Obj, ResourceInfo
from simulators.cluster.packing import live

if TYPE_CHECKING:
    from simulators.cluster.store import MockCluster

# How deep a new object looks for parts identical to the old version's or the donor's: a pod's
# spec.containers[0].resources.limits is five levels down.
SHARED_DEPTH = 6


def identical(a: Any, b: Any) -> bool:
    """Equal as JSON text: equal values of the same types, dicts' keys in the same order.
    Iterative: a custom object nested as deep as the API allows is compared, not a crash."""
    pairs = [(a, b)]
    while pairs:
        mine, theirs = pairs.pop()
        if mine is theirs:
            continue  # copies share their scalars: most values end here
        kind = type(mine)
        if kind is not type(theirs):
            return False
        if kind is dict:
            # Keys and their order at C speed.
            if list(mine) != list(theirs):
                return False
            pairs.extend(zip(mine.values(), theirs.values(), strict=True))
        elif kind is list:
            if len(mine) != len(theirs):
                return False
            pairs.extend(zip(mine, theirs, strict=True))
        elif mine != theirs:
            return False
    return True


def _shared(before: Any, value: Any, depth: int) -> Any:
    """``value``, or ``before`` where identical, with ``value``'s parts shared likewise."""
    kind = type(value)
    if kind is str:
        return before if type(before) is str and before == value else value
    if kind is not dict and kind is not list:
        return value
    if type(before) is not kind:
        return value
    # The C-level == first (cheap, and false for most changed parts), then the exact check.
    if value == before and identical(value, before):
        return before
    if depth > 1:
        if isinstance(value, dict) and isinstance(before, dict):
            share_parts(before, value, depth - 1)
        else:
            for i in range(min(len(value), len(before))):
                item = value[i]
                if item is not before[i]:
                    value[i] = _shared(before[i], item, depth - 1)
    return value


def share_parts(old: Obj, new: Obj, depth: int = SHARED_DEPTH) -> None:
    """Put ``old``'s part in place of each of ``new``'s identical to it, to ``depth`` levels.
    Changes ``new`` in place without changing its value (see the module's docstring)."""
    for key, value in new.items():
        before = old.get(key)
        if before is not value and before is not None:
            shared = _shared(before, value, depth)
            if shared is not value:
                new[key] = shared


def donor(store: MockCluster, info: ResourceInfo, obj: Obj) -> Obj | None:
    """An object stored like ``obj``, whose parts a new ``obj`` can share: one its owner owns
    already (a ReplicaSet's or DaemonSet's pods are made from one template) in this store or
    the one it was forked from (a pod that replaces one deleted since the fork), else the
    last object of its resource this store stored (an event: its source, its object's
    reference, its timestamps)."""
    refs = obj["metadata"].get("ownerReferences")
    if isinstance(refs, list):
        for ref in refs:
            uid = ref.get("uid") if isinstance(ref, dict) else None
            if not isinstance(uid, str):
                continue
            for source in (store, store._base):
                if source is None:
                    continue
                keys = source._owned.get(uid, {}).get(info.key)
                if keys:
                    return live(source, info.key, create=False).get(min(keys))
    return store._last_stored.get(info.key)


def interned_copy(value: Any, strings: dict[str, str]) -> Any:
    """A copy of JSON data (as ``deep_copy``) holding one string object for each text: the one
    ``strings`` already has, else this one, added. For a saved store read back (``saved``),
    where the JSON parser made a new string for every value: a restored lab's thousand
    timestamps, namespaces and names then cost what the live lab's did."""
    kind = type(value)
    if kind is str:
        return strings.setdefault(value, value)
    if kind is dict:
        return {
            strings.setdefault(k, k) if type(k) is str else k: interned_copy(v, strings)
            for k, v in value.items()
        }
    if kind is list:
        return [interned_copy(v, strings) for v in value]
    return value
