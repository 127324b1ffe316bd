"""runai submit in both shapes: flags checked as the real CLI checks them, then a workload."""

from __future__ import annotations

import re

from simulators.cluster.api import ApiError, Obj
from simulators.controllers import runai as runai_ctl
from simulators.lab.flags import Flag, parse
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
    Flag("command", long="command"),
    Flag("environment", long="environment", short="e", takes_value=True),
    Flag("node-pools", long="node-pools", takes_value=True),
    Flag("preemptible", long="preemptible"),
    Flag("help", long="help", short="h"),
]

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
    if len(parsed.positionals) != 1:
        raise err(f"accepts 1 arg(s), received {len(parsed.positionals)}")
    name = parsed.positionals[0]
    project = current_project(ctx, parsed)
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
    )
    if kind == "distributed":
        return Output(
            f"Creating distributed training workload {name}...\n"
            "To track the workload's status, run 'runai training pytorch list'"
        )
    noun = kind if kind in ("workspace", "inference") else "training"
    return Output(
        f"Creating {noun} {name}...\nTo track the workload's status, run 'runai {noun} list'"
    )


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
