"""The history the DaemonSet and StatefulSet controllers keep: one apps/v1 ControllerRevision
per pod template, which `kubectl rollout history` reads (as Deployments' ReplicaSets carry
their revision annotation).

As kube-controller-manager writes it (daemon controller's snapshot, StatefulSet's
NewControllerRevision): named `<owner>-<hash>`, the template's labels plus
`controller-revision-hash`, the owner's annotations, a controller reference to the owner, `data`
the patch that puts the template back (`{"spec":{"template":{..., "$patch":"replace"}}}`), and
`revision` one past the highest the owner has.
"""

from __future__ import annotations

from simulators.cluster.api import ClusterAPI, Obj
from simulators.cluster.patches import deep_copy, key_sorted
from simulators.controllers.util import (
    get_or_none,
    items,
    name_of,
    namespace_of,
    owned_by,
    owner_ref,
    spec,
)

RESOURCE = "controllerrevisions.apps"


def history(api: ClusterAPI, owner: Obj) -> list[Obj]:
    """The revisions `owner` controls, in its namespace."""
    return [cr for cr in items(api, RESOURCE, namespace_of(owner)) if owned_by(cr, owner)]


def ensure_revision(api: ClusterAPI, owner: Obj, kind: str, hash_: str) -> None:
    """Create the revision of `owner`'s current template (a `kind` of apps/v1) unless it
    exists; `hash_` is the template's hash."""
    name = f"{name_of(owner)}-{hash_}"
    ns = namespace_of(owner)
    if get_or_none(api, RESOURCE, name, ns) is not None:
        return
    number = max((int(cr.get("revision", 0)) for cr in history(api, owner)), default=0) + 1
    template = deep_copy(spec(owner).get("template") or {})
    labels = dict((template.get("metadata") or {}).get("labels") or {})
    labels["controller-revision-hash"] = hash_
    template["$patch"] = "replace"
    metadata: Obj = {
        "name": name,
        "namespace": ns,
        "labels": labels,
        "ownerReferences": [{**owner_ref(owner), "apiVersion": "apps/v1", "kind": kind}],
    }
    annotations = owner.get("metadata", {}).get("annotations")
    if annotations:
        metadata["annotations"] = dict(annotations)
    revision: Obj = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": metadata,
        # Go marshals the patch from maps, so every key comes sorted; kubectl's rollback
        # compares these bytes with the patch it makes from the owner.
        "data": key_sorted({"spec": {"template": template}}),
        "revision": number,
    }
    api.create(RESOURCE, revision, ns)
