"""v1's `runai top node`, laid out as run-ai/runai-cli printed it (cmd/top/top_node.go with
pkg/ui and cmd/types/node.go): three titled tables, ``GENERAL NODES INFO``, ``CPU & MEMORY NODES
INFO`` and ``GPU & GPU MEMORY NODES INFO``, each with its group line (``│ CPU``, ``│ GPU`` ...),
titles underlined with ``─`` and columns set by Go's tabwriter (padding 2), then ``CLUSTER NODES
INFO`` with ``Allocated/Total GPUs In Cluster``. Numbers as pkg/ui formats them: floats with two
decimals, usage as ``%.1f%%``, memory in IEC units (``2.0 TiB``).

The lab has no usage metrics (Prometheus, in Run:ai), so USAGE shows what is allocated: a share
for CPU and GPU, bytes for memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from simulators.cluster.api import Obj
from simulators.cluster.quantity import QuantityError, parse_quantity
from simulators.controllers import hardware
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.tabwriter import format_text
from simulators.lab.runai.common import name_of, number
from simulators.lab.runai.tables import node_gpu_rows, pod_gpus
from simulators.lab.tool import Context, Output

TOP_FLAGS = [
    Flag("details", long="details", short="d"),
    Flag("help", long="help", short="h"),
]
GPU_MEMORY_BYTES = 81559 * 2**20  # an H100 80GB HBM3, as nvidia-smi reports it


def title(text: str) -> str:
    """pkg/ui's Title."""
    return f"\n\n──────◆  {text}  ◆──────\n\n"


def iec(value: float) -> str:
    """pkg/ui's ByteCountIEC."""
    count = int(value)
    if count < 1024:
        return f"{count} B"
    div, exp = 1024, 0
    n = count // 1024
    while n >= 1024:
        div *= 1024
        exp += 1
        n //= 1024
    return f"{count / div:.1f} {'KMGTPE'[exp]}iB"


def percent(value: float) -> str:
    return f"{value:.1f}%"


def _quantity(raw: object) -> float:
    try:
        return float(parse_quantity(raw or 0))
    except QuantityError:
        return 0.0


def grouped_table(groups: Sequence[tuple[str, list[str]]], rows: list[list[list[str]]]) -> str:
    """pkg/ui's table: a group line (the flattened first group has no name), the titles, their
    ``─`` underline and the rows, a ``│ `` before each group after the first."""
    group_cells: list[str] = []
    titles: list[str] = []
    borders: list[str] = []
    for index, (group, headers) in enumerate(groups):
        group_cells += [("│ " + group) if index else "", *([""] * (len(headers) - 1))]
        for column, header in enumerate(headers):
            mark = "│ " if index and not column else ""
            titles.append(mark + header)
            borders.append(mark + "─" * len(header))
    lines = ["\t".join(group_cells) + "\t", "\t".join(titles), "\t".join(borders)]
    for row in rows:
        cells: list[str] = []
        for index, values in enumerate(row):
            cells += [("│ " + v) if index and not i else v for i, v in enumerate(values)]
        lines.append("\t".join(cells))
    return "\n".join(line.rstrip() for line in format_text("\n".join(lines)).split("\n"))


def top_node(ctx: Context, parsed: Parsed) -> Output:
    """`runai top node`: the nodes' CPU, memory, GPU and GPU memory, allocated and in total."""
    api = ctx.api
    running = [
        p
        for p in api.list("pods").get("items", [])
        if (p.get("status") or {}).get("phase") == "Running"
    ]
    general: list[list[list[str]]] = []
    cpu_mem: list[list[list[str]]] = []
    gpu_mem: list[list[list[str]]] = []
    total = allocated_units = 0
    unhealthy_total = 0
    ready_gpus = 0
    gpu_rows = []
    for node, gpus, used in node_gpu_rows(ctx):
        status = node.get("status") or {}
        capacity = status.get("capacity") or {}
        allocatable = status.get("allocatable") or {}
        mine = [p for p in running if (p.get("spec") or {}).get("nodeName") == name_of(node)]
        requests = [
            (c.get("resources") or {}).get("requests") or {}
            for p in mine
            for c in (p.get("spec") or {}).get("containers") or []
        ]
        cpus = _quantity(capacity.get("cpu"))
        cpu_used = sum(_quantity(r.get("cpu")) for r in requests)
        memory = _quantity(capacity.get("memory"))
        memory_used = sum(_quantity(r.get("memory")) for r in requests)
        devices = {d[0] for p in mine if pod_gpus(p) for d in hardware.pod_devices(p)}
        units = len(devices) or math.ceil(used)
        unhealthy = max(0, gpus - int(number(allocatable.get("nvidia.com/gpu", gpus))))
        ready = any(
            c.get("type") == "Ready" and c.get("status") == "True"
            for c in status.get("conditions") or []
        )
        labels = node["metadata"].get("labels") or {}
        roles = sorted(
            k.removeprefix("node-role.kubernetes.io/")
            for k in labels
            if k.startswith("node-role.kubernetes.io/")
        )
        address = next(
            (
                str(a.get("address"))
                for a in status.get("addresses") or []
                if a.get("type") == "InternalIP"
            ),
            "",
        )
        name = name_of(node)
        role = ",".join(roles) or "<none>"
        general.append([[name, address, role, "ready" if ready else "notReady"]])
        cpu_mem.append(
            [
                [name],
                [f"{cpus:.2f}", f"{cpu_used:.2f}", percent(100 * cpu_used / cpus if cpus else 0)],
                [iec(memory), iec(memory_used), iec(memory_used)],
            ]
        )
        gpu_rows.append((name, gpus, unhealthy, units, used))
        total += gpus
        allocated_units += units
        unhealthy_total += unhealthy
        ready_gpus += gpus if ready else 0
    for name, gpus, unhealthy, units, used in gpu_rows:
        share = [f"{gpus:.2f}"] + ([str(unhealthy)] if unhealthy_total else [])
        gpu_mem.append(
            [
                [name],
                [*share, str(units), f"{used:.2f}", percent(100 * used / gpus if gpus else 0)],
                [iec(gpus * GPU_MEMORY_BYTES), iec(0), iec(used * GPU_MEMORY_BYTES)],
            ]
        )
    if parsed.has("details"):
        return Output(_details(ctx, gpu_rows, running, total, allocated_units, ready_gpus))
    gpu_headers = ["CAPACITY", *(["UNHEALTHY"] if unhealthy_total else [])]
    gpu_headers += ["ALLOCATED UNITS", "ALLOCATED FRACTION", "USAGE"]
    usage = ["CAPACITY", "ALLOCATED", "USAGE"]
    # Each table's lines end in a newline (Go's Fprintln) before the next title's two.
    text = "".join(
        [
            title("GENERAL NODES INFO"),
            grouped_table([("", ["NAME", "IP Address", "ROLE", "STATUS"])], general) + "\n",
            title("CPU & MEMORY NODES INFO"),
            grouped_table([("", ["NAME"]), ("CPU", usage), ("MEMORY", usage)], cpu_mem) + "\n",
            title("GPU & GPU MEMORY NODES INFO"),
            grouped_table([("", ["NAME"]), ("GPU", gpu_headers), ("GPUs MEMORY", usage)], gpu_mem)
            + "\n",
            _cluster(total, allocated_units, ready_gpus),
        ]
    )
    return Output(text.strip("\n"))


def _cluster(total: int, allocated: int, ready_gpus: int) -> str:
    """types.ClusterNodesView.Render."""
    lines = [f"Allocated/Total GPUs In Cluster:\t{allocated}/{total} ({_share(allocated, total)}%)"]
    if ready_gpus != total:
        lines.append(
            f"Allocated/Total GPUs(Active) In Cluster:\t{allocated}/{ready_gpus} "
            f"({_share(allocated, ready_gpus)}%)"
        )
    return title("CLUSTER NODES INFO") + format_text("\n".join(lines))


def _share(part: float, whole: float) -> int:
    return int(part / whole * 100) if whole else 0


def _details(
    ctx: Context,
    gpu_rows: list[tuple[str, int, int, int, float]],
    running: list[Obj],
    total: int,
    allocated: int,
    ready_gpus: int,
) -> str:
    """`runai top node -d`: per node its address, GPU pods and GPUs, as displayTopNodeDetails."""
    nodes = {name_of(n): n for n in ctx.api.list("nodes").get("items", [])}
    lines = [""]
    for name, gpus, unhealthy, units, _used in gpu_rows:
        node = nodes[name]
        status = node.get("status") or {}
        address = next(
            (
                str(a.get("address"))
                for a in status.get("addresses") or []
                if a.get("type") == "InternalIP"
            ),
            "",
        )
        lines += ["", f"NAME:\t{name}", f"IPADDRESS:\t{address}", "ROLE:\t<none>"]
        pods = [
            p for p in running if (p.get("spec") or {}).get("nodeName") == name and pod_gpus(p) > 0
        ]
        if pods:
            lines += ["", "NAMESPACE\tNAME\tGPU REQUESTS\t "]
            lines += [
                f"{p['metadata']['namespace']}\t{p['metadata']['name']}\t{int(pod_gpus(p))}\t"
                for p in pods
            ]
            lines.append("")
        lines.append(f"Total GPUs In Node {name}:\t{gpus} \t")
        lines.append(f"Allocated GPUs In Node {name}:\t{units} ({_share(units, gpus)}%)\t")
        if unhealthy:
            lines.append(
                f"Unhealthy GPUs In Node {name}:\t{unhealthy} ({_share(unhealthy, gpus)}%)\t"
            )
        lines.append("-" * 89)
    body = "\n".join(line.rstrip() for line in format_text("\n".join(lines)).split("\n"))
    return (body + "\n\n" + _cluster(total, allocated, ready_gpus)).strip("\n")
