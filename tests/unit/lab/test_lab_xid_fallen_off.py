"""xid-fallen-off: an H100 on gpu-node2 fell off the bus (Xid 79); the node goes to repair."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all, solved_in_the_cli, wait

NODE = "gpu-node2"
ON_NODE = f"kubectl get pods -A -o wide --field-selector spec.nodeName={NODE}"
GPUS = (
    "kubectl get node gpu-node2 -o jsonpath="
    "'{.status.capacity.nvidia\\.com/gpu} {.status.allocatable.nvidia\\.com/gpu}'"
)
DRAIN = "kubectl drain gpu-node2 --ignore-daemonsets"
TAINT = "kubectl taint node gpu-node2 hardware-repair=xid-79:NoSchedule"
# The lost GPU's PCI address on a DGX H100 (index 7) and its UUID on this world's node.
BUS = "0000:CA:00.0"


@pytest.fixture
def xid() -> LabSession:
    return LabSession.new("xid-fallen-off", seed=0)


def _pod(session: LabSession, app: str, node: str = NODE) -> str:
    rows = session.run(f"kubectl get pods -n gpu-operator -o wide -l app={app}").output
    return next(row.split()[0] for row in rows.splitlines()[1:] if f" {node} " in row)


def _lost_uuid(session: LabSession) -> str:
    listing = session.run(
        f"kubectl exec -n gpu-operator {_pod(session, 'nvidia-driver-daemonset')} -- "
        "nvidia-smi -L -i 6"
    ).output
    assert listing.startswith("GPU 6: NVIDIA H100 80GB HBM3")
    metrics = session.run(
        f"kubectl exec -n gpu-operator {_pod(session, 'nvidia-dcgm-exporter')} -- "
        "curl -s localhost:9400/metrics"
    ).output
    line = next(m for m in metrics.splitlines() if m.startswith('DCGM_FI_DEV_XID_ERRORS{gpu="7"'))
    return line.split('UUID="')[1].split('"')[0]


def _nodes_of(session: LabSession, namespace: str) -> dict[str, str]:
    rows = session.run(f"kubectl get pods -n {namespace} -o wide").output.splitlines()[1:]
    return {row.split()[0]: row.split()[6] for row in rows}


def test_at_the_start_the_node_has_8_gpus_of_which_7_allocatable(xid: LabSession) -> None:
    assert xid.run(GPUS).output == "8 7"
    assert xid.run(GPUS.replace("gpu-node2", "gpu-node3")).output == "8 8"
    top = xid.run("runai top node").output.splitlines()
    row = next(line for line in top if line.startswith("gpu-node2  │ 8.00"))
    assert row.split()[3:5] == ["1", "6"]  # UNHEALTHY, ALLOCATED UNITS
    listed = xid.run("runai node list").output.splitlines()
    assert next(line for line in listed if line.startswith("gpu-node2")).split()[-3:] == [
        "8",
        "6.00",
        "1.00",
    ]
    assert _nodes_of(xid, "runai-team-vision") == {
        "nb-carol-0-0": NODE,
        "vision-train-0-0": NODE,
    }
    assert done(xid) == {
        "cordoned": False,
        "drained": False,
        "workloads-moved": False,
        "repair-marked": False,
        "others-kept": True,
    }


def test_the_device_plugin_logs_the_xid_and_marks_the_gpu_unhealthy(xid: LabSession) -> None:
    uuid = _lost_uuid(xid)
    log = xid.run(
        f"kubectl logs -n gpu-operator {_pod(xid, 'nvidia-device-plugin-daemonset')} --tail=3"
    ).output.splitlines()
    # k8s-device-plugin: internal/rm/health.go, then internal/plugin/server.go (ListAndWatch).
    assert log.pop(0).endswith(
        "] Processing event {Device:{Handle:0x7f1c5c0d2b48} EventType:8 EventData:79 "
        "GpuInstanceId:4294967295 ComputeInstanceId:4294967295}"
    )
    assert log[0].endswith(
        f"XidCriticalError: Xid=79 on Device={uuid}; marking device as unhealthy."
    )
    assert log[1].endswith(f"'nvidia.com/gpu' device marked unhealthy: {uuid}")
    other = xid.run(
        "kubectl logs -n gpu-operator "
        f"{_pod(xid, 'nvidia-device-plugin-daemonset', 'gpu-node3')} --tail=1"
    ).output
    assert "unhealthy" not in other


def test_nvidia_smi_stops_at_the_lost_gpu_and_answers_for_the_others(xid: LabSession) -> None:
    driver = _pod(xid, "nvidia-driver-daemonset")
    for command in ("nvidia-smi", "nvidia-smi -q", "nvidia-smi -i 7 -q"):
        result = xid.run(f"kubectl exec -n gpu-operator {driver} -- {command}")
        assert result.output == (
            f"Unable to determine the device handle for GPU{BUS}: Unknown Error\n"
            "command terminated with exit code 255"
        )
        assert result.exit_code == 255
    healthy = xid.run(f"kubectl exec -n gpu-operator {driver} -- nvidia-smi -q -i 0").output
    assert "Product Name                          : NVIDIA H100 80GB HBM3" in healthy
    elsewhere = _pod(xid, "nvidia-driver-daemonset", "gpu-node1")
    assert "NVIDIA-SMI" in xid.run(f"kubectl exec -n gpu-operator {elsewhere} -- nvidia-smi").output


def test_the_kernel_log_and_dcgm_exporter_name_xid_79(xid: LabSession) -> None:
    uuid = _lost_uuid(xid)
    driver = _pod(xid, "nvidia-driver-daemonset")
    kernel = xid.run(f"kubectl exec -n gpu-operator {driver} -- dmesg | grep Xid").output
    assert kernel.split("] ", 1)[1] == (
        "NVRM: Xid (PCI:0000:ca:00): 79, pid='<unknown>', name=<unknown>, "
        "GPU has fallen off the bus."
    )
    full = xid.run(f"kubectl exec -n gpu-operator {driver} -- dmesg").output
    assert f"NVRM: GPU at PCI:0000:ca:00: {uuid}" in full
    assert "NVRM: GPU 0000:ca:00.0: GPU has fallen off the bus." in full
    metrics = xid.run(
        f"kubectl exec -n gpu-operator {_pod(xid, 'nvidia-dcgm-exporter')} -- "
        "curl -s localhost:9400/metrics | grep -v ' 0$'"
    ).output.splitlines()
    assert metrics == [
        "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.",
        "# TYPE DCGM_FI_DEV_XID_ERRORS gauge",
        f'DCGM_FI_DEV_XID_ERRORS{{gpu="7",UUID="{uuid}",pci_bus_id="0000{BUS}",'
        'device="nvidia7",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-node2",'
        'DCGM_FI_DRIVER_VERSION="550.127.08"} 79',
    ]
    healthy = _pod(xid, "nvidia-driver-daemonset", "gpu-node3")
    assert xid.run(f"kubectl exec -n gpu-operator {healthy} -- dmesg").output == ""


def test_the_answer_key_in_another_order_drains_first_then_taints(xid: LabSession) -> None:
    first = xid.run(DRAIN)
    assert first.exit_code == 0
    assert first.output.splitlines()[0] == "node/gpu-node2 cordoned"
    assert "evicting pod runai-team-vision/vision-train-0-0" in first.output
    assert first.output.splitlines()[-1] == "node/gpu-node2 drained"
    run_all(xid, [TAINT, "runai workload list -A"])
    wait(xid, 2)
    nodes = _nodes_of(xid, "runai-team-vision")
    assert nodes == {"nb-carol-0-0": "gpu-node3", "vision-train-0-0": "gpu-node3"}
    assert xid.is_complete()


def test_deleting_a_pod_while_the_node_is_schedulable_brings_it_back_there(
    xid: LabSession,
) -> None:
    xid.run("kubectl delete pod vision-train-0-0 -n runai-team-vision")
    wait(xid, 2)
    assert _nodes_of(xid, "runai-team-vision")["vision-train-0-0"] == NODE
    assert done(xid)["workloads-moved"] is False


def test_drain_without_ignore_daemonsets_cordons_but_evicts_nothing(xid: LabSession) -> None:
    result = xid.run("kubectl drain gpu-node2")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == "node/gpu-node2 cordoned"
    assert lines[1].startswith(
        'error: unable to drain node "gpu-node2" due to error: cannot delete '
        "DaemonSet-managed Pods (use --ignore-daemonsets to ignore): "
        "gpu-operator/gpu-feature-discovery-"
    )
    assert lines[1].endswith(", continuing command...")
    assert lines[2:4] == ["There are pending nodes to be drained:", " gpu-node2"]
    wait(xid, 2)
    checks = done(xid)
    assert checks["cordoned"] is True and checks["drained"] is False
    assert _nodes_of(xid, "runai-team-vision")["vision-train-0-0"] == NODE


def test_rebooting_is_not_something_the_admin_host_can_do(xid: LabSession) -> None:
    assert xid.run("reboot").output == "bash: reboot: command not found"
    driver = _pod(xid, "nvidia-driver-daemonset")
    refused = xid.run(f"kubectl exec -n gpu-operator {driver} -- reboot")
    assert 'exec: "reboot": executable file not found in $PATH' in refused.output
    assert xid.run(GPUS).output == "8 7"


def test_uncordoning_before_the_repair_lets_new_work_land_on_the_broken_node(
    xid: LabSession,
) -> None:
    run_all(xid, [DRAIN, TAINT])
    wait(xid, 2)
    assert xid.is_complete()
    xid.run("kubectl uncordon gpu-node2")
    assert done(xid)["cordoned"] is False
    xid.run("runai training submit probe -p team-llm -i nvcr.io/nvidia/pytorch:24.05-py3 -g 4")
    wait(xid, 3)
    assert _nodes_of(xid, "runai-team-llm")["probe-0-0"] == NODE


def test_a_no_execute_taint_evicts_the_operators_pods_too(xid: LabSession) -> None:
    run_all(xid, [DRAIN, "kubectl taint node gpu-node2 hardware-repair=xid-79:NoExecute"])
    wait(xid, 3)
    left = xid.run(ON_NODE).output.splitlines()[1:]
    assert [row.split()[0] for row in left] == ["kube-system"]  # only kube-proxy tolerates it
    checks = done(xid)
    assert checks["drained"] is True and checks["repair-marked"] is False


def test_draining_the_wrong_node_restarts_production_work(xid: LabSession) -> None:
    xid.run("kubectl drain gpu-node1 --ignore-daemonsets")
    wait(xid, 3)
    assert done(xid)["others-kept"] is False


def test_the_cli_solves_the_ticket_with_its_answer_key() -> None:
    rows = solved_in_the_cli("xid-fallen-off")
    assert "nvidia.com/gpu:     7" in rows[0]["output"]
    assert [item["done"] for item in rows[-1]["checklist"]] == [True] * 5
