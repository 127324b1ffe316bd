"""The runai CLI, v2 and v1 shapes, scheduled through the engine."""

from __future__ import annotations

from typing import Any

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import wait

RULE = "─" * 84


def logged_in(validate: LabSession) -> LabSession:
    validate.run("runai login")
    return validate


def test_login_prints_the_three_lines(validate: LabSession) -> None:
    out = validate.run("runai login").output.split("\n")
    assert out[0].startswith("Opening the login page in your browser: https://runai.example.com/")
    assert out[1:] == ["Waiting for authentication to complete...", "Logged in successfully"]


def test_project_list_has_the_rule_line_and_set_confirms(pending: LabSession) -> None:
    lines = pending.run("runai project list").output.split("\n")
    assert lines[0].split() == [
        "Project",
        "Department",
        "GPU",
        "Quota",
        "Allocated",
        "GPUs",
        "Cluster",
    ]
    assert lines[1] == RULE
    assert lines[2].split() == ["team-llm", "research", "12", "12", "dgx-cluster"]
    assert (
        pending.run("runai project set team-llm").output
        == "Project team-llm configured successfully"
    )


def test_training_submit_confirms_then_the_list_shows_it_running(validate: LabSession) -> None:
    logged_in(validate)
    out = validate.run(
        "runai training submit t1 -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 -g 1"
    )
    assert (
        out.output
        == "Creating training t1...\nTo track the workload's status, run 'runai training list'"
    )
    # The workload controller, the scheduler and the kubelet each take a step, as on a cluster.
    wait(validate, 3)
    lines = validate.run("runai training list -p team-a").output.split("\n")
    # The headers of Run:ai's quickstart output, Preemptible included (a training is).
    assert [h.strip() for h in lines[0].split("  ") if h.strip()] == [
        "Workload",
        "Type",
        "Status",
        "Project",
        "Preemptible",
        "Running/Requested Pods",
        "GPU Allocation",
    ]
    assert lines[1] == RULE
    assert lines[2].split() == ["t1", "Training", "Running", "team-a", "Yes", "1/1", "1.00"]


def test_a_half_gpu_workspace_shows_gpu_alloc_0_50(validate: LabSession) -> None:
    logged_in(validate)
    out = validate.run(
        "runai workspace submit nb1 -p team-a -i jupyter/scipy-notebook --gpu-portion-request 0.5"
    ).output
    assert (
        out
        == "Creating workspace nb1...\nTo track the workload's status, run 'runai workspace list'"
    )
    wait(validate, 3)
    row = validate.run("runai workspace list -p team-a").output.split("\n")[2]
    assert row.split() == ["nb1", "Workspace", "Running", "team-a", "No", "1/1", "0.50"]


def test_pytorch_submit_runs_a_master_pod_beside_the_two_workers(validate: LabSession) -> None:
    logged_in(validate)
    out = validate.run(
        "runai training pytorch submit llm-ft -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 "
        "--workers 2 -g 8"
    ).output
    assert out == (
        "Creating distributed training workload llm-ft...\n"
        "To track the workload's status, run 'runai training pytorch list'"
    )
    wait(validate, 3)
    pods = validate.run("kubectl get pods -n runai-team-a -o wide").output
    # Run:ai adds a master pod (requesting what a worker does) unless --no-master is given.
    names = [line.split()[0] for line in pods.split("\n")[1:]]
    assert names == ["llm-ft-master-0", "llm-ft-worker-0", "llm-ft-worker-1"]
    assert pods.count("Running") == 3
    row = validate.run("runai training list -p team-a").output.split("\n")[2]
    assert row.split()[4:] == ["Yes", "3/3", "24.00"]


def test_v1_submit_and_list_jobs_use_the_v1_wording(validate: LabSession) -> None:
    logged_in(validate)
    validate.run("runai config project team-a")
    out = validate.run("runai submit nb1 -i jupyter/scipy-notebook -g 0.5 --interactive").output
    assert out == (
        "The job 'nb1' has been submitted successfully\n"
        "You can run `runai describe job nb1 -p team-a` to check the job status"
    )
    wait(validate, 3)
    lines = validate.run("runai list jobs").output.split("\n")
    assert lines[0] == "Showing jobs for project team-a"
    assert "GPUs Allocated (Requested)" in lines[1] and "PODs Running (Pending)" in lines[1]
    assert "0.5 (0.5)" in lines[2] and "1 (0)" in lines[2]


def test_training_describe_explains_a_pending_job_with_the_engines_reason(
    pending: LabSession,
) -> None:
    out = pending.run("runai workspace describe nb-carol").output
    assert out.startswith("Workload Summary\n  Name:             nb-carol\n")
    assert "  Namespace:        runai-team-vision" in out
    assert (
        "Pods\n  Name            Status     Node      Image\n  nb-carol-0-0    Pending    <none>"
        in out
    )
    assert "Warning    Unschedulable      Unable to schedule pod: NonPreemptibleOverQuota" in out
    assert "PodGroupCreated" in out


def test_kubectl_describe_pod_shows_the_runai_scheduler_as_the_source(pending: LabSession) -> None:
    out = pending.run("kubectl describe pod nb-carol-0-0 -n runai-team-vision").output
    assert "project=team-vision" in out and "runai/queue=team-vision" in out
    assert "runai-scheduler" in out and "NonPreemptibleOverQuota" in out


def test_the_v2_cli_rejects_an_unknown_verb_like_cobra(pending: LabSession) -> None:
    assert pending.run("runai training frobnicate").output == (
        'Error: unknown command "frobnicate" for "runai training"\n'
        "Run 'runai training --help' for usage."
    )


def test_submitting_without_a_project_or_image_is_an_error(validate: LabSession) -> None:
    logged_in(validate)
    assert "no project given" in validate.run("runai training submit t1 -i x -g 1").output
    assert validate.run("runai training submit t1 -p team-a -g 1").output == (
        'Error: required flag(s) "image" not set'
    )
    assert "not found" in validate.run("runai training submit t1 -p nope -i x -g 1").output


def test_deleting_a_workload_frees_its_gpus_and_its_pods(validate: LabSession) -> None:
    logged_in(validate)
    validate.run("runai training submit t1 -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 -g 8")
    wait(validate, 1)
    assert (
        validate.run("runai training delete t1 -p team-a").output
        == "Successfully deleted training t1"
    )
    assert validate.run("kubectl get pods -n runai-team-a").output == (
        "No resources found in runai-team-a namespace."
    )


def test_draining_a_node_sends_runai_pods_back_to_the_scheduler(validate: LabSession) -> None:
    logged_in(validate)
    validate.run("runai training submit t1 -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 -g 8")
    wait(validate, 3)
    node = _pod(validate, "t1-0-0")["spec"]["nodeName"]
    out = validate.run(f"kubectl drain {node} --ignore-daemonsets").output
    assert "evicting pod runai-team-a/t1-0-0" in out
    wait(validate, 4)
    moved = _pod(validate, "t1-0-0")
    assert moved["status"]["phase"] == "Running" and moved["spec"]["nodeName"] != node


def _pod(session: LabSession, name: str) -> dict[str, Any]:
    pod: dict[str, Any] = session.world.api.get("pods", name, "runai-team-a")
    return pod


def test_helm_upgrade_install_reports_release_and_revision(validate: LabSession) -> None:
    cmd = (
        "helm upgrade -i runai-cluster runai/runai-cluster -n runai --create-namespace "
        "--set controlPlane.url=runai.example.com --set cluster.url=gpu-cluster.example.com "
        "--set controlPlane.clientSecret=$RUNAI_CLIENT_SECRET --set cluster.uid=$RUNAI_CLUSTER_UID"
    )
    out = validate.run(cmd).output.split("\n")
    assert out[0] == 'Release "runai-cluster" has been upgraded. Happy Helming!'
    assert out[1:6] == [
        "NAME: runai-cluster",
        out[2],
        "NAMESPACE: runai",
        "STATUS: deployed",
        "REVISION: 2",
    ]
    assert out[2].startswith("LAST DEPLOYED: Tue Nov 10 09:40")
    fresh = validate.run(cmd.replace("runai-cluster runai/", "runai-cluster2 runai/")).output
    assert fresh.split("\n")[0] == 'Release "runai-cluster2" does not exist. Installing it now.'
    assert "REVISION: 1" in fresh


def test_node_list_shows_each_nodes_pool_gpus_and_allocation(pending: LabSession) -> None:
    lines = pending.run("runai node list").output.split("\n")
    assert lines[0].split()[:3] == ["Node", "Status", "Node"]
    assert lines[1] == RULE
    rows = [line.split() for line in lines[2:]]
    assert [r[0] for r in rows] == ["gpu-node1", "gpu-node2", "gpu-node3"]
    assert all(r[2] == "default" and r[4] == "8" for r in rows)
    assert sum(float(r[5]) for r in rows) == 18.0  # team-llm's 12 plus team-vision's 6


def test_nodepool_list_sums_the_pools_nodes(pending: LabSession) -> None:
    lines = pending.run("runai nodepool list").output.split("\n")
    assert lines[0].split() == [
        "Node",
        "Pool",
        "Status",
        "Nodes",
        "GPU",
        "Devices",
        "Allocated",
        "GPUs",
        "Cluster",
    ]
    assert lines[2].split() == ["default", "Ready", "3", "24", "18.00", "dgx-cluster"]


def test_exec_in_a_half_gpu_workspace_sees_half_the_memory(validate: LabSession) -> None:
    logged_in(validate)
    validate.run(
        "runai workspace submit nb1 -p team-a -i jupyter/scipy-notebook --gpu-portion-request 0.5"
    )
    wait(validate, 3)
    out = validate.run("runai workspace exec nb1 -p team-a -- nvidia-smi").output
    assert "/  40779MiB |" in out
    assert validate.run("runai workspace exec nb1 -p team-a -- nvidia-smi -L").output.startswith(
        "GPU 0: NVIDIA H100 80GB HBM3"
    )
    pod = validate.run("kubectl exec -n runai-team-a nb1-0-0 -- nvidia-smi").output
    assert "/  40779MiB |" in pod


def test_helm_releases_are_secrets_in_the_release_namespace(validate: LabSession) -> None:
    validate.run("helm upgrade -i monitoring nvidia/gpu-operator -n gpu-operator")
    secrets = validate.run("kubectl get secrets -n gpu-operator -l owner=helm -o name").output
    assert "secret/sh.helm.release.v1.monitoring.v1" in secrets.split("\n")
    listed = validate.run("helm list -n gpu-operator").output
    assert "monitoring" in listed and "gpu-operator" in listed
