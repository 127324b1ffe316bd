"""Checks over the admin host's files, for the handover-inventory ticket: what the admin wrote
into ~/handover/ compared with what the cluster shows, and the partner's manifests from
/tmp/partner-checks applied.

Like simulators.lab.checks, each reads the state (the cluster, the host's files by key as
simulators.lab.fs stores them), never the commands typed. A file's text is read leniently on
whitespace: blank lines, spaces around or between the fields and a missing last newline do not
count; what the fields say does.
"""

from __future__ import annotations

from collections.abc import Callable

from simulators.controllers.util import (
    get_or_none,
    gpu_requests,
    items,
    labels_of,
    name_of,
    quantity,
    spec,
    status,
)
from simulators.lab.checks_common import job_complete
from simulators.lab.world import World

Check = Callable[[World], bool]

GPU = "nvidia.com/gpu"
PRESENT_LABEL = "nvidia.com/gpu.present"  # the GPU Operator's: an NVIDIA GPU is in the node
PRODUCT_LABEL = "nvidia.com/gpu.product"  # GPU Feature Discovery: its model

# The inventory, by key: below the home folder (~/handover/...).
NODES_FILE = "handover/gpu-nodes.txt"
PRODUCTS_FILE = "handover/gpu-products.txt"

# What the partner's manifests in /tmp/partner-checks define.
PARTNER_NAMESPACE = "partner-checks"
PARTNER_CONFIGMAP = "handover-expectations"
PARTNER_JOB = "gpu-smoke"


def _rows(world: World, stored: str) -> list[list[str]] | None:
    """A file's non-blank lines, each split on whitespace; None when there is no such file."""
    text = world.state.files.get(stored)
    if text is None:
        return None
    return [line.split() for line in text.splitlines() if line.strip()]


def _live(obj: object) -> bool:
    return isinstance(obj, dict) and not obj.get("metadata", {}).get("deletionTimestamp")


# ---------------------------------------------------------------------------- the inventory


def whole_gpu_nodes(world: World) -> list[str]:
    """The nodes whose allocatable nvidia.com/gpu is above zero, sorted by name.

    A node that runs MIG under the mixed strategy offers its slices as nvidia.com/mig-<profile>
    and nvidia.com/gpu 0 (the kubelet keeps a resource its device plugin once registered, at
    0), though the GPU Operator still labels it nvidia.com/gpu.present=true."""
    found = []
    for node in items(world.api, "nodes"):
        value = (status(node).get("allocatable") or {}).get(GPU)
        if value is not None and quantity(value) > 0:
            found.append(name_of(node))
    return sorted(found)


def gpu_products(world: World) -> dict[str, str | None]:
    """Each node labelled nvidia.com/gpu.present=true, with its nvidia.com/gpu.product label
    (GPU Feature Discovery's; None if it has none)."""
    return {
        name_of(node): labels_of(node).get(PRODUCT_LABEL)
        for node in items(world.api, "nodes")
        if labels_of(node).get(PRESENT_LABEL) == "true"
    }


def gpu_nodes_listed(world: World) -> bool:
    """~/handover/gpu-nodes.txt holds exactly those nodes' names, one a line, sorted, nothing
    else (no header, no `node/` prefix)."""
    rows = _rows(world, NODES_FILE)
    expected = whole_gpu_nodes(world)
    return rows is not None and bool(expected) and rows == [[name] for name in expected]


def products_listed(world: World) -> bool:
    """~/handover/gpu-products.txt has a line `<node> <product>` for every GPU node and no
    other, in any order; a first line that names no node is a header (`NAME PRODUCT`, as
    custom-columns prints it) and is let pass."""
    rows = _rows(world, PRODUCTS_FILE)
    expected = gpu_products(world)
    if not rows or not expected:
        return False
    if rows[0][0] not in expected:
        rows = rows[1:]
    if any(len(row) != 2 for row in rows):
        return False
    listed = {row[0]: row[1] for row in rows}
    return len(listed) == len(rows) and listed == expected


# ---------------------------------------------------------------------------- partner-checks


def partner_checks_applied(world: World) -> bool:
    """The partner's namespace and ConfigMap exist, and their Job completed: a pod of it that
    asked for a whole GPU succeeded."""
    api = world.api
    if not _live(get_or_none(api, "namespaces", PARTNER_NAMESPACE)):
        return False
    if not _live(get_or_none(api, "configmaps", PARTNER_CONFIGMAP, PARTNER_NAMESPACE)):
        return False
    job = get_or_none(api, "jobs.batch", PARTNER_JOB, PARTNER_NAMESPACE)
    if job is None or not _live(job):
        return False
    if not job_complete(job):
        return False
    pods = items(api, "pods", PARTNER_NAMESPACE, label_selector=f"job-name={PARTNER_JOB}")
    return any(
        status(pod).get("phase") == "Succeeded"
        and bool(spec(pod).get("nodeName"))
        and gpu_requests(pod).get(GPU, 0) >= 1
        for pod in pods
    )


CHECKS: dict[str, dict[str, Check]] = {
    "handover-inventory": {
        "gpu-nodes": gpu_nodes_listed,
        "products": products_listed,
        "partner-checks": partner_checks_applied,
    },
}
