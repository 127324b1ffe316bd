"""kubectl rollout history, undo, pause and resume (polymorphichelpers' history viewer,
rollbacker, pauser and resumer), for Deployments and their ReplicaSets' revisions.

`history --revision=N` prints that revision's pod template as kubectl does (describe's
DescribePodTemplate through a PrefixWriter, no column alignment); `history -o name|yaml|json`
prints the ReplicaSets themselves."""

from __future__ import annotations

import copy
from typing import Any

from simulators.cluster.api import ClusterAPI, Obj, ResourceInfo
from simulators.lab.kubectl.common import KubectlError, dry_run_writer, kind_name, read_list
from simulators.lab.kubectl.describe_common import Writer, write_pod_template
from simulators.lab.kubectl.go_order import struct_order
from simulators.lab.kubectl.printing import object_text, to_json, to_yaml
from simulators.lab.kubectl.tabwriter import format_text

REVISION = "deployment.kubernetes.io/revision"
CHANGE_CAUSE = "kubernetes.io/change-cause"
HASH_LABEL = "pod-template-hash"


def revisions(cluster: ClusterAPI, owner: Obj) -> dict[int, Obj]:
    """A Deployment's ReplicaSets by their revision annotation; a DaemonSet's or StatefulSet's
    ControllerRevisions (those its selector matches that it controls) by their revision."""
    meta = owner["metadata"]
    uid = meta.get("uid")
    deployment = owner.get("kind") == "Deployment"
    resource = "replicasets.apps" if deployment else "controllerrevisions.apps"
    selector = "" if deployment else _selector(owner)
    out: dict[int, Obj] = {}
    for rev in read_list(cluster, resource, meta.get("namespace"), label_selector=selector):
        owners = rev["metadata"].get("ownerReferences") or []
        if not any(o.get("uid") == uid and o.get("controller") for o in owners):
            continue
        if not deployment:
            out[int(rev.get("revision") or 0)] = rev
            continue
        text = (rev["metadata"].get("annotations") or {}).get(REVISION, "")
        try:
            out[int(text)] = rev
        except ValueError:
            continue
    return out


def _selector(owner: Obj) -> str:
    labels = ((owner.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def pod_template(rev: Obj) -> Obj:
    """The pod template a revision holds: a ReplicaSet's, or what a ControllerRevision's data
    patch puts back."""
    if rev.get("kind") == "ControllerRevision":
        held = copy.deepcopy(((rev.get("data") or {}).get("spec") or {}).get("template") or {})
        held.pop("$patch", None)
        return dict(held)
    return dict(copy.deepcopy((rev.get("spec") or {}).get("template") or {}))


def history(cluster: ClusterAPI, info: ResourceInfo, obj: Obj) -> str:
    """`deployment.apps/NAME ` then the REVISION/CHANGE-CAUSE table (no trailing newline)."""
    head = f"{kind_name(info)}/{obj['metadata']['name']} "
    found = revisions(cluster, obj)
    if not found:
        return f"{head}\nNo rollout history found."
    lines = ["REVISION\tCHANGE-CAUSE"]
    for number in sorted(found):
        cause = (found[number]["metadata"].get("annotations") or {}).get(CHANGE_CAUSE) or "<none>"
        lines.append(f"{number}\t{cause}")
    # tabbedString: tabwriter.NewWriter(out, 0, 8, 2, ' ', 0); its last line ends with a
    # newline, which kubectl prints before ending the line (a blank line between objects).
    return f"{head}\n{format_text(chr(10).join(lines), padding=2)}\n"


def template(cluster: ClusterAPI, info: ResourceInfo, obj: Obj, revision: int) -> str:
    """`NAME with revision #N` and that revision's pod template (ending with a newline)."""
    head = f"{kind_name(info)}/{obj['metadata']['name']} with revision #{revision}"
    rs = revisions(cluster, obj).get(revision)
    if rs is None:
        raise KubectlError("error: unable to find the specified revision")
    held = pod_template(rs)
    cause = (rs["metadata"].get("annotations") or {}).get(CHANGE_CAUSE)
    if cause and info.key == "deployments.apps":
        # The history viewer shows the ReplicaSet's change cause on the template.
        metadata = held.setdefault("metadata", {})
        metadata.setdefault("annotations", {})[CHANGE_CAUSE] = cause
    w = Writer()
    write_pod_template(w, held)
    return f"{head}\n{w.raw()}"


def printed(cluster: ClusterAPI, obj: Obj, revision: int, output: str) -> str:
    """`history -o`: the ReplicaSet of `revision` (every revision's for 0), as typed objects."""
    found = revisions(cluster, obj)
    if revision:
        if revision not in found:
            raise KubectlError("error: unable to find the specified revision")
        found = {revision: found[revision]}
    items = [found[number] for number in sorted(found)]
    if obj.get("kind") != "Deployment":
        # The DaemonSet and StatefulSet history viewers answer with the owner itself, its
        # template put back to each revision's.
        items = [{**obj, "spec": {**obj["spec"], "template": pod_template(rev)}} for rev in items]
    if output == "name":
        return "\n".join(f"{rs['kind'].lower()}.apps/{rs['metadata']['name']}" for rs in items)
    if output == "yaml":
        return "\n---\n".join(to_yaml(struct_order(rs)).rstrip("\n") for rs in items)
    if output == "json":
        return "\n".join(to_json(struct_order(rs), sort_keys=False) for rs in items)
    # One printer for every revision: a template's text runs on from one to the next.
    return "".join(object_text(rs, "", output, "") for rs in items)


def undo(cluster: ClusterAPI, info: ResourceInfo, obj: Obj, to_revision: int, dry: str = "") -> str:
    """Roll a Deployment, DaemonSet or StatefulSet back to the previous revision (or
    `to_revision`); the result kubectl names the object with ("rolled back", "skipped rollback
    (...)", or under --dry-run=client the revision's pod template, patched into nothing)."""
    name = obj["metadata"]["name"]
    spec = obj.get("spec") or {}
    found = revisions(cluster, obj)
    deployment = info.key == "deployments.apps"
    if not deployment and not to_revision and len(found) <= 1:
        # DaemonSetRollbacker and StatefulSetRollbacker.
        raise KubectlError("error: no last revision to roll back to")
    if to_revision:
        target = found.get(to_revision)
        if target is None:
            raise KubectlError(f"error: unable to find specified revision {to_revision} in history")
    else:
        ordered = sorted(found)
        if len(ordered) < 2:
            raise KubectlError(f'error: no rollout history found for deployment "{name}"')
        to_revision = ordered[-2]
        target = found[to_revision]
    template = pod_template(target)
    if dry == "client":
        # A client dry run prints the template, before any other check.
        w = Writer()
        write_pod_template(w, template)
        return w.raw() if deployment else f"will roll back to {w.raw()}"
    if deployment and spec.get("paused"):
        raise KubectlError(
            "error: you cannot rollback a paused deployment; resume it first with "
            "'kubectl rollout resume' and try again"
        )
    labels = (template.get("metadata") or {}).get("labels") or {}
    labels.pop(HASH_LABEL, None)
    if _without_hash(template) == _without_hash(spec.get("template") or {}):
        return f"skipped rollback (current template already matches revision {to_revision})"
    ops = [{"op": "replace", "path": "/spec/template", "value": template}]
    ns = obj["metadata"].get("namespace")
    # A server dry run: every rule the patch would meet, on a copy that is then dropped.
    writer = dry_run_writer(cluster, dry)
    if writer is not None:
        writer.patch(info.key, name, ops, ns, patch_type="json")
    return "rolled back"


def _without_hash(template: Any) -> Any:
    """A template as compared for a rollback: no pod-template-hash, no null creationTimestamp
    (a ControllerRevision's typed template carries one)."""
    out = copy.deepcopy(template)
    metadata = out.get("metadata") or {}
    (metadata.get("labels") or {}).pop(HASH_LABEL, None)
    if metadata.get("creationTimestamp", "") is None:
        metadata.pop("creationTimestamp")
    return out


def pause(cluster: ClusterAPI, info: ResourceInfo, obj: Obj, paused: bool) -> Obj:
    """Pause (or resume) a Deployment and return it as the server answered; kubectl's error
    line for anything else."""
    name = obj["metadata"]["name"]
    resource = info.key
    if info.key != "deployments.apps":
        verb = "pausing" if paused else "resuming"
        raise KubectlError(f'error: {resource} "{name}" {verb} is not supported')
    current = bool((obj.get("spec") or {}).get("paused"))
    if current == paused:
        state = "is already paused" if paused else "is not paused"
        raise KubectlError(f'error: {resource} "{name}" {state}')
    body = {"spec": {"paused": True if paused else None}}
    return cluster.patch(
        info.key, name, body, obj["metadata"].get("namespace"), patch_type="strategic"
    )
