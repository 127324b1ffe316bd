"""The runai CLI in both shapes, v2 (noun-verb) and v1 (submit, list jobs, describe job),
as a client of the cluster API: the command line, its help and Tab completion.

Submitting creates a Run:ai workload custom resource (TrainingWorkload, InteractiveWorkload,
DistributedWorkload); the workload controller turns it into a PodGroup and pods that the
scheduler places on a later step, so `runai training list` right after a submit shows
Pending, as on a real cluster. Projects are `projects.run.ai` objects.

The verbs live beside this module: `submit` (creating workloads), `tables` (the list
commands), `describe` (describe, logs, exec); `common` reads projects and workloads.
"""

from __future__ import annotations

from collections.abc import Callable

from simulators.cluster.api import ApiError
from simulators.controllers import runai as runai_ctl
from simulators.lab.flags import Flag, FlagError, parse
from simulators.lab.render import runai_table
from simulators.lab.runai.common import (
    ALL_KINDS,
    RunaiError,
    all_projects,
    config,
    err,
    find_workload,
    list_workloads,
    name_of,
    phase_of,
    project_named,
)
from simulators.lab.runai.describe import describe, exec_in, logs
from simulators.lab.runai.submit import (
    SUBMIT_FLAGS,
    V1_SUBMIT_FLAGS,
    delete_workload,
    pool_names,
    set_active,
    submit_v1,
    submit_v2,
)
from simulators.lab.runai.tables import (
    LIST_FLAGS,
    list_v1,
    list_v2,
    node_list,
    nodepool_list,
    project_list,
)
from simulators.lab.tool import Context, Output

VERSION = "2.17.42"

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


def _dispatch(ctx: Context, args: list[str]) -> Output:
    state = config(ctx)
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
        raise err("you are not logged in; run 'runai login' first")
    if cmd == "whoami":
        return Output("User: admin@example.com")
    rest = args[1:]
    if cmd in V2_NOUNS:
        return _v2(ctx, cmd, rest)
    if cmd == "config":
        if len(rest) != 2 or rest[0] != "project":
            raise err("usage: runai config project <project>")
        project_named(ctx, rest[1])
        state.default_project = rest[1]
        return Output(f"Project {rest[1]} has been set as default project")
    if cmd == "submit":
        return submit_v1(ctx, rest, distributed=False)
    if cmd == "submit-dist":
        if not rest or rest[0] != "pytorch":
            raise err('unknown or missing framework; use "runai submit-dist pytorch"')
        return submit_v1(ctx, rest[1:], distributed=True)
    if cmd == "list":
        if rest and rest[0] == "jobs":
            rest = rest[1:]
        elif rest and rest[0] == "projects":
            return project_list(ctx)
        elif rest and rest[0] == "nodes":
            return node_list(ctx)
        return list_v1(ctx, parse(rest, LIST_FLAGS))
    if cmd == "describe":
        if not rest or rest[0] != "job":
            raise err('use "runai describe job <name>"')
        parsed = parse(rest[1:], NAME_FLAGS)
        return Output(describe(ctx, find_workload(ctx, parsed, None)))
    if cmd == "logs":
        parsed = parse(rest, NAME_FLAGS)
        return logs(ctx, find_workload(ctx, parsed, None), parsed)
    if cmd == "exec":
        parsed = parse(rest, NAME_FLAGS)
        return exec_in(ctx, find_workload(ctx, parsed, None), parsed)
    if cmd == "delete":
        if rest and rest[0] == "job":
            rest = rest[1:]
        parsed = parse(rest, NAME_FLAGS)
        wl = find_workload(ctx, parsed, None)
        delete_workload(ctx, wl)
        return Output(f"The job '{name_of(wl)}' has been deleted successfully")
    raise err(f'unknown command "{cmd}" for "runai"')


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
            return project_list(ctx)
        if len(args) != 1:
            raise err("accepts 1 arg(s), received " + str(len(args)))
        project_named(ctx, args[0])
        config(ctx).default_project = args[0]
        return Output(f"Project {args[0]} configured successfully")
    if noun == "cluster":
        cluster = config(ctx).cluster
        if verb == "list":
            return Output(
                runai_table(
                    ["Cluster", "URL", "Current"],
                    [[cluster, "https://gpu-cluster.example.com", "true"]],
                )
            )
        if len(args) != 1:
            raise err("accepts 1 arg(s), received " + str(len(args)))
        if args[0] != cluster:
            raise err(f'cluster "{args[0]}" not found')
        return Output(f"Cluster {cluster} configured successfully")
    if noun == "node":
        return node_list(ctx)
    if noun == "nodepool":
        return nodepool_list(ctx)
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
        return submit_v2(ctx, kind, args)
    if verb == "list":
        parsed = parse(args, LIST_FLAGS)
        return Output(list_v2(ctx, parsed, kind_filter))
    parsed = parse(args, NAME_FLAGS)
    wl = find_workload(ctx, parsed, kind_filter)
    if verb == "describe":
        return Output(describe(ctx, wl))
    if verb == "logs":
        return logs(ctx, wl, parsed)
    if verb == "exec":
        return exec_in(ctx, wl, parsed)
    label = {"workspace": "workspace", "inference": "inference"}.get(
        runai_ctl.kind_of(wl), "training"
    )
    name = name_of(wl)
    if verb == "delete":
        delete_workload(ctx, wl)
        return Output(f"Successfully deleted {label} {name}")
    phase = phase_of(wl)
    if verb == "suspend":
        if phase in ("Completed", "Failed", "Suspended"):
            raise err(f"{label} {name} is {phase.lower()}; nothing to suspend")
        set_active(ctx, wl, False)
        return Output(f"Successfully suspended {label} {name}")
    if runai_ctl.active_of(wl):
        raise err(f"{label} {name} is not suspended")
    set_active(ctx, wl, True)
    return Output(f"Successfully resumed {label} {name}")


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


def complete(ctx: Context, words: list[str], current: str) -> list[str]:
    if not words:
        return [t for t in TOP if t.startswith(current)]
    prev = words[-1]
    if prev in ("-p", "--project") or (words[:1] in (["project"], ["config"]) and len(words) == 2):
        return [name_of(p) for p in all_projects(ctx) if name_of(p).startswith(current)]
    if prev == "--node-pools":
        head, _, last = current.rpartition(",")
        prefix = f"{head}," if head else ""
        return [prefix + p for p in pool_names(ctx) if p.startswith(last)]
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
    workload_names = sorted({name_of(w) for w in list_workloads(ctx, "", ALL_KINDS)})
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
