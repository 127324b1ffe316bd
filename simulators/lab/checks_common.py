"""What every ticket's checks read of Run:ai's workloads (simulators.lab.checks and
checks_stack): a workload by project and name, and whether all its pods run; and whether a
Job completed."""

from __future__ import annotations

from simulators.cluster.api import Obj
from simulators.controllers import runai
from simulators.controllers.util import status
from simulators.lab.world import World


def workload(world: World, project: str, name: str) -> Obj | None:
    for wl in runai.all_workloads(world.api):
        if runai.project_of(wl) == project and wl["metadata"]["name"] == name:
            return wl
    return None


def running(wl: Obj | None) -> bool:
    """Running with every pod it asked for."""
    if wl is None:
        return False
    st = status(wl)
    return st.get("phase") == "Running" and int(st.get("runningPods", 0)) == runai.pod_count(wl)


def job_complete(job: Obj) -> bool:
    """The Job's Complete condition is True (what `kubectl get jobs` shows as Complete)."""
    return any(
        c.get("type") == "Complete" and c.get("status") == "True"
        for c in status(job).get("conditions") or []
    )
