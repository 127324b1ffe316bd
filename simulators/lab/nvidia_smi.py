"""nvidia-smi as a container on a GPU node runs it, reading the GPUs' state from the cluster API.

What each GPU shows comes from the pods bound to its node: a pod holds the devices in its
``lab.kadmin/gpu-devices`` annotation (whole GPUs or MIG devices), a Run:ai fractional pod
shares a GPU with the fraction in its ``gpu-fraction`` annotation (or ``gpu-memory``). Memory,
utilization, power and temperature follow from those holders; the numbers are deterministic
(derived from each pod's uid), so the same state always prints the same screen.

Inside a user pod nvidia-smi sees only the pod's devices, renumbered from 0, and a fractional
pod sees its share of the GPU's memory; inside the GPU Operator's pods (host PID namespace)
it sees the whole node, processes included.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime

from simulators.cluster.api import ClusterAPI, Obj
from simulators.controllers import hardware
from simulators.engine.mig import H100_PROFILES
from simulators.lab import nvidia_smi_query as query
from simulators.lab.nvidia_smi_mig import (
    PROFILE_MIB,
    PROFILE_SMS,
    list_compute_instances,
    list_gpu_instance_profiles,
    list_gpu_instances,
    placements,
)
from simulators.lab.tool import Output

DRIVER = "550.127.08"
CUDA = "12.4"
TOTAL_MIB = hardware.GPU_MEMORY_MIB
POWER_CAP = 700
IDLE_POWER = 69
FRACTION_ANNOTATION = "gpu-fraction"
MEMORY_ANNOTATION = "gpu-memory"
OPERATOR_NS = "gpu-operator"


WIDE = "+" + "-" * 89 + "+"
GPU_RULE = "+" + "-" * 41 + "+" + "-" * 24 + "+" + "-" * 22 + "+"


def _hash(*parts: object) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:12], 16)


@dataclass
class Holder:
    """One pod's use of one device (a whole GPU, a MIG device, or a fraction of a GPU)."""

    pod: Obj
    gpu: int
    slot: int | None
    fraction: float = 1.0

    @property
    def uid(self) -> str:
        return str(self.pod["metadata"].get("uid") or self.pod["metadata"].get("name"))

    @property
    def key(self) -> str:
        """One process per device: each GPU of a pod shows its own figures and PID."""
        return f"{self.uid}/{self.gpu}/{self.slot}"

    @property
    def interactive(self) -> bool:
        labels = self.pod["metadata"].get("labels") or {}
        kind = str(labels.get("workloadKind") or labels.get("runai/workload-kind") or "")
        return "Interactive" in kind or "workspace" in kind.lower()

    def memory(self, capacity: int) -> int:
        """MiB the pod's processes hold: most of what it may use, a fixed share per pod."""
        share = 0.55 + (_hash("mem", self.uid) % 35) / 100 + (_hash("m", self.key) % 3) / 100
        if self.interactive:
            share = 0.08 + (_hash("mem", self.uid) % 10) / 100
        return int(capacity * self.fraction * share)

    def utilization(self) -> int:
        if self.interactive:
            return _hash("util", self.key) % 4
        return 86 + _hash("util", self.key) % 13

    def pid(self) -> int:
        return 10000 + _hash("pid", self.key) % 3_990_000

    def process(self) -> str:
        containers = (self.pod.get("spec") or {}).get("containers") or [{}]
        words = [*(containers[0].get("command") or []), *(containers[0].get("args") or [])]
        if words:
            name = str(words[0]).rsplit("/", 1)[-1]
            if name in ("python", "python3") or name.startswith("python"):
                return "python"
            return name[:40]
        image = str(containers[0].get("image", ""))
        return "python" if "pytorch" in image or "tensorflow" in image else "/usr/bin/python3"


@dataclass
class GpuView:
    index: int
    uuid: str
    bus: str
    mig: list[str] | None
    mig_uuids: list[str]
    holders: list[Holder] = field(default_factory=list)
    # Inside a fractional pod the GPU's memory is the fraction's.
    memory_total: int = TOTAL_MIB
    model: hardware.GpuModel = hardware.GPU_MODELS["H100"]
    # Fell off the bus (Xid 79): NVML can't get a handle on it.
    lost: bool = False

    @property
    def used(self) -> int:
        base = 0 if self.mig is None else 13 * len(self.mig)
        return (
            1
            + base
            + sum(
                h.memory(self.model.memory_mib if self.mig is None else _slot_mib(self, h))
                for h in self.holders
            )
        )

    @property
    def utilization(self) -> int:
        if not self.holders:
            return 0
        return min(100, sum(h.utilization() * h.fraction for h in self.holders).__int__())


def _slot_mib(gpu: GpuView, holder: Holder) -> int:
    if gpu.mig is None or holder.slot is None or holder.slot >= len(gpu.mig):
        return TOTAL_MIB
    return PROFILE_MIB.get(gpu.mig[holder.slot], TOTAL_MIB)


def _fraction(pod: Obj) -> float:
    annotations = pod["metadata"].get("annotations") or {}
    raw = annotations.get(FRACTION_ANNOTATION)
    if raw:
        try:
            return max(0.0, min(1.0, float(raw)))
        except ValueError:
            return 1.0
    memory = annotations.get(MEMORY_ANNOTATION)
    if memory:
        match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(Gi|G|Mi|M)?", str(memory))
        if match:
            value = float(match.group(1))
            unit = match.group(2) or "Mi"
            mib = value * 1024 if unit in ("Gi", "G") else value
            return max(0.0, min(1.0, mib / TOTAL_MIB))
    return 1.0


def node_gpus(api: ClusterAPI, node: Obj) -> list[GpuView]:
    """Every GPU of a node with the pods that hold it."""
    model = hardware.gpu_model(node)
    lost = hardware.lost_gpus(node)
    views = [
        GpuView(
            index=g.index,
            uuid=g.uuid,
            bus=hardware.pci_bus(g.index),
            mig=g.mig,
            mig_uuids=g.mig_uuids,
            memory_total=model.memory_mib,
            model=model,
            lost=g.index in lost,
        )
        for g in hardware.gpus(node)
    ]
    name = node["metadata"]["name"]
    for pod in api.list("pods", field_selector=f"spec.nodeName={name}").get("items", []):
        if (pod.get("spec") or {}).get("nodeName") != name:
            continue
        if (pod.get("status") or {}).get("phase") != "Running" or pod["metadata"].get(
            "deletionTimestamp"
        ):
            continue
        fraction = _fraction(pod)
        for gpu, slot in hardware.pod_devices(pod):
            if 0 <= gpu < len(views):
                views[gpu].holders.append(Holder(pod, gpu, slot, fraction if slot is None else 1.0))
    return views


def pod_view(api: ClusterAPI, pod: Obj) -> tuple[list[GpuView], bool]:
    """The GPUs a pod's container sees, and whether it sees the host's processes."""
    node_name = (pod.get("spec") or {}).get("nodeName")
    if not node_name:
        return [], False
    node = api.get("nodes", str(node_name))
    gpus = node_gpus(api, node)
    if pod["metadata"].get("namespace") == OPERATOR_NS:
        return gpus, True
    mine = hardware.pod_devices(pod)
    fraction = _fraction(pod)
    seen: list[GpuView] = []
    for position, (gpu, slot) in enumerate(mine):
        if not 0 <= gpu < len(gpus):
            continue
        base = gpus[gpu]
        view = GpuView(
            index=position,
            uuid=base.uuid,
            bus=base.bus,
            mig=None if slot is None or base.mig is None else [base.mig[slot]],
            mig_uuids=[] if slot is None or base.mig is None else [base.mig_uuids[slot]],
            holders=[
                h
                for h in base.holders
                if h.uid == str(pod["metadata"].get("uid") or pod["metadata"].get("name"))
                and h.slot == slot
            ],
            memory_total=base.memory_total,
            model=base.model,
        )
        if slot is None and fraction < 1.0:
            view.memory_total = int(base.model.memory_mib * fraction)
        seen.append(view)
    return seen, False


# ------------------------------------------------------------------------- output


def list_gpus(gpus: list[GpuView]) -> str:
    """`nvidia-smi -L`: one line per GPU, then its MIG devices indented beneath it."""
    lines = []
    for gpu in gpus:
        lines.append(f"GPU {gpu.index}: {gpu.model.product} (UUID: {gpu.uuid})")
        for i, profile in enumerate(gpu.mig or []):
            lines.append(f"  MIG {profile:<12}Device {i:>2}: (UUID: {gpu.mig_uuids[i]})")
    return "\n".join(lines)


def _power(gpu: GpuView) -> int:
    if not gpu.holders:
        return gpu.model.idle_power + _hash("idle", gpu.uuid) % 4
    busy = 110 + gpu.utilization * 5 + _hash("pw", gpu.uuid) % 20
    return min(gpu.model.power_cap - 5, busy * gpu.model.power_cap // POWER_CAP)


def _temp(gpu: GpuView) -> int:
    if not gpu.holders:
        return 26 + _hash("t", gpu.uuid) % 7
    return 38 + gpu.utilization // 4 + _hash("t", gpu.uuid) % 5


def summary(gpus: list[GpuView], now: datetime, processes: bool) -> str:
    lines = [
        now.strftime("%a %b %d %H:%M:%S %Y") + "       ",
        WIDE,
        f"| NVIDIA-SMI {DRIVER:<22}Driver Version: {DRIVER:<15}CUDA Version: {CUDA:<10}|",
        "|" + "-" * 41 + "+" + "-" * 24 + "+" + "-" * 22 + "|",
        "| GPU  Name                 Persistence-M "
        "| Bus-Id          Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap "
        "|           Memory-Usage | GPU-Util  Compute M. |",
        "|                                         "
        "|                        |               MIG M. |",
        "|" + "=" * 41 + "+" + "=" * 24 + "+" + "=" * 22 + "|",
    ]
    for gpu in gpus:
        mig = "Enabled" if gpu.mig is not None else "Disabled"
        util = "N/A" if gpu.mig is not None else f"{gpu.utilization}%"
        perf = "P0"
        used = min(gpu.used, gpu.memory_total)
        lines.append(f"| {gpu.index:>3}  {gpu.model.product:<31}On  |   {gpu.bus} Off |{'0':>21} |")
        lines.append(
            f"| N/A   {_temp(gpu)}C    {perf}{str(_power(gpu)) + 'W':>16}"
            f" / {str(gpu.model.power_cap) + 'W':>5} |"
            f"{str(used) + 'MiB':>11} / {str(gpu.memory_total) + 'MiB':>9} "
            f"|{util:>8}{'Default':>13} |"
        )
        lines.append(f"|{'':41}|{'':24}|{mig:>21} |")
        lines.append(GPU_RULE)
    if any(g.mig is not None for g in gpus):
        lines += ["", *_mig_devices(gpus)]
    lines += ["", *_processes(gpus, processes)]
    return "\n".join(lines)


def _mig_devices(gpus: list[GpuView]) -> list[str]:
    rule = "+" + "-" * 18 + "+" + "-" * 34 + "+" + "-" * 11 + "+" + "-" * 23 + "+"
    out = [
        WIDE,
        f"| {'MIG devices:':<88}|",
        rule,
        "| GPU  GI  CI  MIG |                     Memory-Usage "
        "|        Vol|        Shared         |",
        "|      ID  ID  Dev |                       BAR1-Usage "
        "| SM     Unc| CE ENC  DEC  OFA  JPG |",
        "|                  |                                  "
        "|        ECC|                       |",
        "|" + "=" * 18 + "+" + "=" * 34 + "+" + "=" * 11 + "+" + "=" * 23 + "|",
    ]
    for gpu in gpus:
        if gpu.mig is None:
            continue
        for slot, (profile, (gi, _start, _size)) in enumerate(
            zip(gpu.mig, placements(gpu.mig), strict=True)
        ):
            holders = [h for h in gpu.holders if h.slot == slot]
            total = PROFILE_MIB[profile]
            used = 13 + sum(h.memory(total) for h in holders)
            p = H100_PROFILES[profile]
            sms = PROFILE_SMS[profile]
            out.append(
                f"| {gpu.index:>2}  {gi:>3}   0 {slot:>3}  "
                f"|{str(used) + 'MiB':>20} / {str(total) + 'MiB':>8}   "
                f"| {sms!s:<3}     0 |{p.compute_slices:>3}"
                f"   0  {p.compute_slices:>3}    0  {p.compute_slices:>3} |"
            )
            out.append(f"|{'':18}|{'0MiB / ' + _bar1(profile) + 'MiB':>32}  |{'':11}|{'':23}|")
            out.append(rule)
    return out


def _bar1(profile: str) -> str:
    return "65535" if profile == "7g.80gb" else "16383" if PROFILE_MIB[profile] < 20000 else "32767"


def _processes(gpus: list[GpuView], visible: bool) -> list[str]:
    out = [
        WIDE,
        f"| {'Processes:':<88}|",
        "|  GPU   GI   CI        PID   Type   Process"
        " name                              GPU Memory |",
        "|        ID   ID                         "
        "                                      Usage      |",
        "|" + "=" * 89 + "|",
    ]
    rows = []
    if visible:
        for gpu in gpus:
            gis = placements(gpu.mig) if gpu.mig is not None else []
            for h in gpu.holders:
                if gpu.mig is None:
                    gi, ci = "N/A", "N/A"
                    mem = h.memory(gpu.model.memory_mib)
                else:
                    slot = h.slot if h.slot is not None and h.slot < len(gis) else 0
                    gi, ci = str(gis[slot][0]), "0"
                    mem = h.memory(PROFILE_MIB[gpu.mig[slot]])
                rows.append(
                    f"| {gpu.index:>4}  {gi:>4} {ci:>4}  {h.pid():>9}      C   {h.process():<40}"
                    f"{str(mem) + 'MiB':>11} |"
                )
    if not rows:
        rows = [f"|  {'No running processes found':<87}|"]
    return [*out, *rows, WIDE]


USAGE = "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help."


def readings(gpus: list[GpuView], attached: int) -> list[query.Reading]:
    """The figures the query modes print, from the same views the summary screen draws."""
    return [
        query.Reading(
            index=gpu.index,
            name=gpu.model.product,
            uuid=gpu.uuid,
            bus=gpu.bus,
            serial=str(1654922000000 + _hash("serial", gpu.uuid) % 1_000_000),
            memory_total=gpu.memory_total,
            memory_used=min(gpu.used, gpu.memory_total),
            utilization=None if gpu.mig is not None else gpu.utilization,
            memory_utilization=None if gpu.mig is not None else gpu.utilization // 3,
            temperature=_temp(gpu),
            power=_power(gpu) + (_hash("pwf", gpu.uuid, len(gpu.holders)) % 100) / 100,
            power_cap=gpu.model.power_cap,
            mig=gpu.mig is not None,
            count=attached,
        )
        for gpu in gpus
    ]


def _select(gpus: list[GpuView], ids: str) -> list[GpuView] | None:
    """`-i 0,3`, a UUID or a PCI bus id; None when one names no GPU."""
    chosen = []
    for wanted in (part.strip() for part in ids.split(",")):
        found = [
            g
            for g in gpus
            if wanted in (str(g.index), g.uuid) or wanted.upper() in (g.bus, g.bus[4:])
        ]
        if not found:
            return None
        chosen += [g for g in found if g not in chosen]
    return chosen


def _options(args: list[str]) -> dict[str, str] | None:
    """nvidia-smi's options as name -> value ("" for a flag); None for a malformed line."""
    takes = {"-i": "id", "--id": "id", "-d": "display", "--display": "display",
             "--query-gpu": "query-gpu", "--format": "format"}  # fmt: skip
    flags = {"-q": "query", "--query": "query", "-L": "list", "--list-gpus": "list",
             "-h": "help", "--help": "help"}  # fmt: skip
    found: dict[str, str] = {}
    words = iter(args)
    for word in words:
        name, equals, value = word.partition("=")
        if name in takes:
            if not equals:
                value = next(words, "")
            if not value:
                return None
            found[takes[name]] = value
        elif word in flags:
            found[flags[word]] = ""
        else:
            return None
    return found


def _unreachable(gpus: list[GpuView]) -> Output | None:
    """A GPU that fell off the bus stops nvidia-smi at that GPU, as the real one does (NVML's
    handle lookup fails; exit code 255, "Other error or internal driver error occurred")."""
    for gpu in gpus:
        if gpu.lost:
            return Output.error(
                f"Unable to determine the device handle for GPU{gpu.bus[4:]}: Unknown Error", 255
            )
    return None


def run(gpus: list[GpuView], args: list[str], now: datetime, processes: bool = True) -> Output:
    if not gpus:
        return Output.error("No devices were found", 6)
    lost = _unreachable(gpus)
    if lost is not None and args[:1] in (["mig"], ["topo"]):
        return lost
    if args[:1] == ["mig"]:
        rest = args[1:]
        if rest in (["-lgi"], ["--list-gpu-instances"]):
            return list_gpu_instances(gpus)
        if rest in (["-lgip"], ["--list-gpu-instance-profiles"]):
            return list_gpu_instance_profiles(gpus)
        if rest in (["-lci"], ["--list-compute-instances"]):
            return list_compute_instances(gpus)
        return Output.error(USAGE, 2)
    if args[:1] == ["topo"]:
        if args[1:] in (["-m"], ["--matrix"]):
            return query.topology(len(gpus))
        return Output.error(USAGE, 2)
    options = _options(args)
    if options is None:
        return Output.error(USAGE, 2)
    if "help" in options:
        return Output(query.HELP)
    attached = len(gpus)
    if "id" in options:
        selected = _select(gpus, options["id"])
        if selected is None:
            return Output.error("No devices were found", 6)
        gpus = selected
    lost = _unreachable(gpus)
    if lost is not None:
        return lost
    modes = {"list", "query", "query-gpu"} & options.keys()
    if len(modes) > 1 or ("display" in options and modes != {"query"}):
        return Output.error(USAGE, 2)
    if "format" in options and modes != {"query-gpu"}:
        return Output.error(USAGE, 2)
    if "list" in options:
        return Output(list_gpus(gpus))
    if "query-gpu" in options:
        if "format" not in options:
            return Output.error(USAGE, 2)
        return query.query_gpu(
            readings(gpus, attached), options["query-gpu"], options["format"], now
        )
    if "query" in options:
        sections = query.display_sections(options["display"]) if "display" in options else []
        if sections is None:
            return Output.error(USAGE, 2)
        return query.query_log(readings(gpus, attached), sections, now)
    return Output(summary(gpus, now, processes))


def exec_nvidia_smi(cluster: object, pod: Obj, container: str, command: list[str]) -> str | None:
    """pods/exec for `nvidia-smi ...` inside a GPU node's container (the lab world adds it to
    its cluster's exec handlers)."""
    if not command or command[0].rsplit("/", 1)[-1] != "nvidia-smi":
        return None
    api: ClusterAPI = cluster  # type: ignore[assignment]
    gpus, processes = pod_view(api, pod)
    result = run(gpus, command[1:], api.now(), processes)
    if result.code:
        return f"{result.text}\ncommand terminated with exit code {result.code}"
    return result.text + "\n"
