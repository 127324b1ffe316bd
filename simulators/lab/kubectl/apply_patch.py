"""The patch `kubectl apply` sends, and `kubectl diff` sends as a dry run: three-way, from the
last applied configuration (the object's `kubectl.kubernetes.io/last-applied-configuration`),
the file and the live object, as kubectl's apply.Patcher computes it
(strategicpatch.CreateThreeWayMergePatch for the built-in kinds, jsonmergepatch's
CreateThreeWayJSONMergePatch for custom resources).

- Deletions come from the last applied configuration against the file: a field the file named
  last time and names no more is removed (`null`). A field only the live object has (a server
  default, another client's label) stays: apply never named it.
- Changes and additions come from the live object against the file: whatever the file says
  differently is sent.
- Strategic merge: a list with a merge key (`patches.MERGE_KEYS`: containers by name, env by
  name, ...) is merged item by item: an item named last time and gone from the file is deleted
  (`{"$patch": "delete", "name": ...}`), a changed item sends its changes beside its key, a new
  one is sent whole. Other lists, and every list of a custom resource, are sent whole when they
  differ.

Left out: `$setElementOrder` (the lab's API server keeps its own order) and
`$deleteFromPrimitiveList` (finalizers named last time and gone from the file stay).
An empty patch is kubectl's "unchanged".
"""

from __future__ import annotations

from typing import Any

from simulators.cluster.patches import MERGE_KEYS

Obj = dict[str, Any]


def three_way(original: Obj | None, modified: Obj, current: Obj, *, strategic: bool) -> Obj:
    """The patch that makes `current` what `modified` says, removing what `original` (the last
    applied configuration, None where there is none) said and `modified` no longer does."""
    changes = _changes(current, modified, strategic)
    deletions = _deletions(original or {}, modified, strategic)
    return _combined(deletions, changes)


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values: 1 and 1.0 alike, true and 1 not, "1" and 1 not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _key_of(field: str, items: list[Any], strategic: bool) -> str | None:
    """The list's merge key, if the list is merged item by item and every item has it."""
    if not strategic:
        return None
    if field == "ports":
        has_container_port = any(isinstance(i, dict) and "containerPort" in i for i in items)
        key = "containerPort" if has_container_port else "port"
    else:
        key = MERGE_KEYS.get(field) or ""
    if not key or not all(isinstance(i, dict) and key in i for i in items):
        return None
    return key


def _changes(current: Any, modified: Obj, strategic: bool) -> Obj:
    have_all = current if isinstance(current, dict) else {}
    out: Obj = {}
    for field, want in modified.items():
        have = have_all.get(field)
        if field in have_all and same(have, want):
            continue
        if isinstance(want, dict) and isinstance(have, dict):
            if sub := _changes(have, want, strategic):
                out[field] = sub
        elif isinstance(want, list) and isinstance(have, list):
            key = _key_of(field, [*want, *have], strategic)
            if key is None:
                out[field] = want
            elif items := _item_changes(key, have, want, strategic):
                out[field] = items
        else:
            out[field] = want
    return out


def _item_changes(key: str, have: list[Obj], want: list[Obj], strategic: bool) -> list[Obj]:
    live = {str(item[key]): item for item in have}
    out: list[Obj] = []
    for item in want:
        was = live.get(str(item[key]))
        if was is None:
            out.append(item)
        elif sub := _changes(was, item, strategic):
            out.append({key: item[key], **sub})
    return out


def _deletions(original: Obj, modified: Obj, strategic: bool) -> Obj:
    out: Obj = {}
    for field, was in original.items():
        if field not in modified:
            out[field] = None
            continue
        want = modified[field]
        if isinstance(was, dict) and isinstance(want, dict):
            if sub := _deletions(was, want, strategic):
                out[field] = sub
        elif isinstance(was, list) and isinstance(want, list):
            key = _key_of(field, [*was, *want], strategic)
            if key is not None and (items := _item_deletions(key, was, want, strategic)):
                out[field] = items
    return out


def _item_deletions(key: str, was: list[Obj], want: list[Obj], strategic: bool) -> list[Obj]:
    wanted = {str(item[key]): item for item in want}
    out: list[Obj] = []
    for item in was:
        now = wanted.get(str(item[key]))
        if now is None:
            out.append({"$patch": "delete", key: item[key]})
        elif sub := _deletions(item, now, strategic):
            out.append({key: item[key], **sub})
    return out


def _combined(deletions: Obj, changes: Obj) -> Obj:
    out = dict(changes)
    for field, value in deletions.items():
        there = out.get(field)
        if isinstance(value, dict) and isinstance(there, dict):
            out[field] = _combined(value, there)
        elif isinstance(value, list) and isinstance(there, list):
            out[field] = [*value, *there]
        elif field not in out:
            out[field] = value
    return out
