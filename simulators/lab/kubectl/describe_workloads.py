"""kubectl describe for the workload kinds: DaemonSets, Deployments, ReplicaSets, StatefulSets
and Jobs."""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.printers import human_duration
from simulators.lab.kubectl.common import format_labels, meta, parse_ts, rfc1123z
from simulators.lab.kubectl.describe_common import (
    Writer,
    controller_of,
    dig,
    pod_counts,
    selector_text,
    write_events,
    write_labels_and_annotations,
    write_pod_template,
)


def describe_daemonset(cluster: ClusterAPI, ds: Obj, events: bool = True) -> str:
    w = Writer()
    m, spec, status = meta(ds), ds.get("spec") or {}, ds.get("status") or {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    w.write(0, f"Selector:\t{selector_text(spec.get('selector'))}\n")
    node_selector = dig(spec, "template", "spec", "nodeSelector") or {}
    w.write(0, f"Node-Selector:\t{format_labels(node_selector)}\n")
    write_labels_and_annotations(w, m)
    w.write(0, f"Desired Number of Nodes Scheduled: {status.get('desiredNumberScheduled', 0)}\n")
    w.write(0, f"Current Number of Nodes Scheduled: {status.get('currentNumberScheduled', 0)}\n")
    w.write(
        0,
        "Number of Nodes Scheduled with Up-to-date Pods: "
        f"{status.get('updatedNumberScheduled', 0)}\n",
    )
    w.write(
        0, f"Number of Nodes Scheduled with Available Pods: {status.get('numberAvailable', 0)}\n"
    )
    w.write(0, f"Number of Nodes Misscheduled: {status.get('numberMisscheduled', 0)}\n")
    _pods_status(cluster, w, ds)
    write_pod_template(w, spec.get("template"))
    if events:
        write_events(cluster, w, ds)
    return w.text()


def describe_deployment(cluster: ClusterAPI, d: Obj, events: bool = True) -> str:
    w = Writer()
    m, spec, status = meta(d), d.get("spec") or {}, d.get("status") or {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    w.write(0, f"CreationTimestamp:\t{rfc1123z(str(m.get('creationTimestamp', '')))}\n")
    write_labels_and_annotations(w, m)
    w.write(0, f"Selector:\t{selector_text(spec.get('selector'))}\n")
    w.write(
        0,
        f"Replicas:\t{spec.get('replicas', 1)} desired | {status.get('updatedReplicas', 0)} "
        f"updated | {status.get('replicas', 0)} total | {status.get('availableReplicas', 0)} "
        f"available | {status.get('unavailableReplicas', 0)} unavailable\n",
    )
    strategy = spec.get("strategy") or {}
    w.write(0, f"StrategyType:\t{strategy.get('type', 'RollingUpdate')}\n")
    w.write(0, f"MinReadySeconds:\t{spec.get('minReadySeconds', 0)}\n")
    rolling = strategy.get("rollingUpdate")
    if isinstance(rolling, dict):
        w.write(
            0,
            f"RollingUpdateStrategy:\t{rolling.get('maxUnavailable', '25%')} max unavailable, "
            f"{rolling.get('maxSurge', '25%')} max surge\n",
        )
    write_pod_template(w, spec.get("template"))
    _conditions(w, status)
    uid = m.get("uid")
    try:  # kubectl shows the ReplicaSets it could list, and none when it could not
        listed = cluster.list("replicasets.apps", str(m.get("namespace", ""))).get("items", [])
    except ApiError:
        listed = []
    sets = [
        rs
        for rs in listed
        if any(r.get("uid") == uid for r in meta(rs).get("ownerReferences") or [])  # type: ignore[attr-defined]
    ]
    if sets:
        sets.sort(key=lambda rs: str(meta(rs).get("creationTimestamp", "")))
        new, old = sets[-1:], sets[:-1]

        def names(items: list[Obj]) -> str:
            text = ", ".join(
                f"{meta(rs).get('name')} ({dig(rs, 'status', 'replicas') or 0}/"
                f"{dig(rs, 'spec', 'replicas') or 0} replicas created)"
                for rs in items
            )
            return text or "<none>"

        w.write(0, f"OldReplicaSets:\t{names(old)}\n")
        w.write(0, f"NewReplicaSet:\t{names(new)}\n")
    if events:
        write_events(cluster, w, d)
    return w.text()


def describe_replicaset(cluster: ClusterAPI, rs: Obj, events: bool = True) -> str:
    w = Writer()
    m, spec, status = meta(rs), rs.get("spec") or {}, rs.get("status") or {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    w.write(0, f"Selector:\t{selector_text(spec.get('selector'))}\n")
    write_labels_and_annotations(w, m)
    controlled = controller_of(rs)
    if controlled:
        w.write(0, f"Controlled By:\t{controlled}\n")
    w.write(
        0, f"Replicas:\t{status.get('replicas', 0)} current / {spec.get('replicas', 1)} desired\n"
    )
    try:
        _pods_status(cluster, w, rs)
    except ApiError as exc:  # a ReplicaSet's describer says so and goes on (getPodErr)
        w.write(0, f"Pods Status:\terror in fetching pods: {exc.message}\n")
    write_pod_template(w, spec.get("template"))
    _conditions(w, status)
    if events:
        write_events(cluster, w, rs)
    return w.text()


def _pods_status(cluster: ClusterAPI, w: Writer, obj: Obj) -> None:
    running, waiting, succeeded, failed = pod_counts(cluster, obj)
    w.write(
        0,
        f"Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / "
        f"{failed} Failed\n",
    )


def _conditions(w: Writer, status: Obj) -> None:
    conditions = status.get("conditions") or []
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
        w.write(1, "----\t------\t------\n")
        for c in conditions:
            w.write(1, f"{c.get('type', '')} \t{c.get('status', '')}\t{c.get('reason', '')}\n")


def describe_statefulset(cluster: ClusterAPI, sts: Obj, events: bool = True) -> str:
    """describeStatefulSet: replicas, update strategy, pods, template, volume claim templates."""
    w = Writer()
    m, spec, status = meta(sts), sts.get("spec") or {}, sts.get("status") or {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    w.write(0, f"CreationTimestamp:\t{rfc1123z(str(m.get('creationTimestamp', '')))}\n")
    w.write(0, f"Selector:\t{selector_text(spec.get('selector'))}\n")
    write_labels_and_annotations(w, m)
    w.write(
        0, f"Replicas:\t{spec.get('replicas', 1)} desired | {status.get('replicas', 0)} total\n"
    )
    strategy = spec.get("updateStrategy") or {}
    w.write(0, f"Update Strategy:\t{strategy.get('type', '')}\n")
    rolling = strategy.get("rollingUpdate")
    if isinstance(rolling, dict) and rolling.get("partition") is not None:
        w.write(1, f"Partition:\t{rolling['partition']}\n")
        if rolling.get("maxUnavailable") is not None:
            w.write(1, f"MaxUnavailable:\t{rolling['maxUnavailable']}\n")
    _pods_status(cluster, w, sts)
    write_pod_template(w, spec.get("template"))
    claims = spec.get("volumeClaimTemplates") or []
    if not claims:
        w.write(0, "Volume Claims:\t<none>\n")
    else:
        w.write(0, "Volume Claims:\n")
        for claim in claims:
            cm, cspec = meta(claim), claim.get("spec") or {}
            w.write(1, f"Name:\t{cm.get('name', '')}\n")
            w.write(1, f"StorageClass:\t{cspec.get('storageClassName', '')}\n")
            write_labels_and_annotations_at(w, cm)
            storage = dig(cspec, "resources", "requests", "storage")
            w.write(1, f"Capacity:\t{storage if storage else '<default>'}\n")
            modes = ",".join(cspec.get("accessModes") or [])
            w.write(1, f"Access Modes:\t{modes}\n")
    if events:
        write_events(cluster, w, sts)
    return w.text()


def write_labels_and_annotations_at(w: Writer, m: Obj) -> None:
    """A volume claim template's labels and annotations, one level in (printLabelsMultiline
    with the LEVEL_1 writer)."""
    for title, values in (("Labels", m.get("labels")), ("Annotations", m.get("annotations"))):
        pairs = sorted((values or {}).items()) if isinstance(values, dict) else []
        if not pairs:
            w.write(1, f"{title}:\t<none>\n")
            continue
        for i, (key, value) in enumerate(pairs):
            sep = "=" if title == "Labels" else ": "
            w.write(1, f"{title + ':' if i == 0 else ''}\t{key}{sep}{value}\n")


def describe_job(cluster: ClusterAPI, job: Obj, events: bool = True) -> str:
    """describeJob: parallelism, completions, times and pod statuses, then the template."""
    w = Writer()
    m, spec, status = meta(job), job.get("spec") or {}, job.get("status") or {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    # A nil selector is labels.Nothing(), which prints as nothing.
    selector = spec.get("selector")
    w.write(0, f"Selector:\t{selector_text(selector) if selector else ''}\n")
    write_labels_and_annotations(w, m)
    controlled = controller_of(job)
    if controlled:
        w.write(0, f"Controlled By:\t{controlled}\n")
    if spec.get("parallelism") is not None:
        w.write(0, f"Parallelism:\t{spec['parallelism']}\n")
    completions = spec.get("completions")
    w.write(0, f"Completions:\t{completions if completions is not None else '<unset>'}\n")
    if spec.get("completionMode") is not None:
        w.write(0, f"Completion Mode:\t{spec['completionMode']}\n")
    if spec.get("suspend") is not None:
        w.write(0, f"Suspend:\t{'true' if spec['suspend'] else 'false'}\n")
    if spec.get("backoffLimit") is not None:
        w.write(0, f"Backoff Limit:\t{spec['backoffLimit']}\n")
    if spec.get("ttlSecondsAfterFinished") is not None:
        w.write(0, f"TTL Seconds After Finished:\t{spec['ttlSecondsAfterFinished']}\n")
    start, end = status.get("startTime"), status.get("completionTime")
    if start:
        w.write(0, f"Start Time:\t{rfc1123z(str(start))}\n")
    if end:
        w.write(0, f"Completed At:\t{rfc1123z(str(end))}\n")
    begun, finished = parse_ts(str(start or "")), parse_ts(str(end or ""))
    if begun and finished:
        w.write(0, f"Duration:\t{human_duration((finished - begun).total_seconds())}\n")
    if spec.get("activeDeadlineSeconds") is not None:
        w.write(0, f"Active Deadline Seconds:\t{spec['activeDeadlineSeconds']}s\n")
    active, succeeded, failed = (
        status.get("active", 0),
        status.get("succeeded", 0),
        status.get("failed", 0),
    )
    if status.get("ready") is None:
        w.write(0, f"Pods Statuses:\t{active} Active / {succeeded} Succeeded / {failed} Failed\n")
    else:
        w.write(
            0,
            f"Pods Statuses:\t{active} Active ({status['ready']} Ready) / {succeeded} Succeeded "
            f"/ {failed} Failed\n",
        )
    if spec.get("completionMode") == "Indexed":
        w.write(0, f"Completed Indexes:\t{status.get('completedIndexes') or '<none>'}\n")
    write_pod_template(w, spec.get("template"))
    if events:
        write_events(cluster, w, job)
    return w.text()
