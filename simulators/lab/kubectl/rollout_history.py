"""kubectl rollout history, undo, pause and resume (polymorphichelpers' history viewer,
rollbacker, pauser and resumer), for Deployments and their ReplicaSets' revisions.

`history --revision=N` prints that revision's pod template as kubectl does (describe's
DescribePodTemplate through a PrefixWriter, no column alignment); `history -o name|yaml|json`
prints the ReplicaSets themselves."""

from __future__ import annotations

import copy
from typing import Any

from simulators.cluster.api import ClusterAPI, Obj, ResourceInfo
from simulators.lab.kubectl.common import KubectlError, kind_name, read_list
from simulators.lab.kubectl.describe_common import Writer, write_pod_template
from simulators.lab.kubectl.go_order import struct_order
from simulators.lab.kubectl.printing import object_text, to_json, to_yaml
from simulators.lab.kubectl.tabwriter import format_text

REVISION = "deployment.kubernetes.io/revision"
CHANGE_CAUSE = "kubernetes.io/change-cause"
HASH_LABEL = "pod-template-hash"


def revisions(cluster: ClusterAPI, deployment: Obj) -> dict[int, Obj]:
    """The ReplicaSets a Deployment owns, by their revision annotation."""
    meta = deployment["metadata"]
    uid = meta.get("uid")
    out: dict[int, Obj] = {}
    for rs in read_list(cluster, "replicasets.apps", meta.get("namespace")):
        owners = rs["metadata"].get("ownerReferences") or []
        if not any(o.get("uid") == uid and o.get("controller") for o in owners):
            continue
        text = (rs["metadata"].get("annotations") or {}).get(REVISION, "")
        try:
            out[int(text)] = rs
        except ValueError:
            continue
    return out


def history(cluster: ClusterAPI, info: ResourceInfo, obj: Obj) -> str:
    """`deployment.apps/NAME ` then the REVISION/CHANGE-CAUSE table (no trailing newline)."""
    head = f"{kind_name(info)}/{obj['metadata']['name']} "
    if info.key != "deployments.apps":
        return f"{head}\nNo rollout history found."
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
    found = revisions(cluster, obj) if info.key == "deployments.apps" else {}
    rs = found.get(revision)
    if rs is None:
        raise KubectlError("error: unable to find the specified revision")
    pod_template = copy.deepcopy((rs.get("spec") or {}).get("template") or {})
    cause = (rs["metadata"].get("annotations") or {}).get(CHANGE_CAUSE)
    if cause:
        # The history viewer shows the ReplicaSet's change cause on the template.
        metadata = pod_template.setdefault("metadata", {})
        metadata.setdefault("annotations", {})[CHANGE_CAUSE] = cause
    w = Writer()
    write_pod_template(w, pod_template)
    return f"{head}\n{w.raw()}"


def printed(cluster: ClusterAPI, obj: Obj, revision: int, output: str) -> str:
    """`history -o`: the ReplicaSet of `revision` (every revision's for 0), as typed objects."""
    found = revisions(cluster, obj)
    if revision:
        if revision not in found:
            raise KubectlError("error: unable to find the specified revision")
        found = {revision: found[revision]}
    items = [found[number] for number in sorted(found)]
    if output == "name":
        return "\n".join(f"replicaset.apps/{rs['metadata']['name']}" for rs in items)
    if output == "yaml":
        return "\n---\n".join(to_yaml(rs).rstrip("\n") for rs in items)
    if output == "json":
        return "\n".join(to_json(struct_order(rs), sort_keys=False) for rs in items)
    # One printer for every revision: a template's text runs on from one to the next.
    return "".join(object_text(rs, "", output, "") for rs in items)


def undo(cluster: ClusterAPI, info: ResourceInfo, obj: Obj, to_revision: int, dry: str = "") -> str:
    """Roll a Deployment back to the previous revision (or `to_revision`); the result kubectl
    names the object with ("rolled back", "skipped rollback (...)", or under --dry-run=client
    the revision's pod template, which nothing is patched with)."""
    name = obj["metadata"]["name"]
    if info.key != "deployments.apps":
        raise KubectlError(f'error: no rollbacker has been implemented for "{info.kind}"')
    spec = obj.get("spec") or {}
    found = revisions(cluster, obj)
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
    template = copy.deepcopy((target.get("spec") or {}).get("template") or {})
    if dry == "client":
        # DeploymentRollbacker under a client dry run: printTemplate, before any other check.
        w = Writer()
        write_pod_template(w, template)
        return w.raw()
    if spec.get("paused"):
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
    fork = getattr(cluster, "fork", None) if dry == "server" else None
    if dry != "server":
        cluster.patch(info.key, name, ops, ns, patch_type="json")
    elif fork is not None:
        # A server dry run: every rule the patch would meet, on a copy that is then dropped.
        fork().patch(info.key, name, ops, ns, patch_type="json")
    return "rolled back"


def _without_hash(template: Any) -> Any:
    out = copy.deepcopy(template)
    ((out.get("metadata") or {}).get("labels") or {}).pop(HASH_LABEL, None)
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
