"""runai describe, logs and exec on one workload."""

from __future__ import annotations

from simulators.cluster.api import ApiError, Obj
from simulators.controllers import runai as runai_ctl
from simulators.engine.messages import gpus as fmt_gpus
from simulators.lab.flags import Parsed
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
from simulators.lab.tool import Context, Output


def describe(ctx: Context, wl: Obj) -> str:
    api = ctx.api
    status = wl.get("status") or {}
    kind = runai_ctl.kind_of(wl)
    lines = [
        "Workload Summary",
        f"  Name:             {name_of(wl)}",
        f"  Namespace:        {wl['metadata']['namespace']}",
        f"  Type:             {KIND_LABELS.get(kind, 'Training')}",
        f"  Project:          {runai_ctl.project_of(wl)}",
        f"  User:             {(wl['metadata'].get('labels') or {}).get('user', 'admin')}",
        f"  Status:           {phase_of(wl)}",
        f"  Created:          {wl['metadata'].get('creationTimestamp', '')}",
        f"  Preemptible:      {'true' if runai_ctl.preemptible_of(wl) else 'false'}",
    ]
    activity = status.get("lastActivityTime")
    if kind == "workspace" and activity and phase_of(wl) == "Running":
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
        lines.append(f"  GPU portion:      {fmt_gpus(number(runai_ctl.value(wl, 'gpuFraction')))}")
    else:
        lines.append(f"  GPU devices:      {fmt_gpus(number(runai_ctl.value(wl, 'gpu', 1)))}")
    if kind == "distributed":
        # The master requests what a worker does, so the gang is workers + master pods.
        lines.append(f"  Workers:          {runai_ctl.workers_of(wl)}")
        lines.append(f"  Master pod:       {'yes' if runai_ctl.has_master(wl) else 'no'}")
    project = next((p for p in all_projects(ctx) if name_of(p) == runai_ctl.project_of(wl)), None)
    pools = ", ".join(runai_ctl.node_pools_of(wl, project))
    lines += [f"  Node pools:       {pools}", "", "Pods"]
    pods = pods_of(ctx, wl)
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
    names = {name_of(wl), *(p["metadata"]["name"] for p in pods)}
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
    started = [
        p
        for p in pods_of(ctx, wl)
        if (p.get("status") or {}).get("phase") in ("Running", "Succeeded", "Failed")
    ]
    if not started:
        raise err(f"workload {name_of(wl)} has no started pods yet (status {phase_of(wl)})")
    tail = parsed.value("tail")
    count = int(tail) if tail and tail.isdigit() else None
    pod = started[0]
    text = ctx.api.logs(pod["metadata"]["name"], pod["metadata"]["namespace"], tail=count)
    return Output(text.rstrip("\n"))
