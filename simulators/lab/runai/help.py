"""`--help` for runai's verbs, in cobra's layout: the short description, `Usage:` and `Flags:`
with pflag's columns. Each flag's text is the CLI reference's (run-ai/docs,
`docs/Researcher/cli-reference/new-cli/`); only the flags the lab serves are listed."""

from __future__ import annotations

from simulators.lab.flags import Flag

PROJECT = (
    "Specify the project to which the command applies. By default, commands apply to the "
    "default project. To change the default project use ‘runai config project <project name>’"
)

# long name -> (value type, description)
FLAG_TEXT: dict[str, tuple[str, str]] = {
    "all": ("", "list workloads from all projects"),
    "attach": (
        "",
        "If true, wait for the pod to start running, and then attach to the pod as if "
        "'runai attach' was called. Attach makes tty and stdin true by default. Defaults to false",
    ),
    "capability": (
        "stringArray",
        "The POSIX capabilities to add when running containers. Defaults to the default set of "
        "capabilities granted by the container runtime.",
    ),
    "command": (
        "",
        "If true, override the image's entrypoint with the command supplied after '--'",
    ),
    "compute": ("", "Show compute information (default true)"),
    "container": ("string", "Container name for log extraction"),
    "containers": ("", "Include container information in pods"),
    "cpu-core-limit": ("float", "CPU core limit (e.g. 0.5, 1)"),
    "cpu-core-request": ("float", "CPU core request (e.g. 0.5, 1)"),
    "cpu-memory-limit": ("string", "CPU memory limit to allocate for the job (e.g. 1G, 500M)"),
    "cpu-memory-request": ("string", "CPU memory to allocate for the job (e.g. 1G, 500M)"),
    "details": ("", "Display details"),
    "environment": ("stringArray", "Set environment variables in the container"),
    "event-limit": (
        "int32",
        "Limit the number of events displayed (-1 for no limit) (default 50)",
    ),
    "events": ("", "Show events information (default true)"),
    "extended-resource": (
        "stringArray",
        "Request access to an extended resource. Use the format: resource_name=quantity",
    ),
    "follow": ("", "Follow log output"),
    "general": ("", "Show general information (default true)"),
    "gpu-devices-request": ("int32", "GPU units to allocate for the job (e.g. 1, 2)"),
    "gpu-memory-request": ("string", "GPU memory to allocate for the job (e.g. 1G, 500M)"),
    "gpu-portion-request": ("float", "GPU portion request (between 0 and 1, e.g. 0.5, 0.2)"),
    "image": ("string", "The image for the workload"),
    "json": ("", "Output structure JSON"),
    "limit": ("int32", "number of workload in list (default 50)"),
    "limit-bytes": ("int", "Limit the number of bytes returned from the server"),
    "name": ("string", "Set workload name for log extraction"),
    "name-prefix": ("string", "Set defined prefix for the workload name and add index as a suffix"),
    "networks": ("", "Show networks information (default true)"),
    "no-headers": ("", "Output structure table without headers"),
    "no-master": ("", "Do not create a separate pod for the master"),
    "node-pools": (
        "stringArray",
        "List of node pools to use for scheduling the job, ordered by priority",
    ),
    "offset": ("int32", "offset number of limit, default 0 (first offset)"),
    "output": ("string", 'Output format (table, json, yaml) (default "table")'),
    "pod": ("string", "Workload pod ID for log extraction, default: master (0-0)"),
    "pod-limit": ("int32", "Limit the number of pods displayed (-1 for no limit) (default 10)"),
    "pods": ("", "Show pods information (default true)"),
    "preemptible": (
        "",
        "Interactive preemptible jobs can be scheduled above guaranteed quota but may be "
        "reclaimed at any time.",
    ),
    "previous": ("", "Show previous pod log output"),
    "project": ("string", PROJECT),
    "serving-port": (
        "string",
        "Defines various attributes for the serving port. Usage formats: (1) Simplified format: "
        "--serving-port=CONTAINER_PORT (2) Full format: --serving-port=container="
        "CONTAINER_PORT,[authorization-type=public|authenticatedUsers|authorizedUsersOrGroups],"
        "[authorized-users=USER1:USER2...],[authorized-groups=GROUP1:GROUP2...],"
        "[cluster-local-access-only],[protocol=http|grpc]",
    ),
    "since": (
        "duration",
        "Return logs newer than a relative duration like 5s, 2m, or 3h. Defaults to all logs",
    ),
    "since-time": ("string", "Return logs after a specific date (RFC3339)"),
    "state": ("string", "filter by workload state"),
    "status": ("string", "filter by workload state"),
    "stdin": ("", "Keep stdin open on the container(s) in the pod, even if nothing is attached"),
    "table": ("", "Output structure table"),
    "tail": (
        "int",
        "Numer of tailed lines to fetch from the log, for no limit set to -1 (default -1)",
    ),
    "timestamps": ("", "Show timestamps in log output"),
    "tty": ("", "Allocate a TTY for the container"),
    "type": ("string", "filter by workload type"),
    "wait-timeout": ("duration", "Timeout for waiting for workload to be ready for log streaming"),
    "workers": ("int32", "the number of workers that will be allocated for running the workload"),
    "yaml": ("", "Output structure YAML"),
}


def verb_help(command: str, verb: str, flags: list[Flag]) -> str:
    """cobra's help for `runai <command>` (its verb being `verb`)."""
    lines = []
    for flag in sorted(flags, key=lambda f: f.long):
        kind, text = FLAG_TEXT.get(flag.long, ("", ""))
        if flag.long == "help":
            text = f"help for {verb}"
        left = f"  -{flag.short}, --{flag.long}" if flag.short else f"      --{flag.long}"
        lines.append((f"{left} {kind}".rstrip(), text))
    width = max(len(left) for left, _ in lines)
    body = "\n".join(f"{left.ljust(width)}   {text}".rstrip() for left, text in lines)
    name = "" if verb in ("list", "submit") else " [WORKLOAD_NAME]"
    short = SHORTS.get(command, f"{verb} {command.split()[0]}")
    return f"{short}\n\nUsage:\n  runai {command}{name} [flags]\n\nFlags:\n{body}"


# The reference's one-line descriptions where they differ from "<verb> <noun>".
SHORTS = {
    "training pytorch submit": "submit pytorch training",
    "training describe": "describe standard training",
    "training logs": "view logs of a standard training job",
    "workload list": "List workloads",
}


def wants_help(args: list[str]) -> bool:
    """`-h`/`--help` before any `--`."""
    for arg in args:
        if arg == "--":
            return False
        if arg in ("-h", "--help"):
            return True
    return False
