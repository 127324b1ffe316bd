"""Merge (RFC 7386), JSON (RFC 6902) and strategic-merge patches."""

from __future__ import annotations

import json
from typing import Any

from simulators.cluster.api import ApiError


def deep_copy(value: Any) -> Any:
    """A copy of JSON data; much faster than ``copy.deepcopy`` (exact type checks, scalars
    shared), and the store's hottest function: every read returns a copy."""
    kind = type(value)
    if kind is dict:
        return {k: (deep_copy(v) if type(v) in _CONTAINERS else v) for k, v in value.items()}
    if kind is list:
        return [(deep_copy(v) if type(v) in _CONTAINERS else v) for v in value]
    return value


_CONTAINERS = frozenset({dict, list})


def key_sorted(value: Any) -> Any:
    """A copy whose maps have their keys in order at every level, as Go marshals a map (an
    unstructured object, a patch built from maps)."""
    if isinstance(value, dict):
        return {key: key_sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [key_sorted(item) for item in value]
    return value


def copy_obj(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: (deep_copy(v) if type(v) in _CONTAINERS else v) for k, v in obj.items()}


def merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return deep_copy(patch)
    result: dict[str, Any] = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


# patchMergeKey per field name, as the Kubernetes types declare them.
MERGE_KEYS: dict[str, str] = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "imagePullSecrets": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "conditions": "type",
    "taints": "key",
    "ownerReferences": "uid",
    "hostAliases": "ip",
    "addresses": "type",
    "resourceClaims": "name",
    "readinessGates": "conditionType",
}
# Lists of scalars merged as sets.
SET_LISTS = frozenset({"finalizers"})


def _merge_key(field: str, items: list[Any]) -> str | None:
    if field == "ports":
        for item in items:
            if isinstance(item, dict):
                return "containerPort" if "containerPort" in item else "port"
        return None
    return MERGE_KEYS.get(field)


def strategic_merge(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return deep_copy(patch)
    if patch.get("$patch") == "replace":
        return {k: deep_copy(v) for k, v in patch.items() if k != "$patch"}
    if patch.get("$patch") == "delete":
        return None
    result: dict[str, Any] = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith("$"):
            continue
        if key.startswith("$setElementOrder/") or key.startswith("$deleteFromPrimitiveList/"):
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict):
            merged = strategic_merge(result.get(key), value)
            if merged is None:
                result.pop(key, None)
            else:
                result[key] = merged
        elif isinstance(value, list):
            result[key] = _merge_list(key, result.get(key), value)
        else:
            result[key] = value
    return result


def _merge_list(field: str, original: Any, patch: list[Any]) -> list[Any]:
    current: list[Any] = list(original) if isinstance(original, list) else []
    if any(isinstance(p, dict) and p.get("$patch") == "replace" for p in patch):
        return [deep_copy(p) for p in patch if not (isinstance(p, dict) and "$patch" in p)]
    if field in SET_LISTS:
        return current + [deep_copy(p) for p in patch if p not in current]
    key = _merge_key(field, current + patch)
    if key is None:
        return [deep_copy(p) for p in patch]
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            continue
        index = next(
            (i for i, c in enumerate(current) if isinstance(c, dict) and c.get(key) == item[key]),
            None,
        )
        if item.get("$patch") == "delete":
            if index is not None:
                current.pop(index)
        elif index is None:
            current.append(strategic_merge({}, item))
        else:
            current[index] = strategic_merge(current[index], item)
    return current


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise ApiError(422, "Invalid", f"the server rejected our request: invalid path {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _parent(doc: Any, parts: list[str], path: str) -> Any:
    current = doc
    for part in parts[:-1]:
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            raise ApiError(
                422,
                "Invalid",
                f"the server rejected our request due to an error in our request: "
                f'doc is missing path: "{path}": missing value',
            )
    return current


def _get(doc: Any, path: str) -> Any:
    parts = _pointer(path)
    if not parts:
        return doc
    parent = _parent(doc, parts, path)
    last = parts[-1]
    if isinstance(parent, dict) and last in parent:
        return parent[last]
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent[int(last)]
    raise ApiError(
        422,
        "Invalid",
        f"the server rejected our request due to an error in our request: "
        f'doc is missing path: "{path}": missing value',
    )


def _remove(doc: Any, path: str) -> Any:
    parts = _pointer(path)
    if not parts:  # evanphx/json-patch finds no parent for the root
        raise ApiError(
            422,
            "Invalid",
            "the server rejected our request due to an error in our request: "
            f'remove operation does not apply: doc is missing path: "{path}": missing value',
        )
    parent = _parent(doc, parts, path)
    last = parts[-1]
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent.pop(int(last))
    raise ApiError(
        422,
        "Invalid",
        f"the server rejected our request due to an error in our request: "
        f"Unable to remove nonexistent key: {last}: missing value",
    )


def _add(doc: Any, path: str, value: Any, replace: bool = False) -> Any:
    parts = _pointer(path)
    if not parts:
        return deep_copy(value)
    parent = _parent(doc, parts, path)
    last = parts[-1]
    if isinstance(parent, dict):
        if replace and last not in parent:
            raise ApiError(
                422,
                "Invalid",
                "the server rejected our request due to an error in our request: "
                f"replace operation does not apply: doc is missing key: {path}: missing value",
            )
        parent[last] = deep_copy(value)
    elif isinstance(parent, list):
        operation = "replace" if replace else "add"
        if last == "-" and not replace:
            parent.append(deep_copy(value))
        elif last.isdigit() and int(last) <= len(parent):
            if replace:
                if int(last) == len(parent):
                    raise ApiError(
                        422,
                        "Invalid",
                        "the server rejected our request due to an error in our request: "
                        f"replace operation does not apply: doc is missing key: {path}: "
                        "missing value",
                    )
                parent[int(last)] = deep_copy(value)
            else:
                parent.insert(int(last), deep_copy(value))
        else:
            raise ApiError(422, "Invalid", f"{operation} operation does not apply: {path}")
    else:
        verb = "replace" if replace else "add"
        raise ApiError(422, "Invalid", f"{verb} operation does not apply: {path}")
    return doc


# kube-apiserver's JSONPatchMaxCopyBytes (jsonpatch.AccumulatedCopySizeLimit) and
# maxJSONPatchOperations.
JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024
MAX_JSON_PATCH_OPERATIONS = 10_000


def json_patch(target: Any, operations: Any) -> Any:
    if not isinstance(operations, list):
        raise ApiError(
            400, "BadRequest", "json: cannot unmarshal object into Go value of type jsonpatch.Patch"
        )
    if len(operations) > MAX_JSON_PATCH_OPERATIONS:
        raise ApiError(
            413,
            "RequestEntityTooLarge",
            "Request entity too large: The allowed maximum operations in a JSON patch is "
            f"{MAX_JSON_PATCH_OPERATIONS}, got {len(operations)}",
        )
    doc = deep_copy(target)
    copied = 0
    for op in operations:
        if not isinstance(op, dict) or "op" not in op:
            raise ApiError(400, "BadRequest", "Unexpected kind: unknown operation")
        kind = op["op"]
        path = str(op.get("path", ""))
        if kind == "add":
            doc = _add(doc, path, op.get("value"))
        elif kind == "replace":
            doc = _add(doc, path, op.get("value"), replace=True)
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "move":
            value = _remove(doc, str(op.get("from", "")))
            doc = _add(doc, path, value)
        elif kind == "copy":
            value = _get(doc, str(op.get("from", "")))
            # Measured before it is copied: copies of copies double the document each time.
            copied += len(json.dumps(value, separators=(",", ":"), default=str))
            if copied > JSON_PATCH_MAX_COPY_BYTES:
                raise ApiError(
                    422,
                    "Invalid",
                    "the server rejected our request due to an error in our request: Unable to "
                    "complete the copy, the accumulated size increase of copy is "
                    f"{copied}, exceeding the limit {JSON_PATCH_MAX_COPY_BYTES}",
                )
            doc = _add(doc, path, deep_copy(value))
        elif kind == "test":
            if _get(doc, path) != op.get("value"):
                raise ApiError(
                    422,
                    "Invalid",
                    f"the server rejected our request due to an error in our "
                    f"request: testing value {path} failed: test failed",
                )
        else:
            raise ApiError(400, "BadRequest", f"Unexpected kind: {kind}")
    return doc


def apply_patch(target: Any, patch: Any, patch_type: str) -> Any:
    if patch_type == "merge":
        return merge_patch(target, patch)
    if patch_type == "json":
        return json_patch(target, patch)
    if patch_type == "strategic":
        return strategic_merge(target, patch)
    raise ApiError(
        415, "UnsupportedMediaType", f"the server does not support patch type {patch_type!r}"
    )
