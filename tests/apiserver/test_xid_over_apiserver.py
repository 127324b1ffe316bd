"""xid-fallen-off served by ``python -m simulators apiserver`` and solved with the real kubectl."""

from __future__ import annotations

from pathlib import Path

from tests.apiserver.test_ticket_over_apiserver import (
    checklist,
    ok,
    settled_checklist,
)
from tests.cluster_server import start_cluster_server

ON_NODE2 = ("--field-selector", "spec.nodeName=gpu-node2")


def test_xid_fallen_off_is_diagnosed_and_handed_over_with_the_real_kubectl(
    tmp_path: Path,
) -> None:
    with start_cluster_server("xid-fallen-off", tmp_path, timeout=120) as server:
        assert not any(v for k, v in checklist(server).items() if k != "others-kept")
        gpus = "jsonpath={.status.capacity.nvidia\\.com/gpu} {.status.allocatable.nvidia\\.com/gpu}"
        assert ok(server.kubectl("get", "node", "gpu-node2", "-o", gpus)) == "8 7"

        def operand(app: str) -> str:
            return ok(
                server.kubectl(
                    "get", "pods", "-n", "gpu-operator", *ON_NODE2, "-l", f"app={app}",
                    "-o", "jsonpath={.items[0].metadata.name}",
                )
            )  # fmt: skip

        plugin_log = ok(
            server.kubectl("logs", "-n", "gpu-operator", operand("nvidia-device-plugin-daemonset"))
        )
        assert "XidCriticalError: Xid=79 on Device=GPU-" in plugin_log
        driver = operand("nvidia-driver-daemonset")
        smi = server.kubectl("exec", "-n", "gpu-operator", driver, "--", "nvidia-smi")
        assert smi.returncode == 255
        assert "Unable to determine the device handle for GPU0000:CA:00.0: Unknown Error" in (
            smi.stdout + smi.stderr
        )
        dmesg = ok(server.kubectl("exec", "-n", "gpu-operator", driver, "--", "dmesg"))
        assert "NVRM: Xid (PCI:0000:ca:00): 79, pid='<unknown>', name=<unknown>, " in dmesg
        metrics = ok(
            server.kubectl(
                "exec", "-n", "gpu-operator", operand("nvidia-dcgm-exporter"), "--",
                "curl", "-s", "localhost:9400/metrics",
            )
        )  # fmt: skip
        assert 'device="nvidia7"' in metrics.splitlines()[-1]
        assert metrics.splitlines()[-1].endswith(" 79")

        refused = server.kubectl("drain", "gpu-node2", "--timeout=30s")
        assert refused.returncode == 1
        assert "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)" in (
            refused.stderr
        )
        drained = ok(
            server.kubectl(
                "drain", "gpu-node2", "--ignore-daemonsets", "--delete-emptydir-data",
                "--timeout=120s",
            )
        )  # fmt: skip
        assert "evicting pod runai-team-vision/vision-train-0-0" in drained
        assert "node/gpu-node2 drained" in drained
        ok(server.kubectl("taint", "node", "gpu-node2", "hardware-repair=xid-79:NoSchedule"))
        done = settled_checklist(server)
        assert all(done.values()), done
        left = ok(server.kubectl("get", "pods", "-A", *ON_NODE2, "-o", "name"))
        assert "vision-train" not in left and "nvidia-dcgm-exporter" in left
