"""The runai CLI in both shapes, v2 (noun-verb) and v1 (submit, list jobs, describe job),
as a client of the cluster API.

Submitting creates a Run:ai workload custom resource (TrainingWorkload, InteractiveWorkload,
DistributedWorkload); the workload controller turns it into a PodGroup and pods that the
scheduler places on a later step, so `runai training list` right after a submit shows
Pending, as on a real cluster. Projects are `projects.run.ai` objects.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from simulators.cluster.api import ApiError, Obj
from simulators.controllers import hardware
from simulators.controllers import runai as runai_ctl
from simulators.engine.messages import gpus as fmt_gpus
from simulators.engine.mig import mig_profile
from simulators.lab import nvidia_smi  # noqa: F401  (registers the nvidia-smi exec handler)
from simulators.lab.flags import Flag, FlagError, Parsed, parse
from simulators.lab.kubectl.common import parse_ts, since
from simulators.lab.render import format_gpus, format_quota, padded_table, runai_table
from simulators.lab.tool import Context, Output

VERSION = "2.17.42"
NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$")

SUBMIT_FLAGS = [
    Flag("image", long="image", short="i", takes_value=True),
    Flag("project", long="project", short="p", takes_value=True),
    Flag("gpu", long="gpu-devices-request", short="g", takes_value=True),
    Flag("portion", long="gpu-portion-request", takes_value=True),
    Flag("memory", long="gpu-memory-request", takes_value=True),
    Flag("workers", long="workers", takes_value=True),
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
    Flag("name", long="name", takes_value=True),
    Flag("command", long="command"),
    Flag("environment", long="environment", short="e", takes_value=True),
    Flag("help", long="help", short="h"),
]
LIST_FLAGS = [
    Flag("project", long="project", short="p", takes_value=True),
    Flag("all", long="all", short="A"),
    Flag("help", long="help", short="h"),
]
NAME_FLAGS = [
    Flag("project", long="project", short="p", takes_value=True),
    Flag("follow", long="follow", short="f"),
    Flag("tail", long="tail", takes_value=True),
    Flag("stdin", long="stdin", short="i"),
    Flag("tty", long="tty", short="t"),
    Flag("help", long="help", short="h"),
]

V2_NOUNS = {
    "training": (
        "submit",
        "list",
        "describe",
        "logs",
        "exec",
        "delete",
        "suspend",
        "resume",
        "pytorch",
    ),
    "workspace": ("submit", "list", "describe", "logs", "exec", "delete", "suspend", "resume"),
    "inference": ("submit", "list", "describe", "logs", "delete"),
    "workload": ("list", "describe"),
    "project": ("list", "set"),
    "cluster": ("list", "set"),
    "node": ("list",),
    "nodepool": ("list",),
}
TOP = (
    "cluster",
    "config",
    "delete",
    "describe",
    "exec",
    "inference",
    "list",
    "login",
    "logout",
    "logs",
    "node",
    "nodepool",
    "project",
    "submit",
    "submit-dist",
    "training",
    "version",
    "whoami",
    "workload",
    "workspace",
)


class RunaiError(Exception):
    pass


def _err(message: str) -> RunaiError:
    return RunaiError(f"Error: {message}")


KIND_LABELS = {
    "workspace": "Workspace",
    "training": "Training",
    "distributed": "Training",
    "inference": "Inference",
}
ALL_KINDS = ("training", "distributed", "workspace", "inference")


def run(ctx: Context, args: list[str]) -> Output:
    if not args or args[0] in ("-h", "--help", "help"):
        return Output(_HELP)
    try:
        return _dispatch(ctx, args)
    except RunaiError as exc:
        return Output.error(str(exc))
    except FlagError as exc:
        return Output.error(f"Error: {exc}")
    except ApiError as exc:
        return Output.error(f"Error: {exc.message}")


def _config(ctx: Context) -> Any:
    return ctx.world.state.runai


def _dispatch(ctx: Context, args: list[str]) -> Output:
    state = _config(ctx)
    cmd = args[0]
    if cmd == "version":
        return Output(f"Version: {VERSION}\nBuildDate: 2026-10-02T11:20:31Z\nGitCommit: 4f1c9a2")
    if cmd == "login":
        state.logged_in = True
        return Output(
            "Opening the login page in your browser: "
            "https://runai.example.com/auth/realms/runai/protocol/openid-connect/auth?...\n"
            "Waiting for authentication to complete...\nLogged in successfully"
        )
    if cmd == "logout":
        state.logged_in = False
        return Output("Logged out successfully")
    if cmd not in TOP:
        raise RunaiError(
            f'Error: unknown command "{cmd}" for "runai"\nRun \'runai --help\' for usage.'
        )
    if not state.logged_in:
        raise _err("you are not logged in; run 'runai login' first")
    if cmd == "whoami":
        return Output("User: admin@example.com")
    rest = args[1:]
    if cmd in V2_NOUNS:
        return _v2(ctx, cmd, rest)
    if cmd == "config":
        if len(rest) != 2 or rest[0] != "project":
            raise _err("usage: runai config project <project>")
        _project(ctx, rest[1])
        state.default_project = rest[1]
        return Output(f"Project {rest[1]} has been set as default project")
    if cmd == "submit":
        return _v1_submit(ctx, rest, distributed=False)
    if cmd == "submit-dist":
        if not rest or rest[0] != "pytorch":
            raise _err('unknown or missing framework; use "runai submit-dist pytorch"')
        return _v1_submit(ctx, rest[1:], distributed=True)
    if cmd == "list":
        if rest and rest[0] == "jobs":
            rest = rest[1:]
        elif rest and rest[0] == "projects":
            return _project_list(ctx)
        elif rest and rest[0] == "nodes":
            return _node_list(ctx)
        return _v1_list(ctx, parse(rest, LIST_FLAGS))
    if cmd == "describe":
        if not rest or rest[0] != "job":
            raise _err('use "runai describe job <name>"')
        parsed = parse(rest[1:], NAME_FLAGS)
        return Output(_describe(ctx, _find(ctx, parsed, None)))
    if cmd == "logs":
        parsed = parse(rest, NAME_FLAGS)
        return _logs(ctx, _find(ctx, parsed, None), parsed)
    if cmd == "exec":
        parsed = parse(rest, NAME_FLAGS)
        return _exec(ctx, _find(ctx, parsed, None), parsed)
    if cmd == "delete":
        if rest and rest[0] == "job":
            rest = rest[1:]
        parsed = parse(rest, NAME_FLAGS)
        wl = _find(ctx, parsed, None)
        _delete(ctx, wl)
        return Output(f"The job '{_name(wl)}' has been deleted successfully")
    raise _err(f'unknown command "{cmd}" for "runai"')


# ---------------------------------------------------------------------------- v2


def _v2(ctx: Context, noun: str, rest: list[str]) -> Output:
    verbs = V2_NOUNS[noun]
    if not rest or rest[0] in ("-h", "--help"):
        return Output(
            f"Usage:\n  runai {noun} [command]\n\nAvailable Commands:\n"
            + "\n".join(f"  {v}" for v in verbs)
        )
    verb = rest[0]
    args = rest[1:]
    if verb not in verbs:
        raise RunaiError(
            f'Error: unknown command "{verb}" for "runai {noun}"\n'
            f"Run 'runai {noun} --help' for usage."
        )
    if noun == "project":
        if verb == "list":
            return _project_list(ctx)
        if len(args) != 1:
            raise _err("accepts 1 arg(s), received " + str(len(args)))
        _project(ctx, args[0])
        _config(ctx).default_project = args[0]
        return Output(f"Project {args[0]} configured successfully")
    if noun == "cluster":
        cluster = _config(ctx).cluster
        if verb == "list":
            return Output(
                runai_table(
                    ["Cluster", "URL", "Current"],
                    [[cluster, "https://gpu-cluster.example.com", "true"]],
                )
            )
        if len(args) != 1:
            raise _err("accepts 1 arg(s), received " + str(len(args)))
        if args[0] != cluster:
            raise _err(f'cluster "{args[0]}" not found')
        return Output(f"Cluster {cluster} configured successfully")
    if noun == "node":
        return _node_list(ctx)
    if noun == "nodepool":
        return _nodepool_list(ctx)
    kind_filter: tuple[str, ...]
    if noun == "training" and verb == "pytorch":
        if not args or args[0] not in ("submit", "list", "describe", "logs", "delete"):
            raise RunaiError(
                'Error: unknown command for "runai training pytorch"\n'
                "Run 'runai training pytorch --help' for usage."
            )
        verb, args = args[0], args[1:]
        kind_filter = ("distributed",)
        kind = "distributed"
    elif noun == "training":
        kind_filter = ("training", "distributed")
        kind = "training"
    elif noun == "workspace":
        kind_filter = ("workspace",)
        kind = "workspace"
    elif noun == "inference":
        kind_filter = ("inference",)
        kind = "inference"
    else:
        kind_filter = ALL_KINDS
        kind = ""
    if verb == "submit":
        return _v2_submit(ctx, kind, args)
    if verb == "list":
        parsed = parse(args, LIST_FLAGS)
        return Output(_v2_list(ctx, parsed, kind_filter))
    parsed = parse(args, NAME_FLAGS)
    wl = _find(ctx, parsed, kind_filter)
    if verb == "describe":
        return Output(_describe(ctx, wl))
    if verb == "logs":
        return _logs(ctx, wl, parsed)
    if verb == "exec":
        return _exec(ctx, wl, parsed)
    label = {"workspace": "workspace", "inference": "inference"}.get(
        runai_ctl.kind_of(wl), "training"
    )
    name = _name(wl)
    if verb == "delete":
        _delete(ctx, wl)
        return Output(f"Successfully deleted {label} {name}")
    phase = _phase(wl)
    if verb == "suspend":
        if phase in ("Completed", "Failed", "Suspended"):
            raise _err(f"{label} {name} is {phase.lower()}; nothing to suspend")
        _set_active(ctx, wl, False)
        return Output(f"Successfully suspended {label} {name}")
    if runai_ctl.active_of(wl):
        raise _err(f"{label} {name} is not suspended")
    _set_active(ctx, wl, True)
    return Output(f"Successfully resumed {label} {name}")


def _set_active(ctx: Context, wl: Obj, active: bool) -> None:
    ctx.api.patch(
        runai_ctl.resource_of(wl),
        _name(wl),
        {"spec": {"active": {"value": active}}},
        wl["metadata"]["namespace"],
    )


def _delete(ctx: Context, wl: Obj) -> None:
    ctx.api.delete(runai_ctl.resource_of(wl), _name(wl), wl["metadata"]["namespace"])


def _v2_submit(ctx: Context, kind: str, args: list[str]) -> Output:
    parsed = parse(args, SUBMIT_FLAGS)
    if len(parsed.positionals) != 1:
        raise _err(f"accepts 1 arg(s), received {len(parsed.positionals)}")
    name = parsed.positionals[0]
    project = _current_project(ctx, parsed)
    image = parsed.value("image")
    if not image:
        raise _err('required flag(s) "image" not set')
    gpu_flag = parsed.value("gpu")
    portion = parsed.value("portion")
    memory = parsed.value("memory")
    gpus = 0.0
    if gpu_flag is not None:
        if not gpu_flag.isdigit():
            raise _err(
                f'invalid argument "{gpu_flag}" for "-g, --gpu-devices-request" flag: '
                f'strconv.ParseInt: parsing "{gpu_flag}": invalid syntax'
            )
        gpus = float(int(gpu_flag))
    if portion is not None:
        try:
            gpus = float(portion)
        except ValueError:
            raise _err(
                f'invalid argument "{portion}" for "--gpu-portion-request" flag: '
                f'strconv.ParseFloat: parsing "{portion}": invalid syntax'
            ) from None
        if not 0 < gpus < 1:
            raise _err("--gpu-portion-request must be between 0 and 1 (for example 0.5)")
    if portion is not None and gpu_flag is not None:
        raise _err("use either -g or --gpu-portion-request, not both")
    workers = 1
    if kind == "distributed":
        raw = parsed.value("workers")
        if raw is None:
            raise _err('required flag(s) "workers" not set')
        if not raw.isdigit() or int(raw) < 1:
            raise _err(f'invalid argument "{raw}" for "--workers" flag')
        workers = int(raw)
    pools = _node_pools_flag(ctx, parsed.value("node-pools"))
    preemptible = True if parsed.has("preemptible") else None
    _create(ctx, name, project, kind, image, workers, gpus, memory, pools, preemptible)
    if kind == "distributed":
        return Output(
            f"Creating distributed training workload {name}...\n"
            "To track the workload's status, run 'runai training pytorch list'"
        )
    noun = kind if kind in ("workspace", "inference") else "training"
    return Output(
        f"Creating {noun} {name}...\nTo track the workload's status, run 'runai {noun} list'"
    )


def _create(
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
) -> None:
    if not NAME_RE.match(name):
        raise _err(
            f'invalid workload name "{name}": use lower-case letters, digits and "-", '
            "starting and ending with a letter or digit (at most 40 characters)"
        )
    if gpus == 0 and not memory:
        raise _err(
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
        raise _err(f'a workload named "{name}" already exists in project {project}')
    obj = runai_ctl.workload_object(
        kind,
        name,
        project,
        image,
        gpu=gpus,
        gpu_memory=memory,
        workers=workers,
        node_pools=node_pools,
        preemptible=preemptible,
    )
    api.create(runai_ctl.WORKLOAD_RESOURCES[kind], obj, namespace)


def _pool_names(ctx: Context) -> list[str]:
    names = {runai_ctl.node_pool_of(n) for n in ctx.api.list("nodes").get("items", [])}
    return sorted(names | {runai_ctl.DEFAULT_POOL})


def _node_pools_flag(ctx: Context, raw: str | None) -> list[str] | None:
    """`--node-pools l40s,h100`: existing pools, in order of preference."""
    if raw is None:
        return None
    pools = [p.strip() for p in raw.split(",") if p.strip()]
    if not pools:
        raise _err('invalid argument "" for "--node-pools" flag: name at least one node pool')
    known = _pool_names(ctx)
    for pool in pools:
        if pool not in known:
            raise _err(
                f'node pool "{pool}" not found in cluster {_config(ctx).cluster} '
                f"(node pools: {', '.join(known)})"
            )
    if len(set(pools)) != len(pools):
        raise _err("--node-pools lists a node pool twice")
    return pools


# ---------------------------------------------------------------------------- reading workloads


def _name(wl: Obj) -> str:
    return str(wl["metadata"]["name"])


def _phase(wl: Obj) -> str:
    return str((wl.get("status") or {}).get("phase") or "Pending")


def _workloads(ctx: Context, project: str, kinds: tuple[str, ...]) -> list[Obj]:
    api = ctx.api
    namespace = runai_ctl.namespace_for(project) if project else None
    found: list[Obj] = []
    for kind, resource in runai_ctl.WORKLOAD_RESOURCES.items():
        if kind not in kinds:
            continue
        try:
            found += api.list(resource, namespace).get("items", [])
        except ApiError:
            continue
    found = [w for w in found if runai_ctl.kind_of(w) in kinds]
    return sorted(found, key=lambda w: (str(w["metadata"].get("creationTimestamp", "")), _name(w)))


def _pods(ctx: Context, wl: Obj) -> list[Obj]:
    pods = ctx.api.list(
        "pods", wl["metadata"]["namespace"], label_selector=f"workloadName={_name(wl)}"
    ).get("items", [])
    order = runai_ctl.pod_names(_name(wl), runai_ctl.kind_of(wl), runai_ctl.pod_count(wl))
    rank = {n: i for i, n in enumerate(order)}
    return sorted(pods, key=lambda p: rank.get(p["metadata"]["name"], len(rank)))


def _number(value: Any) -> float:
    try:
        return float(value or 0)
    except (TypeError, ValueError):
        return 0.0


def _v2_list(ctx: Context, parsed: Parsed, kinds: tuple[str, ...]) -> str:
    rows = []
    for w in _listed(ctx, parsed, kinds):
        status = w.get("status") or {}
        rows.append(
            [
                _name(w),
                KIND_LABELS.get(runai_ctl.kind_of(w), "Training"),
                _phase(w),
                runai_ctl.project_of(w),
                f"{int(_number(status.get('runningPods')))}/{runai_ctl.pod_count(w)}",
                format_gpus(_number(status.get("allocatedGpus"))),
            ]
        )
    if not rows:
        return "No workloads found"
    return runai_table(
        ["Workload", "Type", "Status", "Project", "Running/Req.Pods", "GPU Alloc."], rows
    )


def _listed(ctx: Context, parsed: Parsed, kinds: tuple[str, ...]) -> list[Obj]:
    project = parsed.value("project") or ("" if parsed.has("all") else _config(ctx).default_project)
    if project:
        _project(ctx, project)
    return _workloads(ctx, project, kinds)


# ---------------------------------------------------------------------------- projects, nodes


def _projects(ctx: Context) -> list[Obj]:
    items = ctx.api.list(runai_ctl.PROJECTS).get("items", [])
    return sorted(items, key=_name)


def _project(ctx: Context, name: str) -> Obj:
    for project in _projects(ctx):
        if _name(project) == name:
            return project
    raise _err(f'project "{name}" not found, or you do not have access to it')


def _current_project(ctx: Context, parsed: Parsed) -> str:
    project = parsed.value("project") or _config(ctx).default_project
    if not project:
        raise _err(
            "no project given: pass -p <project> or set a default with 'runai project set "
            "<project>'"
        )
    _project(ctx, project)
    return str(project)


def _project_list(ctx: Context) -> Output:
    cluster = _config(ctx).cluster
    workloads = _workloads(ctx, "", ALL_KINDS)
    rows = []
    for p in _projects(ctx):
        spec = p.get("spec") or {}
        # With quotas per node pool, Run:ai shows their sum.
        total = runai_ctl.deserved_total(spec)
        allocated = sum(
            _number((w.get("status") or {}).get("allocatedGpus"))
            for w in workloads
            if runai_ctl.project_of(w) == _name(p)
        )
        rows.append(
            [
                _name(p),
                str(spec.get("department") or "default"),
                format_quota(_number(spec.get("deservedGpus") if total is None else total)),
                fmt_gpus(allocated),
                cluster,
            ]
        )
    if not rows:
        return Output("No projects found")
    return Output(
        runai_table(["Project", "Department", "GPU Quota", "Allocated GPUs", "Cluster"], rows)
    )


def _node_pool(node: Obj) -> str:
    return runai_ctl.node_pool_of(node)


def _pod_gpus(pod: Obj) -> float:
    annotations = pod["metadata"].get("annotations") or {}
    if annotations.get(runai_ctl.FRACTION):
        return _number(annotations[runai_ctl.FRACTION])
    total = 0.0
    for container in (pod.get("spec") or {}).get("containers") or []:
        limits = (container.get("resources") or {}).get("limits") or {}
        for key, value in limits.items():
            if key == "nvidia.com/gpu":
                total += _number(value)
            elif key.startswith("nvidia.com/mig-"):
                total += mig_profile(key).gpu_fraction * _number(value)
    return total


def _node_rows(ctx: Context) -> list[tuple[Obj, int, float]]:
    """(node, GPU devices, allocated GPUs) for every node with GPUs."""
    api = ctx.api
    pods = [
        p
        for p in api.list("pods").get("items", [])
        if (p.get("status") or {}).get("phase") == "Running"
    ]
    out = []
    for node in sorted(api.list("nodes").get("items", []), key=_name):
        gpus = len(hardware.gpus(node))
        if not gpus:
            capacity = (node.get("status") or {}).get("capacity") or {}
            gpus = int(_number(capacity.get("nvidia.com/gpu")))
        used = sum(
            _pod_gpus(p) for p in pods if (p.get("spec") or {}).get("nodeName") == _name(node)
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


def _node_list(ctx: Context) -> Output:
    rows = []
    for node, gpus, used in _node_rows(ctx):
        labels = node["metadata"].get("labels") or {}
        rows.append(
            [
                _name(node),
                _node_status(node),
                _node_pool(node),
                str(labels.get("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")),
                str(gpus),
                format_gpus(used),
                format_gpus(max(0.0, gpus - used)),
            ]
        )
    if not rows:
        return Output("No nodes found")
    headers = ["Node", "Status", "Node Pool", "GPU Type", "GPU Devices", "Allocated GPUs"]
    return Output(runai_table([*headers, "Free GPUs"], rows))


def _nodepool_list(ctx: Context) -> Output:
    pools: dict[str, list[tuple[Obj, int, float]]] = {}
    for row in _node_rows(ctx):
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
                _config(ctx).cluster,
            ]
        )
    if not rows:
        return Output("No node pools found")
    return Output(
        runai_table(
            ["Node Pool", "Status", "Nodes", "GPU Devices", "Allocated GPUs", "Cluster"], rows
        )
    )


# ---------------------------------------------------------------------------- v1


def _v1_submit(ctx: Context, args: list[str], distributed: bool) -> Output:
    parsed = parse(args, V1_SUBMIT_FLAGS)
    name = parsed.value("name") or (parsed.positionals[0] if parsed.positionals else "")
    if not name:
        raise _err("a job name is required: runai submit <name> -i <image>")
    project = _current_project(ctx, parsed)
    image = parsed.value("image")
    if not image:
        raise _err('required flag(s) "image" not set')
    raw = parsed.value("gpu")
    gpus = 0.0
    if raw is not None:
        try:
            gpus = float(raw)
        except ValueError:
            raise _err(
                f'invalid argument "{raw}" for "-g, --gpu" flag: strconv.ParseFloat: parsing '
                f'"{raw}": invalid syntax'
            ) from None
        if gpus <= 0 or (gpus > 1 and gpus != int(gpus)):
            raise _err("-g must be a whole number of GPUs, or a fraction between 0 and 1")
    memory = parsed.value("memory")
    workers = 1
    kind = "workspace" if parsed.has("interactive") else "training"
    if distributed:
        raw_workers = parsed.value("workers")
        if raw_workers is None or not raw_workers.isdigit() or int(raw_workers) < 1:
            raise _err('required flag(s) "workers" not set')
        workers = int(raw_workers)
        kind = "distributed"
    _create(ctx, name, project, kind, image, workers, gpus, memory)
    return Output(
        f"The job '{name}' has been submitted successfully\n"
        f"You can run `runai describe job {name} -p {project}` to check the job status"
    )


def _v1_list(ctx: Context, parsed: Parsed) -> Output:
    project = parsed.value("project") or _config(ctx).default_project
    workloads = _listed(ctx, parsed, ALL_KINDS)
    header = (
        "Showing jobs for all projects"
        if parsed.has("all") or not project
        else f"Showing jobs for project {project}"
    )
    rows = []
    for w in workloads:
        pods = _pods(ctx, w)
        running = [p for p in pods if (p.get("status") or {}).get("phase") == "Running"]
        nodes = sorted({str(p["spec"].get("nodeName")) for p in running})
        status = w.get("status") or {}
        per_pod = runai_ctl.gpu_units(w)
        rows.append(
            [
                _name(w),
                _phase(w),
                since(ctx.api, w["metadata"].get("creationTimestamp")),
                ",".join(nodes),
                str(runai_ctl.value(w, "image", "")),
                {"workspace": "Interactive", "inference": "Inference"}.get(
                    runai_ctl.kind_of(w), "Train"
                ),
                runai_ctl.project_of(w),
                str((w["metadata"].get("labels") or {}).get("user", "admin")),
                f"{fmt_gpus(_number(status.get('allocatedGpus')))} "
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


# ---------------------------------------------------------------------------- describe, logs


def _find(ctx: Context, parsed: Parsed, kinds: tuple[str, ...] | None) -> Obj:
    if len(parsed.positionals) != 1:
        raise _err(f"accepts 1 arg(s), received {len(parsed.positionals)}")
    name = parsed.positionals[0]
    project = parsed.value("project") or _config(ctx).default_project
    if project:
        _project(ctx, project)
    matches = [w for w in _workloads(ctx, project or "", kinds or ALL_KINDS) if _name(w) == name]
    if not matches:
        where = f" in project {project}" if project else ""
        raise _err(f'workload "{name}" not found{where}')
    return matches[0]


def _describe(ctx: Context, wl: Obj) -> str:
    api = ctx.api
    status = wl.get("status") or {}
    kind = runai_ctl.kind_of(wl)
    lines = [
        "Workload Summary",
        f"  Name:             {_name(wl)}",
        f"  Namespace:        {wl['metadata']['namespace']}",
        f"  Type:             {KIND_LABELS.get(kind, 'Training')}",
        f"  Project:          {runai_ctl.project_of(wl)}",
        f"  User:             {(wl['metadata'].get('labels') or {}).get('user', 'admin')}",
        f"  Status:           {_phase(wl)}",
        f"  Created:          {wl['metadata'].get('creationTimestamp', '')}",
        f"  Preemptible:      {'true' if runai_ctl.preemptible_of(wl) else 'false'}",
    ]
    activity = status.get("lastActivityTime")
    if kind == "workspace" and activity and _phase(wl) == "Running":
        moment = parse_ts(str(activity))
        idle = (api.now() - moment).total_seconds() if moment else 0
        text = (
            f"{since(api, str(activity))} ago (GPU utilization 0% since)"
            if idle > 3600
            else "active now"
        )
        lines.append(f"  Last activity:    {text}")
    lines += ["", "Compute Resources"]
    if runai_ctl.value(wl, "migProfile"):
        lines.append(f"  MIG profile:      {runai_ctl.value(wl, 'migProfile')}")
    elif runai_ctl.value(wl, "gpuMemory"):
        lines.append(f"  GPU memory:       {runai_ctl.value(wl, 'gpuMemory')}")
    elif runai_ctl.value(wl, "gpuFraction"):
        lines.append(f"  GPU portion:      {fmt_gpus(_number(runai_ctl.value(wl, 'gpuFraction')))}")
    else:
        lines.append(f"  GPU devices:      {fmt_gpus(_number(runai_ctl.value(wl, 'gpu', 1)))}")
    if runai_ctl.pod_count(wl) > 1:
        lines.append(f"  Workers:          {runai_ctl.pod_count(wl)}")
    project = next((p for p in _projects(ctx) if _name(p) == runai_ctl.project_of(wl)), None)
    pools = ", ".join(runai_ctl.node_pools_of(wl, project))
    lines += [f"  Node pools:       {pools}", "", "Pods"]
    pods = _pods(ctx, wl)
    pod_rows = []
    for p in pods:
        phase = str((p.get("status") or {}).get("phase") or "Pending")
        pod_rows.append(
            [
                p["metadata"]["name"],
                "Completed" if phase == "Succeeded" else phase,
                str((p.get("spec") or {}).get("nodeName") or "<none>"),
                str(runai_ctl.value(wl, "image", "")),
            ]
        )
    table = padded_table(["Name", "Status", "Node", "Image"], pod_rows, padding=4)
    lines += ["  " + line for line in table.split("\n")]
    lines += ["", "Events"]
    names = {_name(wl), *(p["metadata"]["name"] for p in pods)}
    events = [
        e
        for e in api.list("events", wl["metadata"]["namespace"]).get("items", [])
        if (e.get("involvedObject") or {}).get("name") in names
    ]
    events.sort(key=lambda e: str(e.get("lastTimestamp") or ""), reverse=True)
    seen: set[tuple[str, str]] = set()
    rows = []
    for e in events:
        key = (str(e.get("reason", "")), str(e.get("message", "")))
        if key in seen:
            continue
        seen.add(key)
        moment = parse_ts(str(e.get("lastTimestamp") or e.get("firstTimestamp") or ""))
        message = str(e.get("message", ""))
        if int(e.get("count") or 1) > 1:
            message += f" (x{e['count']})"
        rows.append(
            [moment.strftime("%H:%M:%S") if moment else "", str(e.get("type", "")), key[0], message]
        )
        if len(rows) == 8:
            break
    table = padded_table(["Time", "Type", "Reason", "Message"], rows, padding=4)
    lines += ["  " + line for line in table.split("\n")]
    return "\n".join(lines)


def _exec(ctx: Context, wl: Obj, parsed: Parsed) -> Output:
    """`runai workspace exec NAME -- COMMAND`: pods/exec in the workload's first running pod."""
    command = parsed.after_dashdash
    if not command:
        raise _err("a command is required after --, for example: -- nvidia-smi")
    running = [p for p in _pods(ctx, wl) if (p.get("status") or {}).get("phase") == "Running"]
    if not running:
        raise _err(f"workload {_name(wl)} has no running pods (status {_phase(wl)})")
    pod = running[0]
    if command[0] in ("bash", "sh", "/bin/bash", "/bin/sh") and len(command) == 1:
        raise _err(
            "interactive shells are not available in this lab terminal; run one command after "
            "--, e.g. -- nvidia-smi"
        )
    try:
        text = ctx.api.exec(pod["metadata"]["name"], pod["metadata"]["namespace"], list(command))
    except ApiError as exc:
        return Output.error(f"Error: {exc.message}", 126 if exc.code == 500 else 1)
    body = text.rstrip("\n")
    last = body.rsplit("\n", 1)[-1]
    if last.startswith("command terminated with exit code "):
        return Output(body, int(last.rsplit(" ", 1)[-1]))
    return Output(body)


def _logs(ctx: Context, wl: Obj, parsed: Parsed) -> Output:
    started = [
        p
        for p in _pods(ctx, wl)
        if (p.get("status") or {}).get("phase") in ("Running", "Succeeded", "Failed")
    ]
    if not started:
        raise _err(f"workload {_name(wl)} has no started pods yet (status {_phase(wl)})")
    tail = parsed.value("tail")
    count = int(tail) if tail and tail.isdigit() else None
    pod = started[0]
    text = ctx.api.logs(pod["metadata"]["name"], pod["metadata"]["namespace"], tail=count)
    return Output(text.rstrip("\n"))


_HELP = """runai is the command line interface of NVIDIA Run:ai.

Usage:
  runai [command]

Available Commands (v2 style):
  login, logout, whoami, version
  cluster list|set
  project list|set
  training submit|list|describe|logs|delete|suspend|resume
  training pytorch submit|list|describe|logs|delete
  workspace submit|list|describe|logs|delete|suspend|resume
  inference submit|list|describe|logs|delete
  workload list|describe
  workspace|training exec <name> -- <command>
  node list, nodepool list

Older v1 style (still accepted on this 2.17 cluster):
  config project <project>
  submit <name> -i <image> [-g N|0.5] [--interactive]
  submit-dist pytorch <name> --workers=N -g G -i <image>
  list jobs, describe job <name>, logs <name>, delete job <name>"""


# ---------------------------------------------------------------------------- completion


def complete(ctx: Context, words: list[str], current: str) -> list[str]:
    if not words:
        return [t for t in TOP if t.startswith(current)]
    prev = words[-1]
    if prev in ("-p", "--project") or (words[:1] in (["project"], ["config"]) and len(words) == 2):
        return [_name(p) for p in _projects(ctx) if _name(p).startswith(current)]
    if prev == "--node-pools":
        head, _, last = current.rpartition(",")
        prefix = f"{head}," if head else ""
        return [prefix + p for p in _pool_names(ctx) if p.startswith(last)]
    if prev in ("-i", "--image"):
        images = [
            "gcr.io/run-ai-demo/quickstart",
            "nvcr.io/nvidia/pytorch:24.05-py3",
            "jupyter/scipy-notebook",
        ]
        return [i for i in images if i.startswith(current)]
    head = words[0]
    if current.startswith("-"):
        flags = SUBMIT_FLAGS if "submit" in words else LIST_FLAGS
        if head in ("submit", "submit-dist"):
            flags = V1_SUBMIT_FLAGS
        names = {f"--{f.long}" for f in flags if f.long} | {f"-{f.short}" for f in flags if f.short}
        return sorted(n for n in names if n.startswith(current))
    workload_names = sorted({_name(w) for w in _workloads(ctx, "", ALL_KINDS)})
    if head in V2_NOUNS:
        if len(words) == 1:
            return [v for v in V2_NOUNS[head] if v.startswith(current)]
        if words[1] == "pytorch" and len(words) == 2:
            return [
                v for v in ("submit", "list", "describe", "logs", "delete") if v.startswith(current)
            ]
        if words[-1] in ("describe", "logs", "delete", "suspend", "resume"):
            return [n for n in workload_names if n.startswith(current)]
        return []
    if head == "list" and len(words) == 1:
        return [v for v in ("jobs", "projects", "nodes") if v.startswith(current)]
    if head in ("describe", "delete") and len(words) == 1:
        return ["job"] if "job".startswith(current) else []
    if head == "submit-dist" and len(words) == 1:
        return ["pytorch"] if "pytorch".startswith(current) else []
    if head == "config" and len(words) == 1:
        return ["project"] if "project".startswith(current) else []
    if words[-1] in ("job", "logs"):
        return [n for n in workload_names if n.startswith(current)]
    return []


COMMAND: Callable[[Context, list[str]], Output] = run
