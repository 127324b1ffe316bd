"""kubectl taint nodes NAME KEY[=VALUE]:EFFECT | KEY[:EFFECT]- (reorganizeTaints in
kubectl's taint.go: new taints first, then the old ones they did not replace)."""

from __future__ import annotations

import re
from typing import Any

from simulators.cluster import patches
from simulators.cluster.api import ApiError, Obj
from simulators.cluster.clock import format_time
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    DRY_RUN,
    KubectlError,
    dry_run,
    dry_run_writer,
    error_text,
    usage,
)
from simulators.lab.kubectl.printing import PRINT_FLAGS, object_output, object_text, printed
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    DRY_RUN,
    Flag("overwrite", long="overwrite"),
    Flag("all", long="all"),
    Flag("selector", long="selector", short="l", takes_value=True),
    *PRINT_FLAGS,
]
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_KEY = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
)


def _parse(specs: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """kubectl's parseTaints: `KEY[=VALUE]:EFFECT` adds; the same, or `KEY`, with a trailing
    `-` removes (by key and effect; a value there is read and ignored)."""
    add: list[dict[str, Any]] = []
    remove: list[dict[str, Any]] = []
    for spec in specs:
        removing = spec.endswith("-")
        taint = _taint(spec.removesuffix("-") if removing else spec, spec)
        if removing:
            taint.pop("value", None)
            remove.append(taint)
            continue
        if "effect" not in taint:
            raise KubectlError(f"error: invalid taint spec: {spec}\n{usage('taint')}")
        add.append(taint)
    return add, remove


def _taint(text: str, spec: str) -> dict[str, Any]:
    """kubectl's parseTaint: `KEY=VALUE:EFFECT`, `KEY:EFFECT` or `KEY`."""
    parts = text.split(":")
    if len(parts) > 2:
        raise KubectlError(f"error: invalid taint spec: {spec}\n{usage('taint')}")
    key, value, effect = parts[0], "", ""
    if len(parts) == 2:
        effect = parts[1]
        if effect not in EFFECTS:
            raise KubectlError(
                f"error: invalid taint effect: {effect}, unsupported taint effect\n{usage('taint')}"
            )
        pair = parts[0].split("=")
        if len(pair) > 2:
            raise KubectlError(f"error: invalid taint spec: {spec}\n{usage('taint')}")
        key, value = pair[0], pair[1] if len(pair) == 2 else ""
    if not _KEY.match(key):
        raise KubectlError(f"error: invalid taint spec: {spec}\n{usage('taint')}")
    taint: dict[str, Any] = {"key": key}
    if value:
        taint["value"] = value
    if effect:
        taint["effect"] = effect
    return taint


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return bool(a.get("key") == b.get("key") and a.get("effect") == b.get("effect"))


def run(ctx: Context, parsed: Parsed) -> Output:
    words = parsed.positionals
    if not words:
        raise KubectlError(
            "error: You must provide one or more resources by argument or filename.\n"
            "Example resource specifications include:\n   '-f rsrc.yaml'\n"
            "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"
        )
    kind, sep, name = words[0].partition("/")
    names = [name] if sep else []
    specs: list[str] = []
    for word in words[1:]:
        if ":" in word or word.endswith("-") or "=" in word:
            specs.append(word)
        elif not specs:
            names.append(word)
    if kind not in ("node", "nodes", "no"):
        raise KubectlError(f"error: invalid resource type {kind}, only node types are supported")
    add, remove = _parse(specs)
    if not add and not remove:
        raise KubectlError("error: at least one taint update is required")
    cluster = ctx.api
    dry = dry_run(parsed)
    nodes: list[Obj] = []
    try:
        if parsed.has("all") or parsed.value("selector"):
            selector = parsed.value("selector") or ""
            nodes = list(cluster.list("nodes", label_selector=selector).get("items", []))
        else:
            if not names:
                raise KubectlError("error: resource(s) were provided, but no name was specified")
            nodes = [cluster.get("nodes", n) for n in names]
    except ApiError as exc:
        return Output(error_text(exc), 1)
    out: list[str] = []
    for node in nodes:
        node_name = node["metadata"]["name"]
        old = list((node.get("spec") or {}).get("taints") or [])
        if not parsed.has("overwrite"):
            clash = [t["key"] for t in add for o in old if _same(t, o)]
            if clash:
                message = (
                    f"error: node {node_name} already has {','.join(clash)} taint(s) "
                    "with same effect(s) and --overwrite is false"
                )
                return Output(printed(out, [message]), 1)
        new = [dict(t) for t in add]
        for taint in new:
            if taint["effect"] == "NoExecute":
                taint["timeAdded"] = format_time(cluster.now())
        added = False
        for taint in old:
            if not any(_same(taint, n) for n in new):
                new.append(taint)
        added = bool(add)
        deleted = False
        missing: list[str] = []
        for gone in remove:
            kept = [
                t
                for t in new
                if not (
                    t.get("key") == gone["key"] and gone.get("effect") in (None, t.get("effect"))
                )
            ]
            if len(kept) == len(new):
                label = gone["key"] + (f":{gone['effect']}" if gone.get("effect") else "")
                missing.append(f'taint "{label}" not found')
            else:
                deleted = True
            new = kept
        if missing:
            return Output(printed(out, [f"error: {m}" for m in missing]), 1)
        if (added and deleted) or parsed.has("overwrite"):
            operation = "modified"
        elif added:
            operation = "tainted"
        else:
            operation = "untainted"
        # kubectl makes each node's printer once its taints are worked out, before it writes.
        try:
            output = object_output(parsed)
        except KubectlError as exc:
            return Output(printed(out, [str(exc)]), 1)
        change = {"spec": {"taints": new or None}}
        shown = patches.merge_patch(patches.copy_obj(node), change)
        writer = dry_run_writer(cluster, dry)
        if writer is not None:
            try:
                shown = writer.patch("nodes", node_name, change, patch_type="merge")
            except ApiError as exc:
                return Output(printed(out, [error_text(exc)]), 1)
        # Its printer's operation is set after the dry-run suffix would have been added
        # (taint.go's ToPrinter): kubectl taint names no dry run.
        text = object_text(shown, f"node/{node_name}", output, operation)
        out.append(text)
    return Output(printed(out))
