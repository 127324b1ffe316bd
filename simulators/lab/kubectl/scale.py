"""kubectl scale --replicas=N for Deployments, ReplicaSets and StatefulSets, with its
preconditions (--current-replicas, --resource-version) and PrintFlags (-o, --template); the
objects named, or every one of a type with --all, or those a selector (-l) picks, as kubectl's
resource builder finds them."""

from __future__ import annotations

from simulators.cluster.api import ApiError, Obj, ResourceInfo
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    DRY_RUN,
    NO_SUBRESOURCE,
    KubectlError,
    dry_run,
    dry_run_writer,
    dry_suffix,
    error_text,
    kind_name,
    list_error,
    meta,
    namespace,
    read_list,
    see,
    targets,
)
from simulators.lab.kubectl.filenames import FILE_FLAGS, file_targets
from simulators.lab.kubectl.printing import PRINT_FLAGS, object_output, object_text, printed
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    DRY_RUN,
    *PRINT_FLAGS,
    Flag("replicas", long="replicas", takes_value=True),
    Flag("current-replicas", long="current-replicas", takes_value=True),
    Flag("resource-version", long="resource-version", takes_value=True),
    Flag("all", long="all"),
    Flag("selector", long="selector", short="l", takes_value=True),
    *FILE_FLAGS,
]


def _count(parsed: Parsed, flag: str, default: int) -> int:
    text = parsed.value(flag)
    if text is None:
        return default
    try:
        return int(text)
    except ValueError:
        raise KubectlError(
            f'error: invalid argument "{text}" for "--{flag}" flag: strconv.ParseInt: parsing '
            f'"{text}": invalid syntax\n' + see("scale")
        ) from None


def run(ctx: Context, parsed: Parsed) -> Output:
    if parsed.value("replicas") is None:
        raise KubectlError('error: required flag(s) "replicas" not set')
    replicas = _count(parsed, "replicas", 0)
    current = _count(parsed, "current-replicas", -1)
    version = parsed.value("resource-version") or ""
    if replicas < 0:
        raise KubectlError(
            "error: The --replicas=COUNT flag is required, and COUNT must be greater than or "
            "equal to 0"
        )
    if current < -1:
        raise KubectlError("error: The --current-replicas must specify an integer of -1 or greater")
    output = object_output(parsed)
    dry = dry_run(parsed)
    cluster = ctx.api
    ns = namespace(parsed)
    # kubectl reads every object first (errors kept for the end), then scales what it found.
    found: list[tuple[ResourceInfo, Obj]] = []
    errors: list[str] = []
    from_files = file_targets(ctx, parsed, "scale")
    groups = (
        targets(cluster, parsed.positionals, verb="scale") if from_files is None else from_files
    )
    selector = parsed.value("selector") or ""
    if from_files is None and selector and any(g.names for g in groups):
        raise KubectlError("error: name cannot be provided when a selector is specified")
    typed_only = from_files is None and any(not g.names for g in groups)
    if typed_only and not parsed.has("all") and not selector:
        raise KubectlError("error: resource(s) were provided, but no name was specified")
    for group in groups:
        if not group.names:
            try:
                listed = read_list(cluster, group.info.key, ns, label_selector=selector)
            except ApiError as exc:
                errors.append(list_error(group.info, exc, selector))
                continue
            found += [(group.info, obj) for obj in listed]
        for name in group.names:
            try:
                found.append((group.info, cluster.get(group.info.key, name, group.scope(ns))))
            except ApiError as exc:
                errors.append(error_text(exc))
    if not found and not errors:
        raise KubectlError("error: no objects passed to scale")
    if version and len(found) > 1:
        raise KubectlError("error: cannot use --resource-version with multiple resources")
    out: list[str] = []
    for info, obj in found:
        name = str(meta(obj).get("name", ""))
        try:
            if dry != "client" and "scale" not in info.subresources:
                raise KubectlError(NO_SUBRESOURCE)  # kubectl scales through the subresource
            if dry != "client":
                _check(obj, current, version)
                writer = dry_run_writer(cluster, dry)
                if writer is not None:
                    where = str(meta(obj).get("namespace") or ns)
                    writer.patch(info.key, name, {"spec": {"replicas": replicas}}, where)
        except ApiError as exc:
            return Output(printed(out, [error_text(exc)]), 1)
        except KubectlError as exc:
            return Output(printed(out, [str(exc)]), 1)
        # kubectl prints the object it read, its spec.replicas set to the new size.
        shown = {**obj, "spec": {**(obj.get("spec") or {}), "replicas": replicas}}
        operation = "scaled" + dry_suffix(dry)
        text = object_text(shown, f"{kind_name(info)}/{name}", output, operation, typed=False)
        out.append(text)
    return Output(printed(out, errors), 1 if errors else 0)


def _check(obj: dict[str, object], current: int, version: str) -> None:
    """kubectl's ScalePrecondition, checked against the object's scale before it is changed."""
    spec = obj.get("spec")
    size = spec.get("replicas", 1) if isinstance(spec, dict) else 1
    stored = meta(obj).get("resourceVersion", "")
    if current != -1 and size != current:
        raise KubectlError(f"error: Expected replicas to be {current}, was {size}")
    if version and stored != version:
        raise KubectlError(f"error: Expected resource version to be {version}, was {stored}")
