"""The GPUs in each node, as the driver sees them, kept where every client can read them.

A real node's MIG layout and device assignments live in the GPUs themselves; the mock keeps
them as two annotations so that they travel with the node and the pod through the API (and so
the real kubectl, nvidia-smi in the lab and the controllers all read the same thing):

- node ``lab.kadmin/gpus``: a JSON list with one entry per GPU index, ``null`` for a GPU with
  MIG disabled, or the MIG devices on it as ``{"<profile>": count}`` (``[{"1g.10gb": 7}, ...]``).
- pod ``lab.kadmin/gpu-devices``: the devices the pod holds, comma separated: ``3`` for whole
  GPU 3, ``3:1`` for MIG device 1 of GPU 3 (in nvidia-smi's order: largest profile first).

UUIDs are not stored: they follow from the node's uid and the device's position, so they stay
the same for the node's life, as real ones do.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from simulators.cluster.api import Obj
from simulators.controllers.util import annotations_of, name_of, uid_of
from simulators.engine.mig import MigDeviceConfig, MigLayout, mig_profile

GPUS_ANNOTATION = "lab.kadmin/gpus"
DEVICES_ANNOTATION = "lab.kadmin/gpu-devices"
GPU_PRODUCT = "NVIDIA H100 80GB HBM3"
GPU_MEMORY_MIB = 81559
# The node's GPU model (which the driver reports; a node without it has the DGX's H100s).
MODEL_ANNOTATION = "lab.kadmin/gpu-model"
# GPUs that fell off the bus (Xid 79), comma-separated indices, and when (RFC 3339).
LOST_ANNOTATION = "lab.kadmin/gpus-lost"
LOST_AT_ANNOTATION = "lab.kadmin/gpus-lost-at"


@dataclass(frozen=True)
class GpuModel:
    """What a GPU model shows: nvidia-smi's name, GFD's labels, memory and power."""

    key: str
    product: str  # nvidia-smi's name
    label: str  # GFD's nvidia.com/gpu.product
    memory_mib: int
    family: str  # GFD's nvidia.com/gpu.family
    compute: tuple[int, int]
    power_cap: int
    idle_power: int
    mig_capable: bool
    machine: str  # GFD's nvidia.com/gpu.machine (the server's DMI product name)
    instance_type: str

    @property
    def memory_gib(self) -> float:
        return self.memory_mib / 1024


GPU_MODELS: dict[str, GpuModel] = {
    "H100": GpuModel(
        "H100",
        GPU_PRODUCT,
        "NVIDIA-H100-80GB-HBM3",
        GPU_MEMORY_MIB,
        "hopper",
        (9, 0),
        700,
        69,
        True,
        "DGXH100",
        "dgx-h100",
    ),
    # Four L40S (48 GB GDDR6, PCIe, no MIG) in a Dell PowerEdge R760xa.
    "L40S": GpuModel(
        "L40S",
        "NVIDIA L40S",
        "NVIDIA-L40S",
        46068,
        "ada-lovelace",
        (8, 9),
        350,
        33,
        False,
        "PowerEdge-R760xa",
        "r760xa-l40s",
    ),
}


def gpu_model(node: Obj) -> GpuModel:
    """The node's GPU model (H100 unless the node says otherwise)."""
    return GPU_MODELS.get(annotations_of(node).get(MODEL_ANNOTATION, "H100"), GPU_MODELS["H100"])


@dataclass
class Gpu:
    index: int
    uuid: str
    # None: MIG disabled. Otherwise the MIG devices, largest profile first (nvidia-smi's order).
    mig: list[str] | None = None
    mig_uuids: list[str] = field(default_factory=list)

    @property
    def mig_enabled(self) -> bool:
        return self.mig is not None


def _uuid(*parts: object) -> str:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def read_layout(node: Obj) -> list[dict[str, int] | None]:
    """The node's per-GPU MIG devices from its annotation ([] for a node without GPUs)."""
    raw = annotations_of(node).get(GPUS_ANNOTATION)
    if not raw:
        return []
    try:
        data = json.loads(raw)
    except ValueError:
        return []
    if not isinstance(data, list):
        return []
    out: list[dict[str, int] | None] = []
    for entry in data:
        if isinstance(entry, dict):
            out.append({str(k): int(v) for k, v in entry.items()})
        else:
            out.append(None)
    return out


def encode_layout(per_gpu: list[dict[str, int] | None]) -> str:
    return json.dumps(per_gpu, separators=(",", ":"), sort_keys=False)


def ordered_profiles(profiles: dict[str, int]) -> list[str]:
    """MIG devices as nvidia-smi lists them: largest profile first."""
    order = sorted(profiles, key=lambda p: (-mig_profile(p).compute_slices, p))
    return [p for p in order for _ in range(profiles[p])]


def gpus(node: Obj) -> list[Gpu]:
    """The node's GPUs with their UUIDs, as nvidia-smi -L lists them."""
    node_uid = uid_of(node) or name_of(node)
    out = []
    for index, profiles in enumerate(read_layout(node)):
        gpu = Gpu(index=index, uuid=f"GPU-{_uuid('gpu', node_uid, index)}")
        if profiles is not None:
            gpu.mig = ordered_profiles(profiles)
            gpu.mig_uuids = [
                f"MIG-{_uuid('mig', node_uid, index, slot, profile)}"
                for slot, profile in enumerate(gpu.mig)
            ]
        out.append(gpu)
    return out


def pci_bus(index: int) -> str:
    """A DGX H100's GPU PCI address as nvidia-smi prints it (``00000000:18:00.0``)."""
    slot = 0x18 + index * 0x10 if index < 4 else 0x9A + (index - 4) * 0x10
    return f"00000000:{slot:02X}:00.0"


def lost_gpus(node: Obj) -> list[int]:
    """Indices of the node's GPUs that fell off the bus: the driver can't reach them until the
    node is repaired, so no pod gets them and the device plugin reports them unhealthy."""
    out: list[int] = []
    for part in annotations_of(node).get(LOST_ANNOTATION, "").split(","):
        if part.strip().isdigit():
            out.append(int(part))
    return sorted(set(out))


def current_layout(node: Obj) -> MigLayout:
    """The node's GPUs as a layout the engine's MIG helper understands."""
    devices = []
    for index, profiles in enumerate(read_layout(node)):
        devices.append(
            MigDeviceConfig(
                mig_enabled=profiles is not None, profiles=dict(profiles or {}), gpus=(index,)
            )
        )
    return MigLayout("current", tuple(devices))


def layout_matches(layout: MigLayout, node: Obj) -> bool:
    have = read_layout(node)
    if not have:
        return False
    return layout.profiles_per_gpu(len(have)) == have


def pod_devices(pod: Obj) -> list[tuple[int, int | None]]:
    """(GPU index, MIG device slot or None) for each device the pod holds."""
    raw = annotations_of(pod).get(DEVICES_ANNOTATION, "")
    out: list[tuple[int, int | None]] = []
    for part in raw.split(","):
        part = part.strip()
        if not part:
            continue
        gpu, _, slot = part.partition(":")
        try:
            out.append((int(gpu), int(slot) if slot else None))
        except ValueError:
            continue
    return out


def encode_devices(devices: list[tuple[int, int | None]]) -> str:
    return ",".join(str(g) if s is None else f"{g}:{s}" for g, s in devices)


def free_devices(
    node: Obj, resource: str, held: list[tuple[int, int | None]], strategy: str
) -> list[tuple[int, int | None]]:
    """Devices of one extended resource on the node not held by any pod, in index order."""
    taken = set(held)
    lost = set(lost_gpus(node))
    out: list[tuple[int, int | None]] = []
    for gpu in gpus(node):
        if gpu.index in lost:
            continue
        if gpu.mig is None:
            if resource == "nvidia.com/gpu" and (gpu.index, None) not in taken:
                out.append((gpu.index, None))
            continue
        for slot, profile in enumerate(gpu.mig):
            if (gpu.index, slot) in taken:
                continue
            wanted = f"nvidia.com/mig-{profile}" if strategy == "mixed" else "nvidia.com/gpu"
            if resource == wanted:
                out.append((gpu.index, slot))
    return out
