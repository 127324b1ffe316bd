"""kubectl patch: --type merge|json|strategic with -p (JSON or YAML)."""

from __future__ import annotations

from typing import Any

import yaml

from simulators.cluster import documents, patches
from simulators.cluster.api import ApiError
from simulators.cluster.request import scale_of
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    DRY_RUN,
    NO_SUBRESOURCE,
    KubectlError,
    dry_run,
    dry_run_writer,
    error_text,
    kind_name,
    namespace,
    see,
    targets,
)
from simulators.lab.kubectl.filenames import FILE_FLAGS, file_targets
from simulators.lab.kubectl.printing import PRINT_FLAGS, object_output, object_text, printed
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("patch", long="patch", short="p", takes_value=True),
    Flag("type", long="type", takes_value=True),
    Flag("subresource", long="subresource", takes_value=True),
    DRY_RUN,
    *PRINT_FLAGS,
    *FILE_FLAGS,
]

TYPES = {"merge": "merge", "json": "json", "strategic": "strategic"}


def run(ctx: Context, parsed: Parsed) -> Output:
    cluster = ctx.api
    patch_text = parsed.value("patch")
    if patch_text is None:
        raise KubectlError(
            "error: must specify --patch or --patch-file containing the contents of the patch"
        )
    kind = parsed.value("type") or "strategic"
    if kind not in TYPES:
        raise KubectlError(
            f'error: --type must be one of [json merge strategic], not "{kind}"\n' + see("patch")
        )
    try:
        body: Any = documents.load_json(patch_text)
    except documents.DocumentError as exc:
        raise KubectlError(f'error: unable to parse "{patch_text}": {exc}') from None
    except ValueError:
        try:
            body = documents.load_yaml(patch_text)
        except documents.DocumentError as exc:
            raise KubectlError(f'error: unable to parse "{patch_text}": {exc}') from None
        except yaml.YAMLError:
            body = None
        if not isinstance(body, dict | list):
            raise KubectlError(
                f'error: unable to parse "{patch_text}": yaml: did not find expected node content'
            ) from None
    if kind == "json" and not isinstance(body, list):
        raise KubectlError(
            'error: unable to parse "' + patch_text + '": json: cannot unmarshal object into '
            "Go value of type jsonpatch.Patch"
        )
    from_files = file_targets(ctx, parsed, "patch")
    if not parsed.positionals and from_files is None:
        raise KubectlError("error: You must provide one or more resources by argument or filename.")
    groups = (
        targets(cluster, parsed.positionals, verb="patch") if from_files is None else from_files
    )
    ns = namespace(parsed)
    dry = dry_run(parsed)
    out: list[str] = []
    for group in groups:
        scope = group.scope(ns)
        if not group.names:
            raise KubectlError("error: resource(s) were provided, but no name was specified")
        sub = parsed.value("subresource")
        if sub is not None and sub not in group.info.subresources:
            return Output(printed(out, [NO_SUBRESOURCE]), 1)
        for name in group.names:
            try:
                before = cluster.get(group.info.key, name, scope)
                # A client's dry run patches the object it read, unchecked, as kubectl does; a
                # server dry run a copy of the store that is then dropped.
                writer = dry_run_writer(cluster, dry)
                after = before
                if dry == "client":
                    if kind == "strategic" and group.info.custom:
                        info = group.info
                        message = (
                            "error: strategic merge patch is not supported for "
                            f"{info.api_version}, Kind={info.kind} locally, try --type merge"
                        )
                        return Output(printed(out, [message]), 1)
                    after = patches.apply_patch(
                        before if kind == "json" else patches.copy_obj(before), body, TYPES[kind]
                    )
                elif writer is not None:
                    after = writer.patch(
                        group.info.key,
                        name,
                        body,
                        scope,
                        patch_type=TYPES[kind],
                        subresource=parsed.value("subresource"),
                    )
            except ApiError as exc:
                if exc.code == 415 and kind == "strategic":
                    # kubectl names the media type and the kind the server refused it for.
                    info = group.info
                    version = f"{info.group}/{info.version}" if info.group else info.version
                    message = (
                        "error: application/strategic-merge-patch+json is not supported by "
                        f"{version}, Kind={info.kind}: {exc.message}"
                    )
                    return Output(printed(out, [message]), 1)
                return Output(printed(out, [error_text(exc)]), 1)
            # kubectl patch names no dry run: its printer's operation is set after the
            # dry-run suffix would have been added (patch.go's ToPrinter).
            label = f"{kind_name(group.info)}/{name}"
            if sub == "scale":  # the server answers with the Scale it changed
                before, after, label = (
                    scale_of(before),
                    scale_of(after),
                    f"scale.autoscaling/{name}",
                )
            changed = _strip(before) != _strip(after)
            operation = "patched" if changed else "patched (no change)"
            try:
                output = object_output(parsed)  # made once the patch is sent (patch.go)
            except KubectlError as exc:
                return Output(printed(out, [str(exc)]), 1)
            out.append(object_text(after, label, output, operation, typed=False))
    return Output(printed(out))


def _strip(obj: dict[str, Any]) -> dict[str, Any]:
    meta = dict(obj.get("metadata") or {})
    for key in ("resourceVersion", "managedFields", "generation"):
        meta.pop(key, None)
    return {**obj, "metadata": meta}
