"""kubectl: output shapes from the guide's section 21 and the real tool's errors."""

from __future__ import annotations

import re

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import run_all, wait


def test_get_nodes_shows_the_three_dgx_nodes_31_days_old(single: LabSession) -> None:
    lines = single.run("kubectl get nodes").output.split("\n")
    assert lines[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert lines[1].split() == ["gpu-node1", "Ready", "<none>", "31d", "v1.31.4"]
    assert len(lines) == 4


def test_label_columns_show_mig_config_and_state(single: LabSession) -> None:
    out = single.run(
        "kubectl get node gpu-node2 -L nvidia.com/mig.config,nvidia.com/mig.config.state"
    ).output
    header, row = out.split("\n")
    assert header.split() == [
        "NAME",
        "STATUS",
        "ROLES",
        "AGE",
        "VERSION",
        "MIG.CONFIG",
        "MIG.CONFIG.STATE",
    ]
    assert row.split() == [
        "gpu-node2",
        "Ready",
        "<none>",
        "31d",
        "v1.31.4",
        "all-disabled",
        "success",
    ]


def test_jsonpath_reads_the_mig_strategy_from_the_cluster_policy(single: LabSession) -> None:
    out = single.run(
        "kubectl get clusterpolicies.nvidia.com/cluster-policy -o jsonpath='{.spec.mig.strategy}'"
    ).output
    assert out == "single"


def test_jsonpath_range_and_escaped_dots_work(single: LabSession) -> None:
    out = single.run(
        "kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}="
        '{.metadata.labels.nvidia\\.com/mig\\.config}{"\\n"}{end}\''
    ).output
    assert out.split("\n")[:3] == [
        "gpu-node1=all-disabled",
        "gpu-node2=all-disabled",
        "gpu-node3=all-disabled",
    ]


def test_show_labels_and_wide_add_their_columns(single: LabSession) -> None:
    out = single.run("kubectl get nodes --show-labels").output
    assert "nvidia.com/mig.config=all-disabled" in out
    wide = single.run("kubectl get nodes -o wide").output.split("\n")[0]
    assert "INTERNAL-IP" in wide and "CONTAINER-RUNTIME" in wide


def test_gpu_operator_pods_carry_a_per_node_suffix(single: LabSession) -> None:
    out = single.run("kubectl get pods -n gpu-operator -o wide").output
    components = (
        "gpu-feature-discovery-",
        "nvidia-container-toolkit-daemonset-",
        "nvidia-dcgm-exporter-",
        "nvidia-device-plugin-daemonset-",
        "nvidia-driver-daemonset-",
        "nvidia-mig-manager-",
        "nvidia-operator-validator-",
    )
    for component in components:
        rows = [line for line in out.split("\n") if line.startswith(component)]
        assert len(rows) == 3, component
        assert {row.split()[6] for row in rows} == {"gpu-node1", "gpu-node2", "gpu-node3"}


def test_the_runai_namespace_lists_the_cluster_components(single: LabSession) -> None:
    out = single.run("kubectl get pods -n runai").output
    assert out.split("\n")[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    row = next(line for line in out.split("\n") if line.startswith("runai-scheduler-default-"))
    # Deployment pods are named <deployment>-<pod-template-hash>-<5 chars>.
    assert re.match(
        r"^runai-scheduler-default-[a-z0-9]{8,10}-[a-z0-9]{5} +1/1 +Running +0 +31d$", row
    )
    assert "prometheus-runai-0" in out and "2/2" in out


def test_an_unknown_resource_type_is_the_servers_error(single: LabSession) -> None:
    assert (
        single.run("kubectl get x").output == 'error: the server doesn\'t have a resource type "x"'
    )


def test_a_missing_pod_is_not_found(single: LabSession) -> None:
    assert (
        single.run("kubectl get pod x").output == 'Error from server (NotFound): pods "x" not found'
    )
    # kubectl logs rewords the builder's NotFound and names the namespace.
    assert single.run("kubectl logs x").output == (
        'error: error from server (NotFound): pods "x" not found in namespace "default"'
    )


def test_an_unknown_flag_is_pflags_error_with_the_usage_line(single: LabSession) -> None:
    assert single.run("kubectl get nodes --foo").output == (
        "error: unknown flag: --foo\nSee 'kubectl get --help' for usage."
    )
    assert single.run("kubectl get nodes -z").output == (
        "error: unknown shorthand flag: 'z' in -z\nSee 'kubectl get --help' for usage."
    )


def test_empty_namespaces_say_no_resources_found(single: LabSession) -> None:
    assert single.run("kubectl get pods -n kube-public").output == (
        "No resources found in kube-public namespace."
    )


def test_kube_system_has_its_usual_pods(single: LabSession) -> None:
    out = single.run("kubectl get pods -n kube-system").output
    assert "coredns-" in out and out.count("kube-proxy-") == 3


def test_labelling_an_existing_key_without_overwrite_is_refused(single: LabSession) -> None:
    out = single.run("kubectl label nodes gpu-node2 nvidia.com/mig.config=all-1g.10gb").output
    assert out == (
        "error: 'nvidia.com/mig.config' already has a value (all-disabled), "
        "and --overwrite is false"
    )


def test_labelling_with_overwrite_says_labeled_and_the_same_value_not_labeled(
    single: LabSession,
) -> None:
    cmd = "kubectl label nodes gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite"
    assert single.run(cmd).output == "node/gpu-node2 labeled"
    assert single.run(cmd).output == "node/gpu-node2 not labeled"


def test_a_label_can_be_removed_with_a_trailing_dash(single: LabSession) -> None:
    assert single.run("kubectl label node gpu-node1 team=a").output == "node/gpu-node1 labeled"
    assert single.run("kubectl label node gpu-node1 team-").output == "node/gpu-node1 unlabeled"
    assert "team=" not in single.run("kubectl get node gpu-node1 --show-labels").output


def test_cordon_and_uncordon_report_like_kubectl(single: LabSession) -> None:
    assert single.run("kubectl cordon gpu-node2").output == "node/gpu-node2 cordoned"
    assert single.run("kubectl cordon gpu-node2").output == "node/gpu-node2 already cordoned"
    assert "Ready,SchedulingDisabled" in single.run("kubectl get node gpu-node2").output
    assert single.run("kubectl uncordon gpu-node2").output == "node/gpu-node2 uncordoned"


def test_drain_without_ignore_daemonsets_stops_on_daemonset_pods(single: LabSession) -> None:
    out = single.run("kubectl drain gpu-node2").output
    assert out.startswith('node/gpu-node2 cordoned\nerror: unable to drain node "gpu-node2"')
    assert "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)" in out
    assert "Running" in single.run("kubectl get pods -o wide").output


def test_drain_with_ignore_daemonsets_warns_and_evicts_the_training_pod(single: LabSession) -> None:
    pod = single.world.api.list("pods", "default")["items"][0]["metadata"]["name"]
    out = single.run("kubectl cordon gpu-node2 && kubectl drain gpu-node2 --ignore-daemonsets")
    lines = out.output.split("\n")
    assert lines[0] == "node/gpu-node2 cordoned"
    assert lines[1] == "node/gpu-node2 already cordoned"
    assert lines[2].startswith("Warning: ignoring DaemonSet-managed Pods: gpu-operator/")
    assert "gpu-operator/nvidia-mig-manager-" in lines[2]
    assert f"evicting pod default/{pod}" in lines and f"pod/{pod} evicted" in lines
    assert lines[-1] == "node/gpu-node2 drained"
    # The Job brings its pod back on another node, running a step later.
    wait(single, 1)
    rows = single.run("kubectl get pods -o wide").output.split("\n")[1:]
    assert len(rows) == 1 and "gpu-node2" not in rows[0] and "Running" in rows[0]


def test_drain_refuses_bare_pods_without_force(mixed: LabSession) -> None:
    run_all(mixed, ["kubectl uncordon gpu-node3", "kubectl get pods"])
    # Triton now runs on a whole GPU of gpu-node3 (the layout never applied).
    assert "Running" in mixed.run("kubectl get pod triton").output
    out = mixed.run("kubectl drain gpu-node3 --ignore-daemonsets").output
    assert (
        "cannot delete Pods that declare no controller (use --force to override): default/triton"
        in out
    )


def test_describe_node_allocatable_shows_eight_whole_gpus(single: LabSession) -> None:
    out = single.run("kubectl describe node gpu-node1").output
    assert "Allocatable:\n  cpu:                224\n" in out
    assert "  nvidia.com/gpu:     8\n  pods:               110\nSystem Info:" in out
    assert "Kubelet Version:            v1.31.4" in out


def test_describe_pod_shows_limits_and_scheduler_events(mixed: LabSession) -> None:
    out = mixed.run("kubectl describe pod triton").output
    assert "Status:           Pending" in out
    assert "    Limits:\n      nvidia.com/gpu:  1" in out
    assert "FailedScheduling" in out and "default-scheduler" in out
    assert "node(s) were unschedulable" in out


def test_logs_of_the_mig_manager_show_its_waiting_line(single: LabSession) -> None:
    pod = _operator_pod(single, "nvidia-mig-manager", "gpu-node1")
    out = single.run(f"kubectl logs -n gpu-operator {pod}").output
    assert out.split("\n")[-1].endswith("Waiting for change to 'nvidia.com/mig.config' label\"")


def test_exec_nvidia_smi_lists_eight_whole_gpus(single: LabSession) -> None:
    pod = _operator_pod(single, "nvidia-driver-daemonset", "gpu-node1")
    out = single.run(f"kubectl exec -n gpu-operator {pod} -- nvidia-smi -L").output
    lines = out.split("\n")
    assert len(lines) == 8
    assert lines[0].startswith("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-")
    assert "MIG" not in out


def test_exec_of_an_unknown_program_is_the_oci_error(single: LabSession) -> None:
    pod = _operator_pod(single, "nvidia-driver-daemonset", "gpu-node1")
    out = single.run(f"kubectl exec -n gpu-operator {pod} -- top").output
    assert 'exec: "top": executable file not found in $PATH' in out


def test_applying_a_changed_pod_is_refused_as_immutable(mixed: LabSession) -> None:
    mixed.run("sed -i 's#nvidia.com/gpu: 1#nvidia.com/mig-1g.10gb: 1#' triton.yaml")
    out = mixed.run("kubectl apply -f triton.yaml").output
    assert out.startswith(
        'The Pod "triton" is invalid: spec: Forbidden: pod updates may not change fields other '
        "than `spec.containers[*].image`"
    )


def test_applying_an_unchanged_pod_says_unchanged_and_create_says_already_exists(
    mixed: LabSession,
) -> None:
    mixed.run("kubectl apply -f triton.yaml")
    assert mixed.run("kubectl apply -f triton.yaml").output == "pod/triton unchanged"
    assert mixed.run("kubectl create -f triton.yaml").output == (
        'Error from server (AlreadyExists): error when creating "triton.yaml": '
        'pods "triton" already exists'
    )


def test_apply_of_a_missing_file_is_kubectls_error(single: LabSession) -> None:
    assert (
        single.run("kubectl apply -f nope.yaml").output
        == 'error: the path "nope.yaml" does not exist'
    )


def test_delete_pod_says_deleted(mixed: LabSession) -> None:
    assert mixed.run("kubectl delete pod triton").output == (
        'pod "triton" deleted from default namespace'
    )
    assert mixed.run("kubectl delete pod triton").output == (
        'Error from server (NotFound): pods "triton" not found'
    )


def test_patch_with_merge_changes_the_strategy_and_again_is_no_change(single: LabSession) -> None:
    cmd = (
        "kubectl patch clusterpolicies.nvidia.com/cluster-policy --type merge "
        """-p '{"spec":{"mig":{"strategy":"mixed"}}}'"""
    )
    assert single.run(cmd).output == "clusterpolicy.nvidia.com/cluster-policy patched"
    assert single.run(cmd).output == "clusterpolicy.nvidia.com/cluster-policy patched (no change)"


def test_patch_of_the_custom_resource_needs_a_merge_type(single: LabSession) -> None:
    out = single.run(
        "kubectl patch clusterpolicies.nvidia.com/cluster-policy "
        """-p '{"spec":{"mig":{"strategy":"mixed"}}}'"""
    ).output
    # The real kubectl's wording: the media type, then the kind the server refused it for.
    assert out.startswith(
        "error: application/strategic-merge-patch+json is not supported by nvidia.com/v1, "
        "Kind=ClusterPolicy: the body of the request was in an unknown format"
    )


def test_patch_rejects_an_unknown_strategy_value(single: LabSession) -> None:
    out = single.run(
        "kubectl patch clusterpolicy cluster-policy --type merge "
        """-p '{"spec":{"mig":{"strategy":"both"}}}'"""
    ).output
    assert 'spec.mig.strategy: Unsupported value: "both"' in out


def _operator_pod(session: LabSession, app: str, node: str) -> str:
    pods = session.world.api.list("pods", "gpu-operator", label_selector=f"app={app}")["items"]
    return str(next(p for p in pods if p["spec"].get("nodeName") == node)["metadata"]["name"])


def test_get_events_lists_the_scheduler_warnings(mixed: LabSession) -> None:
    wait(mixed, 1)
    out = mixed.run("kubectl get events").output
    assert out.split("\n")[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert "FailedScheduling" in out and "pod/triton" in out


def test_a_pending_pods_describe_has_only_the_scheduled_condition(mixed: LabSession) -> None:
    out = mixed.run("kubectl describe pod triton").output
    conditions = out.split("Conditions:\n")[1].split("\nVolumes:")[0].split("\n")
    assert conditions[0].split() == ["Type", "Status"]
    assert [c.split() for c in conditions[1:]] == [["PodScheduled", "False"]]
    assert "ContainerCreating" not in out
    assert "Command:\n      tritonserver" in out or "Args:" in out


def _seconds(age: str) -> int:
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "y": 365 * 86400}
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([smhdy])", age))


def test_repeated_event_ages_fit_inside_the_pods_life(pending: LabSession) -> None:
    row = pending.run("kubectl get pod nb-carol-0-0 -n runai-team-vision").output.split("\n")[1]
    pod_age = _seconds(row.split()[-1])
    out = pending.run("kubectl describe pod nb-carol-0-0 -n runai-team-vision").output
    match = re.search(r"(\S+) \(x(\d+) over (\S+)\)", out)
    assert match is not None
    last, count, first = _seconds(match.group(1)), int(match.group(2)), _seconds(match.group(3))
    # describe runs a step after get, and both round down to the minute.
    assert count > 1 and last <= first <= pod_age + 70
