"""driver-stack: the operator's driver container crash-loops over the driver the host loaded."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all, wait

DRIVER_PODS = "kubectl get pods -n gpu-operator -l app=nvidia-driver-daemonset -o wide"
ALLOCATABLE = "kubectl get node gpu-node3 -o jsonpath='{.status.allocatable.nvidia\\.com/gpu}'"
FIX = "kubectl label node gpu-node3 nvidia.com/gpu.deploy.driver=false --overwrite"


@pytest.fixture
def stack() -> LabSession:
    return LabSession.new("driver-stack", seed=0)


def _driver_pod_on_node3(session: LabSession) -> str:
    rows = session.run(DRIVER_PODS).output.splitlines()[1:]
    return next(row.split()[0] for row in rows if " gpu-node3 " in row)


def test_at_the_start_the_driver_pod_crash_loops_and_the_node_offers_no_gpus(
    stack: LabSession,
) -> None:
    rows = stack.run(DRIVER_PODS).output.splitlines()[1:]
    by_node = {row.split()[-3]: row.split()[2] for row in rows}
    assert by_node == {
        "gpu-node1": "Running",
        "gpu-node2": "Running",
        "gpu-node3": "CrashLoopBackOff",
    }
    assert stack.run(ALLOCATABLE).output == "0"
    described = stack.run("runai training describe llm-finetune -p team-llm").output
    assert "0/3 nodes are available: 3 Insufficient nvidia.com/gpu." in described
    assert done(stack) == {
        "driver-settled": False,
        "validated": False,
        "gpus-advertised": False,
        "training-runs": False,
        "operator-elsewhere": True,
    }


def test_the_driver_containers_log_says_the_host_driver_is_in_use(stack: LabSession) -> None:
    log = stack.run(f"kubectl logs -n gpu-operator {_driver_pod_on_node3(stack)}").output
    assert "Starting installation of NVIDIA driver version 550.127.08" in log
    assert "nvidia               54386688  10 nvidia_uvm,nvidia_modeset" in log
    assert log.splitlines()[-1] == (
        "Could not unload NVIDIA driver kernel modules, driver is in use"
    )


def test_the_answer_key_in_another_order_labels_first_then_looks(stack: LabSession) -> None:
    run_all(stack, [FIX, "kubectl get pods -n gpu-operator -o wide"])
    wait(stack, 3)
    assert stack.run(ALLOCATABLE).output == "8"
    assert stack.is_complete()


def test_deleting_the_crash_looping_pod_only_brings_another_that_crashes(
    stack: LabSession,
) -> None:
    pod = _driver_pod_on_node3(stack)
    stack.run(f"kubectl delete pod {pod} -n gpu-operator")
    wait(stack, 3)
    again = _driver_pod_on_node3(stack)
    assert again != pod
    assert "CrashLoopBackOff" in stack.run(DRIVER_PODS).output
    assert done(stack)["gpus-advertised"] is False


def test_labelling_without_overwrite_is_refused_as_kubectl_refuses_it(stack: LabSession) -> None:
    result = stack.run("kubectl label node gpu-node3 nvidia.com/gpu.deploy.driver=false")
    assert result.exit_code == 1
    assert (
        "'nvidia.com/gpu.deploy.driver' already has a value (true), and --overwrite is false"
        in result.output
    )
    wait(stack, 2)
    assert done(stack)["driver-settled"] is False


def test_disabling_the_driver_in_the_cluster_policy_fixes_the_node_but_not_the_ticket(
    stack: LabSession,
) -> None:
    stack.run(
        "kubectl patch clusterpolicy cluster-policy --type merge "
        """-p '{"spec":{"driver":{"enabled":false}}}'"""
    )
    wait(stack, 4)
    assert stack.run(DRIVER_PODS).output.startswith("No resources found")
    checks = done(stack)
    assert checks["gpus-advertised"] is True and checks["training-runs"] is True
    assert checks["operator-elsewhere"] is False
    assert not stack.is_complete()
