"""Run:ai's projects and departments as KAI Queues: the queue tree, per-pool quotas, and each
project's namespace (``runai-<project>``, labelled ``runai/queue=<project>``).

A department is a top-level queue, a project a child queue with its GPU quota, over-quota
weight and limit; a project or department with per-pool quotas
(``spec.nodePools: {<pool>: {deservedGpus, maxAllowedGpus, gpuOverQuotaWeight}}``, or Run:ai's
``nodePoolResources``) has them in its queue's ``spec.nodePools``.
"""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ClusterAPI, Obj
from simulators.controllers.util import dig, get_or_none, items, name_of, spec, status

QUEUES = "queues.scheduling.run.ai"
PROJECTS = "projects.run.ai"
DEPARTMENTS = "departments.run.ai"
DEFAULT_POOL = "default"


def namespace_for(project: str) -> str:
    return f"runai-{project}"


def deserved_total(body: dict[str, Any]) -> float | None:
    """The GPUs a project or department deserves over all its pools (Run:ai shows this total),
    or None when it has no per-pool quotas."""
    pools = body.get("nodePools")
    if not isinstance(pools, dict) or not pools:
        return None
    total = 0.0
    for given in pools.values():
        try:
            total += max(0.0, float((given or {}).get("deservedGpus", 0)))
        except (AttributeError, TypeError, ValueError):
            continue
    return total


# ---------------------------------------------------------------------------- queues


def run_queues(api: ClusterAPI) -> None:
    """Departments and projects to Queue objects; each project's namespace."""
    departments = items(api, DEPARTMENTS)
    projects = items(api, PROJECTS)
    wanted: dict[str, Obj] = {}
    for dept in departments:
        wanted[name_of(dept)] = _queue(name_of(dept), None, spec(dept))
    for project in projects:
        parent = str(spec(project).get("department") or "default")
        if parent not in wanted:
            wanted[parent] = _queue(parent, None, {})
        wanted[name_of(project)] = _queue(name_of(project), parent, spec(project))
        _ensure_namespace(api, project)
    for name, queue in wanted.items():
        existing = get_or_none(api, QUEUES, name)
        if existing is None:
            api.create(QUEUES, queue)
        elif spec(existing) != queue["spec"]:
            api.patch(QUEUES, name, {"spec": queue["spec"]})
    children: dict[str, list[str]] = {}
    for name, queue in wanted.items():
        parent = queue["spec"].get("parentQueue")
        if parent:
            children.setdefault(parent, []).append(name)
    for queue in items(api, QUEUES):
        kids = sorted(children.get(name_of(queue), []))
        want: dict[str, Any] = {"childQueues": kids} if kids else {}
        if status(queue).get("childQueues") != want.get("childQueues"):
            api.patch(
                QUEUES,
                name_of(queue),
                {"status": {"childQueues": kids or None}},
                subresource="status",
            )


def node_pool_resources(body: dict[str, Any]) -> dict[str, Any]:
    """A department's or project's quotas with Run:ai's ``nodePoolResources`` read in.

    The Run:ai API keeps quotas per node pool in ``nodePoolResources``, a list of
    ``{nodePool: {name}, gpu: {deserved, limit, overQuotaWeight}}``; the flat ``deservedGpus``,
    ``maxAllowedGpus`` and ``gpuOverQuotaWeight`` are deprecated but still honoured, for a pool
    the list doesn't name and for a field an entry leaves out. Returns the body in the lab's own
    per-pool form (``nodePools: {pool: {deservedGpus, maxAllowedGpus, gpuOverQuotaWeight}}``),
    with the flat limit the pools' limits add up to (none if a pool has none).
    """
    entries = body.get("nodePoolResources")
    if not isinstance(entries, list) or not entries:
        return body
    flat = {
        key: body[key]
        for key in ("deservedGpus", "maxAllowedGpus", "gpuOverQuotaWeight")
        if key in body
    }
    pools = {
        str(pool): dict(given)
        for pool, given in (body.get("nodePools") or {}).items()
        if isinstance(given, dict)
    }
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        pool = str(dig(entry, "nodePool", "name") or DEFAULT_POOL)
        raw = entry.get("gpu")
        gpu: dict[str, Any] = raw if isinstance(raw, dict) else {}
        given = pools.get(pool) or dict(flat)
        for field_name, key in (
            ("deserved", "deservedGpus"),
            ("limit", "maxAllowedGpus"),
            ("overQuotaWeight", "gpuOverQuotaWeight"),
        ):
            if field_name in gpu:
                given[key] = gpu[field_name]
        pools[pool] = given
    limits = []
    for given in pools.values():
        try:
            limits.append(float(given.get("maxAllowedGpus", -1)))
        except (TypeError, ValueError):
            limits.append(-1.0)
    limit = sum(limits) if limits and all(x >= 0 for x in limits) else -1
    return {**body, "nodePools": pools, "maxAllowedGpus": limit}


def _queue(name: str, parent: str | None, body: dict[str, Any]) -> Obj:
    body = node_pool_resources(body)

    def number(key: str, default: float) -> float:
        raw = body.get(key)
        try:
            return float(raw) if raw is not None else default
        except (TypeError, ValueError):
            return default

    pools = body.get("nodePools")
    total = deserved_total(body)
    quota_spec: dict[str, Any] = {
        "gpu": {
            "quota": number("deservedGpus", -1) if total is None else total,
            "limit": number("maxAllowedGpus", -1),
            "overQuotaWeight": number("gpuOverQuotaWeight", 1),
        },
        "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
        "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
    }
    queue_spec: dict[str, Any] = {"displayName": name, "resources": quota_spec}
    if isinstance(pools, dict) and pools:
        queue_spec["nodePools"] = {
            str(pool): {"resources": {"gpu": _queue(name, None, given)["spec"]["resources"]["gpu"]}}
            for pool, given in sorted(pools.items())
            if isinstance(given, dict)
        }
    if parent:
        queue_spec["parentQueue"] = parent
    return {
        "apiVersion": "scheduling.run.ai/v2",
        "kind": "Queue",
        "metadata": {"name": name, "labels": {"app": "runai"}},
        "spec": queue_spec,
    }


def _ensure_namespace(api: ClusterAPI, project: Obj) -> None:
    ns = str(spec(project).get("namespace") or namespace_for(name_of(project)))
    if get_or_none(api, "namespaces", ns) is None:
        api.create(
            "namespaces",
            {"metadata": {"name": ns, "labels": {"runai/queue": name_of(project)}}},
        )


def queue_pool_quotas(queue: Obj) -> dict[str, tuple[float | None, float, float | None]]:
    """A queue's GPU quota in each node pool: its ``spec.nodePools``, else all in ``default``."""
    pools = dig(queue.get("spec"), "nodePools")
    if not isinstance(pools, dict) or not pools:
        return {DEFAULT_POOL: queue_quota(queue)}
    return {
        str(pool): queue_quota({"spec": given})
        for pool, given in pools.items()
        if isinstance(given, dict)
    }


def queue_quota(queue: Obj) -> tuple[float | None, float, float | None]:
    """(deserved or None, over-quota weight, limit or None) of a queue's GPUs (-1 = none)."""
    gpu = dig(queue.get("spec"), "resources", "gpu") or {}

    def read(key: str, default: float) -> float:
        try:
            return float(gpu.get(key, default))
        except (TypeError, ValueError):
            return default

    quota = read("quota", -1)
    limit = read("limit", -1)
    return (None if quota < 0 else quota, read("overQuotaWeight", 1), None if limit < 0 else limit)
