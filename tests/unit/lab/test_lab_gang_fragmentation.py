"""The gang-fragmentation ticket: 16 free GPUs on three nodes do not make two whole nodes."""

from __future__ import annotations

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, wait

DESCRIBE = "runai training pytorch describe llm-dist -p team-llm"


def test_the_gang_waits_for_two_whole_nodes_while_16_gpus_are_free(gang: LabSession) -> None:
    out = gang.run(DESCRIBE).output
    assert "Status:           Pending" in out
    assert (
        "Unable to schedule pod group: gang scheduling: llm-dist waits for 2 pods x 8 GPUs = "
        "16 GPUs at once in node pool default; only 1 of its pods fit now" in out
    )
    nodes = gang.run("runai node list").output
    free = [float(line.split()[-1]) for line in nodes.splitlines() if line.startswith("gpu-")]
    assert sum(free) == 16 and sorted(free) == [4.0, 4.0, 8.0]
    assert done(gang) == {"gang-started": False, "gang-whole-nodes": False, "active-kept": False}


def test_in_another_order_suspending_the_stale_notebook_also_works(gang: LabSession) -> None:
    gang.run("runai workspace suspend nb-old -p team-vision")
    wait(gang, 2)
    assert gang.is_complete(), done(gang)
    assert "2/2" in gang.run("runai training pytorch list -p team-llm").output


def test_stopping_anas_active_notebook_is_not_a_fix(gang: LabSession) -> None:
    gang.run("runai workspace delete nb-ana -p team-vision")
    wait(gang, 2)
    assert done(gang) == {"gang-started": True, "gang-whole-nodes": True, "active-kept": False}


def test_restarting_anas_notebook_pod_consolidates_but_costs_her_kernel(
    gang: LabSession,
) -> None:
    gang.run("kubectl delete pod nb-ana-0-0 -n runai-team-vision")
    wait(gang, 3)
    assert done(gang)["gang-started"] is True
    assert done(gang)["active-kept"] is False


def test_consolidating_the_stale_pod_next_to_ana_also_starts_the_gang(gang: LabSession) -> None:
    # Consolidation by hand: Run:ai recreates the pod and the scheduler bin-packs it, which
    # leaves a whole node for each worker without stopping anyone's active work.
    gang.run("kubectl delete pod nb-old-0-0 -n runai-team-vision")
    wait(gang, 3)
    assert done(gang) == {"gang-started": True, "gang-whole-nodes": True, "active-kept": True}
    assert gang.is_complete()


def test_a_worker_pod_deleted_by_hand_comes_back_and_the_gang_still_waits(
    gang: LabSession,
) -> None:
    out = gang.run("kubectl delete pod llm-dist-worker-0 -n runai-team-llm").output
    assert out == 'pod "llm-dist-worker-0" deleted from runai-team-llm namespace'
    wait(gang, 2)
    assert "only 1 of its pods fit now" in gang.run(DESCRIBE).output
    assert done(gang)["gang-started"] is False
