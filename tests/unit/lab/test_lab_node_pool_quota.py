"""The node-pool-quota ticket: a workspace asks for a node pool where its project has no quota."""

from __future__ import annotations

import json

from simulators.controllers.runai import all_workloads
from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all, solved_in_the_cli, wait

IMAGE = "jupyter/scipy-notebook"
DELETE = "runai workspace delete vis-nb -p team-vision"
NOTHING = {"notebook-runs": False, "within-pool-quota": False, "guaranteed-kept": False}


def give_l40s_quota(project: str, gpus: int) -> str:
    patch = json.dumps(
        {"spec": {"nodePools": {"l40s": {"deservedGpus": gpus}}}}, separators=(",", ":")
    )
    return f"kubectl patch projects.run.ai {project} --type merge -p '{patch}'"


def evictions(session: LabSession) -> dict[str, list[str]]:
    return {
        w["metadata"]["name"]: [r["reason"] for r in w.get("status", {}).get("evictions") or []]
        for w in all_workloads(session.world.api)
        if w.get("status", {}).get("evictions")
    }


def test_the_notebook_waits_for_quota_in_the_l40s_pool_and_nothing_is_done(
    pools: LabSession,
) -> None:
    out = pools.run("runai workspace describe vis-nb -p team-vision").output
    assert "Status:           Pending" in out
    assert "Node pools:       l40s" in out
    assert (
        "NonPreemptibleOverQuota: project team-vision would exceed its quota of 0 GPUs in node "
        "pool l40s" in out
    )
    assert done(pools) == NOTHING


def test_the_two_pools_show_their_gpu_types_and_the_idle_l40s_gpus(pools: LabSession) -> None:
    nodes = pools.run("runai node list").output
    assert "l40s-node2  Ready   l40s       NVIDIA-L40S            4            2.00" in nodes
    assert "gpu-node3   Ready   h100       NVIDIA-H100-80GB-HBM3  8            4.00" in nodes
    listed = pools.run("runai nodepool list").output
    assert "l40s       Ready   2      8            6.00" in listed
    labels = pools.run("kubectl get nodes -L run.ai/node-pool,nvidia.com/gpu.memory").output
    assert "l40s-node1   Ready    <none>   31d   v1.31.4   l40s        46068" in labels


def test_the_projects_quotas_are_per_node_pool_in_the_project_and_its_queue(
    pools: LabSession,
) -> None:
    project = pools.run(
        "kubectl get projects.run.ai team-vision -o jsonpath='{.spec.nodePools.l40s.deservedGpus}'"
    ).output
    assert project == "0"
    queue = pools.run(
        "kubectl get queues.scheduling.run.ai team-vision "
        "-o jsonpath='{.spec.nodePools.h100.resources.gpu.quota}'"
    ).output
    assert queue == "8"


def test_resubmitted_in_the_h100_pool_it_runs_within_the_projects_quota(pools: LabSession) -> None:
    pools.run(DELETE)
    out = pools.run(
        f"runai workspace submit vis-nb -p team-vision -i {IMAGE} -g 2 --node-pools h100"
    ).output
    assert out.startswith("Creating workspace vis-nb...")
    wait(pools, 3)
    described = pools.run("runai workspace describe vis-nb -p team-vision").output
    assert "Status:           Running" in described and "gpu-node3" in described
    assert pools.is_complete(), done(pools)


def test_the_admin_can_add_l40s_quota_out_of_the_idle_gpus_instead(pools: LabSession) -> None:
    pools.run(give_l40s_quota("team-vision", 2))
    wait(pools, 3)
    out = pools.run("runai workspace describe vis-nb -p team-vision").output
    assert "l40s-node2" in out and "Status:           Running" in out
    assert evictions(pools) == {}
    assert pools.is_complete(), done(pools)
    # Run:ai shows a project's quota over all its pools.
    assert "team-vision  research    10         6" in pools.run("runai project list").output


def test_in_another_order_both_pools_and_the_projects_default(pools: LabSession) -> None:
    # l40s first, then h100: the scheduler tries them in order and places it in h100.
    run_all(
        pools,
        [DELETE, f"runai workspace submit vis-nb -i {IMAGE} -g 2 --node-pools l40s,h100"],
    )
    wait(pools, 3)
    assert "Node pools:       l40s, h100" in pools.run("runai workspace describe vis-nb").output
    assert pools.is_complete(), done(pools)


def test_without_node_pools_it_goes_to_the_pools_the_project_has_quota_in(
    pools: LabSession,
) -> None:
    run_all(pools, [DELETE, f"runai workspace submit vis-nb -i {IMAGE} -g 2"])
    wait(pools, 3)
    assert "Node pools:       h100" in pools.run("runai workspace describe vis-nb").output
    assert pools.is_complete(), done(pools)


def test_taking_the_quota_from_team_render_runs_it_but_takes_guaranteed_gpus(
    pools: LabSession,
) -> None:
    run_all(pools, [give_l40s_quota("team-render", 4), give_l40s_quota("team-vision", 2)])
    wait(pools, 3)
    assert done(pools) == {
        "notebook-runs": True,
        "within-pool-quota": True,
        "guaranteed-kept": False,
    }


def test_a_preemptible_notebook_borrows_idle_l40s_gpus_but_can_be_taken_away(
    pools: LabSession,
) -> None:
    run_all(
        pools,
        [DELETE, f"runai workspace submit vis-nb -i {IMAGE} -g 2 --node-pools l40s --preemptible"],
    )
    wait(pools, 3)
    out = pools.run("runai workspace describe vis-nb").output
    assert "Status:           Running" in out and "Preemptible:      true" in out
    assert done(pools) == NOTHING


def test_more_l40s_quota_than_the_pool_has_free_does_not_take_render_gpus(
    pools: LabSession,
) -> None:
    # 4 GPUs of quota on a pool with 2 free: the scheduler will not reclaim in-quota work.
    run_all(
        pools,
        [
            give_l40s_quota("team-vision", 4),
            DELETE,
            f"runai workspace submit vis-nb -i {IMAGE} -g 4 --node-pools l40s",
        ],
    )
    wait(pools, 4)
    out = pools.run("kubectl describe pod vis-nb-0-0 -n runai-team-vision").output
    assert "Unable to schedule pod: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu." in out
    assert evictions(pools) == {}
    assert done(pools) == NOTHING


def test_a_node_pool_that_does_not_exist_is_refused(pools: LabSession) -> None:
    out = pools.run(f"runai workspace submit nb2 -i {IMAGE} -g 2 --node-pools a100").output
    assert out == (
        'Error: node pool "a100" not found in cluster dgx-cluster (node pools: default, h100, l40s)'
    )


def test_nvidia_smi_on_an_l40s_node_shows_the_l40s(pools: LabSession) -> None:
    pod = pools.run(
        "kubectl get pods -n gpu-operator --field-selector spec.nodeName=l40s-node2 "
        "-l app=nvidia-device-plugin-daemonset -o name"
    ).output.strip()
    out = pools.run(f"kubectl exec -n gpu-operator {pod} -- nvidia-smi -L").output
    assert out.splitlines()[0].startswith("GPU 0: NVIDIA L40S (UUID: GPU-")
    assert len(out.splitlines()) == 4
    smi = pools.run(f"kubectl exec -n gpu-operator {pod} -- nvidia-smi").output
    assert "46068MiB" in smi and "350W" in smi
    labels = pools.run("kubectl get node l40s-node2 --show-labels").output
    assert "nvidia.com/gpu.product=NVIDIA-L40S" in labels
    assert "nvidia.com/mig.capable=false" in labels
    assert "nvidia.com/gpu.family=ada-lovelace" in labels


def test_the_cli_solves_the_ticket_with_its_answer_key() -> None:
    rows = solved_in_the_cli("node-pool-quota")
    assert "NonPreemptibleOverQuota" in rows[0]["output"]
    assert [item["done"] for item in rows[-1]["checklist"]] == [True, True, True]


def test_tab_completes_node_pool_names(pools: LabSession) -> None:
    line = f"runai workspace submit nb2 -i {IMAGE} -g 2 --node-pools "
    assert pools.complete(line + "l4") == ["l40s"]
    assert pools.complete(line + "l40s,h") == ["l40s,h100"]
