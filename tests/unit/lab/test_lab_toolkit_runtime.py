"""toolkit-runtime: containerd lacks the nvidia runtime while the toolkit is disabled."""

from __future__ import annotations

import json

import pytest

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all, solved_in_the_cli, wait

SMOKE = "kubectl get pods -l job-name=gpu-smoke"
FIX = (
    "kubectl patch clusterpolicy cluster-policy --type merge "
    """-p '{"spec":{"toolkit":{"enabled":true}}}'"""
)
# containerd 1.7's CRI plugin, as the kubelet reports it (NVIDIA/gpu-operator issues 413, 730).
NO_RUNTIME = (
    "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox "
    'runtime: no runtime for "{}" is configured'
)


@pytest.fixture
def toolkit() -> LabSession:
    return LabSession.new("toolkit-runtime", seed=0)


def _write(session: LabSession, filename: str, text: str) -> None:
    """A here-document, typed line by line as a learner would."""
    session.run(f"cat <<EOF > {filename}")
    for line in [*text.splitlines(), "EOF"]:
        session.run(line)


def _pod(name: str, runtime_class: str | None) -> str:
    lines = ["apiVersion: v1", "kind: Pod", "metadata:", f"  name: {name}", "spec:"]
    if runtime_class:
        lines.append(f"  runtimeClassName: {runtime_class}")
    lines += [
        "  restartPolicy: Never",
        "  containers:",
        "  - name: smi",
        "    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
        '    command: ["nvidia-smi"]',
        "    resources:",
        "      limits:",
        "        nvidia.com/gpu: 1",
    ]
    return "\n".join(lines)


def _status(session: LabSession, name: str) -> str:
    return session.run(f"kubectl get pod {name} --no-headers").output.split()[2]


def test_at_the_start_the_smoke_test_waits_for_a_sandbox_containerd_cannot_make(
    toolkit: LabSession,
) -> None:
    assert toolkit.run(SMOKE).output.splitlines()[1].split()[2] == "ContainerCreating"
    events = toolkit.run("kubectl describe pod -l job-name=gpu-smoke").output
    assert "Runtime Class Name:  nvidia" in events
    failed = next(line for line in events.splitlines() if "FailedCreatePodSandBox" in line)
    assert "kubelet" in failed and failed.endswith(NO_RUNTIME.format("nvidia"))
    assert " (x" in failed  # the kubelet retries at every sync
    assert toolkit.run("kubectl get runtimeclass").output.splitlines() == [
        "NAME     HANDLER   AGE",
        "nvidia   nvidia    31d",
    ]
    daemonsets = toolkit.run("kubectl get ds -n gpu-operator -o name").output
    assert "nvidia-container-toolkit-daemonset" not in daemonsets
    assert "daemonset.apps/nvidia-device-plugin-daemonset" in daemonsets
    toolkit_spec = "kubectl get clusterpolicy cluster-policy -o jsonpath='{.spec.toolkit}'"
    assert toolkit.run(toolkit_spec).output == '{"enabled":false}'
    assert done(toolkit) == {
        "toolkit-ready": False,
        "runtime-class": True,
        "smoke-passed": False,
        "policy-ready": True,
    }


def test_enabling_the_toolkit_lets_the_smoke_test_run_nvidia_smi(toolkit: LabSession) -> None:
    assert toolkit.run(FIX).output == "clusterpolicy.nvidia.com/cluster-policy patched"
    wait(toolkit, 3)
    pods = toolkit.run(
        "kubectl get pods -n gpu-operator -l app=nvidia-container-toolkit-daemonset -o wide"
    ).output
    assert sorted(row.split()[6] for row in pods.splitlines()[1:]) == [
        "gpu-node1",
        "gpu-node2",
        "gpu-node3",
    ]
    pod = pods.splitlines()[1].split()[0]
    log = toolkit.run(f"kubectl logs -n gpu-operator {pod}").output
    # nvidia-container-toolkit v1.17.5: nvidia-toolkit's run.go, toolkit.go, containerd.go
    assert [line.split(" msg=", 1)[1].strip('"') for line in log.splitlines()] == [
        "Parsing arguments",
        "Starting nvidia-toolkit",
        "Verifying Flags",
        "Initializing",
        "Installing NVIDIA container toolkit to '/usr/local/nvidia/toolkit'",
        "Starting 'setup' for containerd",
        "Sending SIGHUP signal to containerd",
        "Successfully signaled containerd",
        "Completed 'setup' for containerd",
        "Waiting for signal",
    ]
    assert all(" level=info " in line for line in log.splitlines())
    assert toolkit.run(SMOKE).output.splitlines()[1].split()[2] == "Completed"
    smi = toolkit.run("kubectl logs job/gpu-smoke").output
    assert "NVIDIA-SMI 550.127.08" in smi and "NVIDIA H100 80GB HBM3" in smi
    assert toolkit.is_complete()


def test_the_answer_key_in_another_order_fixes_first_then_reads(toolkit: LabSession) -> None:
    run_all(
        toolkit,
        [
            FIX,
            "kubectl get clusterpolicy",
            "kubectl get runtimeclass",
            "kubectl describe pod -l job-name=gpu-smoke",
            "kubectl get job gpu-smoke",
        ],
    )
    assert "Complete   1/1" in toolkit.run("kubectl get job gpu-smoke").output
    assert toolkit.is_complete()


def test_deleting_the_smoke_pod_only_brings_another_that_fails_the_same_way(
    toolkit: LabSession,
) -> None:
    first = toolkit.run(SMOKE + " -o name").output
    toolkit.run("kubectl delete pod -l job-name=gpu-smoke")
    wait(toolkit, 3)
    second = toolkit.run(SMOKE + " -o name").output
    assert second != first and second.startswith("pod/gpu-smoke-")
    assert toolkit.run(SMOKE).output.splitlines()[1].split()[2] == "ContainerCreating"
    events = toolkit.run("kubectl describe pod -l job-name=gpu-smoke").output
    assert NO_RUNTIME.format("nvidia") in events
    assert done(toolkit)["smoke-passed"] is False


def test_the_nodes_cannot_be_reached_to_edit_containerd_by_hand(toolkit: LabSession) -> None:
    result = toolkit.run("ssh gpu-node1")
    assert result.output.startswith("ssh: gpu-node1: the lab's nodes take no logins;")
    assert result.exit_code == 255


def test_a_runtime_class_with_another_handler_fails_on_that_name(toolkit: LabSession) -> None:
    _write(
        toolkit,
        "rc.yaml",
        "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: nvidia-legacy\n"
        "handler: nvidia-container-runtime",
    )
    assert toolkit.run("kubectl apply -f rc.yaml").output == (
        "runtimeclass.node.k8s.io/nvidia-legacy created"
    )
    _write(toolkit, "smi.yaml", _pod("smi", "nvidia-legacy"))
    toolkit.run("kubectl apply -f smi.yaml")
    wait(toolkit, 2)
    assert _status(toolkit, "smi") == "ContainerCreating"
    events = toolkit.run("kubectl describe pod smi").output
    assert NO_RUNTIME.format("nvidia-container-runtime") in events
    assert not toolkit.is_complete()


def test_the_operator_recreates_its_runtime_class_when_it_is_deleted(toolkit: LabSession) -> None:
    deleted = toolkit.run("kubectl delete runtimeclass nvidia").output
    assert deleted == 'runtimeclass.node.k8s.io "nvidia" deleted'
    rows = toolkit.run("kubectl get runtimeclass").output.splitlines()
    assert rows[1].split()[:2] == ["nvidia", "nvidia"]
    assert done(toolkit)["runtime-class"] is True


def test_a_pod_naming_a_missing_runtime_class_is_rejected_at_admission(
    toolkit: LabSession,
) -> None:
    _write(toolkit, "smi.yaml", _pod("smi", "gpu"))
    result = toolkit.run("kubectl apply -f smi.yaml")
    assert result.exit_code == 1
    assert result.output == (
        'Error from server (Forbidden): error when creating "smi.yaml": pods "smi" is '
        'forbidden: pod rejected: RuntimeClass "gpu" not found'
    )


def test_a_gpu_pod_without_the_runtime_class_cannot_start_nvidia_smi_under_runc(
    toolkit: LabSession,
) -> None:
    _write(toolkit, "smi.yaml", _pod("smi", None))
    toolkit.run("kubectl apply -f smi.yaml")
    wait(toolkit, 3)
    assert _status(toolkit, "smi") == "StartError"
    state = "kubectl get pod smi -o jsonpath='{.status.containerStatuses[0].state.terminated}'"
    terminated = json.loads(toolkit.run(state).output)
    assert terminated["exitCode"] == 128 and terminated["reason"] == "StartError"
    # containerd 1.7 and runc: the CUDA image has no nvidia-smi without the NVIDIA runtime's hook
    message = (
        "failed to create containerd task: failed to create shim task: OCI runtime create failed: "
        'runc create failed: unable to start container process: exec: "nvidia-smi": '
        "executable file not found in $PATH: unknown"
    )
    assert terminated["message"] == message
    events = toolkit.run("kubectl describe pod smi").output
    assert f"Error: {message}" in events and "Started container" not in events
    assert toolkit.run("kubectl get pod smi -o jsonpath='{.status.phase}'").output == "Failed"
    assert done(toolkit)["smoke-passed"] is False


def test_once_the_toolkit_runs_a_pod_without_a_runtime_class_gets_the_nvidia_default(
    toolkit: LabSession,
) -> None:
    toolkit.run(FIX)
    wait(toolkit, 2)
    _write(toolkit, "smi.yaml", _pod("smi", None))
    toolkit.run("kubectl apply -f smi.yaml")
    wait(toolkit, 3)
    assert _status(toolkit, "smi") == "Completed"
    assert "NVIDIA-SMI 550.127.08" in toolkit.run("kubectl logs smi").output


def test_a_runtime_class_handler_cannot_be_changed_in_place(toolkit: LabSession) -> None:
    result = toolkit.run(
        """kubectl patch runtimeclass nvidia --type merge -p '{"handler":"nvidia-cdi"}'"""
    )
    assert result.exit_code == 1
    assert result.output == (
        'The RuntimeClass "nvidia" is invalid: handler: Invalid value: "nvidia-cdi": '
        "field is immutable"
    )


def test_the_cli_solves_the_ticket_with_its_answer_key() -> None:
    rows = solved_in_the_cli("toolkit-runtime")
    assert 'no runtime for "nvidia" is configured' in rows[1]["output"]
    assert all(item["done"] for item in rows[-1]["checklist"])
