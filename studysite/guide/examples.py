"""Worked examples in the guide, computed by the scheduler engine when the page is built.

A section asks for one with a directive between its paragraphs:

    ::: worked-example fairshare-steps
    :::

and `studysite.markdown` renders it as a marked box: every number in it comes from
`simulators.engine` (the same engine the simulator and the lab run), so an example
can never disagree with what the learner sees when they try it. Each example also
returns the engine's figures it was written from (`facts`), for the content tests.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from simulators.engine import (
    Cluster,
    GpuRequest,
    Node,
    Placement,
    PoolQuota,
    PoolSpec,
    ProjectSpec,
    QuotaScenario,
    TickingClock,
    Workload,
    explain,
    simulate_quota,
    step_demand,
)
from studysite.simulator.format import gpus, num
from studysite.simulator.presets import preset_url
from studysite.simulator.why import why_view

NODE_GPUS = 8


@dataclass(frozen=True)
class TryIt:
    text: str
    url: str


@dataclass(frozen=True)
class WorkedExample:
    title: str
    markdown: str
    tries: tuple[TryIt, ...] = ()
    facts: dict[str, object] = field(default_factory=dict)


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- section 6


GUIDE_SCENARIO = QuotaScenario(
    pools=(PoolSpec("default", 24),),
    projects=(
        ProjectSpec("team-a", {"default": 8}, {"default": 4}, 1),
        ProjectSpec("team-b", {"default": 8}, {"default": 16}, 2),
        ProjectSpec("team-c", {"default": 8}, {"default": 10}, 1),
    ),
)


def fairshare_steps() -> WorkedExample:
    pool = simulate_quota(GUIDE_SCENARIO).pools[0]
    why = why_view(pool)
    (division,) = why.divisions
    rows = [
        (p.project, num(p.quota), num(p.demand), num(spec.over_quota_weight))
        for p, spec in zip(pool.projects, GUIDE_SCENARIO.projects, strict=True)
    ]
    parts = [
        f"A node pool of {num(pool.gpus)} GPUs and three projects. Demand is every GPU "
        "of work a project has, running plus waiting.",
        _table(("Project", "Quota", "Demand", "Over-quota weight"), rows),
        "The engine divides the pool in three steps:",
    ]
    for number, step in enumerate(division.steps, start=1):
        lines = "\n".join(f"   - {line}" for line in step.lines)
        parts.append(f"{number}. **{step.title}.**\n{lines}")
    parts.append(f"**{division.result}**")
    result_rows = [
        (
            p.project,
            num(p.fair_share),
            num(p.quota_backed),
            num(p.over_quota),
            num(p.unmet),
        )
        for p in pool.projects
    ]
    parts.append(
        _table(("Project", "Fair share", "Within quota", "Borrowed", "Waiting"), result_rows)
    )
    parts.append(
        "The borrowed GPUs are the ones reclaim can take back when another project's "
        "demand grows toward its own fair share."
    )
    return WorkedExample(
        "Fair share, step by step",
        "\n\n".join(parts),
        (TryIt("Try it in the simulator with this setup", preset_url("guide")),),
        {
            "fair_share": {p.project: p.fair_share for p in pool.projects},
            "borrowed": {p.project: p.over_quota for p in pool.projects},
        },
    )


# ---------------------------------------------------------------------------- section 8


RECLAIM_SCENARIO = QuotaScenario(
    pools=(PoolSpec("default", 24),),
    projects=(
        ProjectSpec("team-a", {"default": 8}, {"default": 2}, 1),
        ProjectSpec("team-b", {"default": 8}, {"default": 20}, 1),
        ProjectSpec("team-c", {"default": 8}, {"default": 2}, 1),
    ),
)
RECLAIM_STEP = ("team-a", "default", 10)


def reclaim_stops_at_fair_share() -> WorkedExample:
    project, pool_name, extra = RECLAIM_STEP
    step = step_demand(RECLAIM_SCENARIO, project, pool_name, extra)
    before, after = step.before.pools[0], step.after.pools[0]
    b_before, b_after = before.project("team-b"), after.project("team-b")
    a_after = after.project("team-a")
    reclaimed = sum(e.gpus for e in step.timeline if e.kind == "reclaimed")
    running_before = b_before.quota_backed + b_before.over_quota
    running_after = b_after.quota_backed + b_after.over_quota
    rows = [
        (
            p.project,
            num(p.quota),
            num(b.demand),
            num(p.demand),
            num(b.fair_share),
            num(p.fair_share),
            num(b.quota_backed + b.over_quota),
            num(p.quota_backed + p.over_quota),
        )
        for b, p in zip(before.projects, after.projects, strict=True)
    ]
    timeline = "\n".join(f"- Cycle {e.cycle}, {e.kind}: {e.message}" for e in step.timeline[:6])
    markdown = "\n\n".join(
        [
            f"{num(before.gpus)} GPUs, three projects with a quota of 8 each. team-b "
            f"has work for {num(b_before.demand)} GPUs and runs {num(running_before)}: "
            f"{num(b_before.quota_backed)} within quota and {num(b_before.over_quota)} "
            "borrowed from the others' idle quota.",
            f"Then team-a's demand grows by {gpus(extra)}. Its fair share rises to "
            f"{num(a_after.fair_share)} and team-b's falls to {num(b_after.fair_share)}, "
            "so the engine reclaims:",
            timeline,
            _table(
                (
                    "Project",
                    "Quota",
                    "Demand before",
                    "Demand after",
                    "Fair share before",
                    "Fair share after",
                    "Running before",
                    "Running after",
                ),
                rows,
            ),
            f"Reclaim took {gpus(reclaimed)} and stopped there: team-b still runs "
            f"{num(running_after)}, its new fair share, and keeps "
            f"{gpus(b_after.over_quota)} borrowed. team-a runs "
            f"{num(a_after.quota_backed + a_after.over_quota)} and "
            f"{gpus(a_after.unmet)} of its work waits: reclaim brings a project up to "
            "its fair share, never further, and never takes a victim below its own.",
        ]
    )
    url = preset_url("reclaim-fair-share")
    return WorkedExample(
        "A reclaim that stops at the victim's fair share",
        markdown,
        (
            TryIt("Try it in the simulator (the step is already set)", url),
            TryIt("Reclaim in the lab: the validate-runai ticket", "/lab/validate-runai/"),
        ),
        {
            "reclaimed": reclaimed,
            "victim_running_after": running_after,
            "victim_fair_share_after": b_after.fair_share,
            "owner_running_after": a_after.quota_backed + a_after.over_quota,
        },
    )


def _events(cluster: Cluster, project: str, name: str) -> list[str]:
    return [f"{e.type} {e.reason}: {e.message}" for e in cluster.events_for(project, name)]


def _status(workload: Workload) -> str:
    nodes = sorted({p.node for p in workload.pods if p.node})
    where = f" on {', '.join(nodes)}" if nodes and workload.status == "Running" else ""
    return f"{workload.status}{where}"


def preemption_by_priority() -> WorkedExample:
    cluster = Cluster(clock=TickingClock())
    cluster.add_node(Node("gpu-node1", gpus=8, pool="default"))
    cluster.add_project("team-llm", quotas={"default": PoolQuota(deserved=8)})
    cluster.submit("sweep", "team-llm", kind="training", gpu=GpuRequest.whole(8))
    cluster.run_cycle()
    sweep_first = _status(cluster.workload("team-llm", "sweep"))
    cluster.submit("urgent", "team-llm", kind="training", gpu=GpuRequest.whole(8), priority=80)
    cycles = 0
    while cluster.workload("team-llm", "urgent").status != "Running" and cycles < 5:
        cluster.run_cycle()
        cycles += 1
    sweep = cluster.workload("team-llm", "sweep")
    urgent = cluster.workload("team-llm", "urgent")
    events = _events(cluster, "team-llm", "sweep")
    evicted = next((e for e in events if "Evicted" in e or "Preempt" in e), "")
    markdown = "\n\n".join(
        [
            "One project, team-llm, with a quota of 8 GPUs on one 8-GPU node. Its "
            f"training `sweep` (8 GPUs, priority {sweep.priority}) is {sweep_first}.",
            f"A second training, `urgent`, asks for 8 GPUs with priority {urgent.priority}. "
            "Both are inside the same project and its quota, so this is not reclaim "
            "(which works across projects): it is preemption by priority.",
            _table(
                ("Workload", "Priority", "Preemptible", "Status"),
                [
                    (w.name, str(w.priority), "yes" if w.preemptible else "no", _status(w))
                    for w in (sweep, urgent)
                ],
            ),
            f"After {cycles} scheduling cycles `urgent` runs. `sweep`'s events say why it "
            f"stopped:\n\n```text\n{evicted}\n```",
            "It waits, Pending, until the GPUs are free again: a preempted training "
            "resumes only from its last checkpoint.",
        ]
    )
    return WorkedExample(
        "Preemption inside a project, by priority",
        markdown,
        (
            TryIt(
                "Priority in the lab: the inference-priority ticket (reclaim, not preemption)",
                "/lab/inference-priority/",
            ),
        ),
        {
            "sweep_status": sweep.status,
            "urgent_status": urgent.status,
            "evicted_by": sweep.evicted_by,
            "cycles": cycles,
        },
    )


# ---------------------------------------------------------------------------- section 9


def gang_waits() -> WorkedExample:
    cluster = Cluster(clock=TickingClock())
    for i in (1, 2, 3):
        cluster.add_node(Node(f"gpu-node{i}", gpus=NODE_GPUS, pool="default"))
    cluster.add_project("team-llm", quotas={"default": PoolQuota(deserved=20)})
    cluster.add_project("team-vision", quotas={"default": PoolQuota(deserved=4)})
    cluster.submit("notebook", "team-vision", kind="workspace", gpu=GpuRequest.whole(1))
    cluster.submit("debug", "team-llm", kind="workspace", gpu=GpuRequest.whole(1))
    cluster.place_running("team-vision", "notebook", ["gpu-node1"])
    cluster.place_running("team-llm", "debug", ["gpu-node2"])
    cluster.submit("llm-ft", "team-llm", kind="distributed", gpu=GpuRequest.whole(8), pods=2)
    cluster.run_cycle()
    gang = cluster.workload("team-llm", "llm-ft")
    # The workload object is live: keep what it says now, before the next cycle.
    status_before, reason_before, requested = gang.status, gang.reason_code, gang.gpus_requested
    free = {
        name: NODE_GPUS - cluster.node_usage(name).gpus_allocated
        for name in ("gpu-node1", "gpu-node2", "gpu-node3")
    }
    waiting = explain(cluster, "team-llm", "llm-ft")
    cluster.delete_workload("team-llm", "debug")
    cluster.run_cycle()
    after = cluster.workload("team-llm", "llm-ft")
    markdown = "\n\n".join(
        [
            "Three nodes of 8 GPUs. Two workspaces of 1 GPU each run on gpu-node1 and "
            "gpu-node2 (workspaces are non-preemptible, so nothing may move them). "
            "team-llm submits `llm-ft`: 2 workers of 8 GPUs.",
            _table(
                ("Node", "Free GPUs"),
                [(name, num(count)) for name, count in free.items()],
            ),
            f"{gpus(sum(free.values()))} are free, more than the {num(requested)} "
            "the job asks for, but only one node has 8 free. The engine starts none of "
            f"the workers: the workload is {status_before}, and says why:",
            f"```text\n{waiting.summary}\n```",
            "Starting one worker alone would hold 8 GPUs doing nothing: its first "
            "collective waits for every rank.",
            "When the debug workspace on gpu-node2 ends, the next cycle starts both "
            f"workers together: `llm-ft` is {_status(after)}.",
        ]
    )
    return WorkedExample(
        "A gang that waits",
        markdown,
        (
            TryIt("Start a gang in the lab: the validate-runai ticket", "/lab/validate-runai/"),
            TryIt(
                "A gang that can't fit: the gang-fragmentation ticket", "/lab/gang-fragmentation/"
            ),
        ),
        {
            "free": free,
            "status_before": status_before,
            "reason_code": reason_before,
            "status_after": after.status,
        },
    )


# ---------------------------------------------------------------------------- section 10


def _placed(strategy: Placement) -> tuple[dict[str, float], dict[str, str], str]:
    cluster = Cluster(clock=TickingClock())
    cluster.add_node_pool("a100", placement=strategy)
    for i in (1, 2, 3):
        cluster.add_node(Node(f"node{i}", gpus=8, pool="a100"))
    cluster.add_project("team-a", quotas={"a100": PoolQuota(deserved=24)})
    for j in range(1, 5):
        cluster.submit(
            f"small-{j}", "team-a", kind="training", gpu=GpuRequest.whole(2), node_pool="a100"
        )
        cluster.run_cycle()
    cluster.submit("big", "team-a", kind="training", gpu=GpuRequest.whole(8), node_pool="a100")
    cluster.run_cycle()
    cluster.run_cycle()
    used = {f"node{i}": cluster.node_usage(f"node{i}").gpus_allocated for i in (1, 2, 3)}
    where = {w.name: _status(w) for w in cluster.workloads("team-a")}
    return used, where, cluster.workload("team-a", "big").reason_code


def binpack_vs_spread() -> WorkedExample:
    results = {strategy: _placed(strategy) for strategy in ("binpack", "spread")}
    rows = [
        (
            f"node{i}",
            num(results["binpack"][0][f"node{i}"]),
            num(results["spread"][0][f"node{i}"]),
        )
        for i in (1, 2, 3)
    ]
    big = {strategy: results[strategy][1]["big"] for strategy in results}
    markdown = "\n\n".join(
        [
            "The same jobs on the same three 8-GPU nodes, once with bin-packing and once "
            "with spreading: four trainings of 2 GPUs, submitted one after another, then "
            "one training of 8 GPUs.",
            _table(("GPUs in use", "Bin-pack", "Spread"), rows),
            f"Bin-pack: the small jobs share node1, the other nodes stay whole, and `big` is "
            f"{big['binpack']}.",
            f"Spread: the small jobs are spread over all three nodes, no node has 8 free "
            "GPUs, and `big` "
            f"is {big['spread']} with reason `{results['spread'][2]}`, although "
            f"{gpus(24 - sum(results['spread'][0].values()))} are free in the pool.",
            "Spread is still the right choice for inference replicas (resilience, no hot "
            "spots); for big training jobs it fragments the pool.",
        ]
    )
    return WorkedExample(
        "Bin-pack against spread on the same jobs",
        markdown,
        (
            TryIt(
                "Free whole nodes in the lab: the gang-fragmentation ticket",
                "/lab/gang-fragmentation/",
            ),
        ),
        {
            strategy: {"used": used, "big": where["big"], "reason": reason}
            for strategy, (used, where, reason) in results.items()
        },
    )


EXAMPLES: dict[str, Callable[[], WorkedExample]] = {
    "fairshare-steps": fairshare_steps,
    "reclaim-fair-share": reclaim_stops_at_fair_share,
    "preemption-priority": preemption_by_priority,
    "gang-waits": gang_waits,
    "binpack-vs-spread": binpack_vs_spread,
}


@functools.cache
def worked_example(name: str) -> WorkedExample:
    """The example called `name`; a KeyError names the ones that exist."""
    if name not in EXAMPLES:
        raise KeyError(f"no worked example {name!r}; there are {', '.join(EXAMPLES)}")
    return EXAMPLES[name]()
