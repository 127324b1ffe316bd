"""kubectl rollout restart|status|history|undo|pause|resume for Deployments, DaemonSets and
StatefulSets (history, undo, pause and resume in rollout_history)."""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ApiError
from simulators.cluster.clock import format_time
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl import rollout_history
from simulators.lab.kubectl.common import (
    COMMON,
    KubectlError,
    error_text,
    kind_name,
    namespace,
    read_list,
    see,
    targets,
)
from simulators.lab.kubectl.printing import CREATE_OUTPUT_ERROR
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("watch", long="watch", short="w", takes_value=True),
    Flag("timeout", long="timeout", takes_value=True),
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("revision", long="revision", takes_value=True),
    Flag("to-revision", long="to-revision", takes_value=True),
    Flag("output", long="output", short="o", takes_value=True),
]

HELP = """Manage the rollout of one or many resources.
        
 Valid resource types include:

  *  deployments
  *  daemonsets
  *  statefulsets

Examples:
  # Rollback to the previous deployment
  kubectl rollout undo deployment/abc
  
  # Check the rollout status of a daemonset
  kubectl rollout status daemonset/foo
  
  # Restart a deployment
  kubectl rollout restart deployment/abc
  
  # Restart deployments with the 'app=nginx' label
  kubectl rollout restart deployment --selector=app=nginx

Available Commands:
  history       View rollout history
  pause         Mark the provided resource as paused
  restart       Restart a resource
  resume        Resume a paused resource
  status        Show the status of the rollout
  undo          Undo a previous rollout

Usage:
  kubectl rollout SUBCOMMAND [options]

Use "kubectl rollout <command> --help" for more information about a given command.
Use "kubectl options" for a list of global command-line options (applies to all commands)."""  # noqa: W293

_KINDS = ("deployments.apps", "daemonsets.apps", "statefulsets.apps")


def run(ctx: Context, parsed: Parsed) -> Output:
    if not parsed.positionals:
        return Output(HELP, 1)
    action, words = parsed.positionals[0], parsed.positionals[1:]
    if action not in ("restart", "status", "history", "undo", "pause", "resume"):
        raise KubectlError(f'error: unknown command "{action}" for "kubectl rollout"')
    if not words:
        raise KubectlError("error: required resource not specified")
    if parsed.has("output") and action != "history":
        raise KubectlError(f"error: unknown shorthand flag: 'o' in -o\n{see('rollout ' + action)}")
    revision = _revision(parsed, "revision") if action == "history" else 0
    if revision < 0:
        raise KubectlError(f"error: revision must be a positive integer: {revision}")
    output = parsed.value("output")
    if output not in (None, "name", "yaml", "json"):
        raise KubectlError(CREATE_OUTPUT_ERROR.format(output))
    cluster = ctx.api
    ns = namespace(parsed)
    out: list[str] = []
    for group in targets(cluster, words, verb="rollout"):
        if group.info.key not in _KINDS and action in ("restart", "status", "undo", "history"):
            return Output(
                f'error: no rollbacker has been implemented for "{group.info.kind}"'
                if action == "undo"
                else f"error: {action}ing is not supported",
                1,
            )
        names = group.names or _every(cluster, group.info.key, ns, parsed)
        if not names and action == "restart":
            out.append(f"No resources found in {ns} namespace.")
        for name in names:
            try:
                obj = cluster.get(group.info.key, name, ns)
                label = f"{kind_name(group.info)}/{name}"
                if action == "restart":
                    stamp = format_time(cluster.now())
                    cluster.patch(
                        group.info.key,
                        name,
                        {
                            "spec": {
                                "template": {
                                    "metadata": {
                                        "annotations": {"kubectl.kubernetes.io/restartedAt": stamp}
                                    }
                                }
                            }
                        },
                        ns,
                        patch_type="strategic",
                    )
                    out.append(f"{label} restarted")
                elif action == "status":
                    out.append(_status(group.info.key, obj))
                elif action == "history" and output:
                    out.append(rollout_history.printed(cluster, obj, revision, output))
                elif action == "history" and revision:
                    out.append(rollout_history.template(cluster, group.info, obj, revision))
                elif action == "history":
                    out.append(rollout_history.history(cluster, group.info, obj))
                elif action == "undo":
                    to_revision = _revision(parsed, "to-revision")
                    out.append(rollout_history.undo(cluster, group.info, obj, to_revision))
                else:
                    out.append(rollout_history.pause(cluster, group.info, obj, action == "pause"))
            except ApiError as exc:
                return Output("\n".join([*out, error_text(exc)]), 1)
            except KubectlError as exc:
                return Output("\n".join([*out, str(exc)]), 1)
    # A revision's pod template ends with a newline, which kubectl prints then ends its line.
    return Output("\n".join(out).rstrip("\n"))


def _every(cluster: Any, key: str, ns: str, parsed: Parsed) -> list[str]:
    """A bare type (`rollout history deploy`): every object of it in the namespace, by name."""
    items = read_list(cluster, key, ns, label_selector=parsed.value("selector") or "")
    return sorted(str(obj["metadata"]["name"]) for obj in items)


def _revision(parsed: Parsed, flag: str) -> int:
    text = parsed.value(flag) or "0"
    try:
        return int(text)
    except ValueError:
        raise KubectlError(
            f'error: invalid argument "{text}" for "--{flag}" flag: strconv.ParseInt: '
            f'parsing "{text}": invalid syntax\n{see("rollout " + str(parsed.positionals[0]))}'
        ) from None


def _status(key: str, obj: dict[str, Any]) -> str:
    """kubectl's status viewers (polymorphichelpers/rollout_status.go), one check at a time."""
    spec, status, meta = obj.get("spec") or {}, obj.get("status") or {}, obj["metadata"]
    name = meta["name"]
    observed = int(meta.get("generation", 0)) <= int(status.get("observedGeneration", 0))
    if key == "daemonsets.apps":
        strategy = (spec.get("updateStrategy") or {}).get("type", "RollingUpdate")
        if strategy != "RollingUpdate":
            raise KubectlError(
                "error: rollout status is only available for RollingUpdate strategy type"
            )
        if not observed:
            return "Waiting for daemon set spec update to be observed..."
        desired = int(status.get("desiredNumberScheduled", 0))
        updated = int(status.get("updatedNumberScheduled", 0))
        available = int(status.get("numberAvailable", 0))
        if updated < desired:
            return (
                f'Waiting for daemon set "{name}" rollout to finish: {updated} out of {desired} '
                "new pods have been updated..."
            )
        if available < desired:
            return (
                f'Waiting for daemon set "{name}" rollout to finish: {available} of {desired} '
                "updated pods are available..."
            )
        return f'daemon set "{name}" successfully rolled out'
    if not observed:
        return "Waiting for deployment spec update to be observed..."
    for cond in status.get("conditions") or []:
        if cond.get("type") == "Progressing" and cond.get("reason") == "ProgressDeadlineExceeded":
            raise KubectlError(f'error: deployment "{name}" exceeded its progress deadline')
    replicas = int(spec.get("replicas", 1))
    updated = int(status.get("updatedReplicas", 0))
    total = int(status.get("replicas", 0))
    available = int(status.get("availableReplicas", 0))
    if updated < replicas:
        return (
            f'Waiting for deployment "{name}" rollout to finish: {updated} out of {replicas} new '
            "replicas have been updated..."
        )
    if total > updated:
        return (
            f'Waiting for deployment "{name}" rollout to finish: {total - updated} old replicas '
            "are pending termination..."
        )
    if available < updated:
        return (
            f'Waiting for deployment "{name}" rollout to finish: {available} of {updated} '
            "updated replicas are available..."
        )
    return f'deployment "{name}" successfully rolled out'
