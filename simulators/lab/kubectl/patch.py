"""kubectl patch: --type merge|json|strategic with -p (JSON or YAML)."""

from __future__ import annotations

from typing import Any

import yaml

from simulators.cluster import documents
from simulators.cluster.api import ApiError
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    DRY_RUN,
    KubectlError,
    dry_run,
    dry_suffix,
    error_text,
    kind_name,
    namespace,
    see,
    targets,
)
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("patch", long="patch", short="p", takes_value=True),
    Flag("type", long="type", takes_value=True),
    Flag("subresource", long="subresource", takes_value=True),
    DRY_RUN,
    Flag("output", long="output", short="o", takes_value=True),
    Flag("filename", long="filename", short="f", takes_value=True),
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
    if not parsed.positionals:
        raise KubectlError("error: You must provide one or more resources by argument or filename.")
    groups = targets(cluster, parsed.positionals, verb="patch")
    ns = namespace(parsed)
    out: list[str] = []
    for group in groups:
        scope = ns if group.info.namespaced else None
        if not group.names:
            raise KubectlError("error: resource(s) were provided, but no name was specified")
        for name in group.names:
            try:
                before = cluster.get(group.info.key, name, scope)
                dry = dry_run(parsed)
                if dry:
                    out.append(f"{kind_name(group.info)}/{name} patched{dry_suffix(dry)}")
                    continue
                after = cluster.patch(
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
                    return Output("\n".join([*out, message]), 1)
                return Output("\n".join([*out, error_text(exc)]), 1)
            changed = _strip(before) != _strip(after)
            out.append(
                f"{kind_name(group.info)}/{name} {'patched' if changed else 'patched (no change)'}"
            )
    return Output("\n".join(out))


def _strip(obj: dict[str, Any]) -> dict[str, Any]:
    meta = dict(obj.get("metadata") or {})
    for key in ("resourceVersion", "managedFields", "generation"):
        meta.pop(key, None)
    return {**obj, "metadata": meta}
