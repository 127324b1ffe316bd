"""kubectl set image TYPE/NAME CONTAINER=IMAGE ... (and `*=IMAGE` for every container), on
the pod template of a workload or on a pod's own containers."""

from __future__ import annotations

import copy
from typing import Any

from simulators.cluster.api import ApiError
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    DRY_RUN,
    KubectlError,
    dry_run,
    dry_run_writer,
    dry_suffix,
    error_text,
    kind_name,
    namespace,
    targets,
)
from simulators.lab.kubectl.printing import PRINT_FLAGS, object_output, object_text, printed
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    DRY_RUN,
    Flag("all", long="all"),
    Flag("selector", long="selector", short="l", takes_value=True),
    *PRINT_FLAGS,
]

HELP = """Configure application resources.

 These commands help you make changes to existing application resources.

Available Commands:
  env              Update environment variables on a pod template
  image            Update the image of a pod template
  resources        Update resource requests/limits on objects with pod templates
  selector         Set the selector on a resource
  serviceaccount   Update the service account of a resource
  subject          Update the user, group, or service account in a role binding or cluster \
role binding

Usage:
  kubectl set SUBCOMMAND [options]

Use "kubectl set <command> --help" for more information about a given command.
Use "kubectl options" for a list of global command-line options (applies to all commands)."""

_TEMPLATED = {
    "deployments.apps",
    "daemonsets.apps",
    "statefulsets.apps",
    "replicasets.apps",
    "jobs.batch",
}


def _pod_spec(key: str, obj: dict[str, Any]) -> dict[str, Any] | None:
    if key == "pods":
        return obj.get("spec")
    if key in _TEMPLATED:
        return ((obj.get("spec") or {}).get("template") or {}).get("spec")
    if key == "cronjobs.batch":
        spec = (obj.get("spec") or {}).get("jobTemplate") or {}
        return ((spec.get("spec") or {}).get("template") or {}).get("spec")
    return None


def run(ctx: Context, parsed: Parsed) -> Output:
    if not parsed.positionals:
        return Output(HELP, 1)
    action, words = parsed.positionals[0], parsed.positionals[1:]
    if action != "image":
        raise KubectlError(f'error: unknown command "{action}" for "kubectl set"')
    resources = [w for w in words if "=" not in w]
    changes = dict(w.split("=", 1) for w in words if "=" in w)
    if not resources or not changes:
        raise KubectlError(
            "error: one or more resources must be specified as <resource> <name> or "
            "<resource>/<name>"
            if not resources
            else "error: at least one image update is required"
        )
    output = object_output(parsed)
    cluster = ctx.api
    ns = namespace(parsed)
    dry = dry_run(parsed)
    out: list[str] = []
    for group in targets(cluster, resources, verb="set"):
        scope = ns if group.info.namespaced else None
        for name in group.names:
            try:
                obj = cluster.get(group.info.key, name, scope)
            except ApiError as exc:
                return Output(printed(out, [error_text(exc)]), 1)
            updated = copy.deepcopy(obj)
            spec = _pod_spec(group.info.key, updated)
            if spec is None:
                message = (
                    f"error: cannot set image on {kind_name(group.info)}/{name}: no pod template"
                )
                return Output(printed(out, [message]), 1)
            containers = [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]
            for container, image in changes.items():
                matched = [c for c in containers if container in ("*", c.get("name"))]
                if not matched:
                    message = f'error: unable to find container named "{container}"'
                    return Output(printed(out, [message]), 1)
                for c in matched:
                    c["image"] = image
            if updated == obj:
                continue  # nothing to change: kubectl sends no patch and prints nothing
            writer = dry_run_writer(cluster, dry)
            if writer is not None:
                try:
                    updated = writer.update(group.info.key, updated, scope)
                except ApiError as exc:
                    return Output(printed(out, [error_text(exc)]), 1)
            label = f"{kind_name(group.info)}/{name}"
            text = object_text(updated, label, output, "image updated" + dry_suffix(dry))
            out.append(text)
    return Output(printed(out))
