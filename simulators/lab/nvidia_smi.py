"""nvidia-smi as the driver container runs it: `-L` lists GPUs and their MIG devices."""

from __future__ import annotations

from simulators.backends.base import Gpu
from simulators.lab.tool import Output


def list_gpus(gpus: list[Gpu]) -> str:
    """`nvidia-smi -L`: one line per GPU, then its MIG devices indented beneath it."""
    lines = []
    for gpu in gpus:
        lines.append(f"GPU {gpu.index}: {gpu.name} (UUID: {gpu.uuid})")
        for i, dev in enumerate(gpu.mig_devices):
            lines.append(f"  MIG {dev.profile:<12}Device {i:>2}: (UUID: {dev.uuid})")
    return "\n".join(lines)


def summary(gpus: list[Gpu]) -> str:
    """A short plain `nvidia-smi` table: enough to see MIG mode per GPU."""
    top = "+" + "-" * 89 + "+"
    rule = "+" + "-" * 41 + "+" + "-" * 24 + "+" + "-" * 22 + "+"
    lines = [
        top,
        "| NVIDIA-SMI 550.127.08"
        + " " * 13
        + "Driver Version: 550.127.08"
        + " " * 5
        + "CUDA Version: 12.4     |",
        rule,
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A "
        "| Volatile Uncorr. ECC |",
        "|                                         |           Memory-Usage "
        "|               MIG M. |",
        rule.replace("-", "="),
    ]
    for gpu in gpus:
        mig = "Enabled" if gpu.mig_enabled else "Disabled"
        bus = f"00000000:{0x18 + gpu.index * 0x10:02X}:00.0"
        lines.append(
            f"| {gpu.index:>3}  NVIDIA H100 80GB HBM3          On  | {bus} Off "
            "|                    0 |"
        )
        lines.append(
            f"|                                         |       0MiB /  81559MiB |{mig:>21} |"
        )
        lines.append(rule)
    return "\n".join(lines)


def run(gpus: list[Gpu], args: list[str]) -> Output:
    if not gpus:
        return Output.error("No devices were found\ncommand terminated with exit code 6", 6)
    if args in (["-L"], ["--list-gpus"]):
        return Output(list_gpus(gpus))
    if not args:
        return Output(summary(gpus))
    if args[:1] == ["mig"] and args[1:] in (["-lgi"], ["-lgip"]):
        return Output(_mig_instances(gpus))
    return Output.error(
        "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n"
        "command terminated with exit code 2",
        2,
    )


def _mig_instances(gpus: list[Gpu]) -> str:
    rows = []
    for gpu in gpus:
        for i, dev in enumerate(gpu.mig_devices):
            rows.append(
                f"|  {gpu.index:>3}  MIG {dev.profile:<12} {i:>5}   {i:>4}   {i}:{1}          |"
            )
    if not rows:
        return "No MIG-enabled devices found."
    head = [
        "+-------------------------------------------------------+",
        "| GPU instances:                                        |",
        "| GPU   Name             Profile  Instance   Placement  |",
        "|                          ID       ID       Start:Size |",
        "|=======================================================|",
    ]
    return "\n".join(head + rows + ["+-------------------------------------------------------+"])
