"""nvidia-smi's MIG listings on an H100 80GB: `mig -lgi`, `mig -lgip`, `mig -lci`, and the
driver's placement of GPU instances (their ids, start slots and sizes) that the summary screen
and these listings share.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from simulators.engine.mig import H100_PROFILES
from simulators.lab.tool import Output


class MigGpu(Protocol):
    """What the listings read of a GPU: its index and its MIG devices (None: MIG disabled)."""

    @property
    def index(self) -> int: ...

    @property
    def mig(self) -> list[str] | None: ...


# H100 80GB GPU instance profiles: nvidia-smi's profile ids, placements and sizes.
PROFILE_IDS = {
    "1g.10gb": 19,
    "1g.10gb+me": 20,
    "1g.20gb": 15,
    "2g.20gb": 14,
    "3g.40gb": 9,
    "4g.40gb": 5,
    "7g.80gb": 0,
}
PLACEMENT_STARTS = {
    "1g.10gb": (0, 1, 2, 3, 4, 5, 6),
    "1g.20gb": (0, 2, 4, 6),
    "2g.20gb": (0, 2, 4),
    "3g.40gb": (4, 0),
    "4g.40gb": (0,),
    "7g.80gb": (0,),
}
PROFILE_MIB = {
    "1g.10gb": 9984,
    "1g.20gb": 20096,
    "2g.20gb": 20096,
    "3g.40gb": 40448,
    "4g.40gb": 40448,
    "7g.80gb": 81152,
}
PROFILE_GIB = {
    "1g.10gb": "9.75",
    "1g.20gb": "19.62",
    "2g.20gb": "19.62",
    "3g.40gb": "39.50",
    "4g.40gb": "39.50",
    "7g.80gb": "79.25",
}
PROFILE_SMS = {
    "1g.10gb": 16,
    "1g.20gb": 26,
    "2g.20gb": 32,
    "3g.40gb": 60,
    "4g.40gb": 64,
    "7g.80gb": 132,
}
# Compute instance profile id of the instance that spans the whole GPU instance.
CI_PROFILE_IDS = {1: 0, 2: 1, 3: 2, 4: 3, 7: 4}


def placements(profiles: list[str]) -> list[tuple[int, int, int]]:
    """(GPU instance id, start slot, size) per MIG device, in the device order given.

    Larger instances are placed first at their lowest free start, as the driver's placement
    table allows; the instance id is the driver's id for that placement (0 for the whole GPU,
    1-2 for the halves, 3-6 for the quarters, 7-13 for the 1-slice positions).
    """
    taken: set[int] = set()
    result: dict[int, tuple[int, int, int]] = {}
    order = sorted(range(len(profiles)), key=lambda i: -H100_PROFILES[profiles[i]].memory_slices)
    for i in order:
        profile = profiles[i]
        size = H100_PROFILES[profile].memory_slices
        for start in PLACEMENT_STARTS[profile]:
            cells = set(range(start, start + size))
            if not cells & taken:
                taken |= cells
                result[i] = (_gi_id(start, size), start, size)
                break
        else:
            result[i] = (0, 0, size)
    return [result[i] for i in range(len(profiles))]


def _gi_id(start: int, size: int) -> int:
    if size >= 8:
        return 0
    if size == 4:
        # The driver numbers the upper half first: 3g.40gb at 4:4 is instance 1, at 0:4 is 2.
        return 1 if start == 4 else 2
    if size == 2:
        return 3 + start // 2
    return 7 + start


def _mig_table(title: str, head: list[str], rows: list[str], width: int) -> str:
    rule = "+" + "-" * width + "+"
    out = [rule, f"| {title:<{width - 1}}|", *head, "|" + "=" * width + "|"]
    for row in rows:
        out += [row, rule]
    return "\n".join(out)


def list_gpu_instances(gpus: Sequence[MigGpu]) -> Output:
    rows = []
    for gpu in gpus:
        if gpu.mig is None:
            continue
        for profile, (gi, start, size) in sorted(
            zip(gpu.mig, placements(gpu.mig), strict=True), key=lambda x: x[1][0]
        ):
            rows.append(
                f"| {gpu.index:>3}  MIG {profile:<13}{PROFILE_IDS[profile]:>5}{gi:>9}"
                f"{f'{start}:{size}':>13}     |"
            )
    if not rows:
        return Output.error("No GPU instances found: Not Found", 6)
    head = [
        "| GPU   Name             Profile  Instance   Placement  |",
        "|                          ID       ID       Start:Size |",
    ]
    return Output(_mig_table("GPU instances:", head, rows, 55))


def list_gpu_instance_profiles(gpus: Sequence[MigGpu]) -> Output:
    rows = []
    for gpu in gpus:
        if gpu.mig is None:
            continue
        used = placements(gpu.mig)
        taken = {c for _, start, size in used for c in range(start, start + size)}
        for name in (
            "1g.10gb",
            "1g.10gb+me",
            "1g.20gb",
            "2g.20gb",
            "3g.40gb",
            "4g.40gb",
            "7g.80gb",
        ):
            # 1g.10gb+me is a 1g.10gb slice with the GPU's media engines (NVDEC, NVJPG, OFA):
            # the one instance of its kind on the GPU.
            media = name.endswith("+me")
            profile = name.removesuffix("+me")
            p = H100_PROFILES[profile]
            total = 1 if media else p.max_per_gpu
            free = sum(
                1
                for start in PLACEMENT_STARTS[profile]
                if not set(range(start, start + p.memory_slices)) & taken
            )
            free = min(free, total)
            ce = p.compute_slices if profile != "7g.80gb" else 8
            ofa = 1 if profile == "7g.80gb" or media else 0
            rows.append(
                f"| {gpu.index:>3}  MIG {name:<13}{PROFILE_IDS[name]:>3}"
                f"     {free}/{total:<9}"
                f"{PROFILE_GIB[profile]:<11}No     {PROFILE_SMS[profile]:<6}"
                f" {p.compute_slices:<5} 0   |\n"
                f"|{'':60}{ce:<7}{p.compute_slices:<6}{ofa:<4}|"
            )
    if not rows:
        return Output.error("No MIG-enabled devices found.", 6)
    head = [
        "| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |",
        "|                              Free/Total   GiB              CE    JPEG  OFA  |",
    ]
    return Output(_mig_table("GPU instance profiles:", head, rows, 77))


def list_compute_instances(gpus: Sequence[MigGpu]) -> Output:
    rows = []
    for gpu in gpus:
        if gpu.mig is None:
            continue
        for profile, (gi, _start, _size) in sorted(
            zip(gpu.mig, placements(gpu.mig), strict=True), key=lambda x: x[1][0]
        ):
            slices = H100_PROFILES[profile].compute_slices
            rows.append(
                f"| {gpu.index:>3}{gi:>7}       MIG {profile:<12}{CI_PROFILE_IDS[slices]:>6}"
                f"{0:>10}{f'0:{slices}':>13}     |"
            )
    if not rows:
        return Output.error("No compute instances found: Not Found", 6)
    head = [
        "| GPU     GPU       Name             Profile   Instance   Placement  |",
        "|       Instance                       ID        ID       Start:Size |",
        "|         ID                                                         |",
    ]
    return Output(_mig_table("Compute instances:", head, rows, 68))
