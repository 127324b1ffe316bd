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
    DRY_RUN,
    KubectlError,
    dry_run,
    dry_suffix,
    error_text,
    kind_name,
    namespace,
    read_list,
    see,
    targets,
)
from simulators.lab.kubectl.printing import (
    CREATE_OUTPUT_ERROR,
    PRINT_FLAGS,
    check_object_output,
    object_text,
    output_format,
)
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("watch", long="watch", short="w", takes_value=True),
    Flag("timeout", long="timeout", takes_value=True),
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("revision", long="revision", takes_value=True),
    Flag("to-revision", long="to-revision", takes_value=True),
    *PRINT_FLAGS,
    DRY_RUN,
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
    if parsed.has("output") and action == "status":
        raise KubectlError(f"error: unknown shorthand flag: 'o' in -o\n{see('rollout ' + action)}")
    if parsed.has("dry-run") and action != "undo":
        raise KubectlError(f"error: unknown flag: --dry-run\n{see('rollout ' + action)}")
    dry = dry_run(parsed)
    revision = _revision(parsed, "revision") if action == "history" else 0
    if revision < 0:
        raise KubectlError(f"error: revision must be a positive integer: {revision}")
    output = output_format(parsed, CREATE_OUTPUT_ERROR)
    if action == "history":
        check_object_output(output)
    cluster = ctx.api
    ns = namespace(parsed)
    out: list[str] = []
    # restart, pause, resume and undo print each object through PrintFlags' printer, which
    # kubectl makes only after the change: a bad -o refuses once the change is made. They go on
    # past an object they cannot change, and report every error at the end.
    printer_error = ""
    try:
        check_object_output(output)
    except KubectlError as exc:
        printer_error = str(exc).removeprefix("error: ")
    errors: list[str] = []
    for group in targets(cluster, words, verb="rollout"):
        names = group.names or _every(cluster, group.info.key, ns, parsed)
        if not names and action in ("restart", "pause", "resume", "status"):
            out.append(f"No resources found in {ns} namespace.")
        for name in names:
            try:
                obj = cluster.get(group.info.key, name, ns)
                label = f"{kind_name(group.info)}/{name}"
                if group.info.key not in _KINDS and action in _VIEWERS:
                    # The builder found it; its kind has no viewer (polymorphichelpers').
                    errors.append(_no_viewer(group.info, name, action))
                    continue
                if action in ("status", "history"):
                    out.append(_viewed(cluster, group.info, obj, action, revision, output))
                    continue
                changed, operation = _changed(cluster, group.info, obj, parsed, dry)
            except ApiError as exc:
                if action in ("status", "history"):
                    return Output(_joined([*out, error_text(exc)]), 1)
                # The builder's errors (an object not found) come before every change's.
                errors.insert(
                    sum(e.startswith("Error from server") for e in errors), error_text(exc)
                )
                continue
            except KubectlError as exc:
                if action in ("status", "history"):
                    return Output(_joined([*out, str(exc)]), 1)
                # The pauser's errors carry their own "error: " (fmt.Errorf("error: %s %q %v")).
                text = str(exc)
                errors.append(text if action in ("pause", "resume") else text[len("error: ") :])
                continue
            if printer_error:
                errors.append(printer_error)
                continue
            try:
                out.append(object_text(changed, label, output, operation))
            except KubectlError as exc:
                errors.append(str(exc).removeprefix("error: "))
    if errors:
        # utilerrors.Aggregate: one error as kubectl prints any, several one per line as is.
        only = errors[0]
        if not only.startswith(("error: ", "Error from server")):
            only = f"error: {only}"
        return Output(_joined([*out, only if len(errors) == 1 else "\n".join(errors)]), 1)
    if action in ("status", "history"):
        # A revision's pod template ends with a newline, which kubectl prints then ends its line.
        return Output("\n".join(out).rstrip("\n"))
    # The printers' own text, as kubectl writes it (the prompt follows its last newline).
    return Output("".join(out).removesuffix("\n"))


# The actions whose helpers know only _KINDS, and what each says of another kind.
_VIEWERS = ("status", "history", "undo", "restart")


def _no_viewer(info: Any, name: str, action: str) -> str:
    kind = f"{info.kind}.{info.group}" if info.group else info.kind
    if action == "status" and info.custom:
        # rollout status decodes what the builder found with kubectl's scheme first, which
        # has no custom kinds.
        return (
            f'no kind "{info.kind}" is registered for version "{info.api_version}" in scheme '
            '"pkg/scheme/scheme.go:28"'
        )
    if action == "status":
        return f"no status viewer has been implemented for {kind}"
    if action == "restart":
        return f'error: {info.key} "{name}" restarting is not supported'
    helper = "history" if action == "history" else "rollbacker"
    if (info.group, info.kind) in _VISITED:
        # A kind the kind visitor knows, with no viewer of its own.
        viewer = "history viewer" if helper == "history" else helper
        return f'no {viewer} has been implemented for "{kind}"'
    return (
        f'error retrieving {helper} for "{kind}", no visitor method exists for '
        f"{{{info.group} {info.kind}}}"
    )


# The kinds polymorphichelpers' GroupKindVisitor knows besides _KINDS (kind_visitor.go).
_VISITED = frozenset(
    {
        ("", "Pod"),
        ("", "ReplicationController"),
        ("apps", "ReplicaSet"),
        ("batch", "Job"),
        ("batch", "CronJob"),
    }
)


def _joined(parts: list[str]) -> str:
    return "\n".join(part.removesuffix("\n") for part in parts)


def _viewed(cluster: Any, info: Any, obj: Any, action: str, revision: int, output: str) -> str:
    """status or history: the viewers' text for one object."""
    if action == "status":
        return status_of(info.key, obj)
    if output:
        return rollout_history.printed(cluster, obj, revision, output)
    if revision:
        return rollout_history.template(cluster, info, obj, revision)
    return rollout_history.history(cluster, info, obj)


def _changed(cluster: Any, info: Any, obj: Any, parsed: Parsed, dry: str) -> tuple[Any, str]:
    """restart, undo, pause or resume one object: the object kubectl prints, and the operation
    its name is printed with."""
    action, name, ns = parsed.positionals[0], obj["metadata"]["name"], obj["metadata"]["namespace"]
    if action == "restart":
        return _restart(cluster, info.key, name, ns), "restarted"
    if action == "undo":
        to_revision = _revision(parsed, "to-revision")
        operation = rollout_history.undo(cluster, info, obj, to_revision, dry)
        # kubectl prints the object it read before rolling it back.
        return obj, operation + dry_suffix(dry)
    paused = action == "pause"
    changed = rollout_history.pause(cluster, info, obj, paused)
    return changed, "paused" if paused else "resumed"


def _restart(cluster: Any, key: str, name: str, ns: str) -> Any:
    """ObjectRestarterFn's patch: the pod template's restartedAt annotation, now."""
    stamp = format_time(cluster.now())
    body = {
        "spec": {
            "template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": stamp}}}
        }
    }
    return cluster.patch(key, name, body, ns, patch_type="strategic")


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


def status_of(key: str, obj: dict[str, Any]) -> str:
    """kubectl's status viewers (polymorphichelpers/rollout_status.go), one check at a time."""
    spec, status, meta = obj.get("spec") or {}, obj.get("status") or {}, obj["metadata"]
    name = meta["name"]
    observed = int(meta.get("generation", 0)) <= int(status.get("observedGeneration", 0))
    if key == "statefulsets.apps":
        return _statefulset_status(obj)
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


def _statefulset_status(obj: dict[str, Any]) -> str:
    """StatefulSetStatusViewer: only RollingUpdate (a typed read of no strategy is "")."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    strategy = spec.get("updateStrategy") or {}
    if strategy.get("type") != "RollingUpdate":
        raise KubectlError(
            "error: rollout status is only available for RollingUpdate strategy type"
        )
    observed = int(status.get("observedGeneration") or 0)
    if not observed or int(obj["metadata"].get("generation") or 0) > observed:
        return "Waiting for statefulset spec update to be observed..."
    replicas = int(spec.get("replicas", 1))
    ready, updated = int(status.get("readyReplicas") or 0), int(status.get("updatedReplicas") or 0)
    if ready < replicas:
        return f"Waiting for {replicas - ready} pods to be ready..."
    rolling = strategy.get("rollingUpdate")
    if rolling is not None:
        partition = rolling.get("partition")
        if partition is not None and updated < replicas - int(partition):
            return (
                "Waiting for partitioned roll out to finish: "
                f"{updated} out of {replicas - int(partition)} new pods have been updated..."
            )
        return f"partitioned roll out complete: {updated} new pods have been updated..."
    current, update = status.get("currentRevision", ""), status.get("updateRevision", "")
    if update != current:
        return (
            f"waiting for statefulset rolling update to complete {updated} pods at revision "
            f"{update}..."
        )
    current_replicas = int(status.get("currentReplicas") or 0)
    return f"statefulset rolling update complete {current_replicas} pods at revision {current}..."
