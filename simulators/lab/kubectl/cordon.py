"""kubectl cordon and uncordon: `spec.unschedulable` through a patch, as kubectl's drain does."""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    DRY_RUN,
    KubectlError,
    dry_run,
    dry_suffix,
    error_text,
    usage,
)
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    DRY_RUN,
    Flag("selector", long="selector", short="l", takes_value=True),
]


def nodes(cluster: ClusterAPI, parsed: Parsed, verb: str) -> list[Obj]:
    selector = parsed.value("selector") or ""
    if selector:
        return list(cluster.list("nodes", label_selector=selector).get("items", []))
    if not parsed.positionals:
        raise KubectlError(f"error: USAGE: {verb} NODE [flags]\n{usage(verb)}")
    out = []
    for word in parsed.positionals:
        kind, sep, name = word.partition("/")
        if sep and kind not in ("node", "nodes", "no"):
            raise KubectlError(f'error: Unable to {verb} "{word}": not a node')
        try:
            out.append(cluster.get("nodes", name if sep else word))
        except ApiError as exc:
            raise KubectlError(error_text(exc)) from None
    return out


def set_unschedulable(cluster: ClusterAPI, node: Obj, value: bool, verb: str, dry: str) -> str:
    """One node cordoned or uncordoned (`dry`: the dry-run strategy, "" for none)."""
    name = node["metadata"]["name"]
    if bool((node.get("spec") or {}).get("unschedulable")) == value:
        return f"node/{name} already {verb}ed{dry_suffix(dry)}"
    if not dry:
        cluster.patch(
            "nodes",
            name,
            {"spec": {"unschedulable": True if value else None}},
            patch_type="strategic",
        )
    return f"node/{name} {verb}ed{dry_suffix(dry)}"


def _run(ctx: Context, parsed: Parsed, verb: str, value: bool) -> Output:
    cluster = ctx.api
    dry = dry_run(parsed)
    lines = []
    for node in nodes(cluster, parsed, verb):
        try:
            lines.append(set_unschedulable(cluster, node, value, verb, dry))
        except ApiError as exc:
            return Output("\n".join([*lines, error_text(exc)]), 1)
    return Output("\n".join(lines))


def run_cordon(ctx: Context, parsed: Parsed) -> Output:
    return _run(ctx, parsed, "cordon", True)


def run_uncordon(ctx: Context, parsed: Parsed) -> Output:
    return _run(ctx, parsed, "uncordon", False)
