"""What the workload controllers share: pod-template hashes, pods made from a template,
pod creation and deletion with the controller's events, and status patches that write only when
something changed.
"""

from __future__ import annotations

import json
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.patches import deep_copy
from simulators.controllers.util import (
    SAFE_ALPHABET,
    controller_of,
    emit,
    is_deleting,
    name_of,
    namespace_of,
    owner_ref,
    stable_hash,
    status,
)

_HASHES: dict[str, str] = {}


def template_hash(template: Any, collisions: int = 0, owner: Obj | None = None) -> str:
    """A pod template's hash as Kubernetes renders it: a 32-bit number, safe-encoded digit by
    digit (hence names like ``coredns-7c9f6d8b5``). With `owner`, remembered per generation."""
    key = ""
    if owner is not None:
        meta = owner.get("metadata", {})
        key = f"{meta.get('uid')}/{meta.get('generation')}/{collisions}"
        cached = _HASHES.get(key)
        if cached is not None:
            return cached
    text = json.dumps(template, sort_keys=True, separators=(",", ":"))
    key = key or f"{collisions}|{text}"
    number = stable_hash("template", text, collisions) % (2**32)
    result = "".join(SAFE_ALPHABET[ord(ch) % len(SAFE_ALPHABET)] for ch in str(number))
    if len(_HASHES) > 4096:
        _HASHES.clear()
    _HASHES[key] = result
    return result


def pod_ready(pod: Obj) -> bool:
    for cond in status(pod).get("conditions") or []:
        if cond.get("type") == "Ready":
            return bool(cond.get("status") == "True")
    return False


def active(pod: Obj) -> bool:
    return not is_deleting(pod) and status(pod).get("phase") not in ("Succeeded", "Failed")


def pod_from_template(
    owner: Obj, template: dict[str, Any], *, name: str = "", generate: str = ""
) -> Obj:
    tmeta = template.get("metadata") or {}
    meta: dict[str, Any] = {
        "namespace": namespace_of(owner),
        "labels": dict(tmeta.get("labels") or {}),
        "ownerReferences": [owner_ref(owner)],
    }
    if tmeta.get("annotations"):
        meta["annotations"] = dict(tmeta["annotations"])
    if name:
        meta["name"] = name
    else:
        meta["generateName"] = generate
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": deep_copy(template.get("spec") or {}),
    }


def create_pod(api: ClusterAPI, owner: Obj, pod: Obj, component: str) -> Obj | None:
    try:
        created = api.create("pods", pod, namespace_of(owner))
    except ApiError as exc:
        emit(api, owner, "Warning", "FailedCreate", f"Error creating: {exc.message}", component)
        return None
    emit(api, owner, "Normal", "SuccessfulCreate", f"Created pod: {name_of(created)}", component)
    return created


def delete_pod(api: ClusterAPI, owner: Obj, pod: Obj, component: str) -> None:
    try:
        api.delete("pods", name_of(pod), namespace_of(pod))
    except ApiError as exc:
        if exc.code == 404:
            return
        raise
    emit(api, owner, "Normal", "SuccessfulDelete", f"Deleted pod: {name_of(pod)}", component)


def patch_status(api: ClusterAPI, resource: str, obj: Obj, wanted: dict[str, Any]) -> None:
    current = status(obj)
    if all(current.get(k) == v for k, v in wanted.items()):
        return
    try:
        api.patch(
            resource, name_of(obj), {"status": wanted}, namespace_of(obj), subresource="status"
        )
    except ApiError as exc:
        if exc.code != 404:
            raise


def by_owner(objs: list[Obj]) -> dict[str, list[Obj]]:
    """Objects grouped by their controller's uid (one pass instead of one per owner)."""
    out: dict[str, list[Obj]] = {}
    for obj in objs:
        ref = controller_of(obj)
        if ref is not None:
            out.setdefault(str(ref.get("uid", "")), []).append(obj)
    return out
