"""The runai list commands: workloads (v2 and v1), projects, nodes and node pools."""

from __future__ import annotations

from simulators.cluster.api import Obj
from simulators.controllers import hardware
from simulators.controllers import runai as runai_ctl
from simulators.engine.messages import gpus as fmt_gpus
from simulators.engine.mig import mig_profile
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import since
from simulators.lab.render import format_gpus, format_quota, padded_table, runai_table
from simulators.lab.runai.common import (
    ALL_KINDS,
    KIND_LABELS,
    all_projects,
    config,
    list_workloads,
    name_of,
    number,
    phase_of,
    pods_of,
    project_named,
)
from simulators.lab.tool import Context, Output

LIST_FLAGS = [
    Flag("project", long="project", short="p", takes_value=True),
    Flag("all", long="all", short="A"),
    Flag("help", long="help", short="h"),
]


def list_v2(ctx: Context, parsed: Parsed, kinds: tuple[str, ...]) -> str:
    rows = []
    for w in listed(ctx, parsed, kinds):
        status = w.get("status") or {}
        rows.append(
            [
                name_of(w),
                KIND_LABELS.get(runai_ctl.kind_of(w), "Training"),
                phase_of(w),
                runai_ctl.project_of(w),
                f"{int(number(status.get('runningPods')))}/{runai_ctl.pod_count(w)}",
                format_gpus(number(status.get("allocatedGpus"))),
            ]
        )
    if not rows:
        return "No workloads found"
    return runai_table(
        ["Workload", "Type", "Status", "Project", "Running/Req.Pods", "GPU Alloc."], rows
    )


def listed(ctx: Context, parsed: Parsed, kinds: tuple[str, ...]) -> list[Obj]:
    project = parsed.value("project") or ("" if parsed.has("all") else config(ctx).default_project)
    if project:
        project_named(ctx, project)
    return list_workloads(ctx, project, kinds)


def project_list(ctx: Context) -> Output:
    cluster = config(ctx).cluster
    workloads = list_workloads(ctx, "", ALL_KINDS)
    rows = []
    for p in all_projects(ctx):
        spec = p.get("spec") or {}
        # With quotas per node pool, Run:ai shows their sum.
        total = runai_ctl.deserved_total(spec)
        allocated = sum(
            number((w.get("status") or {}).get("allocatedGpus"))
            for w in workloads
            if runai_ctl.project_of(w) == name_of(p)
        )
        rows.append(
            [
                name_of(p),
                str(spec.get("department") or "default"),
                format_quota(number(spec.get("deservedGpus") if total is None else total)),
                fmt_gpus(allocated),
                cluster,
            ]
        )
    if not rows:
        return Output("No projects found")
    return Output(
        runai_table(["Project", "Department", "GPU Quota", "Allocated GPUs", "Cluster"], rows)
    )


def _node_pool(node: Obj) -> str:
    return runai_ctl.node_pool_of(node)


def _pod_gpus(pod: Obj) -> float:
    annotations = pod["metadata"].get("annotations") or {}
    if annotations.get(runai_ctl.FRACTION):
        return number(annotations[runai_ctl.FRACTION])
    total = 0.0
    for container in (pod.get("spec") or {}).get("containers") or []:
        limits = (container.get("resources") or {}).get("limits") or {}
        for key, value in limits.items():
            if key == "nvidia.com/gpu":
                total += number(value)
            elif key.startswith("nvidia.com/mig-"):
                total += mig_profile(key).gpu_fraction * number(value)
    return total


def _node_rows(ctx: Context) -> list[tuple[Obj, int, float]]:
    """(node, GPU devices, allocated GPUs) for every node with GPUs."""
    api = ctx.api
    pods = [
        p
        for p in api.list("pods").get("items", [])
        if (p.get("status") or {}).get("phase") == "Running"
    ]
    out = []
    for node in sorted(api.list("nodes").get("items", []), key=name_of):
        gpus = len(hardware.gpus(node))
        if not gpus:
            capacity = (node.get("status") or {}).get("capacity") or {}
            gpus = int(number(capacity.get("nvidia.com/gpu")))
        used = sum(
            _pod_gpus(p) for p in pods if (p.get("spec") or {}).get("nodeName") == name_of(node)
        )
        out.append((node, gpus, used))
    return out


def _node_status(node: Obj) -> str:
    ready = any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (node.get("status") or {}).get("conditions") or []
    )
    status = "Ready" if ready else "NotReady"
    if (node.get("spec") or {}).get("unschedulable"):
        status += ",SchedulingDisabled"
    return status


def node_list(ctx: Context) -> Output:
    rows = []
    for node, gpus, used in _node_rows(ctx):
        labels = node["metadata"].get("labels") or {}
        rows.append(
            [
                name_of(node),
                _node_status(node),
                _node_pool(node),
                str(labels.get("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")),
                str(gpus),
                format_gpus(used),
                format_gpus(max(0.0, gpus - used)),
            ]
        )
    if not rows:
        return Output("No nodes found")
    headers = ["Node", "Status", "Node Pool", "GPU Type", "GPU Devices", "Allocated GPUs"]
    return Output(runai_table([*headers, "Free GPUs"], rows))


def nodepool_list(ctx: Context) -> Output:
    pools: dict[str, list[tuple[Obj, int, float]]] = {}
    for row in _node_rows(ctx):
        pools.setdefault(_node_pool(row[0]), []).append(row)
    rows = []
    for pool, members in sorted(pools.items()):
        ready = all(_node_status(n).startswith("Ready") for n, _, _ in members)
        rows.append(
            [
                pool,
                "Ready" if ready else "Unready",
                str(len(members)),
                str(sum(g for _, g, _ in members)),
                format_gpus(sum(u for _, _, u in members)),
                config(ctx).cluster,
            ]
        )
    if not rows:
        return Output("No node pools found")
    return Output(
        runai_table(
            ["Node Pool", "Status", "Nodes", "GPU Devices", "Allocated GPUs", "Cluster"], rows
        )
    )


def list_v1(ctx: Context, parsed: Parsed) -> Output:
    project = parsed.value("project") or config(ctx).default_project
    workloads = listed(ctx, parsed, ALL_KINDS)
    header = (
        "Showing jobs for all projects"
        if parsed.has("all") or not project
        else f"Showing jobs for project {project}"
    )
    rows = []
    for w in workloads:
        pods = pods_of(ctx, w)
        running = [p for p in pods if (p.get("status") or {}).get("phase") == "Running"]
        nodes = sorted({str(p["spec"].get("nodeName")) for p in running})
        status = w.get("status") or {}
        per_pod = runai_ctl.gpu_units(w)
        rows.append(
            [
                name_of(w),
                phase_of(w),
                since(ctx.api, w["metadata"].get("creationTimestamp")),
                ",".join(nodes),
                str(runai_ctl.value(w, "image", "")),
                {"workspace": "Interactive", "inference": "Inference"}.get(
                    runai_ctl.kind_of(w), "Train"
                ),
                runai_ctl.project_of(w),
                str((w["metadata"].get("labels") or {}).get("user", "admin")),
                f"{fmt_gpus(number(status.get('allocatedGpus')))} "
                f"({fmt_gpus(per_pod * runai_ctl.pod_count(w))})",
                f"{len(running)} ({runai_ctl.pod_count(w) - len(running)})",
                "",
            ]
        )
    headers = [
        "NAME",
        "STATUS",
        "AGE",
        "NODE",
        "IMAGE",
        "TYPE",
        "PROJECT",
        "USER",
        "GPUs Allocated (Requested)",
        "PODs Running (Pending)",
        "SERVICE URL(S)",
    ]
    return Output(header + "\n" + padded_table(headers, rows, padding=2))
