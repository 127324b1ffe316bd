"""kubectl patch: --type merge|json|strategic with -p (JSON or YAML)."""

from __future__ import annotations

from typing import Any

import yaml

from simulators.cluster import documents
from simulators.cluster.api import ApiError
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    KubectlError,
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
    Flag("dry-run", long="dry-run", takes_value=True),
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
                if parsed.value("dry-run") in ("client", "server", "true"):
                    out.append(f"{kind_name(group.info)}/{name} patched (dry run)")
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
