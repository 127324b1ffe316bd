"""runai submit in both shapes: flags checked as the real CLI checks them, then a workload."""

from __future__ import annotations

import contextlib
import hashlib
import re
from typing import Any

from simulators.cluster.api import ApiError, Obj
from simulators.cluster.quantity import QuantityError, parse_quantity
from simulators.controllers import runai as runai_ctl
from simulators.lab.flags import Flag, Parsed, parse
from simulators.lab.runai.common import config, current_project, err, name_of
from simulators.lab.tool import Context, Output

NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$")

SUBMIT_FLAGS = [
    Flag("image", long="image", short="i", takes_value=True),
    Flag("project", long="project", short="p", takes_value=True),
    Flag("gpu", long="gpu-devices-request", short="g", takes_value=True),
    Flag("portion", long="gpu-portion-request", takes_value=True),
    Flag("memory", long="gpu-memory-request", takes_value=True),
    Flag("workers", long="workers", takes_value=True),
    Flag("no-master", long="no-master"),
    Flag("command", long="command", short="c"),
    Flag("environment", long="environment", short="e", takes_value=True),
    Flag("node-pools", long="node-pools", takes_value=True),
    Flag("preemptible", long="preemptible"),
    Flag("name-prefix", long="name-prefix", takes_value=True),
    Flag("cpu-core-request", long="cpu-core-request", takes_value=True),
    Flag("cpu-core-limit", long="cpu-core-limit", takes_value=True),
    Flag("cpu-memory-request", long="cpu-memory-request", takes_value=True),
    Flag("cpu-memory-limit", long="cpu-memory-limit", takes_value=True),
    Flag("attach", long="attach"),
    Flag("stdin", long="stdin"),
    Flag("tty", long="tty", short="t"),
    Flag("serving-port", long="serving-port", takes_value=True),
    Flag("extended-resource", long="extended-resource", takes_value=True),
    Flag("capability", long="capability", takes_value=True),
    Flag("help", long="help", short="h"),
]

# The CPU flags and the spec fields they fill (the controller turns them into the pods'
# resources.requests and resources.limits).
CPU_FLAGS = {
    "cpu-core-request": "cpuCoreRequest",
    "cpu-core-limit": "cpuCoreLimit",
    "cpu-memory-request": "cpuMemoryRequest",
    "cpu-memory-limit": "cpuMemoryLimit",
}

MAX_CORES = 10000  # far above any node's, so a typo reads as an error, not a pod no node fits

# What a generated name starts with: the workload's type, as `runai training pytorch submit`
# without a name makes pytorch-06027b585626.
NAME_STEMS = {
    "training": "training",
    "distributed": "pytorch",
    "workspace": "workspace",
    "inference": "inference",
}

NO_SHELL = (
    "The lab has no container shell to attach to: the workload was submitted; run one command "
    "in it with 'runai {noun} exec {name} -- <command>'"
)

V1_SUBMIT_FLAGS = [
    Flag("image", long="image", short="i", takes_value=True),
    Flag("project", long="project", short="p", takes_value=True),
    Flag("gpu", long="gpu", short="g", takes_value=True),
    Flag("memory", long="gpu-memory", takes_value=True),
    Flag("interactive", long="interactive"),
    Flag("workers", long="workers", takes_value=True),
    Flag("no-master", long="no-master"),
    Flag("name", long="name", takes_value=True),
    Flag("command", long="command"),
    Flag("environment", long="environment", short="e", takes_value=True),
    Flag("help", long="help", short="h"),
]


def set_active(ctx: Context, wl: Obj, active: bool) -> None:
    ctx.api.patch(
        runai_ctl.resource_of(wl),
        name_of(wl),
        {"spec": {"active": {"value": active}}},
        wl["metadata"]["namespace"],
    )


def delete_workload(ctx: Context, wl: Obj) -> None:
    ctx.api.delete(runai_ctl.resource_of(wl), name_of(wl), wl["metadata"]["namespace"])


def submit_v2(ctx: Context, kind: str, args: list[str]) -> Output:
    parsed = parse(args, SUBMIT_FLAGS)
    if len(parsed.positionals) > 1:
        raise err(f"accepts at most 1 arg(s), received {len(parsed.positionals)}")
    if parsed.has("serving-port") and kind != "inference":
        raise err("unknown flag: --serving-port")
    project = current_project(ctx, parsed)
    prefix = parsed.value("name-prefix")
    if parsed.positionals:
        name = parsed.positionals[0]
    elif prefix is not None:
        name = _indexed_name(ctx, project, prefix)
    else:
        name = _generated_name(ctx, project, NAME_STEMS[kind])
    extra = {**_cpu_fields(parsed), **_container_fields(parsed)}
    if parsed.has("serving-port"):
        extra["servingPort"] = {"value": _serving_port(parsed.value("serving-port") or "")}
    image = parsed.value("image")
    if not image:
        raise err('required flag(s) "image" not set')
    gpu_flag = parsed.value("gpu")
    portion = parsed.value("portion")
    memory = parsed.value("memory")
    gpus = 0.0
    if gpu_flag is not None:
        if not gpu_flag.isdigit():
            raise err(
                f'invalid argument "{gpu_flag}" for "-g, --gpu-devices-request" flag: '
                f'strconv.ParseInt: parsing "{gpu_flag}": invalid syntax'
            )
        gpus = float(int(gpu_flag))
    if portion is not None:
        try:
            gpus = float(portion)
        except ValueError:
            raise err(
                f'invalid argument "{portion}" for "--gpu-portion-request" flag: '
                f'strconv.ParseFloat: parsing "{portion}": invalid syntax'
            ) from None
        if not 0 < gpus < 1:
            raise err("--gpu-portion-request must be between 0 and 1 (for example 0.5)")
    if portion is not None and gpu_flag is not None:
        raise err("use either -g or --gpu-portion-request, not both")
    workers = 1
    if kind == "distributed":
        raw = parsed.value("workers")
        if raw is None:
            raise err('required flag(s) "workers" not set')
        if not raw.isdigit() or int(raw) < 1:
            raise err(f'invalid argument "{raw}" for "--workers" flag')
        workers = int(raw)
    pools = node_pools_flag(ctx, parsed.value("node-pools"))
    preemptible = True if parsed.has("preemptible") else None
    if parsed.has("no-master") and kind != "distributed":
        raise err("unknown flag: --no-master")
    create_workload(
        ctx,
        name,
        project,
        kind,
        image,
        workers,
        gpus,
        memory,
        pools,
        preemptible,
        no_master=parsed.has("no-master"),
        extra=extra,
    )
    noun = kind if kind in ("workspace", "inference") else "training"
    if kind == "distributed":
        text = (
            f"Creating distributed training workload {name}...\n"
            "To track the workload's status, run 'runai training pytorch list'"
        )
    else:
        text = f"Creating {noun} {name}...\nTo track the workload's status, run 'runai {noun} list'"
    if parsed.has("attach"):
        text += "\n" + NO_SHELL.format(noun=noun, name=name)
    return Output(text)


def _taken(ctx: Context, project: str) -> set[str]:
    namespace = runai_ctl.namespace_for(project)
    names: set[str] = set()
    for resource in runai_ctl.WORKLOAD_RESOURCES.values():
        with contextlib.suppress(ApiError):
            names |= {name_of(w) for w in ctx.api.list(resource, namespace).get("items", [])}
    return names


def _indexed_name(ctx: Context, project: str, prefix: str) -> str:
    """`--name-prefix jupyter`: the prefix with the first free index, jupyter-1, jupyter-2 ..."""
    taken = _taken(ctx, project)
    index = 1
    while f"{prefix}-{index}" in taken:
        index += 1
    return f"{prefix}-{index}"


def _generated_name(ctx: Context, project: str, stem: str) -> str:
    """A name the CLI makes up: the type and 12 hex digits (stable for the lab's replays)."""
    taken = _taken(ctx, project)
    seed = f"{project}/{stem}/{len(taken)}/{ctx.api.now().isoformat()}"
    for attempt in range(100):
        digest = hashlib.sha256(f"{seed}/{attempt}".encode()).hexdigest()[:12]
        if f"{stem}-{digest}" not in taken:
            return f"{stem}-{digest}"
    raise err("could not generate a free workload name; pass one")


def _cpu_fields(parsed: Parsed) -> dict[str, Any]:
    """--cpu-core-request 0.5, --cpu-memory-request 1G and their limits, checked as pflag and
    the API check them, as workload spec fields."""
    fields: dict[str, Any] = {}
    for flag, field in CPU_FLAGS.items():
        raw = parsed.value(flag)
        if raw is None:
            continue
        if "core" in flag:
            try:
                cores = float(raw)
            except ValueError:
                raise err(
                    f'invalid argument "{raw}" for "--{flag}" flag: strconv.ParseFloat: parsing '
                    f'"{raw}": invalid syntax'
                ) from None
            if not 0.001 <= cores <= MAX_CORES:
                raise err(f"--{flag} must be between 0.001 and {MAX_CORES} cores")
            fields[field] = {"value": f"{cores:g}"}
            continue
        try:
            size = parse_quantity(raw)
        except QuantityError:
            size = None
        if size is None or not 0 < size < 2**63:
            raise err(f'invalid --{flag} "{raw}": use a quantity such as 500M or 1G')
        fields[field] = {"value": raw}
    return fields


CAPABILITY_RE = re.compile(r"^(CAP_)?[A-Z][A-Z_]*$")


def _container_fields(parsed: Parsed) -> dict[str, Any]:
    """-e NAME=VALUE, --extended-resource NAME=QUANTITY and --capability NAME (each may be
    repeated) as the workload's environment, extendedResources and capabilities."""
    fields: dict[str, Any] = {}
    env = parsed.all("environment")
    for entry in env:
        name, eq, _ = entry.partition("=")
        if not eq or not name:
            raise err(f'invalid environment variable "{entry}": use the format NAME=VALUE')
    if env:
        fields["environment"] = {"value": env}
    resources = parsed.all("extended-resource")
    for entry in resources:
        name, eq, quantity = entry.partition("=")
        try:
            amount = parse_quantity(quantity) if eq and name else None
        except QuantityError:
            amount = None
        if amount is None or amount <= 0:
            raise err(
                f'invalid extended resource "{entry}": use the format resource_name=quantity '
                "(for example rdma/rdma_shared_device_a=1)"
            )
    if resources:
        fields["extendedResources"] = {"value": resources}
    capabilities = parsed.all("capability")
    for cap in capabilities:
        if not CAPABILITY_RE.match(cap):
            raise err(f'invalid capability "{cap}": use a POSIX capability name such as IPC_LOCK')
    if capabilities:
        fields["capabilities"] = {"value": capabilities}
    return fields


def _serving_port(raw: str) -> str:
    """`--serving-port 8000` or `--serving-port container=8000,protocol=http,...`: the port."""
    port = raw
    if "=" in raw:
        pairs = dict(part.partition("=")[::2] for part in raw.split(",") if part)
        port = pairs.get("container", "")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise err(
            f'invalid --serving-port "{raw}": use CONTAINER_PORT or container=CONTAINER_PORT,... '
            "(a port from 1 to 65535)"
        )
    return port


def create_workload(
    ctx: Context,
    name: str,
    project: str,
    kind: str,
    image: str,
    workers: int,
    gpus: float,
    memory: str | None,
    node_pools: list[str] | None = None,
    preemptible: bool | None = None,
    *,
    no_master: bool = False,
    extra: dict[str, Any] | None = None,
) -> None:
    """Create the workload custom resource; a distributed one runs `workers` worker pods plus
    a master pod unless `no_master`."""
    if not NAME_RE.match(name):
        raise err(
            f'invalid workload name "{name}": use lower-case letters, digits and "-", '
            "starting and ending with a letter or digit (at most 40 characters)"
        )
    if gpus == 0 and not memory:
        raise err(
            "this lab runs GPU workloads only: pass -g, --gpu-portion-request or "
            "--gpu-memory-request"
        )
    api = ctx.api
    namespace = runai_ctl.namespace_for(project)
    for resource in runai_ctl.WORKLOAD_RESOURCES.values():
        try:
            api.get(resource, name, namespace)
        except ApiError:
            continue
        raise err(f'a workload named "{name}" already exists in project {project}')
    obj = runai_ctl.workload_object(
        kind,
        name,
        project,
        image,
        gpu=gpus,
        gpu_memory=memory,
        workers=workers,
        no_master=no_master,
        node_pools=node_pools,
        preemptible=preemptible,
    )
    obj["spec"].update(extra or {})
    api.create(runai_ctl.WORKLOAD_RESOURCES[kind], obj, namespace)


def pool_names(ctx: Context) -> list[str]:
    names = {runai_ctl.node_pool_of(n) for n in ctx.api.list("nodes").get("items", [])}
    return sorted(names | {runai_ctl.DEFAULT_POOL})


def node_pools_flag(ctx: Context, raw: str | None) -> list[str] | None:
    """`--node-pools l40s,h100`: existing pools, in order of preference."""
    if raw is None:
        return None
    pools = [p.strip() for p in raw.split(",") if p.strip()]
    if not pools:
        raise err('invalid argument "" for "--node-pools" flag: name at least one node pool')
    known = pool_names(ctx)
    for pool in pools:
        if pool not in known:
            raise err(
                f'node pool "{pool}" not found in cluster {config(ctx).cluster} '
                f"(node pools: {', '.join(known)})"
            )
    if len(set(pools)) != len(pools):
        raise err("--node-pools lists a node pool twice")
    return pools


def submit_v1(ctx: Context, args: list[str], distributed: bool) -> Output:
    parsed = parse(args, V1_SUBMIT_FLAGS)
    name = parsed.value("name") or (parsed.positionals[0] if parsed.positionals else "")
    if not name:
        raise err("a job name is required: runai submit <name> -i <image>")
    project = current_project(ctx, parsed)
    image = parsed.value("image")
    if not image:
        raise err('required flag(s) "image" not set')
    raw = parsed.value("gpu")
    gpus = 0.0
    if raw is not None:
        try:
            gpus = float(raw)
        except ValueError:
            raise err(
                f'invalid argument "{raw}" for "-g, --gpu" flag: strconv.ParseFloat: parsing '
                f'"{raw}": invalid syntax'
            ) from None
        if gpus <= 0 or (gpus > 1 and gpus != int(gpus)):
            raise err("-g must be a whole number of GPUs, or a fraction between 0 and 1")
    memory = parsed.value("memory")
    workers = 1
    kind = "workspace" if parsed.has("interactive") else "training"
    if distributed:
        raw_workers = parsed.value("workers")
        if raw_workers is None or not raw_workers.isdigit() or int(raw_workers) < 1:
            raise err('required flag(s) "workers" not set')
        workers = int(raw_workers)
        kind = "distributed"
    elif parsed.has("no-master"):
        raise err("unknown flag: --no-master")
    create_workload(
        ctx, name, project, kind, image, workers, gpus, memory, no_master=parsed.has("no-master")
    )
    return Output(
        f"The job '{name}' has been submitted successfully\n"
        f"You can run `runai describe job {name} -p {project}` to check the job status"
    )
