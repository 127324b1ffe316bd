"""Checks for the toolkit-runtime ticket: containerd's nvidia runtime, put back by the GPU
Operator's container toolkit, and a pod that ran nvidia-smi under it.

Like simulators.lab.checks, each reads the cluster's state, never the commands typed.
"""

from __future__ import annotations

from collections.abc import Callable

from simulators.cluster.api import ApiError
from simulators.controllers import containerd, gpu_state, hardware
from simulators.controllers.util import items, spec, status
from simulators.lab.checks_common import job_complete
from simulators.lab.world import World

Check = Callable[[World], bool]

SMOKE_JOB = "gpu-smoke"
SMOKE_NAMESPACE = "default"


def toolkit_ready(world: World) -> bool:
    """The policy deploys the toolkit, and a ready toolkit pod runs on every GPU node."""
    if gpu_state.policy_value(world.api, "toolkit", "enabled") is False:
        return False
    nodes = [n for n in items(world.api, "nodes") if hardware.read_layout(n)]
    return bool(nodes) and all(containerd.toolkit_ready(world.api, n) for n in nodes)


def runtime_class(world: World) -> bool:
    """The RuntimeClass nvidia exists and names the runtime the toolkit configures."""
    try:
        found = world.api.get(containerd.RUNTIME_CLASSES, containerd.DEFAULT_RUNTIME_CLASS)
    except ApiError:
        return False
    return found.get("handler") == containerd.runtime_class_name(world.api)


def smoke_passed(world: World) -> bool:
    """gpu-smoke is Complete, its pod (RuntimeClass nvidia) succeeded and logged a GPU."""
    try:
        job = world.api.get("jobs.batch", SMOKE_JOB, SMOKE_NAMESPACE)
    except ApiError:
        return False
    if not job_complete(job):
        return False
    for pod in items(world.api, "pods", SMOKE_NAMESPACE, label_selector=f"job-name={SMOKE_JOB}"):
        if status(pod).get("phase") != "Succeeded":
            continue
        if spec(pod).get("runtimeClassName") != containerd.DEFAULT_RUNTIME_CLASS:
            continue
        log = world.api.logs(pod["metadata"]["name"], SMOKE_NAMESPACE)
        if "NVIDIA-SMI" in log or "GPU 0:" in log:
            return True
    return False


def policy_ready(world: World) -> bool:
    policy = gpu_state.cluster_policy(world.api)
    return policy is not None and status(policy).get("state") == "ready"


CHECKS: dict[str, dict[str, Check]] = {
    "toolkit-runtime": {
        "toolkit-ready": toolkit_ready,
        "runtime-class": runtime_class,
        "smoke-passed": smoke_passed,
        "policy-ready": policy_ready,
    },
}
