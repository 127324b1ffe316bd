"""What every runai verb reads: the CLI's state, projects and workloads, and its error."""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ApiError, Obj
from simulators.controllers import runai as runai_ctl
from simulators.lab.flags import Parsed
from simulators.lab.tool import Context


class RunaiError(Exception):
    pass


def err(message: str) -> RunaiError:
    return RunaiError(f"Error: {message}")


KIND_LABELS = {
    "workspace": "Workspace",
    "training": "Training",
    "distributed": "Training",
    "inference": "Inference",
}

ALL_KINDS = ("training", "distributed", "workspace", "inference")


def config(ctx: Context) -> Any:
    return ctx.world.state.runai


def name_of(wl: Obj) -> str:
    return str(wl["metadata"]["name"])


def phase_of(wl: Obj) -> str:
    return str((wl.get("status") or {}).get("phase") or "Pending")


def list_workloads(ctx: Context, project: str, kinds: tuple[str, ...]) -> list[Obj]:
    api = ctx.api
    namespace = runai_ctl.namespace_for(project) if project else None
    found: list[Obj] = []
    for kind, resource in runai_ctl.WORKLOAD_RESOURCES.items():
        if kind not in kinds:
            continue
        try:
            found += api.list(resource, namespace).get("items", [])
        except ApiError:
            continue
    found = [w for w in found if runai_ctl.kind_of(w) in kinds]
    return sorted(
        found, key=lambda w: (str(w["metadata"].get("creationTimestamp", "")), name_of(w))
    )


def pods_of(ctx: Context, wl: Obj) -> list[Obj]:
    pods = ctx.api.list(
        "pods", wl["metadata"]["namespace"], label_selector=f"workloadName={name_of(wl)}"
    ).get("items", [])
    order = runai_ctl.workload_pod_names(wl)
    rank = {n: i for i, n in enumerate(order)}
    return sorted(pods, key=lambda p: rank.get(p["metadata"]["name"], len(rank)))


def number(value: Any) -> float:
    try:
        return float(value or 0)
    except (TypeError, ValueError):
        return 0.0


def all_projects(ctx: Context) -> list[Obj]:
    items = ctx.api.list(runai_ctl.PROJECTS).get("items", [])
    return sorted(items, key=name_of)


def project_named(ctx: Context, name: str) -> Obj:
    for project in all_projects(ctx):
        if name_of(project) == name:
            return project
    raise err(f'project "{name}" not found, or you do not have access to it')


def current_project(ctx: Context, parsed: Parsed) -> str:
    project = parsed.value("project") or config(ctx).default_project
    if not project:
        raise err(
            "no project given: pass -p <project> or set a default with 'runai project set "
            "<project>'"
        )
    project_named(ctx, project)
    return str(project)


def find_workload(ctx: Context, parsed: Parsed, kinds: tuple[str, ...] | None) -> Obj:
    if len(parsed.positionals) != 1:
        raise err(f"accepts 1 arg(s), received {len(parsed.positionals)}")
    name = parsed.positionals[0]
    project = parsed.value("project") or config(ctx).default_project
    if project:
        project_named(ctx, project)
    matches = [
        w for w in list_workloads(ctx, project or "", kinds or ALL_KINDS) if name_of(w) == name
    ]
    if not matches:
        where = f" in project {project}" if project else ""
        raise err(f'workload "{name}" not found{where}')
    return matches[0]
