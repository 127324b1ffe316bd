"""kubectl apply, create and replace (with --force) from files in the home folder."""

from __future__ import annotations

import copy
import json
import posixpath
from dataclasses import dataclass
from typing import Any

import yaml

from simulators.cluster import patches
from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo
from simulators.cluster.documents import DocumentError, load_yaml_all
from simulators.lab import files, fs
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl import create as generators
from simulators.lab.kubectl import create_role, create_secret, create_token
from simulators.lab.kubectl.apply_patch import three_way
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
)
from simulators.lab.kubectl.printing import PRINT_FLAGS, object_output, object_text, printed
from simulators.lab.tool import Context, Output

_FILE_FLAGS = [
    *COMMON,
    Flag("filename", long="filename", short="f", takes_value=True),
    DRY_RUN,
    *PRINT_FLAGS,
    Flag("recursive", long="recursive", short="R"),
    Flag("validate", long="validate", takes_value=True),
    Flag("save-config", long="save-config"),
]
APPLY_FLAGS = [*_FILE_FLAGS, Flag("server-side", long="server-side"), Flag("force", long="force")]
CREATE_FLAGS = [
    *_FILE_FLAGS,
    *generators.FLAGS,
    *generators.CREATE_ONLY_FLAGS,
    *create_role.FLAGS,
    *create_secret.FLAGS,
    *create_token.FLAGS,
]
REPLACE_FLAGS = [
    *_FILE_FLAGS,
    Flag("force", long="force"),
    Flag("grace-period", long="grace-period", takes_value=True),
]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def read_sources(ctx: Context, parsed: Parsed, verb: str) -> list[tuple[str, str]]:
    names = parsed.all("filename")
    if not names:
        raise KubectlError("error: must specify one of -f and -k")
    sources = []
    for name in names:
        if name == "-":
            sources.append(("STDIN", ctx.stdin))
            continue
        where = fs.locate(ctx, name)
        if where.folder and not where.error:
            sources += folder_sources(ctx, name, where.path, parsed.has("recursive"))
            continue
        text = files.read(ctx, name)
        if text is None:
            raise KubectlError(f'error: the path "{name}" does not exist')
        sources.append((name, text))
    return sources


# The files a folder named by -f gives (cli-runtime's FileExtensions).
EXTENSIONS = (".json", ".yaml", ".yml")


def folder_sources(ctx: Context, typed: str, folder: str, recursive: bool) -> list[tuple[str, str]]:
    """cli-runtime's ExpandPathsToFileVisitors: filepath.Walk of the folder, in name order,
    its folders' files only with -R, files without a manifest's extension skipped; each named
    as filepath.Join names it (the path typed, cleaned, then the names below)."""
    state = ctx.world.state
    base = folder.rstrip("/") + "/"
    shown = posixpath.normpath(typed)
    found = []
    for path in fs.walk(state, folder):
        inner = path[len(base) :]
        if not fs.is_file(state, path) or ("/" in inner and not recursive):
            continue
        if inner.endswith(EXTENSIONS):
            found.append((posixpath.join(shown, inner), fs.text(state, path)))
    return found


def documents(text: str, source: str) -> list[Obj]:
    try:
        docs = [d for d in load_yaml_all(text) if d is not None]
    except DocumentError as exc:
        raise KubectlError(
            f"error: error parsing {source}: error converting YAML to JSON: {exc}"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or "could not parse"
        raise KubectlError(
            f"error: error parsing {source}: error converting YAML to JSON: yaml: {line}{problem}"
        ) from None
    out: list[Obj] = []
    for doc in docs:
        if not isinstance(doc, dict):
            raise KubectlError(
                f'error: error validating "{source}": error validating data: invalid object to '
                "validate; if you choose to ignore these errors, turn validation off with "
                "--validate=false"
            )
        if doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            out += [i for i in doc["items"] if isinstance(i, dict)]
        else:
            out.append(json.loads(json.dumps(doc, default=str)))
    return out


def mapping(cluster: ClusterAPI, doc: Obj, source: str) -> ResourceInfo:
    kind, version = doc.get("kind"), doc.get("apiVersion")
    if not kind or not version:
        missing = "kind" if not kind else "apiVersion"
        raise KubectlError(
            f'error: error validating "{source}": error validating data: {missing} not set; '
            "if you choose to ignore these errors, turn validation off with --validate=false"
        )
    for info in cluster.resources():
        if info.kind == kind and info.api_version == version:
            return info
    name = (doc.get("metadata") or {}).get("name", "")
    ns = (doc.get("metadata") or {}).get("namespace", "")
    raise KubectlError(
        f'error: resource mapping not found for name: "{name}" namespace: "{ns}" from '
        f'"{source}": no matches for kind "{kind}" in version "{version}"\n'
        "ensure CRDs are installed first"
    )


def target_namespace(info: ResourceInfo, doc: Obj, parsed: Parsed) -> str | None:
    if not info.namespaced:
        return None
    given = parsed.value("namespace")
    own = (doc.get("metadata") or {}).get("namespace")
    if given and own and given != own:
        raise KubectlError(
            f'error: the namespace from the provided object "{own}" does not match the namespace '
            f"\"{given}\". You must pass '--namespace={own}' to perform this operation."
        )
    return str(own or namespace(parsed))


@dataclass
class Done:
    """What apply, create -f or replace did to one object: kubectl prints `obj` through its
    PrintFlags (`label operation` without -o), after `before` (a warning, a deletion)."""

    label: str
    operation: str
    obj: Obj
    before: str = ""


def _each(ctx: Context, parsed: Parsed, verb: str, one: Any) -> Output:
    cluster = ctx.api
    dry_run(parsed)  # its mistakes first, as the command's Complete reads it
    texts: list[str] = []
    code = 0
    for source, text in read_sources(ctx, parsed, verb):
        docs = documents(text, source)
        if not docs:
            texts.append(f"error: no objects passed to {verb}\n")
            code = 1
        for doc in docs:
            try:
                info = mapping(cluster, doc, source)
                ns = target_namespace(info, doc, parsed)
                done: Done = one(cluster, info, doc, ns, source, parsed)
                texts.append(done.before)
                # The printer is made once the object is written (a bad -o refuses after).
                output = object_output(parsed)
                texts.append(object_text(done.obj, done.label, output, done.operation, typed=False))
            except KubectlError as exc:
                texts.append(f"{exc}\n")
                code = 1
            except ApiError as exc:
                texts.append(f"{error_text(exc)}\n")
                code = 1
    return Output(printed(texts), code)


def _dry(parsed: Parsed) -> str:
    return dry_suffix(dry_run(parsed))


def _writer(cluster: ClusterAPI, parsed: Parsed) -> ClusterAPI | None:
    """Where the command writes (common.dry_run_writer) under its --dry-run."""
    return dry_run_writer(cluster, dry_run(parsed))


def with_namespace(doc: Obj, ns: str | None) -> Obj:
    obj = copy.deepcopy(doc)
    if ns is not None:
        obj.setdefault("metadata", {})["namespace"] = ns
    return obj


def _create(
    cluster: ClusterAPI, info: ResourceInfo, doc: Obj, ns: str | None, source: str, parsed: Parsed
) -> Done:
    created = with_namespace(doc, ns)  # a client dry run prints the file's object
    if parsed.has("save-config"):
        # util.CreateApplyAnnotation on the unstructured object: sorted keys, and the empty
        # annotations map it leaves behind is part of what it encodes.
        annotations = created.setdefault("metadata", {}).get("annotations") or {}
        annotations.pop(LAST_APPLIED, None)
        created["metadata"]["annotations"] = annotations
        annotations[LAST_APPLIED] = go_json(created) + "\n"
    writer = _writer(cluster, parsed)
    if writer is not None:
        try:
            created = writer.create(info.key, created, ns)
        except ApiError as exc:
            if exc.reason in ("AlreadyExists", "NotFound", "Forbidden", "BadRequest"):
                exc = ApiError(
                    exc.code,
                    exc.reason,
                    f'error when creating "{source}": {exc.message}',
                    exc.details,
                )
            raise exc from None
    name = (created.get("metadata") or {}).get("name", "")
    return Done(f"{kind_name(info)}/{name}", f"created{_dry(parsed)}", created)


def go_json(value: Any) -> str:
    """encoding/json's Marshal: sorted keys, compact, <, > and & escaped."""
    text = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def last_applied(obj: Obj) -> Obj | None:
    """The object's last applied configuration, as apply reads it back (None if there is none
    or it is not a JSON object)."""
    text = ((obj.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _apply(
    cluster: ClusterAPI, info: ResourceInfo, doc: Obj, ns: str | None, source: str, parsed: Parsed
) -> Done:
    name = str((doc.get("metadata") or {}).get("name", ""))
    if not name:
        raise KubectlError(
            "error: error when retrieving current configuration of:\n"
            f'Resource: "{info.key}", GroupVersionKind: "{info.api_version}, Kind={info.kind}"\n'
            f'Name: "", Namespace: "{ns or ""}"\n'
            f'from server for: "{source}": resource name may not be empty'
        )
    label = f"{kind_name(info)}/{name}"
    applied = with_namespace(doc, ns)
    applied.setdefault("metadata", {}).setdefault("annotations", {})
    annotation = go_json(applied) + "\n"
    applied["metadata"]["annotations"][LAST_APPLIED] = annotation
    try:
        current = cluster.get(info.key, name, ns)
    except ApiError as exc:
        if exc.reason != "NotFound":
            raise
        writer = _writer(cluster, parsed)
        created = applied
        if writer is not None:
            try:
                created = writer.create(info.key, applied, ns)
            except ApiError as failed:  # cmdutil.AddSourceToErr("creating", ...)
                if failed.reason not in ("AlreadyExists", "Forbidden", "BadRequest"):
                    raise
                raise ApiError(
                    failed.code,
                    failed.reason,
                    f'error when creating "{source}": {failed.message}',
                    failed.details,
                ) from None
        return Done(label, f"created{_dry(parsed)}", created)
    patch = three_way(last_applied(current), applied, current, strategic=not info.custom)
    if not patch:
        return Done(label, f"unchanged{_dry(parsed)}", current)
    warning = ""
    if LAST_APPLIED not in ((current.get("metadata") or {}).get("annotations") or {}):
        warning = (
            f"Warning: resource {info.plural}/{name} is missing the {LAST_APPLIED} annotation "
            "which is required by kubectl apply. kubectl apply should only be used on resources "
            "created declaratively by either kubectl create --save-config or kubectl apply. The "
            "missing annotation will be patched automatically.\n"
        )
    patch_type = "merge" if info.custom else "strategic"
    writer = _writer(cluster, parsed)
    # A client dry run prints the live object with the patch made to it, unchecked.
    patched = patches.apply_patch(patches.copy_obj(current), patch, patch_type)
    if writer is not None:
        try:
            patched = writer.patch(info.key, name, patch, ns, patch_type=patch_type)
        except ApiError as exc:
            if exc.reason not in ("Invalid",):
                exc = ApiError(
                    exc.code,
                    exc.reason,
                    f'error when applying patch to "{source}": {exc.message}',
                    exc.details,
                )
            raise exc from None
    return Done(label, f"configured{_dry(parsed)}", patched, warning)


def _replace(
    cluster: ClusterAPI, info: ResourceInfo, doc: Obj, ns: str | None, source: str, parsed: Parsed
) -> Done:
    name = str((doc.get("metadata") or {}).get("name", ""))
    obj = with_namespace(doc, ns)  # a client dry run prints the file's object
    label = f"{kind_name(info)}/{name}"
    writer = _writer(cluster, parsed)
    if parsed.has("force"):
        deleted = ""
        if writer is not None:
            try:
                writer.delete(info.key, name, ns, grace_period=0)
                # Said by delete's own printer, which knows only -o name.
                deleted = f'{kind_name(info)} "{name}" deleted'
                if info.namespaced:
                    deleted += f" from {ns} namespace"
                if parsed.value("output") == "name":
                    deleted = label
                deleted += "\n"
            except ApiError as exc:
                if exc.reason != "NotFound":
                    raise
            obj = writer.create(info.key, obj, ns)
        return Done(label, f"replaced{_dry(parsed)}", obj, deleted)
    if writer is None:
        return Done(label, f"replaced{_dry(parsed)}", obj)
    try:
        current = cluster.get(info.key, name, ns)
    except ApiError as exc:
        if exc.reason == "NotFound":
            raise ApiError(
                exc.code, exc.reason, f'error when replacing "{source}": {exc.message}', exc.details
            ) from None
        raise
    obj.setdefault("metadata", {})["resourceVersion"] = current["metadata"].get("resourceVersion")
    return Done(label, f"replaced{_dry(parsed)}", writer.update(info.key, obj, ns))


def run_apply(ctx: Context, parsed: Parsed) -> Output:
    return _each(ctx, parsed, "apply", _apply)


def run_create(ctx: Context, parsed: Parsed) -> Output:
    """`kubectl create SUBCOMMAND ...` (create.create), or `kubectl create -f FILE...`.

    Words that name no subcommand are kubectl's `Unexpected args`. `--edit` reads and parses
    the files as kubectl does (so a missing file or a bad document is kubectl's error), then
    is refused in one line: the lab's editor edits objects that exist (kubectl edit) or files.
    """
    if parsed.positionals:
        if generators.is_subcommand(parsed.positionals[0]):
            return generators.create(ctx, parsed)
        raise KubectlError(
            f"error: Unexpected args: [{' '.join(parsed.positionals)}]\n"
            "See 'kubectl create -h' for help and examples"
        )
    if parsed.has("edit"):
        for source, text in read_sources(ctx, parsed, "create"):
            documents(text, source)
        object_output(parsed)
        raise KubectlError(
            "error: this lab's kubectl create has no --edit: edit the file first (vi FILE), "
            "then kubectl create -f FILE"
        )
    return _each(ctx, parsed, "create", _create)


def run_replace(ctx: Context, parsed: Parsed) -> Output:
    if parsed.has("force") and _dry(parsed):
        raise KubectlError("error: --dry-run can not be used when --force is set")
    return _each(ctx, parsed, "replace", _replace)
