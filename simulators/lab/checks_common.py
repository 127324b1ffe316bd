"""What every ticket's checks read of Run:ai's workloads (simulators.lab.checks and
checks_stack): a workload by project and name, and whether all its pods run."""

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
