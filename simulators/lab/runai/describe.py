"""runai describe, logs and exec on one workload."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import Any

import yaml

from simulators.cluster.api import ApiError, Obj
from simulators.controllers import runai as runai_ctl
from simulators.engine.messages import gpus as fmt_gpus
from simulators.lab.flags import Flag, Parsed, parse_bool
from simulators.lab.kubectl.common import parse_ts, since
from simulators.lab.render import padded_table
from simulators.lab.runai.common import (
    KIND_LABELS,
    all_projects,
    err,
    name_of,
    number,
    phase_of,
    pods_of,
)
from simulators.lab.runai.tables import int32_flag
from simulators.lab.tool import Context, Output

# `describe`'s sections (each shown unless `--<section>=false`) and its flags.
SECTIONS = ("general", "compute", "pods", "events", "networks")
DESCRIBE_FLAGS = [
    Flag("project", long="project", short="p", takes_value=True),
    Flag("output", long="output", short="o", takes_value=True),
    *(Flag(section, long=section) for section in SECTIONS),
    Flag("containers", long="containers"),
    Flag("pod-limit", long="pod-limit", takes_value=True),
    Flag("event-limit", long="event-limit", takes_value=True),
    Flag("help", long="help", short="h"),
]
LOG_FLAGS = [
    Flag("project", long="project", short="p", takes_value=True),
    Flag("follow", long="follow", short="f"),
    Flag("tail", long="tail", short="t", takes_value=True),
    Flag("timestamps", long="timestamps"),
    Flag("since", long="since", takes_value=True),
    Flag("since-time", long="since-time", takes_value=True),
    Flag("pod", long="pod", takes_value=True),
    Flag("container", long="container", short="c", takes_value=True),
    Flag("previous", long="previous"),
    Flag("limit-bytes", long="limit-bytes", takes_value=True),
    Flag("wait-timeout", long="wait-timeout", takes_value=True),
    Flag("name", long="name", takes_value=True),
    Flag("help", long="help", short="h"),
]


def describe_command(ctx: Context, wl: Obj, parsed: Parsed, args: list[str]) -> Output:
    """`runai <noun> describe NAME [-o table|json|yaml] [--pods=false ...]`."""
    turned_off = {
        word[2:].partition("=")[0]
        for word in args
        if word.startswith("--") and parse_bool(word.partition("=")[2]) is False
    }
    shown = {s for s in SECTIONS if s not in turned_off}
    pod_limit = _limit(parsed, "pod-limit", 10)
    event_limit = _limit(parsed, "event-limit", 50)
    data = describe_data(ctx, wl, pod_limit, event_limit)
    output = parsed.value("output") or "table"
    if output in ("json", "yaml"):
        doc = {key: data[key] for key in ("general", "compute", "pods", "events") if key in shown}
        if output == "json":
            return Output(json.dumps(doc, indent=2))
        return Output(str(yaml.safe_dump(doc, sort_keys=False)).rstrip("\n"))
    if output != "table":
        raise err(f'invalid output format "{output}": use one of table, json, yaml')
    return Output(render_describe(data, shown))


def _limit(parsed: Parsed, key: str, default: int) -> int:
    return int32_flag(parsed, key, default)


def describe(ctx: Context, wl: Obj) -> str:
    """The describe table with every section (v1's `runai describe job` prints it too)."""
    return render_describe(describe_data(ctx, wl, 10, 50), set(SECTIONS))


def describe_data(ctx: Context, wl: Obj, pod_limit: int, event_limit: int) -> dict[str, Any]:
    """What describe shows, section by section (`-o json|yaml` prints it as it is)."""
    api = ctx.api
    status = wl.get("status") or {}
    kind = runai_ctl.kind_of(wl)
    general: dict[str, str] = {
        "Name": name_of(wl),
        "Namespace": str(wl["metadata"]["namespace"]),
        "Type": KIND_LABELS.get(kind, "Training"),
        "Project": runai_ctl.project_of(wl),
        "User": str((wl["metadata"].get("labels") or {}).get("user", "admin")),
        "Status": phase_of(wl),
        "Created": str(wl["metadata"].get("creationTimestamp", "")),
        "Preemptible": "true" if runai_ctl.preemptible_of(wl) else "false",
    }
    activity = status.get("lastActivityTime")
    if kind == "workspace" and activity and phase_of(wl) == "Running":
        moment = parse_ts(str(activity))
        idle = (api.now() - moment).total_seconds() if moment else 0
        general["Last activity"] = (
            f"{since(api, str(activity))} ago (GPU utilization 0% since)"
            if idle > 3600
            else "active now"
        )
    compute: dict[str, str] = {}
    if runai_ctl.value(wl, "migProfile"):
        compute["MIG profile"] = str(runai_ctl.value(wl, "migProfile"))
    elif runai_ctl.value(wl, "gpuMemory"):
        compute["GPU memory"] = str(runai_ctl.value(wl, "gpuMemory"))
    elif runai_ctl.value(wl, "gpuFraction"):
        compute["GPU portion"] = fmt_gpus(number(runai_ctl.value(wl, "gpuFraction")))
    else:
        compute["GPU devices"] = fmt_gpus(number(runai_ctl.value(wl, "gpu", 1)))
    for field, label in (("cpuCoreRequest", "CPU cores"), ("cpuMemoryRequest", "CPU memory")):
        if runai_ctl.value(wl, field) is not None:
            compute[label] = str(runai_ctl.value(wl, field))
    if kind == "distributed":
        # The master requests what a worker does, so the gang is workers + master pods.
        compute["Workers"] = str(runai_ctl.workers_of(wl))
        compute["Master pod"] = "yes" if runai_ctl.has_master(wl) else "no"
    project = next((p for p in all_projects(ctx) if name_of(p) == runai_ctl.project_of(wl)), None)
    compute["Node pools"] = ", ".join(runai_ctl.node_pools_of(wl, project))
    all_pods = pods_of(ctx, wl)
    pods = []
    for p in all_pods if pod_limit < 0 else all_pods[:pod_limit]:
        phase = str((p.get("status") or {}).get("phase") or "Pending")
        pods.append(
            {
                "Name": str(p["metadata"]["name"]),
                "Status": "Completed" if phase == "Succeeded" else phase,
                "Node": str((p.get("spec") or {}).get("nodeName") or "<none>"),
                "Image": str(runai_ctl.value(wl, "image", "")),
            }
        )
    names = {name_of(wl), *(p["metadata"]["name"] for p in all_pods)}
    found = [
        e
        for e in api.list("events", wl["metadata"]["namespace"]).get("items", [])
        if (e.get("involvedObject") or {}).get("name") in names
    ]
    found.sort(key=lambda e: str(e.get("lastTimestamp") or ""), reverse=True)
    seen: set[tuple[str, str]] = set()
    events: list[dict[str, str]] = []
    for e in found:
        if 0 <= event_limit <= len(events):
            break
        key = (str(e.get("reason", "")), str(e.get("message", "")))
        if key in seen:
            continue
        seen.add(key)
        moment = parse_ts(str(e.get("lastTimestamp") or e.get("firstTimestamp") or ""))
        message = str(e.get("message", ""))
        if int(e.get("count") or 1) > 1:
            message += f" (x{e['count']})"
        events.append(
            {
                "Time": moment.strftime("%H:%M:%S") if moment else "",
                "Type": str(e.get("type", "")),
                "Reason": key[0],
                "Message": message,
            }
        )
    return {"general": general, "compute": compute, "pods": pods, "events": events}


def render_describe(data: dict[str, Any], shown: set[str]) -> str:
    blocks: list[list[str]] = []
    for section, title in (("general", "Workload Summary"), ("compute", "Compute Resources")):
        if section in shown:
            pairs = data[section].items()
            blocks.append([title, *(f"  {(k + ':').ljust(18)}{v}" for k, v in pairs)])
    for section, title, headers in (
        ("pods", "Pods", ["Name", "Status", "Node", "Image"]),
        ("events", "Events", ["Time", "Type", "Reason", "Message"]),
    ):
        if section in shown:
            rows = [[row[h] for h in headers] for row in data[section]]
            table = padded_table(headers, rows, padding=4)
            blocks.append([title, *("  " + line for line in table.split("\n"))])
    return "\n\n".join("\n".join(block) for block in blocks)


def exec_in(ctx: Context, wl: Obj, parsed: Parsed) -> Output:
    """`runai workspace exec NAME -- COMMAND`: pods/exec in the workload's first running pod."""
    command = parsed.after_dashdash
    if not command:
        raise err("a command is required after --, for example: -- nvidia-smi")
    running = [p for p in pods_of(ctx, wl) if (p.get("status") or {}).get("phase") == "Running"]
    if not running:
        raise err(f"workload {name_of(wl)} has no running pods (status {phase_of(wl)})")
    pod = running[0]
    if command[0] in ("bash", "sh", "/bin/bash", "/bin/sh") and len(command) == 1:
        raise err(
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


def logs(ctx: Context, wl: Obj, parsed: Parsed) -> Output:
    """`runai <noun> logs NAME`: the master's (first pod's) log, or --pod's; --tail,
    --timestamps, --since and --since-time as kubectl's. The lab keeps no time per line, so
    each line carries its container's start time."""
    pods = pods_of(ctx, wl)
    started = [
        p
        for p in pods
        if (p.get("status") or {}).get("phase") in ("Running", "Succeeded", "Failed")
    ]
    asked = parsed.value("pod")
    if asked is not None and asked not in {p["metadata"]["name"] for p in pods}:
        raise err(f'pod "{asked}" not found in workload {name_of(wl)}')
    if asked is not None:
        started = [p for p in started if p["metadata"]["name"] == asked]
    if not started:
        raise err(f"workload {name_of(wl)} has no started pods yet (status {phase_of(wl)})")
    tail = parsed.value("tail")
    count = int(tail) if tail and tail.isdigit() else None
    pod = started[0]
    newer_than = _since(ctx, parsed)
    text = ctx.api.logs(
        pod["metadata"]["name"],
        pod["metadata"]["namespace"],
        tail=count,
        previous=parsed.has("previous"),
    )
    stamp = _started_at(pod)
    if newer_than is not None and (stamp is None or stamp < newer_than):
        return Output("")
    lines = text.rstrip("\n").split("\n") if text.strip() else []
    if parsed.has("timestamps") and stamp is not None:
        prefix = stamp.strftime("%Y-%m-%dT%H:%M:%S.000000000Z ")
        lines = [prefix + line for line in lines]
    return Output("\n".join(lines))


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


def _since(ctx: Context, parsed: Parsed) -> datetime | None:
    """The moment --since (a Go duration: 5s, 2m, 1h30m) or --since-time (RFC 3339) names."""
    raw = parsed.value("since")
    if raw is not None:
        parts = _DURATION.findall(raw)
        if not parts or "".join(n + u for n, u in parts) != raw:
            raise err(
                f'invalid argument "{raw}" for "--since" flag: time: invalid duration "{raw}"'
            )
        seconds = sum(float(n) * _UNITS[u] for n, u in parts)
        if seconds > 100 * 365 * 86400:
            return None  # older than the cluster: every line
        return ctx.api.now() - timedelta(seconds=seconds)
    moment = parsed.value("since-time")
    if moment is not None:
        parsed_time = parse_ts(moment)
        if parsed_time is None:
            raise err(f'--since-time "{moment}" is not an RFC3339 time (2006-01-02T15:04:05Z)')
        return parsed_time
    return None


def _started_at(pod: Obj) -> datetime | None:
    for cstatus in (pod.get("status") or {}).get("containerStatuses") or []:
        state = cstatus.get("state") or {}
        for phase in ("running", "terminated"):
            started = (state.get(phase) or {}).get("startedAt")
            if started:
                return parse_ts(str(started))
    started = (pod.get("status") or {}).get("startTime")
    return parse_ts(str(started)) if started else None
