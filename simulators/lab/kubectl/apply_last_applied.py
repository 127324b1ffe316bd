"""kubectl apply view-last-applied, set-last-applied and edit-last-applied: the last applied
configuration annotation read, written from a file, or opened in the editor (kubectl 1.36's
apply_view_last_applied.go, apply_set_last_applied.go, apply_edit_last_applied.go).

view: the annotation of each object named (TYPE NAME, TYPE/NAME, -f, -l) as YAML or, with `-o
json`, its JSON indented by two; an object without one prints nothing (kubectl's
AddSourceToErr drops the error when no file named it). set: each file's object, with its
namespace, written as the annotation of the live object (`configured`); none there is an error
unless --create-annotation; the same one already there is "no changes required". edit: the
annotation in the editor (kubectl edit's flow, saved by `edit.save`).
"""

from __future__ import annotations

import json

from simulators.cluster.api import ApiError, Obj, ResourceInfo
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl import edit
from simulators.lab.kubectl.apply import (
    APPLY_FLAGS,
    LAST_APPLIED,
    documents,
    go_json,
    last_applied,
    mapping,
    read_sources,
    target_namespace,
    with_namespace,
)
from simulators.lab.kubectl.apply import run_apply as apply_files
from simulators.lab.kubectl.common import (
    KubectlError,
    dry_run,
    dry_run_writer,
    error_text,
    kind_name,
    namespace,
    targets,
)
from simulators.lab.kubectl.filenames import KUSTOMIZE, kustomize_error
from simulators.lab.kubectl.printing import object_output, object_text, printed, to_yaml
from simulators.lab.tool import Context, Output

ACTIONS = ("view-last-applied", "set-last-applied", "edit-last-applied")
# kubectl apply's flags with its subcommands' and --prune's.
FLAGS = [
    *APPLY_FLAGS,
    Flag("create-annotation", long="create-annotation"),
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("all", long="all"),
    Flag("prune", long="prune"),
    Flag("prune-allowlist", long="prune-allowlist", takes_value=True),
    KUSTOMIZE,
]


def run_apply(ctx: Context, parsed: Parsed) -> Output:
    """kubectl apply: a subcommand, or the files applied (apply.run_apply). --prune passes
    kubectl's checks and reads the files, then is refused: the lab does not prune."""
    words = parsed.positionals
    if parsed.value("kustomize") is not None:
        return Output.error("error: " + kustomize_error(ctx, parsed.value("kustomize") or ""))
    if words and words[0] in ACTIONS:
        return run(ctx, parsed, words[0], words[1:])
    if words:
        raise KubectlError(
            f"error: Unexpected args: [{' '.join(words)}]\n"
            "See 'kubectl apply -h' for help and examples"
        )
    if parsed.has("prune"):
        if parsed.has("all") and parsed.value("selector"):
            raise KubectlError("error: cannot set --all and --selector at the same time")
        if not parsed.has("all") and not parsed.value("selector"):
            raise KubectlError(
                "error: all resources selected for prune without explicitly passing --all. To "
                "prune all resources, pass the --all flag. If you did not mean to prune all "
                "resources, specify a label selector"
            )
        read_sources(ctx, parsed, "apply")  # a missing file is said first
        raise KubectlError("error: apply --prune is not available in this lab")
    return apply_files(ctx, parsed)


NO_RESOURCES = (
    "error: You must provide one or more resources by argument or filename.\n"
    "Example resource specifications include:\n   '-f rsrc.yaml'\n"
    "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"
)


def run(ctx: Context, parsed: Parsed, action: str, args: list[str]) -> Output:
    if action == "set-last-applied":
        return _set(ctx, parsed)
    found = _objects(ctx, parsed, args)
    if isinstance(found, Output):
        return found
    if action == "edit-last-applied":
        return _edit(ctx, parsed, found)
    output = parsed.value("output") or "yaml"
    if output not in ("yaml", "json"):
        raise KubectlError(
            f"error: Unexpected -o output mode: {output}, the flag 'output' must be one of "
            "yaml|json\nSee 'kubectl apply view-last-applied -h' for help and examples"
        )
    texts = []
    for _info, obj, source in found:
        annotation = ((obj.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
        if not isinstance(annotation, str):
            if source:
                return Output.error(
                    "error: error when no last-applied-configuration annotation found on "
                    f'resource: {(obj.get("metadata") or {}).get("name", "")}\n "{source}": <nil>'
                )
            continue
        texts.append(_shown(annotation, output))
    return Output(printed(texts))


def _shown(annotation: str, output: str) -> str:
    try:
        value = json.loads(annotation)
    except ValueError:
        return annotation
    if output == "yaml":
        return to_yaml(value)
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _objects(
    ctx: Context, parsed: Parsed, args: list[str]
) -> list[tuple[ResourceInfo, Obj, str]] | Output:
    """The live objects named, each with the file that named it ("" for names)."""
    cluster = ctx.api
    ns = namespace(parsed)
    if parsed.has("all"):
        raise KubectlError("error: setting 'all' parameter but found a non empty selector. ")
    found: list[tuple[ResourceInfo, Obj, str]] = []
    if parsed.all("filename"):
        if args:
            raise KubectlError(
                "error: when paths, URLs, or stdin is provided as input, you may not specify "
                "resource arguments as well"
            )
        for source, text in read_sources(ctx, parsed, "apply"):
            for doc in documents(text, source):
                info = mapping(cluster, doc, source)
                name = str((doc.get("metadata") or {}).get("name", ""))
                try:
                    live = cluster.get(info.key, name, target_namespace(info, doc, parsed))
                except ApiError as exc:
                    return Output.error(error_text(exc))
                found.append((info, live, source))
        return found
    if not args:
        raise KubectlError(NO_RESOURCES)
    selector = parsed.value("selector") or ""
    for group in targets(cluster, args, verb="apply"):
        scope = group.scope(ns)
        try:
            if group.names:
                objs = [cluster.get(group.info.key, name, scope) for name in group.names]
            else:
                listed = cluster.list(group.info.key, scope, label_selector=selector)
                objs = list(listed.get("items", []))
        except ApiError as exc:
            return Output.error(error_text(exc))
        found += [(group.info, obj, "") for obj in objs]
    return found


def _set(ctx: Context, parsed: Parsed) -> Output:
    """set-last-applied -f FILE: each file object's JSON as the live object's annotation."""
    cluster = ctx.api
    dry = dry_run(parsed)
    output = object_output(parsed)
    said: list[str] = []
    changes: list[tuple[ResourceInfo, Obj, Obj]] = []
    for source, text in read_sources(ctx, parsed, "apply"):
        for doc in documents(text, source):
            info = mapping(cluster, doc, source)
            ns = target_namespace(info, doc, parsed)
            obj = with_namespace(doc, ns)
            name = str((obj.get("metadata") or {}).get("name", ""))
            try:
                live = cluster.get(info.key, name, ns)
            except ApiError as exc:
                return Output(printed(said, [error_text(exc)]), 1)
            original = last_applied(live)
            if original is None and not parsed.has("create-annotation"):
                message = (
                    f"error: no last-applied-configuration annotation found on resource: {name}, "
                    "to create the annotation, run the command with --create-annotation"
                )
                return Output(printed(said, [message]), 1)
            wanted = go_json(obj) + "\n"
            notes = (live.get("metadata") or {}).get("annotations") or {}
            if notes.get(LAST_APPLIED) == wanted:
                said.append(f"set-last-applied {name}: no changes required.\n")
                continue
            changes.append((info, live, {"metadata": {"annotations": {LAST_APPLIED: wanted}}}))
    texts = list(said)
    for info, live, patch in changes:
        meta = live.get("metadata") or {}
        name, ns = str(meta.get("name", "")), meta.get("namespace")
        shown = live  # a client dry run prints the object as it is
        writer = dry_run_writer(cluster, dry) if dry != "client" else None
        if writer is not None:
            try:
                shown = writer.patch(info.key, name, patch, ns, patch_type="merge")
            except ApiError as exc:
                return Output(printed(texts, [error_text(exc)]), 1)
        operation = "configured" + {"client": " (dry run)", "server": " (server dry run)"}.get(
            dry, ""
        )
        texts.append(object_text(shown, f"{kind_name(info)}/{name}", output, operation))
    return Output(printed(texts))


def _edit(ctx: Context, parsed: Parsed, found: list[tuple[ResourceInfo, Obj, str]]) -> Output:
    """edit-last-applied: the first object's annotation in the editor (kubectl edit's flow)."""
    with_annotation = [(i, o) for i, o, _s in found if last_applied(o) is not None]
    if not with_annotation:
        return Output.error(
            "error: no last-applied-configuration annotation found on resources, to create the "
            "annotation, use command `kubectl apply set-last-applied --create-annotation`"
        )
    info, obj = with_annotation[0]
    applied = last_applied(obj) or {}
    return edit.open_last_applied(ctx, parsed, info, obj, applied)
