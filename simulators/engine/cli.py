"""`python -m simulators fairshare|reclaim|cycle`: the engine with JSON in and out.

Shapes are those of docs/engine.md ("The command line"). Bad input prints one line on
stderr and exits 2.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from typing import TextIO

from simulators.engine.cluster import Cluster
from simulators.engine.errors import EngineError
from simulators.engine.fairshare import ShareQueue, fair_share
from simulators.engine.model import (
    DEFAULT_POOL,
    GpuRequest,
    Node,
    PodStatus,
    PoolQuota,
    Queue,
    TickingClock,
    WorkloadKind,
)
from simulators.engine.scheduler import ACTIONS

USAGE = "usage: python -m simulators {fairshare|reclaim|cycle} [FILE]  (JSON on stdin if no FILE)"


def _object(value: object, where: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise EngineError(f"{where}: must be a JSON object")
    return value


def _list(value: object, where: str) -> list[object]:
    if not isinstance(value, list):
        raise EngineError(f"{where}: must be a JSON array")
    return value


def _field(data: dict[str, object], key: str, where: str) -> object:
    if key not in data:
        raise EngineError(f"{where}.{key}: missing")
    return data[key]


def _num(value: object, where: str, minimum: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise EngineError(f"{where}: must be a number")
    if value < minimum:
        raise EngineError(f"{where}: must be {minimum:g} or more")
    return float(value)


def _int(value: object, where: str, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineError(f"{where}: must be an integer")
    if minimum is not None and value < minimum:
        raise EngineError(f"{where}: must be {minimum} or more")
    return value


def _str(value: object, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise EngineError(f"{where}: must be a non-empty string")
    return value


def _optional_num(value: object, where: str) -> float | None:
    return None if value is None else _num(value, where)


def _queues(data: dict[str, object], with_request: bool) -> list[ShareQueue]:
    queues = []
    for i, raw in enumerate(_list(_field(data, "queues", "input"), "queues")):
        where = f"queues[{i}]"
        item = _object(raw, where)
        parent = item.get("parent")
        queues.append(
            ShareQueue(
                name=_str(_field(item, "name", where), f"{where}.name"),
                parent=None if parent is None else _str(parent, f"{where}.parent"),
                deserved=_optional_num(_field(item, "deserved", where), f"{where}.deserved"),
                over_quota_weight=_num(
                    _field(item, "over_quota_weight", where), f"{where}.over_quota_weight"
                ),
                limit=_optional_num(item.get("limit"), f"{where}.limit"),
                priority=_int(_field(item, "priority", where), f"{where}.priority"),
                request=_num(_field(item, "request", where), f"{where}.request")
                if with_request
                else 0.0,
            )
        )
    return queues


def _plain(value: float) -> float | int:
    return int(value) if value == int(value) else value


def run_fairshare(data: dict[str, object]) -> dict[str, object]:
    total = _num(_field(data, "total_gpus", "input"), "total_gpus")
    shares = fair_share(total, _queues(data, with_request=True))
    return {"fair_share": {name: _plain(share) for name, share in shares.items()}}


def build_cluster(data: dict[str, object]) -> tuple[Cluster, list[str]]:
    """The reclaim/cycle input as a cluster; returns it and the job names in input order."""
    cluster = Cluster(clock=TickingClock())
    nodes = _object(_field(data, "nodes", "input"), "nodes")
    for name, count in nodes.items():
        cluster.add_node(Node(name, gpus=_int(count, f"nodes.{name}", 0)))
    queues = _queues(data, with_request=False)
    names = {q.name for q in queues}
    fair_share(0, queues)  # validates parents and loops
    for share_queue in queues:
        if share_queue.parent is not None and share_queue.parent not in names:
            raise EngineError(
                f"queue {share_queue.name}: parent {share_queue.parent!r} is not a queue"
            )
        cluster.queues[share_queue.name] = Queue(
            name=share_queue.name,
            parent=share_queue.parent,
            quotas={
                DEFAULT_POOL: PoolQuota(
                    share_queue.deserved, share_queue.over_quota_weight, share_queue.limit
                )
            },
            priority=share_queue.priority,
            creation_rank=len(cluster.queues),
        )
    parents = {q.parent for q in queues if q.parent is not None}
    jobs = []
    for i, raw in enumerate(_list(_field(data, "jobs", "input"), "jobs")):
        where = f"jobs[{i}]"
        item = _object(raw, where)
        tasks = _list(_field(item, "tasks", where), f"{where}.tasks")
        if not tasks:
            raise EngineError(f"{where}.tasks: a job needs at least one task")
        jobs.append(
            (_int(_field(item, "creation_rank", where), f"{where}.creation_rank"), i, item, tasks)
        )
    jobs.sort(key=lambda entry: (entry[0], entry[1]))
    order: list[str] = []
    seen: set[str] = set()
    for _rank, i, item, tasks in jobs:
        where = f"jobs[{i}]"
        name = _str(_field(item, "name", where), f"{where}.name")
        if name in seen:
            raise EngineError(f"{where}.name: {name!r} appears twice")
        seen.add(name)
        queue_name = _str(_field(item, "queue", where), f"{where}.queue")
        if queue_name not in names:
            raise EngineError(f"{where}.queue: {queue_name!r} is not a queue_name")
        if queue_name in parents:
            raise EngineError(
                f"{where}.queue: {queue_name!r} has child queues; jobs go in leaf queues"
            )
        per_task = _num(_field(item, "gpus_per_task", where), f"{where}.gpus_per_task")
        if per_task <= 0:
            raise EngineError(f"{where}.gpus_per_task: must be more than 0")
        preemptible = _field(item, "preemptible", where)
        if not isinstance(preemptible, bool):
            raise EngineError(f"{where}.preemptible: must be true or false")
        min_available = _int(_field(item, "min_available", where), f"{where}.min_available", 1)
        if min_available > len(tasks):
            raise EngineError(f"{where}.min_available: more than the job's {len(tasks)} tasks")
        request = GpuRequest.whole(int(per_task)) if per_task >= 1 else GpuRequest.portion(per_task)
        if per_task > 1 and per_task != int(per_task):
            raise EngineError(f"{where}.gpus_per_task: above 1, must be a whole number")
        cluster.submit(
            name,
            queue_name,
            kind=WorkloadKind.TRAINING,
            gpu=request,
            pods=len(tasks),
            priority=_int(_field(item, "priority", where), f"{where}.priority"),
            preemptible=preemptible,
            min_available=min_available,
        )
        placements: list[str | None] = []
        for t, raw_task in enumerate(tasks):
            task = _object(raw_task, f"{where}.tasks[{t}]")
            status = task.get("status")
            if status not in ("Running", "Pending"):
                raise EngineError(f"{where}.tasks[{t}].status: must be Running or Pending")
            node = task.get("node")
            if status == "Running":
                node = _str(node, f"{where}.tasks[{t}].node")
                if node not in cluster.nodes:
                    raise EngineError(f"{where}.tasks[{t}].node: {node!r} is not a node")
                placements.append(node)
            else:
                placements.append(None)
        workload = cluster.workload(queue_name, name)
        # Running tasks first keep their index order; placement takes idle devices.
        try:
            cluster.place_running(queue_name, name, placements)
        except EngineError as error:
            raise EngineError(f"{where}: {error}") from None
        workload.reason_code = ""
        order.append(name)
    return cluster, order


def _job_results(cluster: Cluster) -> dict[str, object]:
    jobs: dict[str, object] = {}
    for workload in cluster.workloads():
        node = next((p.node for p in workload.pods if p.node is not None), None)
        status = workload.status
        if status == PodStatus.SUCCEEDED.value:  # pragma: no cover - not produced by the CLI
            status = "Running"
        jobs[workload.name] = {"status": status, "node": node}
    return {"jobs": jobs}


def run_reclaim(data: dict[str, object]) -> dict[str, object]:
    cluster, _order = build_cluster(data)
    cluster.run_cycle(actions=("reclaim",), settle=False)
    return _job_results(cluster)


def run_whole_cycle(data: dict[str, object]) -> dict[str, object]:
    cluster, _order = build_cluster(data)
    result = cluster.run_cycle(actions=ACTIONS, settle=False)
    output = _job_results(cluster)
    output["events"] = [
        {
            "job": event.object_name
            if event.object_kind == "Workload"
            else _job_of(cluster, event),
            "pod": event.object_name if event.object_kind == "Pod" else None,
            "type": event.type,
            "reason": event.reason,
            "message": event.message,
        }
        for event in result.events
    ]
    return output


def _job_of(cluster: Cluster, event: object) -> str:
    for workload in cluster.workloads():
        for pod in workload.pods:
            if pod.name == getattr(event, "object_name", None):
                return workload.name
    return ""


COMMANDS = {"fairshare": run_fairshare, "reclaim": run_reclaim, "cycle": run_whole_cycle}


def main(argv: Sequence[str], stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    out = stdout if stdout is not None else sys.stdout
    if not argv or argv[0] not in COMMANDS:
        print(f"error: unknown command; {USAGE}", file=sys.stderr)
        return 2
    if len(argv) > 2:
        print(f"error: too many arguments; {USAGE}", file=sys.stderr)
        return 2
    try:
        if len(argv) == 2:
            with open(argv[1], encoding="utf-8") as handle:
                text = handle.read()
        else:
            text = (stdin if stdin is not None else sys.stdin).read()
        data = _object(json.loads(text), "input")
        result = COMMANDS[argv[0]](data)
    except json.JSONDecodeError as error:
        print(f"error: input is not valid JSON: {error.msg} (line {error.lineno})", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot read {argv[1]}: {error.strerror}", file=sys.stderr)
        return 2
    except EngineError as error:
        print(f"error: {_one_line(str(error))}", file=sys.stderr)
        return 2
    json.dump(result, out, indent=2, sort_keys=False)
    out.write("\n")
    return 0


def _one_line(text: str) -> str:
    return " ".join(text.split())
