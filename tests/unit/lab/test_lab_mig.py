"""MIG Manager over steps, the device plugin under each strategy, and the MIG tickets' traps."""

from __future__ import annotations

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all, wait

STATE = "kubectl get node {node} -L nvidia.com/mig.config,nvidia.com/mig.config.state"
LABEL = "kubectl label nodes gpu-node2 nvidia.com/mig.config={layout} --overwrite"


def state_of(session: LabSession, node: str = "gpu-node2") -> str:
    labels = session.world.api.get("nodes", node)["metadata"]["labels"]
    return str(labels["nvidia.com/mig.config.state"])


def allocatable(session: LabSession, resource: str, node: str = "gpu-node2") -> str:
    return str(session.world.api.get("nodes", node)["status"]["allocatable"].get(resource, "0"))


def pod_name(session: LabSession, component: str, node: str) -> str:
    pods = session.world.api.list("pods", "gpu-operator", label_selector=f"app={component}")
    return str(
        next(p for p in pods["items"] if p["spec"].get("nodeName") == node)["metadata"]["name"]
    )


def mig_log(session: LabSession, node: str = "gpu-node2") -> str:
    pod = pod_name(session, "nvidia-mig-manager", node)
    return session.run(f"kubectl logs -n gpu-operator {pod}").output


def test_mig_manager_notices_a_label_on_the_next_step_then_applies_over_two(
    single: LabSession,
) -> None:
    run_all(
        single, ["kubectl drain gpu-node2 --ignore-daemonsets", LABEL.format(layout="all-1g.10gb")]
    )
    assert single.run(STATE.format(node="gpu-node2")).output.endswith("all-1g.10gb   pending")
    assert single.run(STATE.format(node="gpu-node2")).output.endswith("all-1g.10gb   pending")
    assert single.run(STATE.format(node="gpu-node2")).output.endswith("all-1g.10gb   success")
    log = mig_log(single)
    assert "MIG configuration applied successfully" in log
    lines = log.split("\n")
    assert "Changing the 'nvidia.com/mig.config.state' node label to 'success'" in lines[-4:]
    assert lines[-1].endswith("msg=\"Waiting for change to 'nvidia.com/mig.config' label\"")


def test_the_node_advertises_56_gpus_and_nvidia_smi_shows_seven_slices_per_gpu(
    single: LabSession,
) -> None:
    run_all(
        single, ["kubectl drain gpu-node2 --ignore-daemonsets", LABEL.format(layout="all-1g.10gb")]
    )
    wait(single, 3)
    grep = single.run("kubectl describe node gpu-node2 | grep -A8 Allocatable").output
    assert "  nvidia.com/gpu:     56\n" in grep
    driver = pod_name(single, "nvidia-driver-daemonset", "gpu-node2")
    out = single.run(f"kubectl exec -n gpu-operator {driver} -- nvidia-smi -L").output
    lines = out.split("\n")
    assert lines[0].startswith("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-")
    assert lines[1].startswith("  MIG 1g.10gb     Device  0: (UUID: MIG-")
    assert lines[7].startswith("  MIG 1g.10gb     Device  6: (UUID: MIG-")
    assert sum(1 for line in lines if "MIG 1g.10gb" in line) == 56


def test_while_applying_the_device_plugin_is_down_and_the_node_advertises_zero(
    single: LabSession,
) -> None:
    run_all(
        single, ["kubectl drain gpu-node2 --ignore-daemonsets", LABEL.format(layout="all-1g.10gb")]
    )
    assert allocatable(single, "nvidia.com/gpu") == "0"
    out = single.run("kubectl get pods -n gpu-operator -o wide").output
    # MIG Manager switched the plugin off: its pod on gpu-node2 is on its way out (or gone).
    assert all(
        "Terminating" in line
        for line in out.split("\n")
        if "gpu-node2" in line and line.startswith("nvidia-device-plugin")
    )


def test_an_apply_while_a_training_pod_holds_gpus_fails_with_in_use(single: LabSession) -> None:
    single.run(LABEL.format(layout="all-1g.10gb"))
    wait(single, 3)
    assert state_of(single) == "failed"
    log = mig_log(single).split("\n")
    failed = log.index("Changing the 'nvidia.com/mig.config.state' node label to 'failed'")
    cause = [line for line in log[:failed] if "level=fatal" in line][-1]
    assert "In use by another client" in cause
    assert allocatable(single, "nvidia.com/gpu") == "8"


def test_relabelling_the_same_value_after_a_failure_changes_nothing(single: LabSession) -> None:
    single.run(LABEL.format(layout="all-1g.10gb"))
    wait(single, 3)
    single.run("kubectl drain gpu-node2 --ignore-daemonsets")
    assert single.run(LABEL.format(layout="all-1g.10gb")).output == "node/gpu-node2 not labeled"
    wait(single, 4)
    assert state_of(single) == "failed"


def test_restarting_mig_manager_after_a_drain_fixes_a_failed_apply(single: LabSession) -> None:
    single.run(LABEL.format(layout="all-1g.10gb"))
    wait(single, 3)
    assert state_of(single) == "failed"
    single.run("kubectl drain gpu-node2 --ignore-daemonsets")
    old = pod_name(single, "nvidia-mig-manager", "gpu-node2")
    assert single.run(f"kubectl delete pod {old} -n gpu-operator").output == (
        f'pod "{old}" deleted from gpu-operator namespace'
    )
    wait(single, 3)
    assert pod_name(single, "nvidia-mig-manager", "gpu-node2") != old
    assert state_of(single) == "success"
    single.run("kubectl uncordon gpu-node2")
    wait(single, 1)  # the checklist reads the cluster as the last command's output showed it
    assert all(done(single).values())


def test_two_profiles_under_single_crash_loop_the_device_plugin(single: LabSession) -> None:
    run_all(
        single, ["kubectl drain gpu-node2 --ignore-daemonsets", LABEL.format(layout="all-balanced")]
    )
    wait(single, 3)
    assert state_of(single) == "success"
    out = single.run("kubectl get pods -n gpu-operator").output
    plugin = pod_name(single, "nvidia-device-plugin-daemonset", "gpu-node2")
    row = next(line for line in out.split("\n") if line.startswith(plugin))
    assert row.split()[1:3] == ["0/1", "CrashLoopBackOff"]
    assert allocatable(single, "nvidia.com/gpu") == "0"
    # The fix: the mixed strategy advertises one resource per profile.
    single.run(
        "kubectl patch clusterpolicies.nvidia.com/cluster-policy --type merge "
        """-p '{"spec":{"mig":{"strategy":"mixed"}}}'"""
    )
    # The device plugin restarts with the new strategy and registers the devices after it.
    wait(single, 2)
    grep = single.run("kubectl describe node gpu-node2 | grep -A10 Allocatable").output
    assert "nvidia.com/mig-1g.10gb:  16" in grep
    assert "nvidia.com/mig-2g.20gb:  8" in grep
    assert "nvidia.com/mig-3g.40gb:  8" in grep
    assert "CrashLoopBackOff" not in single.run("kubectl get pods -n gpu-operator").output


def test_a_custom_config_under_the_wrong_key_fails_and_the_log_says_why(mixed: LabSession) -> None:
    assert state_of(mixed, "gpu-node3") == "failed"
    log = mig_log(mixed, "gpu-node3").split("\n")
    failed = log.index("Changing the 'nvidia.com/mig.config.state' node label to 'failed'")
    cause = [line for line in log[:failed] if "level=fatal" in line][-1]
    assert "open /mig-parted-config/config.yaml: no such file or directory" in cause


def test_a_layout_missing_from_the_config_fails(mixed: LabSession) -> None:
    run_all(
        mixed,
        [
            "sed -i 's/mig-config.yaml:/config.yaml:/' custom-mig-config.yaml",
            "kubectl apply -f custom-mig-config.yaml",
            "kubectl label node gpu-node3 nvidia.com/mig.config=all-1g.10gb --overwrite",
        ],
    )
    wait(mixed, 1)
    assert state_of(mixed, "gpu-node3") == "failed"
    assert "selected mig-config not present: all-1g.10gb" in mig_log(mixed, "gpu-node3")


def test_fixing_the_configmap_alone_does_nothing_until_mig_manager_restarts(
    mixed: LabSession,
) -> None:
    run_all(
        mixed,
        [
            "sed -i 's/mig-config.yaml:/config.yaml:/' custom-mig-config.yaml",
            "kubectl apply -f custom-mig-config.yaml",
        ],
    )
    wait(mixed, 4)
    assert state_of(mixed, "gpu-node3") == "failed"


def test_triton_stays_pending_for_nvidia_com_gpu_on_a_mixed_node(mixed: LabSession) -> None:
    run_all(
        mixed,
        [
            "sed -i 's/mig-config.yaml:/config.yaml:/' custom-mig-config.yaml",
            "kubectl apply -f custom-mig-config.yaml",
            "kubectl delete pod -n gpu-operator -l app=nvidia-mig-manager "
            "--field-selector spec.nodeName=gpu-node3",
        ],
    )
    wait(mixed, 3)
    run_all(
        mixed,
        [
            "kubectl patch clusterpolicies.nvidia.com/cluster-policy --type merge "
            """-p '{"spec":{"mig":{"strategy":"mixed"}}}'""",
            "kubectl uncordon gpu-node3",
        ],
    )
    wait(mixed, 2)
    assert "Pending" in mixed.run("kubectl get pod triton").output
    events = mixed.run("kubectl describe pod triton").output
    assert "1 Insufficient nvidia.com/gpu" in events
    assert done(mixed) == {
        "layout-applied": True,
        "strategy-mixed": True,
        "triton-on-slice": False,
    }


def test_removing_the_layout_label_brings_back_the_policys_default_all_disabled(
    single: LabSession,
) -> None:
    run_all(
        single,
        [
            "kubectl drain gpu-node2 --ignore-daemonsets",
            "kubectl label node gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite",
        ],
    )
    wait(single, 4)
    assert "nvidia.com/gpu:     56" in single.run("kubectl describe node gpu-node2").output
    assert single.run("kubectl label node gpu-node2 nvidia.com/mig.config-").output == (
        "node/gpu-node2 unlabeled"
    )
    wait(single, 4)
    shown = single.run(
        "kubectl get node gpu-node2 -o jsonpath='{.metadata.labels.nvidia\\.com/mig\\.config}'"
    ).output
    assert shown == "all-disabled"
    assert state_of(single) == "success"
    assert "nvidia.com/gpu:     8" in single.run("kubectl describe node gpu-node2").output
