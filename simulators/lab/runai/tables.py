"""The runai list commands: workloads (v2 and v1), projects, nodes and node pools."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import yaml

from simulators.cluster.api import Obj
from simulators.controllers import gpu_state, hardware
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
    err,
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
    Flag("json", long="json"),
    Flag("yaml", long="yaml"),
    Flag("table", long="table"),
    Flag("no-headers", long="no-headers"),
    Flag("limit", long="limit", takes_value=True),
    Flag("offset", long="offset", takes_value=True),
    Flag("status", long="status", takes_value=True),
    Flag("state", long="state", takes_value=True),
    Flag("type", long="type", takes_value=True),
    Flag("help", long="help", short="h"),
]

# What `runai project|node|nodepool list` take: the output shape and a page.
OUTPUT_FLAGS = [
    f
    for f in LIST_FLAGS
    if f.key in ("json", "yaml", "table", "no-headers", "limit", "offset", "help")
]

# The v2 CLI's workload table, as Run:ai's quickstarts print it for `runai training list`.
WORKLOAD_HEADERS = (
    "Workload",
    "Type",
    "Status",
    "Project",
    "Preemptible",
    "Running/Requested Pods",
    "GPU Allocation",
)


def list_v2(ctx: Context, parsed: Parsed, kinds: tuple[str, ...]) -> str:
    """`runai <noun> list`: the documented table (or --json/--yaml), filtered by --status or
    --state (a phase) and --type, one page of --limit rows (default 50) from --offset."""
    wanted_status = (parsed.value("status") or parsed.value("state") or "").lower()
    wanted_type = (parsed.value("type") or "").lower()
    limit = int32_flag(parsed, "limit", 50)
    offset = int32_flag(parsed, "offset", 0)
    if offset < 0:
        raise err(f"--offset must be 0 or more, not {offset}")
    rows = []
    for w in listed(ctx, parsed, kinds):
        status = w.get("status") or {}
        label = KIND_LABELS.get(runai_ctl.kind_of(w), "Training")
        if wanted_status and phase_of(w).lower() != wanted_status:
            continue
        if wanted_type and wanted_type not in (label.lower(), runai_ctl.kind_of(w)):
            continue
        rows.append(
            [
                name_of(w),
                label,
                phase_of(w),
                runai_ctl.project_of(w),
                "Yes" if runai_ctl.preemptible_of(w) else "No",
                f"{int(number(status.get('runningPods')))}/{runai_ctl.pod_count(w)}",
                format_gpus(number(status.get("allocatedGpus"))),
            ]
        )
    rows = rows[offset:] if limit < 0 else rows[offset : offset + limit]
    return shaped(parsed, WORKLOAD_HEADERS, rows, "No workloads found")


def int32_flag(parsed: Parsed, key: str, default: int) -> int:
    """An int32 flag's value, with pflag's error for anything else."""
    raw = parsed.value(key)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not -(2**31) <= value < 2**31:
        raise err(
            f'invalid argument "{raw}" for "--{key}" flag: strconv.ParseInt: parsing "{raw}": '
            + ("invalid syntax" if value is None else "value out of range")
        )
    return value


def _key(header: str) -> str:
    """A column's name in --json/--yaml output: "Running/Requested Pods" -> runningRequestedPods."""
    words = [w for w in re.split(r"[^A-Za-z0-9]+", header) if w]
    return words[0].lower() + "".join(w[:1].upper() + w[1:] for w in words[1:])


def shaped(parsed: Parsed, headers: Sequence[str], rows: list[list[str]], empty: str) -> str:
    """A list command's output: --json or --yaml (a list of objects keyed by column), else the
    table (--no-headers drops its header and rule)."""
    if parsed.has("json") or parsed.has("yaml"):
        items = [{_key(h): cell for h, cell in zip(headers, row, strict=True)} for row in rows]
        if parsed.has("json"):
            return json.dumps(items, indent=2)
        return str(yaml.safe_dump(items, sort_keys=False)).rstrip("\n") if items else "[]"
    if not rows:
        return empty
    table = runai_table(list(headers), rows)
    if parsed.has("no-headers"):
        return "\n".join(table.split("\n")[2:])
    return table


def listed(ctx: Context, parsed: Parsed, kinds: tuple[str, ...]) -> list[Obj]:
    project = parsed.value("project") or ("" if parsed.has("all") else config(ctx).default_project)
    if project:
        project_named(ctx, project)
    return list_workloads(ctx, project, kinds)


def project_list(ctx: Context, parsed: Parsed | None = None) -> Output:
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
    headers = ["Project", "Department", "GPU Quota", "Allocated GPUs", "Cluster"]
    return Output(shaped(parsed or Parsed(), headers, rows, "No projects found"))


def _node_pool(node: Obj) -> str:
    return runai_ctl.node_pool_of(node)


def pod_gpus(pod: Obj) -> float:
    """The GPUs a pod holds (a MIG slice by its share of compute)."""
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


def node_gpu_rows(ctx: Context) -> list[tuple[Obj, int, float]]:
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
            pod_gpus(p) for p in pods if (p.get("spec") or {}).get("nodeName") == name_of(node)
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


def node_list(ctx: Context, parsed: Parsed | None = None) -> Output:
    rows = []
    for node, gpus, used in node_gpu_rows(ctx):
        labels = node["metadata"].get("labels") or {}
        rows.append(
            [
                name_of(node),
                _node_status(node),
                _node_pool(node),
                str(labels.get("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")),
                str(gpus),
                format_gpus(used),
                # A GPU the device plugin marked unhealthy is installed but not free.
                format_gpus(max(0.0, gpus - sum(gpu_state.unhealthy(node).values()) - used)),
            ]
        )
    headers = ["Node", "Status", "Node Pool", "GPU Type", "GPU Devices", "Allocated GPUs"]
    return Output(shaped(parsed or Parsed(), [*headers, "Free GPUs"], rows, "No nodes found"))


def nodepool_list(ctx: Context, parsed: Parsed | None = None) -> Output:
    pools: dict[str, list[tuple[Obj, int, float]]] = {}
    for row in node_gpu_rows(ctx):
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
    headers = ["Node Pool", "Status", "Nodes", "GPU Devices", "Allocated GPUs", "Cluster"]
    return Output(shaped(parsed or Parsed(), headers, rows, "No node pools found"))


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
