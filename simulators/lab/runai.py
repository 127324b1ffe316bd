"""The runai CLI in both shapes: v2 (noun-verb) and v1 (submit, list jobs, describe job).

Submitting only records the workload; the scheduler engine places it on the
next step (runai_sched), so `runai training list` right after a submit shows
Pending, as on a real cluster.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from simulators.engine import EngineError
from simulators.engine.messages import gpus as fmt_gpus
from simulators.lab import runai_sched
from simulators.lab.flags import Flag, FlagError, Parsed, parse
from simulators.lab.render import format_gpus, format_quota, padded_table, runai_table
from simulators.lab.state import RunaiWorkload, format_age, sim_datetime
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
    Flag("help", long="help", short="h"),
]

V2_NOUNS = {
    "training": ("submit", "list", "describe", "logs", "delete", "suspend", "resume", "pytorch"),
    "workspace": ("submit", "list", "describe", "logs", "delete", "suspend", "resume"),
    "workload": ("list", "describe"),
    "project": ("list", "set"),
    "cluster": ("list", "set"),
}
TOP = (
    "cluster",
    "config",
    "delete",
    "describe",
    "list",
    "login",
    "logout",
    "logs",
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


def run(ctx: Context, args: list[str]) -> Output:
    if not args or args[0] in ("-h", "--help", "help"):
        return Output(_HELP)
    try:
        return _dispatch(ctx, args)
    except RunaiError as exc:
        return Output.error(str(exc))
    except FlagError as exc:
        return Output.error(f"Error: {exc}")
    except EngineError as exc:
        return Output.error(f"Error: {exc}")


def _dispatch(ctx: Context, args: list[str]) -> Output:
    state = ctx.world.state.runai
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
        return _v1_list(ctx, parse(rest, LIST_FLAGS))
    if cmd == "describe":
        if not rest or rest[0] != "job":
            raise _err('use "runai describe job <name>"')
        parsed = parse(rest[1:], NAME_FLAGS)
        wl = _find(ctx, parsed, None)
        return Output(_describe(ctx, wl))
    if cmd == "logs":
        parsed = parse(rest, NAME_FLAGS)
        return _logs(ctx, _find(ctx, parsed, None), parsed)
    if cmd == "delete":
        if rest and rest[0] == "job":
            rest = rest[1:]
        parsed = parse(rest, NAME_FLAGS)
        wl = _find(ctx, parsed, None)
        runai_sched.remove_workload(ctx.world.state, ctx.world.backend, wl)
        return Output(f"The job '{wl.name}' has been deleted successfully")
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
        ctx.world.state.runai.default_project = args[0]
        return Output(f"Project {args[0]} configured successfully")
    if noun == "cluster":
        cluster = ctx.world.state.runai.cluster
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
    else:
        kind_filter = ("training", "distributed", "workspace", "inference")
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
    label = {"workspace": "workspace", "distributed": "training"}.get(wl.kind, "training")
    if verb == "delete":
        runai_sched.remove_workload(ctx.world.state, ctx.world.backend, wl)
        return Output(f"Successfully deleted {label} {wl.name}")
    if verb == "suspend":
        if wl.final_status:
            raise _err(f"{label} {wl.name} is {wl.final_status.lower()}; nothing to suspend")
        wl.final_status = "Suspended"
        for pod in wl.pods:
            runai_sched.reset_pod(pod)
        runai_sched.sync(ctx.world.state, ctx.world.backend)
        return Output(f"Successfully suspended {label} {wl.name}")
    if wl.final_status != "Suspended":
        raise _err(f"{label} {wl.name} is not suspended")
    wl.final_status = ""
    return Output(f"Successfully resumed {label} {wl.name}")


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
    if not gpus and not memory:
        gpus = 0.0
    wl = _create(ctx, name, project, kind, image, workers, gpus, memory, "v2")
    if kind == "distributed":
        return Output(
            f"Creating distributed training workload {wl.name}...\n"
            "To track the workload's status, run 'runai training pytorch list'"
        )
    noun = "workspace" if kind == "workspace" else "training"
    return Output(
        f"Creating {noun} {wl.name}...\nTo track the workload's status, run 'runai {noun} list'"
    )


def _create(
    ctx: Context,
    name: str,
    project: str,
    kind: str,
    image: str,
    pods: int,
    gpus: float,
    memory: str | None,
    cli: str,
) -> RunaiWorkload:
    if not NAME_RE.match(name):
        raise _err(
            f'invalid workload name "{name}": use lower-case letters, digits and "-", '
            "starting and ending with a letter or digit (at most 40 characters)"
        )
    state = ctx.world.state
    if any(w.name == name and w.project == project for w in state.runai.workloads):
        raise _err(f'a workload named "{name}" already exists in project {project}')
    if gpus == 0 and not memory:
        # A CPU-only workload: the lab models GPU scheduling, so give it no GPU
        # request by asking for the smallest portion is wrong; refuse plainly instead.
        raise _err(
            "this lab runs GPU workloads only: pass -g, --gpu-portion-request or "
            "--gpu-memory-request"
        )
    wl = runai_sched.new_workload(
        state,
        name=name,
        project=project,
        kind=kind,
        image=image,
        pod_count=pods,
        gpus=gpus if not memory else 0.0,
        gpu_memory=memory,
        created=ctx.world.now,
        cli=cli,
    )
    runai_sched.add_workload(state, ctx.world.backend, wl)
    return wl


def _v2_list(ctx: Context, parsed: Parsed, kinds: tuple[str, ...]) -> str:
    workloads = _listed(ctx, parsed, kinds)
    rows = [
        [
            w.name,
            w.type_label,
            _status(w),
            w.project,
            f"{w.running_pods}/{w.pod_count}",
            format_gpus(w.gpus_allocated),
        ]
        for w in workloads
    ]
    if not rows:
        return "No workloads found"
    return runai_table(
        ["Workload", "Type", "Status", "Project", "Running/Req.Pods", "GPU Alloc."], rows
    )


def _status(w: RunaiWorkload) -> str:
    return w.status


def _listed(ctx: Context, parsed: Parsed, kinds: tuple[str, ...]) -> list[RunaiWorkload]:
    state = ctx.world.state.runai
    project = parsed.value("project") or ("" if parsed.has("all") else state.default_project)
    if project:
        _project(ctx, project)
    return [
        w
        for w in sorted(state.workloads, key=lambda w: w.creation_rank)
        if w.kind in kinds and (not project or w.project == project)
    ]


# ---------------------------------------------------------------------------- projects


def _project(ctx: Context, name: str) -> None:
    if not any(p.name == name for p in ctx.world.state.runai.projects):
        raise _err(f'project "{name}" not found, or you do not have access to it')


def _current_project(ctx: Context, parsed: Parsed) -> str:
    project = parsed.value("project") or ctx.world.state.runai.default_project
    if not project:
        raise _err(
            "no project given: pass -p <project> or set a default with 'runai project set "
            "<project>'"
        )
    _project(ctx, project)
    return project


def _project_list(ctx: Context) -> Output:
    state = ctx.world.state.runai
    rows = []
    for p in state.projects:
        allocated = sum(w.gpus_allocated for w in state.workloads if w.project == p.name)
        rows.append(
            [p.name, p.department, format_quota(p.quota), fmt_gpus(allocated), state.cluster]
        )
    if not rows:
        return Output("No projects found")
    return Output(
        runai_table(["Project", "Department", "GPU Quota", "Allocated GPUs", "Cluster"], rows)
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
    wl = _create(ctx, name, project, kind, image, workers, gpus, memory, "v1")
    return Output(
        f"The job '{wl.name}' has been submitted successfully\n"
        f"You can run `runai describe job {wl.name} -p {project}` to check the job status"
    )


def _v1_list(ctx: Context, parsed: Parsed) -> Output:
    state = ctx.world.state.runai
    project = parsed.value("project") or state.default_project
    kinds = ("training", "distributed", "workspace", "inference")
    workloads = _listed(ctx, parsed, kinds)
    header = (
        "Showing jobs for all projects"
        if parsed.has("all") or not project
        else f"Showing jobs for project {project}"
    )
    now = ctx.world.now
    rows = []
    for w in workloads:
        nodes = sorted({p.node for p in w.pods if p.node and p.status == "Running"})
        pending = sum(1 for p in w.pods if p.status == "Pending")
        rows.append(
            [
                w.name,
                w.status,
                format_age(now - w.created),
                ",".join(nodes),
                w.image,
                {"workspace": "Interactive", "inference": "Inference"}.get(w.kind, "Train"),
                w.project,
                w.user,
                f"{fmt_gpus(w.gpus_allocated)} ({fmt_gpus(w.gpu_units_per_pod * w.pod_count)})",
                f"{w.running_pods} ({pending})",
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


def _find(ctx: Context, parsed: Parsed, kinds: tuple[str, ...] | None) -> RunaiWorkload:
    if len(parsed.positionals) != 1:
        raise _err(f"accepts 1 arg(s), received {len(parsed.positionals)}")
    name = parsed.positionals[0]
    state = ctx.world.state.runai
    project = parsed.value("project") or state.default_project
    if project:
        _project(ctx, project)
    matches = [
        w
        for w in state.workloads
        if w.name == name
        and (not project or w.project == project)
        and (kinds is None or w.kind in kinds)
    ]
    if not matches:
        where = f" in project {project}" if project else ""
        raise _err(f'workload "{name}" not found{where}')
    return matches[0]


def _clock(seconds: int) -> str:
    return sim_datetime(seconds).strftime("%H:%M:%S")


def _describe(ctx: Context, wl: RunaiWorkload) -> str:
    now = ctx.world.now
    created = sim_datetime(wl.created).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [
        "Workload Summary",
        f"  Name:             {wl.name}",
        f"  Namespace:        {wl.namespace}",
        f"  Type:             {wl.type_label}",
        f"  Project:          {wl.project}",
        f"  User:             {wl.user}",
        f"  Status:           {wl.status}",
        f"  Created:          {created}",
        f"  Preemptible:      {'true' if wl.preemptible else 'false'}",
    ]
    if wl.kind == "workspace" and wl.last_activity is not None and wl.status == "Running":
        idle = now - wl.last_activity
        activity = (
            f"{format_age(idle)} ago (GPU utilization 0% since)" if idle > 3600 else "active now"
        )
        lines.append(f"  Last activity:    {activity}")
    lines += ["", "Compute Resources"]
    if wl.mig_profile:
        lines.append(f"  MIG profile:      {wl.mig_profile}")
    elif wl.gpu_memory:
        lines.append(f"  GPU memory:       {wl.gpu_memory}")
    elif wl.gpus < 1:
        lines.append(f"  GPU portion:      {fmt_gpus(wl.gpus)}")
    else:
        lines.append(f"  GPU devices:      {fmt_gpus(wl.gpus)}")
    if wl.pod_count > 1:
        lines.append(f"  Workers:          {wl.pod_count}")
    lines += ["  Node pools:       default", "", "Pods"]
    pod_rows = [
        [p.name, "Completed" if p.status == "Succeeded" else p.status, p.node or "<none>", wl.image]
        for p in wl.pods
    ]
    table = padded_table(["Name", "Status", "Node", "Image"], pod_rows, padding=4)
    lines += ["  " + line for line in table.split("\n")]
    lines += ["", "Events"]
    # The engine leaves each decision on the workload and on its pod; show it once.
    seen: set[tuple[str, str]] = set()
    events = []
    for e in sorted(wl.events, key=lambda e: e.time, reverse=True):
        if (e.reason, e.message) in seen:
            continue
        seen.add((e.reason, e.message))
        events.append(e)
    rows = []
    for e in events[:8]:
        message = e.message
        if e.count > 1:
            message += f" (x{e.count})"
        rows.append([_clock(e.time), e.type, e.reason, message])
    table = padded_table(["Time", "Type", "Reason", "Message"], rows, padding=4)
    lines += ["  " + line for line in table.split("\n")]
    return "\n".join(lines)


def _logs(ctx: Context, wl: RunaiWorkload, parsed: Parsed) -> Output:
    backend = ctx.world.backend
    started = [p for p in wl.pods if p.started is not None or p.status == "Succeeded"]
    if not started:
        raise _err(f"workload {wl.name} has no started pods yet (status {wl.status})")
    lines = backend.pod_logs(wl.namespace, started[0].name)
    tail = parsed.value("tail")
    if tail and tail.isdigit():
        lines = lines[-int(tail) :] if int(tail) else []
    return Output("\n".join(lines))


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
  workload list|describe

Older v1 style (still accepted on this 2.17 cluster):
  config project <project>
  submit <name> -i <image> [-g N|0.5] [--interactive]
  submit-dist pytorch <name> --workers=N -g G -i <image>
  list jobs, describe job <name>, logs <name>, delete job <name>"""


# ---------------------------------------------------------------------------- completion


def complete(ctx: Context, words: list[str], current: str) -> list[str]:
    state = ctx.world.state.runai
    if not words:
        return [t for t in TOP if t.startswith(current)]
    prev = words[-1]
    if prev in ("-p", "--project") or (words[:1] in (["project"], ["config"]) and len(words) == 2):
        return [p.name for p in state.projects if p.name.startswith(current)]
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
    if head in V2_NOUNS:
        if len(words) == 1:
            return [v for v in V2_NOUNS[head] if v.startswith(current)]
        if words[1] == "pytorch" and len(words) == 2:
            return [
                v for v in ("submit", "list", "describe", "logs", "delete") if v.startswith(current)
            ]
        if words[-1] in ("describe", "logs", "delete", "suspend", "resume"):
            return sorted({w.name for w in state.workloads if w.name.startswith(current)})
        return []
    if head == "list" and len(words) == 1:
        return [v for v in ("jobs", "projects") if v.startswith(current)]
    if head in ("describe", "delete") and len(words) == 1:
        return ["job"] if "job".startswith(current) else []
    if head == "submit-dist" and len(words) == 1:
        return ["pytorch"] if "pytorch".startswith(current) else []
    if head == "config" and len(words) == 1:
        return ["project"] if "project".startswith(current) else []
    if words[-1] in ("job", "logs"):
        return sorted({w.name for w in state.workloads if w.name.startswith(current)})
    return []


COMMAND: Callable[[Context, list[str]], Output] = run
