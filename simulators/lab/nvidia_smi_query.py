"""nvidia-smi's query modes for driver 550 on a DGX H100: ``--query-gpu`` with ``--format=csv``,
``-q`` (with ``-d``), ``-i``, ``topo -m`` and ``-h``.

Field names, units and layouts follow nvidia-smi(1) of the 550 driver (``nvidia-smi
--help-query-gpu``) and the DGX H100 user guide's topology (docs/lab-tools.md). The
numbers come from the same `GpuView` as nvidia-smi's summary screen, so every mode agrees.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from simulators.lab.tool import Output

DRIVER = "550.127.08"
CUDA = "12.4"
USAGE = "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help."
RESERVED_MIB = 328
BAR1_MIB = 131072

# The DGX H100's sockets: GPUs 0-3 and their NICs on NUMA node 0, 4-7 on node 1.
CPU_AFFINITY = ("0-55,112-167", "56-111,168-223")
NVLINKS = 18  # NVLink 4 links per H100 through the NVSwitches: NV18 between every pair
# ConnectX-7: one compute-fabric port per GPU, then the two storage/in-band ports per socket.
NICS = ("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7",
        "mlx5_8", "mlx5_9", "mlx5_10", "mlx5_11")  # fmt: skip


@dataclass(frozen=True)
class Reading:
    """What the query modes read of one GPU (from nvidia_smi.GpuView and its figures)."""

    index: int
    name: str
    uuid: str
    bus: str
    serial: str
    memory_total: int
    memory_used: int
    utilization: int | None  # None under MIG: N/A
    memory_utilization: int | None
    temperature: int
    power: float
    power_cap: int
    mig: bool
    count: int

    @property
    def memory_free(self) -> int:
        return max(0, self.memory_total - RESERVED_MIB - self.memory_used)

    @property
    def numa(self) -> int:
        return 0 if self.index < 4 else 1


# field name -> (header unit, value with its unit, value without)
Field = Callable[[Reading], tuple[str, str]]


def _pct(value: int | None) -> tuple[str, str]:
    return ("[N/A]", "[N/A]") if value is None else (f"{value} %", str(value))


FIELDS: dict[str, tuple[str, Field]] = {
    "timestamp": ("", lambda r: ("", "")),  # filled in by query_gpu
    "driver_version": ("", lambda r: (DRIVER, DRIVER)),
    "count": ("", lambda r: (str(r.count), str(r.count))),
    "index": ("", lambda r: (str(r.index), str(r.index))),
    "name": ("", lambda r: (r.name, r.name)),
    "gpu_name": ("", lambda r: (r.name, r.name)),
    "serial": ("", lambda r: (r.serial, r.serial)),
    "gpu_serial": ("", lambda r: (r.serial, r.serial)),
    "uuid": ("", lambda r: (r.uuid, r.uuid)),
    "gpu_uuid": ("", lambda r: (r.uuid, r.uuid)),
    "pci.bus_id": ("", lambda r: (r.bus, r.bus)),
    "gpu_bus_id": ("", lambda r: (r.bus, r.bus)),
    "persistence_mode": ("", lambda r: ("Enabled", "Enabled")),
    "pstate": ("", lambda r: ("P0", "P0")),
    "compute_mode": ("", lambda r: ("Default", "Default")),
    "memory.total": (" [MiB]", lambda r: (f"{r.memory_total} MiB", str(r.memory_total))),
    "memory.reserved": (" [MiB]", lambda r: (f"{RESERVED_MIB} MiB", str(RESERVED_MIB))),
    "memory.used": (" [MiB]", lambda r: (f"{r.memory_used} MiB", str(r.memory_used))),
    "memory.free": (" [MiB]", lambda r: (f"{r.memory_free} MiB", str(r.memory_free))),
    "utilization.gpu": (" [%]", lambda r: _pct(r.utilization)),
    "utilization.memory": (" [%]", lambda r: _pct(r.memory_utilization)),
    "temperature.gpu": ("", lambda r: (str(r.temperature), str(r.temperature))),
    "power.draw": (" [W]", lambda r: (f"{r.power:.2f} W", f"{r.power:.2f}")),
    "power.limit": (" [W]", lambda r: (f"{r.power_cap:.2f} W", f"{r.power_cap:.2f}")),
    "enforced.power.limit": (" [W]", lambda r: (f"{r.power_cap:.2f} W", f"{r.power_cap:.2f}")),
    "mig.mode.current": ("", lambda r: (_mig(r), _mig(r))),
    "mig.mode.pending": ("", lambda r: (_mig(r), _mig(r))),
    "ecc.mode.current": ("", lambda r: ("Enabled", "Enabled")),
    "ecc.errors.uncorrected.volatile.total": ("", lambda r: ("0", "0")),
    "ecc.errors.corrected.volatile.total": ("", lambda r: ("0", "0")),
    "clocks.sm": (" [MHz]", lambda r: ("1980 MHz", "1980")),
    "clocks.max.sm": (" [MHz]", lambda r: ("1980 MHz", "1980")),
}


def _mig(reading: Reading) -> str:
    return "Enabled" if reading.mig else "Disabled"


def query_gpu(readings: list[Reading], fields_text: str, fmt: str, now: datetime) -> Output:
    """`--query-gpu=a,b --format=csv[,noheader][,nounits]`: one CSV line per GPU."""
    options = [part.strip() for part in fmt.split(",")]
    if not options or options[0] != "csv" or not set(options[1:]) <= {"noheader", "nounits"}:
        return Output.error(f'"{fmt}" is not a valid format.', 2)
    names = [name.strip() for name in fields_text.split(",") if name.strip()]
    if not names:
        return Output.error(USAGE, 2)
    for name in names:
        if name not in FIELDS:
            return Output.error(f'Field "{name}" is not a valid field to query.', 2)
    units = "nounits" not in options
    lines = [] if "noheader" in options else [", ".join(n + FIELDS[n][0] for n in names)]
    stamp = now.strftime("%Y/%m/%d %H:%M:%S.000")
    for reading in readings:
        values = []
        for name in names:
            if name == "timestamp":
                values.append(stamp)
                continue
            with_unit, bare = FIELDS[name][1](reading)
            values.append(with_unit if units else bare)
        lines.append(", ".join(values))
    return Output("\n".join(lines))


SECTIONS = ("MEMORY", "UTILIZATION", "ECC", "TEMPERATURE", "POWER")


def _line(label: str, value: object, depth: int = 1) -> str:
    indent = "    " * depth
    return f"{indent}{label:<{42 - len(indent)}}: {value}"


def _section(name: str, r: Reading) -> list[str]:
    if name == "MEMORY":
        return [
            "    FB Memory Usage",
            _line("Total", f"{r.memory_total} MiB", 2),
            _line("Reserved", f"{RESERVED_MIB} MiB", 2),
            _line("Used", f"{r.memory_used} MiB", 2),
            _line("Free", f"{r.memory_free} MiB", 2),
            "    BAR1 Memory Usage",
            _line("Total", f"{BAR1_MIB} MiB", 2),
            _line("Used", "1 MiB", 2),
            _line("Free", f"{BAR1_MIB - 1} MiB", 2),
            "    Conf Compute Protected Memory Usage",
            _line("Total", "0 MiB", 2),
            _line("Used", "0 MiB", 2),
            _line("Free", "0 MiB", 2),
        ]
    if name == "UTILIZATION":
        gpu = "N/A" if r.utilization is None else f"{r.utilization} %"
        memory = "N/A" if r.memory_utilization is None else f"{r.memory_utilization} %"
        return [
            "    Utilization",
            _line("Gpu", gpu, 2),
            _line("Memory", memory, 2),
            _line("Encoder", "0 %", 2),
            _line("Decoder", "0 %", 2),
            _line("JPEG", "0 %", 2),
            _line("OFA", "0 %", 2),
        ]
    if name == "ECC":
        counts = [
            "SRAM Correctable",
            "SRAM Uncorrectable Parity",
            "SRAM Uncorrectable SEC-DED",
            "DRAM Correctable",
            "DRAM Uncorrectable",
        ]
        return [
            "    ECC Mode",
            _line("Current", "Enabled", 2),
            _line("Pending", "Enabled", 2),
            "    ECC Errors",
            "        Volatile",
            *(_line(label, 0, 3) for label in counts),
            "        Aggregate",
            *(_line(label, 0, 3) for label in counts),
            _line("SRAM Threshold Exceeded", "No", 3),
        ]
    if name == "TEMPERATURE":
        return [
            "    Temperature",
            _line("GPU Current Temp", f"{r.temperature} C", 2),
            _line("GPU T.Limit Temp", f"{87 - r.temperature} C", 2),
            _line("GPU Shutdown T.Limit Temp", "-5 C", 2),
            _line("GPU Slowdown T.Limit Temp", "-2 C", 2),
            _line("GPU Max Operating T.Limit Temp", "0 C", 2),
            _line("GPU Target Temperature", "N/A", 2),
            _line("Memory Current Temp", f"{r.temperature + 7} C", 2),
            _line("Memory Max Operating T.Limit Temp", "0 C", 2),
        ]
    return [
        "    GPU Power Readings",
        _line("Power Draw", f"{r.power:.2f} W", 2),
        _line("Current Power Limit", f"{r.power_cap:.2f} W", 2),
        _line("Requested Power Limit", f"{r.power_cap:.2f} W", 2),
        _line("Default Power Limit", f"{r.power_cap:.2f} W", 2),
        _line("Min Power Limit", "200.00 W", 2),
        _line("Max Power Limit", f"{r.power_cap:.2f} W", 2),
    ]


def _identity(r: Reading) -> list[str]:
    mig = _mig(r)
    return [
        _line("Product Name", r.name),
        _line("Product Brand", "NVIDIA"),
        _line("Product Architecture", "Hopper"),
        _line("Display Mode", "Disabled"),
        _line("Display Active", "Disabled"),
        _line("Persistence Mode", "Enabled"),
        _line("Addressing Mode", "None"),
        "    MIG Mode",
        _line("Current", mig, 2),
        _line("Pending", mig, 2),
        _line("Accounting Mode", "Disabled"),
        _line("Accounting Mode Buffer Size", "4000"),
        "    Driver Model",
        _line("Current", "N/A", 2),
        _line("Pending", "N/A", 2),
        _line("Serial Number", r.serial),
        _line("GPU UUID", r.uuid),
        _line("Minor Number", r.index),
        _line("VBIOS Version", "96.00.74.00.11"),
        _line("MultiGPU Board", "No"),
        _line("Board ID", f"0x{int(r.bus[9:11], 16) << 8:x}"),
        _line("Board Part Number", "692-2G520-0200-000"),
        _line("GPU Part Number", "2330-885-A1"),
        _line("Compute Mode", "Default"),
        _line("Performance State", "P0"),
    ]


def query_log(readings: list[Reading], sections: list[str], now: datetime) -> Output:
    """`-q` (every section) or `-q -d A,B` (those only), as the NVSMI LOG prints them."""
    lines = [
        "",
        "==============NVSMI LOG==============",
        "",
        f"{'Timestamp':<42}: {now.strftime('%a %b %e %H:%M:%S %Y')}",
        f"{'Driver Version':<42}: {DRIVER}",
        f"{'CUDA Version':<42}: {CUDA}",
        "",
        f"{'Attached GPUs':<42}: {readings[0].count if readings else 0}",
    ]
    for reading in readings:
        lines.append(f"GPU {reading.bus}")
        if not sections:
            lines += _identity(reading)
        for name in sections or SECTIONS:
            lines += _section(name, reading)
        lines.append("")
    return Output("\n".join(lines))


def display_sections(text: str) -> list[str] | None:
    """`-d MEMORY,ECC`: the sections asked for, or None for an unknown one."""
    names = [part.strip().upper() for part in text.split(",") if part.strip()]
    if not names or any(name not in SECTIONS for name in names):
        return None
    return [name for name in SECTIONS if name in names]


def topology(count: int) -> Output:
    """`topo -m`: the DGX H100's matrix (NVSwitch: NV18 between every GPU pair)."""
    gpus = [f"GPU{i}" for i in range(count)]
    nics = [f"NIC{i}" for i in range(len(NICS))]
    head = "\t" + "\t".join(gpus + nics) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"
    lines = [head]

    def nic_numa(n: int) -> int:
        # NICs 0-7 sit beside GPUs 0-7; the storage pairs 8-9 on socket 0, 10-11 on socket 1.
        return (0 if n < 4 else 1) if n < 8 else (0 if n < 10 else 1)

    def gpu_to_nic(g: int, n: int) -> str:
        if n == g:
            return "PXB"
        return "NODE" if nic_numa(n) == (0 if g < 4 else 1) else "SYS"

    for g in range(count):
        numa = 0 if g < 4 else 1
        cells = ["X" if g == other else f"NV{NVLINKS}" for other in range(count)]
        cells += [gpu_to_nic(g, n) for n in range(len(NICS))]
        lines.append(f"{gpus[g]}\t " + "\t".join(cells) + f"\t{CPU_AFFINITY[numa]}\t{numa}\t\tN/A")
    for n in range(len(NICS)):
        cells = [gpu_to_nic(g, n) for g in range(count)]
        cells += [
            "X" if n == m else ("NODE" if nic_numa(n) == nic_numa(m) else "SYS")
            for m in range(len(NICS))
        ]
        lines.append(f"{nics[n]}\t " + "\t".join(cells))
    lines += [
        "",
        "Legend:",
        "",
        "  X    = Self",
        "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
        "(e.g., QPI/UPI)",
        "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host "
        "Bridges within a NUMA node",
        "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
        "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
        "Bridge)",
        "  PIX  = Connection traversing at most a single PCIe bridge",
        "  NV#  = Connection traversing a bonded set of # NVLinks",
        "",
        "NIC Legend:",
        "",
        *(f"  NIC{i}: {name}" for i, name in enumerate(NICS)),
    ]
    return Output("\n".join(lines))


_TOPO = 'Displays device/system topology. "nvidia-smi topo -h" for more information.'
_MIG = 'Multi Instance GPU management. "nvidia-smi mig -h" for more information.'
HELP = f"""NVIDIA System Management Interface -- v{DRIVER}

NVSMI provides monitoring information for Tesla and select Quadro devices.
The data is presented in either a plain text or an XML format, via stdout or a file.
NVSMI also provides several management operations for changing the device state.

Note that the functionality of NVSMI is exposed through the NVML C-based
library. See the NVIDIA developer website for more information about NVML.
Python wrappers to NVML are also available.  The output of NVSMI is
not guaranteed to be backwards compatible; NVML and the bindings are backwards
compatible.

http://developer.nvidia.com/nvidia-management-library-nvml/
http://pypi.python.org/pypi/nvidia-ml-py/
Supported products:
- Full Support
    - All Tesla products, starting with the Kepler architecture
    - All Quadro products, starting with the Kepler architecture
    - All GRID products, starting with the Kepler architecture
    - GeForce Titan products, starting with the Kepler architecture
- Limited Support
    - All Geforce products, starting with the Kepler architecture
nvidia-smi [OPTION1 [ARG1]] [OPTION2 [ARG2]] ...

    -h,   --help                Print usage information and exit.

  LIST OPTIONS:

    -L,   --list-gpus           Display a list of GPUs connected to the system.

  SUMMARY OPTIONS:

    <no arguments>              Show a summary of GPUs connected to the system.

    [plus any of]

    -i,   --id=                 Target a specific GPU.

  QUERY OPTIONS:

    -q,   --query               Display GPU or Unit info.

    [plus any of]

    -i,   --id=                 Target a specific GPU.
    -d,   --display=            Display only selected information: MEMORY,
                                    UTILIZATION, ECC, TEMPERATURE, POWER, CLOCK,
                                    COMPUTE, PIDS, PERFORMANCE, SUPPORTED_CLOCKS,
                                    PAGE_RETIREMENT, ACCOUNTING, ENCODER_STATS,
                                    SUPPORTED_GPU_TARGET_TEMP, VOLTAGE, FBC_STATS
                                    ROW_REMAPPER, RESET_STATUS, GSP_FIRMWARE_VERSION
                                Flags can be combined with comma e.g. ECC,POWER.
                                Sampling data with max/min/avg is also returned
                                for POWER, UTILIZATION and CLOCK display types.
                                Doesn't work with -u or -x flags.

  SELECTIVE QUERY OPTIONS:

    Allows the caller to pass an explicit list of properties to query.

    [one of]

    --query-gpu                 Information about GPU.
                                Call --help-query-gpu for more info.

    [mandatory]

    --format=                   Comma separated list of format options:
                                  csv - comma separated values (MANDATORY)
                                  noheader - skip the first line with column headers
                                  nounits - don't print units for numerical
                                             values

  TOPOLOGY:

    topo                        {_TOPO}

  MIG:

    mig                         {_MIG}

Please see the nvidia-smi(1) manual page for more detailed information."""
