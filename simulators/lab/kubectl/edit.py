"""kubectl edit: the object's YAML in the page's editor, then kubectl's own handling of the save.

As kubectl (pkg/cmd/util/editor/editoptions.go): the buffer starts with kubectl's header
comment; on the editor's exit an unchanged buffer (comments and layout aside) is
`Edit cancelled, no changes made.`, an empty one `Edit cancelled, saved file was empty.`, a
syntax error or an object the server refuses as Invalid reopens the editor with the reasons
under the header (saving that again unchanged gives up), a change to apiVersion, kind or name is
refused, and a good edit is sent as a merge patch and printed as `<kind>.<group>/<name> edited`.
The editor is $KUBE_EDITOR, else $EDITOR, else vi; one the host lacks fails to launch.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import yaml

from simulators.cluster.api import ApiError, ResourceInfo
from simulators.lab.editor import EditorRequest, mode_of, open_editor
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.apply import LAST_APPLIED, go_json
from simulators.lab.kubectl.common import (
    COMMON,
    NO_SUBRESOURCE,
    KubectlError,
    error_text,
    kind_name,
    namespace,
    targets,
)
from simulators.lab.kubectl.printing import to_json, to_yaml
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("output", long="output", short="o", takes_value=True),
    Flag("save-config", long="save-config"),
    Flag("subresource", long="subresource", takes_value=True),
]

HEADER = (
    "# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
    "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
    "# reopened with the relevant failures.\n"
    "#\n"
)
# Server-kept fields a merge patch must not carry back: the object may have moved on since.
SERVER_FIELDS = ("resourceVersion", "generation", "managedFields", "uid", "creationTimestamp")


def run(ctx: Context, parsed: Parsed) -> Output:
    if not parsed.positionals:
        raise KubectlError(
            "error: You must provide one or more resources by argument or filename.\n"
            "Example resource specifications include:\n   '-f rsrc.yaml'\n"
            "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"
        )
    output = parsed.value("output") or "yaml"
    if output not in ("yaml", "json"):
        raise KubectlError(f"error: the flag 'output' must be one of yaml|json, not {output!r}")
    # kubectl fetches what it will edit first, so a wrong name is the server's error.
    cluster = ctx.api
    found: list[tuple[ResourceInfo, dict[str, Any]]] = []
    sub = parsed.value("subresource")
    for group in targets(cluster, parsed.positionals, verb="edit"):
        scope = namespace(parsed) if group.info.namespaced else None
        if sub is not None and sub not in group.info.subresources:
            return Output.error(NO_SUBRESOURCE)
        for name in group.names:
            try:
                found.append((group.info, cluster.get(group.info.key, name, scope)))
            except ApiError as exc:
                return Output.error(error_text(exc))
    if not found:
        return Output.error("error: edit cancelled, no objects found.")
    if len(found) > 1:
        return Output.error("error: this lab's kubectl edit opens one object at a time; name one")
    info, obj = found[0]
    meta = obj.get("metadata") or {}
    # --save-config writes the edited object as its last applied configuration;
    # --subresource=status edits the status (what else changes is not sent).
    extra = {"save_config": parsed.has("save-config"), "subresource": sub}
    return _open(ctx, info, obj, obj, output, version=meta.get("resourceVersion", ""), **extra)


def _open(
    ctx: Context,
    info: ResourceInfo,
    obj: dict[str, Any],
    shown: dict[str, Any],
    output: str,
    **extra: Any,
) -> Output:
    """`shown` printed as `output` in the editor KUBE_EDITOR or EDITOR names (vi by default);
    the token names `obj`, with `extra` for `save`."""
    command = ctx.env.get("KUBE_EDITOR") or ctx.env.get("EDITOR") or "vi"
    mode = mode_of(command)
    if mode is None:
        return Output.error(f'error: unable to launch the editor "{command}"')
    original = _print(shown, output)
    meta = obj.get("metadata") or {}
    token = {
        "kind": "kubectl-edit",
        "mode": mode,
        "resource": info.key,
        "name": meta.get("name", ""),
        "namespace": meta.get("namespace"),
        "output": output,
        "original": _digest(original),
        "previous": None,
        **extra,
    }
    open_editor(ctx, _request(token, original))
    return Output()


def open_last_applied(
    ctx: Context, parsed: Parsed, info: ResourceInfo, obj: dict[str, Any], applied: dict[str, Any]
) -> Output:
    """`kubectl apply edit-last-applied`: the object's last applied configuration in the
    editor; saved, it is written back as the annotation (`save`)."""
    output = parsed.value("output") or "yaml"
    if output not in ("yaml", "json"):
        raise KubectlError(f"error: the flag 'output' must be one of yaml|json, not {output!r}")
    return _open(ctx, info, obj, applied, output, last_applied=True)


def _save_last_applied(
    ctx: Context, info: ResourceInfo, name: str, scope: str | None, edited: dict[str, Any]
) -> Output:
    """The edited configuration written as the object's last applied one."""
    annotation = {LAST_APPLIED: go_json(edited) + "\n"}
    try:
        ctx.api.patch(
            info.key, name, {"metadata": {"annotations": annotation}}, scope, patch_type="merge"
        )
    except ApiError as exc:
        return Output.error(error_text(exc))
    return Output(f"{kind_name(info)}/{name} edited")


def save(ctx: Context, token: dict[str, Any], text: str, path: str | None) -> Output:
    """The editor closed on `text`: kubectl's answer, or the editor again with the reasons."""
    cluster = ctx.api
    try:
        info = cluster.resolve(str(token["resource"]))
        name, scope = str(token["name"]), token.get("namespace")
        scope = str(scope) if scope else None
    except (ApiError, KeyError):
        return Output.error("error: the object to edit is no longer known")
    stripped = _strip_comments(text)
    previous = token.get("previous")
    if previous is not None and _digest_stripped(stripped) == previous:
        return Output.error("error: Edit cancelled, no valid changes were saved.")
    if _digest_stripped(stripped) == token.get("original"):
        return Output("Edit cancelled, no changes made.")
    if not any(line.strip() and not line.strip().startswith("#") for line in text.splitlines()):
        return Output("Edit cancelled, saved file was empty.")
    try:
        edited = yaml.safe_load(_manual_strip(text))
        if not isinstance(edited, dict):
            raise yaml.YAMLError("error unmarshaling JSON: cannot unmarshal into an object")
    except yaml.YAMLError as exc:
        return _reopen(ctx, token, text, [(f"The edited file had a syntax error: {_why(exc)}", [])])
    if token.get("last_applied"):
        return _save_last_applied(ctx, info, name, scope, edited)
    try:
        current = cluster.get(info.key, name, scope)
    except ApiError:
        return Output.error(f'error: {_gvr(info)} "{name}" could not be found on the server')
    found_meta = edited.get("metadata")
    edited_meta: dict[str, Any] = found_meta if isinstance(found_meta, dict) else {}
    edited_ns = edited_meta.get("namespace")
    if info.namespaced and edited_ns and scope and edited_ns != scope:
        return Output.error(
            f'error: the namespace from the provided object "{edited_ns}" does not match the '
            f"namespace \"{scope}\". You must pass '--namespace={edited_ns}' to perform this "
            "operation."
        )
    if (
        edited.get("apiVersion") != current.get("apiVersion")
        or edited.get("kind") != current.get("kind")
        or edited_meta.get("name") != name
    ):
        return Output.error("error: At least one of apiVersion, kind and name was changed")
    sub = token.get("subresource")
    if token.get("save_config"):
        notes = edited_meta.setdefault("annotations", {})
        if isinstance(notes, dict):
            notes.pop(LAST_APPLIED, None)
            notes[LAST_APPLIED] = go_json(edited) + "\n"
    patch = _merge_patch(current, edited)
    if sub != "status":
        patch.pop("status", None)
    if isinstance(patch.get("metadata"), dict):
        for key in SERVER_FIELDS:
            patch["metadata"].pop(key, None)
        if not patch["metadata"]:
            del patch["metadata"]
    if not patch:
        return Output(f"{kind_name(info)}/{name} skipped")
    try:
        cluster.patch(
            info.key, name, patch, scope, patch_type="merge", subresource=str(sub) if sub else None
        )
    except ApiError as exc:
        if exc.reason != "Invalid":
            return Output.error(f'error: {_gvr(info)} "{name}" could not be patched: {exc.message}')
        causes = [
            f"{cause.get('field', '')}: {cause.get('message', '')}"
            for cause in (exc.details or {}).get("causes") or []
        ]
        _reopen(ctx, token, text, [(f'{_gvr(info)} "{name}" was not valid', causes)])
        return Output.error(f'error: {_gvr(info)} "{name}" is invalid')
    return Output(f"{kind_name(info)}/{name} edited")


def _request(token: dict[str, Any], text: str) -> EditorRequest:
    suffix = ".json" if token.get("output") == "json" else ".yaml"
    number = int(_digest(f"{token['resource']}/{token['name']}")[:8], 16) % 10**9
    return EditorRequest(
        path=f"/tmp/kubectl-edit-{number}{suffix}",
        text=text,
        mode=str(token.get("mode", "vim")),
        token=json.dumps(token),
    )


def _reopen(
    ctx: Context, token: dict[str, Any], text: str, reasons: list[tuple[str, list[str]]]
) -> Output:
    """The editor again: the header, the reasons, then what the learner wrote (comments out).
    JSON has no header, so kubectl shows no reasons in it either."""
    if token.get("output") == "json":
        again = {**token, "previous": _digest_stripped(_strip_comments(text))}
        open_editor(ctx, _request(again, _manual_strip(text)))
        return Output()
    header = [HEADER]
    for head, others in reasons:
        header.append(f"# {head}:\n" if others else f"# {head}\n")
        header.extend(f"# * {other}\n" for other in others)
        header.append("#\n")
    again = {**token, "previous": _digest_stripped(_strip_comments(text))}
    open_editor(ctx, _request(again, "".join(header) + _manual_strip(text)))
    return Output()


def _print(obj: dict[str, Any], output: str) -> str:
    if output == "json":
        return to_json(obj) + "\n"
    return HEADER + to_yaml(obj)


def _gvr(info: ResourceInfo) -> str:
    """schema.GroupVersionResource's String(), as kubectl's edit messages print it."""
    return f"{info.group}/{info.version}, Resource={info.plural}"


def _why(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    line = f"line {mark.line + 1}: " if mark is not None else ""
    return f"error converting YAML to JSON: yaml: {line}{problem}"


def _manual_strip(text: str) -> str:
    """cmdutil.ManualStrip: drop the lines that are comments (`#!` stays)."""
    lines = text.split("\n")
    kept = [
        line
        for line in lines
        if not (line.strip().startswith("#") and not line.strip().startswith("#!"))
    ]
    return "\n".join(kept)


def _strip_comments(text: str) -> str:
    """cmdutil.StripComments: the document as JSON when it parses (layout and comments do not
    count as changes), else ManualStrip's text."""
    try:
        return json.dumps(yaml.safe_load(text), sort_keys=True, default=str)
    except yaml.YAMLError:
        return _manual_strip(text)


def _digest(text: str) -> str:
    return _digest_stripped(_strip_comments(text))


def _digest_stripped(stripped: str) -> str:
    return hashlib.sha256(stripped.encode("utf-8", errors="replace")).hexdigest()[:32]


def _merge_patch(before: Any, after: Any) -> dict[str, Any]:
    """RFC 7386's merge patch that turns `before` into `after` (jsonpatch.CreateMergePatch)."""
    patch: dict[str, Any] = {}
    for key in before.keys() - after.keys():
        patch[key] = None
    for key, value in after.items():
        old = before.get(key, _MISSING)
        if isinstance(value, dict) and isinstance(old, dict):
            inner = _merge_patch(old, value)
            if inner:
                patch[key] = inner
        elif value != old:
            patch[key] = value
    return patch


_MISSING = object()
