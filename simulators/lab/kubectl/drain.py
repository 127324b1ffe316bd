"""kubectl drain: cordon, then evict every pod through the Eviction API with drain's filters."""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON, DRY_RUN, dry_run, dry_suffix, error_text
from simulators.lab.kubectl.cordon import nodes, set_unschedulable
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("ignore-daemonsets", long="ignore-daemonsets"),
    Flag("delete-emptydir-data", long="delete-emptydir-data"),
    Flag("delete-local-data", long="delete-local-data"),
    Flag("force", long="force"),
    Flag("grace-period", long="grace-period", takes_value=True),
    Flag("timeout", long="timeout", takes_value=True),
    Flag("disable-eviction", long="disable-eviction"),
    DRY_RUN,
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("pod-selector", long="pod-selector", takes_value=True),
    Flag("skip-wait-for-delete-timeout", long="skip-wait-for-delete-timeout", takes_value=True),
]

DS_ERROR = "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DS_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_ERROR = "cannot delete Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_WARNING = "deleting Pods with local storage"
BARE_ERROR = "cannot delete Pods that declare no controller (use --force to override)"
BARE_WARNING = "deleting Pods that declare no controller"


def _controller(pod: Obj) -> dict[str, str] | None:
    for ref in pod["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return dict(ref)
    return None


def _classify(
    cluster: ClusterAPI, pods: list[Obj], parsed: Parsed
) -> tuple[list[Obj], dict[str, list[str]], dict[str, list[str]]]:
    """drain's filters, in kubectl's order: DaemonSet, mirror, local storage, unreplicated."""
    victims: list[Obj] = []
    errors: dict[str, list[str]] = {}
    warnings: dict[str, list[str]] = {}
    for pod in pods:
        m = pod["metadata"]
        ident = f"{m.get('namespace')}/{m.get('name')}"
        phase = (pod.get("status") or {}).get("phase")
        finished = phase in ("Succeeded", "Failed")
        ref = _controller(pod)
        if ref and ref.get("kind") == "DaemonSet" and not finished:
            if parsed.has("ignore-daemonsets"):
                warnings.setdefault(DS_WARNING, []).append(ident)
            else:
                errors.setdefault(DS_ERROR, []).append(ident)
            continue
        if "kubernetes.io/config.mirror" in (m.get("annotations") or {}):
            continue
        if not finished and any(
            "emptyDir" in v for v in (pod.get("spec") or {}).get("volumes") or []
        ):
            if parsed.has("delete-emptydir-data") or parsed.has("delete-local-data"):
                warnings.setdefault(LOCAL_WARNING, []).append(ident)
            else:
                errors.setdefault(LOCAL_ERROR, []).append(ident)
                continue
        if ref is None and not finished:
            if parsed.has("force"):
                warnings.setdefault(BARE_WARNING, []).append(ident)
            else:
                errors.setdefault(BARE_ERROR, []).append(ident)
                continue
        victims.append(pod)
    return victims, errors, warnings


def run(ctx: Context, parsed: Parsed) -> Output:
    cluster = ctx.api
    dry = dry_run(parsed)
    out: list[str] = []
    code = 0
    pending: list[str] = []
    problems: list[str] = []
    for node in nodes(cluster, parsed, "drain"):
        name = node["metadata"]["name"]
        try:
            out.append(set_unschedulable(cluster, node, True, "cordon", dry))
        except ApiError as exc:
            return Output("\n".join([*out, error_text(exc)]), 1)
        pods = [
            p
            for p in cluster.list("pods", field_selector=f"spec.nodeName={name}").get("items", [])
            if (p.get("spec") or {}).get("nodeName") == name
        ]
        selector = parsed.value("pod-selector") or ""
        if selector:
            keep = {
                (p["metadata"].get("namespace"), p["metadata"]["name"])
                for p in cluster.list("pods", label_selector=selector).get("items", [])
            }
            pods = [
                p for p in pods if (p["metadata"].get("namespace"), p["metadata"]["name"]) in keep
            ]
        victims, errors, warnings = _classify(cluster, pods, parsed)
        if errors:
            messages = [f"{msg}: {', '.join(idents)}" for msg, idents in errors.items()]
            joined = messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"
            out.append(
                f'error: unable to drain node "{name}" due to error: {joined}, '
                "continuing command..."
            )
            pending.append(name)
            problems.append(joined)
            code = 1
            continue
        if warnings:
            out.append(
                "Warning: " + "; ".join(f"{msg}: {', '.join(ids)}" for msg, ids in warnings.items())
            )
        for pod in victims:
            m = pod["metadata"]
            out.append(f"evicting pod {m.get('namespace')}/{m['name']}{dry_suffix(dry)}")
        failed = False
        for pod in victims:
            m = pod["metadata"]
            if dry:
                continue
            try:
                if parsed.has("disable-eviction"):
                    cluster.delete("pods", m["name"], m.get("namespace"))
                else:
                    cluster.evict(m["name"], str(m.get("namespace")))
            except ApiError as exc:
                if exc.code == 404:
                    continue
                out.append(
                    f'error when evicting pods/"{m["name"]}" -n "{m.get("namespace")}" '
                    f"(will retry after 5s): {exc.message}"
                )
                failed = True
                continue
            out.append(f"pod/{m['name']} evicted")
        if failed:
            code = 1
            continue
        out.append(f"node/{name} drained{dry_suffix(dry)}")
    if pending:
        out.append("There are pending nodes to be drained:")
        out += [f" {n}" for n in pending]
        out += problems
    return Output("\n".join(out), code)
