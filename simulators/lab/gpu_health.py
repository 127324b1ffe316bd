"""What a GPU node's health shows inside the GPU Operator's containers: the kernel's log
(``dmesg`` in the privileged driver container) and dcgm-exporter's metrics (``curl`` on its
port 9400), read from the node's GPUs through the API (hardware.lost_gpus).

The kernel log holds only the NVRM lines of the GPU events the lab models (a GPU that fell off
the bus: Xid 79); the exporter serves ``DCGM_FI_DEV_XID_ERRORS``, the value of each GPU's last
Xid (0 when none). Everything else a real node prints there is left out.
"""

from __future__ import annotations

from simulators.cluster.api import ClusterAPI, Obj
from simulators.cluster.clock import parse_time
from simulators.controllers import hardware
from simulators.lab.nvidia_smi import DRIVER

OPERATOR_NS = "gpu-operator"
DRIVER_APP = "nvidia-driver-daemonset"
METRICS_PORT = "9400"
XID_HELP = "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered."
XID_TYPE = "# TYPE DCGM_FI_DEV_XID_ERRORS gauge"


def _node(api: ClusterAPI, pod: Obj) -> Obj | None:
    name = (pod.get("spec") or {}).get("nodeName")
    return api.get("nodes", str(name)) if name else None


def _stamp(micros: int) -> str:
    """dmesg's time since boot: ``[%5lu.%06lu]``."""
    return f"[{micros // 1_000_000:>5}.{micros % 1_000_000:06d}]"


def kernel_log(node: Obj) -> list[str]:
    """The NVRM lines the driver (550) logged when a GPU fell off the bus."""
    lost = hardware.lost_gpus(node)
    if not lost:
        return []
    meta = node.get("metadata") or {}
    at = (meta.get("annotations") or {}).get(hardware.LOST_AT_ANNOTATION, "")
    created = str(meta.get("creationTimestamp") or "")
    uptime = 197816  # microseconds since the node booted (it booted when it joined)
    if at and created:
        uptime += max(0, int((parse_time(at) - parse_time(created)).total_seconds())) * 1_000_000
    gpus = hardware.gpus(node)
    out: list[str] = []
    for index in lost:
        if index >= len(gpus):
            continue
        bus = hardware.pci_bus(index)[4:].lower()  # 0000:ca:00.0
        short = bus[:-2]  # 0000:ca:00
        stamp = _stamp(uptime)
        out += [
            f"{stamp} NVRM: GPU at PCI:{short}: {gpus[index].uuid}",
            f"{stamp} NVRM: Xid (PCI:{short}): 79, pid='<unknown>', name=<unknown>, "
            "GPU has fallen off the bus.",
            f"{stamp} NVRM: GPU {bus}: GPU has fallen off the bus.",
            f"{stamp} NVRM: A GPU crash dump has been created. If possible, please run",
            "               NVRM: nvidia-bug-report.sh as root to collect this data before",
            "               NVRM: the NVIDIA kernel module is unloaded.",
        ]
    return out


def xid_metrics(node: Obj) -> list[str]:
    """dcgm-exporter's ``DCGM_FI_DEV_XID_ERRORS`` for each GPU of the node."""
    name = str((node.get("metadata") or {}).get("name", ""))
    model = hardware.gpu_model(node)
    lost = set(hardware.lost_gpus(node))
    lines = [XID_HELP, XID_TYPE]
    for gpu in hardware.gpus(node):
        labels = (
            f'gpu="{gpu.index}",UUID="{gpu.uuid}",pci_bus_id="{hardware.pci_bus(gpu.index)}",'
            f'device="nvidia{gpu.index}",modelName="{model.product}",Hostname="{name}",'
            f'DCGM_FI_DRIVER_VERSION="{DRIVER}"'
        )
        lines.append(f"DCGM_FI_DEV_XID_ERRORS{{{labels}}} {79 if gpu.index in lost else 0}")
    return lines


def _curl(node: Obj, args: list[str]) -> str:
    urls = [a for a in args if not a.startswith("-")]
    if len(urls) != 1:
        return "curl: (2) no URL specified\ncommand terminated with exit code 2"
    url = urls[0].removeprefix("http://")
    host, _, path = url.partition("/")
    hostname, _, port = host.partition(":")
    if port != METRICS_PORT:
        return (
            f"curl: (7) Failed to connect to {hostname} port {port or '80'} after 0 ms: "
            "Couldn't connect to server\ncommand terminated with exit code 7"
        )
    if path != "metrics":
        return "404 page not found\n"
    return "\n".join(xid_metrics(node)) + "\n"


def exec_gpu_health(cluster: object, pod: Obj, container: str, command: list[str]) -> str | None:
    """pods/exec for ``dmesg`` in the driver container and ``curl`` in dcgm-exporter's."""
    if not command or (pod.get("metadata") or {}).get("namespace") != OPERATOR_NS:
        return None
    api: ClusterAPI = cluster  # type: ignore[assignment]
    program = command[0].rsplit("/", 1)[-1]
    containers = (pod.get("spec") or {}).get("containers") or []
    images = " ".join(str(c.get("image", "")) for c in containers)
    labels = (pod.get("metadata") or {}).get("labels") or {}
    if program == "dmesg" and labels.get("app") == DRIVER_APP:
        node = _node(api, pod)
        lines = kernel_log(node) if node is not None else []
        return "".join(f"{line}\n" for line in lines)
    if program == "curl" and "dcgm-exporter" in images:
        node = _node(api, pod)
        return _curl(node, command[1:]) if node is not None else None
    return None
