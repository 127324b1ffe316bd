"""fabric-nccl: a 2-node training falls back to NCCL's TCP sockets; RDMA in its pods fixes it.

NCCL's lines are checked word for word against NCCL 2.21.5's source (NVIDIA/nccl, tag
v2.21.5-1): src/transport/net_socket.cc, src/transport/net_ib.cc, src/init.cc, src/bootstrap.cc,
src/misc/ibvwrap.cc, src/misc/param.cc; PyTorch's error from ProcessGroupNCCL's
C10D_NCCL_CHECK and getNcclErrorDetailStr.
"""

from __future__ import annotations

import re

import pytest

from simulators.lab import LabSession, editor
from tests.unit.lab.lab_helpers import done, run_all, wait

LOGS = "runai training pytorch logs llm-dist -p team-llm"
PODS = "kubectl get pods -n runai-team-llm"
DELETE = "runai training pytorch delete llm-dist -p team-llm"
SUBMIT = (
    "runai training pytorch submit llm-dist -p team-llm -i nvcr.io/nvidia/pytorch:24.05-py3 "
    "--workers 1 -g 8 -e NCCL_DEBUG=INFO"
)
RDMA = "--extended-resource rdma/rdma_shared_device_a=1"
# NCCL's INFO prefix: hostname:pid:tid [cudaDev] (src/debug.cc).
INFO = r"llm-dist-master-0:\d+:\d+ \[0\] NCCL INFO "


@pytest.fixture
def fabric() -> LabSession:
    return LabSession.new("fabric-nccl", seed=0)


def _steps(log: str) -> list[float]:
    return [float(m) for m in re.findall(r"\| (\d+\.\d+) s/step", log)]


def test_at_the_start_nccl_uses_sockets_and_each_step_takes_four_seconds(
    fabric: LabSession,
) -> None:
    log = fabric.run(LOGS).output
    lines = log.splitlines()
    assert lines[0] == "NCCL version 2.21.5+cuda12.4"
    assert re.fullmatch(INFO + r"NET/IB : No device found\.", lines[2])
    assert re.fullmatch(INFO + r"NET/Socket : Using \[0\]eth0:10\.244\.\d+\.\d+<0>", lines[3])
    assert re.fullmatch(INFO + "Using network Socket", lines[4])
    assert all(4.0 <= step <= 4.2 for step in _steps(log))
    resources = fabric.run(
        "kubectl get pod llm-dist-master-0 -n runai-team-llm "
        "-o jsonpath='{.spec.containers[0].resources.limits}'"
    ).output
    assert resources == '{"nvidia.com/gpu":"8"}'
    assert done(fabric) == {
        "nccl-ib": False,
        "steps-fast": False,
        "gang-runs": True,
        "others-kept": True,
    }


def test_the_network_operator_and_its_rdma_resource_are_on_every_node(fabric: LabSession) -> None:
    assert fabric.run("kubectl get nicclusterpolicy").output.splitlines()[1].split()[:2] == [
        "nic-cluster-policy",
        "ready",
    ]
    rdma = fabric.run(
        "kubectl get nodes -o jsonpath='{.items[*].status.allocatable.rdma/rdma_shared_device_a}'"
    ).output
    assert rdma == "63 63 63"
    pods = fabric.run("kubectl get pods -n nvidia-network-operator").output.splitlines()[1:]
    plugins = [row.split() for row in pods if row.startswith("rdma-shared-dp-ds-")]
    assert len(plugins) == 3 and all(row[2] == "Running" for row in plugins)
    assert any(row.startswith("network-operator-") and " Running " in row for row in pods)
    name = plugins[0][0]
    log = fabric.run(f"kubectl logs -n nvidia-network-operator {name}").output
    assert log.splitlines()[-1].endswith(' exposing "63" devices')
    assert "rdma_shared_device_a.sock gets registered successfully at Kubelet " in log


def test_the_answer_key_gives_net_ib_and_one_second_steps(fabric: LabSession) -> None:
    run_all(fabric, fabric.answer_key())
    wait(fabric, 2)
    log = fabric.run(LOGS).output
    assert re.search(
        INFO + r"NET/IB : Using \[0\]mlx5_0:1/IB .*\[7\]mlx5_7:1/IB \[RO\]; OOB eth0:10\.244\.",
        log,
    )
    assert re.search(INFO + "Using network IB$", log, re.MULTILINE)
    assert all(0.9 <= step <= 1.1 for step in _steps(log))
    assert fabric.is_complete()


def test_in_another_order_patching_the_workload_then_recreating_its_pods(
    fabric: LabSession,
) -> None:
    # kubectl only: the workload's spec gains the resource and the capability; the controller
    # builds new pods from it once the old ones are gone.
    run_all(
        fabric,
        [
            "kubectl patch distributedworkloads.run.ai llm-dist -n runai-team-llm --type merge "
            """-p '{"spec":{"extendedResources":{"value":["rdma/rdma_shared_device_a=1"]},"""
            """"capabilities":{"value":["IPC_LOCK"]}}}'""",
            "kubectl delete pods -n runai-team-llm -l workloadName=llm-dist",
        ],
    )
    wait(fabric, 4)
    add = fabric.run(
        "kubectl get pod llm-dist-worker-0 -n runai-team-llm "
        "-o jsonpath='{.spec.containers[0].securityContext.capabilities.add}'"
    ).output
    assert add == '["IPC_LOCK"]'
    assert fabric.is_complete(), done(fabric)


def test_deleting_the_pods_alone_brings_them_back_on_sockets(fabric: LabSession) -> None:
    fabric.run("kubectl delete pods -n runai-team-llm -l workloadName=llm-dist")
    wait(fabric, 4)
    assert "Using network Socket" in fabric.run(LOGS).output
    assert done(fabric)["nccl-ib"] is False


def test_nccl_ib_disable_0_cannot_give_a_pod_a_device_it_lacks(fabric: LabSession) -> None:
    run_all(fabric, [DELETE, f"{SUBMIT} -e NCCL_IB_DISABLE=0"])
    wait(fabric, 4)
    log = fabric.run(LOGS).output
    assert re.search(INFO + r"NCCL_IB_DISABLE set by environment to 0\.$", log, re.MULTILINE)
    assert re.search(INFO + r"NET/IB : No device found\.$", log, re.MULTILINE)
    assert "Using network Socket" in log
    assert done(fabric)["steps-fast"] is False


def test_nccl_socket_ifname_eth0_only_names_the_socket_nccl_already_used(
    fabric: LabSession,
) -> None:
    run_all(fabric, [DELETE, f"{SUBMIT} -e NCCL_SOCKET_IFNAME=eth0"])
    wait(fabric, 4)
    log = fabric.run(LOGS).output
    assert re.search(INFO + "NCCL_SOCKET_IFNAME set by environment to eth0$", log, re.MULTILINE)
    assert re.search(INFO + "Using network Socket$", log, re.MULTILINE)
    assert done(fabric)["nccl-ib"] is False and done(fabric)["steps-fast"] is False


def test_a_socket_interface_the_pod_lacks_fails_nccls_bootstrap(fabric: LabSession) -> None:
    run_all(fabric, [DELETE, f"{SUBMIT} -e NCCL_SOCKET_IFNAME=ib0"])
    wait(fabric, 4)
    log = fabric.run(LOGS).output
    assert re.search(
        r"llm-dist-master-0:\d+:\d+ \[0\] bootstrap\.cc:48 NCCL WARN "
        r"Bootstrap : no socket interface found$",
        log,
        re.MULTILINE,
    )
    assert (
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/"
        "csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, internal error - please report this "
        "issue to the NCCL developers, NCCL version 2.21.5"
    ) in log
    assert "CrashLoopBackOff" in fabric.run(PODS).output
    assert done(fabric)["gang-runs"] is False


def test_the_rdma_device_without_ipc_lock_fails_to_register_memory(fabric: LabSession) -> None:
    run_all(fabric, [DELETE, f"{SUBMIT} {RDMA}"])
    wait(fabric, 4)
    log = fabric.run(LOGS).output
    assert re.search(INFO + "Using network IB$", log, re.MULTILINE)
    assert re.search(
        r"llm-dist-master-0:\d+:\d+ \[0\] misc/ibvwrap\.cc:169 NCCL WARN Call to "
        r"ibv_reg_mr_iova2 failed with error Cannot allocate memory$",
        log,
        re.MULTILINE,
    )
    assert log.splitlines()[-4:] == [
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/"
        "csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with "
        "NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
        "[rank0]: ncclSystemError: System call (e.g. socket, malloc) or external library call "
        "failed or device error. ",
        "[rank0]: Last error:",
        "[rank0]: Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory",
    ]
    assert "CrashLoopBackOff" in fabric.run(PODS).output
    assert done(fabric)["nccl-ib"] is False


def test_a_running_pods_resources_cannot_be_changed(fabric: LabSession) -> None:
    result = fabric.run(
        "kubectl patch pod llm-dist-master-0 -n runai-team-llm -p "
        """'{"spec":{"containers":[{"name":"llm-dist","resources":{"limits":"""
        """{"rdma/rdma_shared_device_a":"1"}}}]}}'"""
    )
    assert result.exit_code == 1
    assert result.output.startswith(
        'The Pod "llm-dist-master-0" is invalid: spec: Forbidden: pod updates may not change '
        "fields other than `spec.containers[*].image`"
    )
    assert "Using network Socket" in fabric.run(LOGS).output


def test_kubectl_edit_of_the_pods_resources_reopens_with_the_api_servers_refusal(
    fabric: LabSession,
) -> None:
    opened = fabric.run("kubectl edit pod llm-dist-master-0 -n runai-team-llm")
    assert opened.editor is not None
    limits = '      limits:\n        nvidia.com/gpu: "8"'
    text = opened.editor.text.replace(
        limits, limits + '\n        rdma/rdma_shared_device_a: "1"', 1
    )
    assert text != opened.editor.text
    saved = fabric.run(editor.save_line(opened.editor.token, text, None))
    assert (saved.output, saved.exit_code) == (
        'error: /v1, Resource=pods "llm-dist-master-0" is invalid',
        1,
    )
    assert saved.editor is not None
    assert "# * spec: Forbidden: pod updates may not change fields other than" in (
        saved.editor.text
    )
    assert (
        "rdma"
        not in fabric.run(
            "kubectl get pod llm-dist-master-0 -n runai-team-llm -o jsonpath='{.spec}'"
        ).output
    )


def test_without_nccl_debug_the_fixed_run_logs_only_its_steps(fabric: LabSession) -> None:
    submit = SUBMIT.replace(" -e NCCL_DEBUG=INFO", "")
    run_all(fabric, [DELETE, f"{submit} {RDMA} --capability IPC_LOCK"])
    wait(fabric, 4)
    log = fabric.run(LOGS).output
    assert "NCCL" not in log and len(_steps(log)) == 3
    assert fabric.is_complete()


def test_a_malformed_extended_resource_is_refused_in_one_line(fabric: LabSession) -> None:
    result = fabric.run(f"{SUBMIT.replace('llm-dist', 'x2', 1)} --extended-resource rdma")
    assert result.exit_code == 1 and "\n" not in result.output.strip()
    assert "use the format resource_name=quantity" in result.output


def test_stopping_vision_train_is_not_needed_and_costs_its_check(fabric: LabSession) -> None:
    fabric.run("runai training delete vision-train -p team-vision")
    wait(fabric, 2)
    assert done(fabric)["others-kept"] is False
