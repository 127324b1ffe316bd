"""A lab ticket served by ``python -m simulators apiserver`` and solved with the real kubectl."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path

from tests.cluster_server import RunningServer, start_cluster_server


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def checklist(server: RunningServer) -> dict[str, bool]:
    with urllib.request.urlopen(f"{server.url}/lab/v1/checklist", timeout=10) as response:
        items = json.load(response)["items"]
    return {item["id"]: item["done"] for item in items}


def test_mig_single_is_solved_with_the_real_kubectl(tmp_path: Path) -> None:
    with start_cluster_server("mig-single", tmp_path, timeout=120) as server:
        start = checklist(server)
        assert list(start) == [
            "layout-applied", "advertises-56", "schedulable-again", "others-untouched",
        ]  # fmt: skip
        assert not start["layout-applied"] and not start["advertises-56"]
        ok(server.kubectl("cordon", "gpu-node2"))
        drained = ok(server.kubectl("drain", "gpu-node2", "--ignore-daemonsets", "--timeout=120s"))
        assert "node/gpu-node2 drained" in drained
        watcher = server.popen_kubectl(
            "get", "node", "gpu-node2", "-L", "nvidia.com/mig.config.state", "--watch",
            "--request-timeout=12s",
        )  # fmt: skip
        try:
            ok(
                server.kubectl(
                    "label",
                    "nodes",
                    "gpu-node2",
                    "nvidia.com/mig.config=all-1g.10gb",
                    "--overwrite",
                )
            )
            out, _ = watcher.communicate(timeout=40)
        finally:
            if watcher.poll() is None:
                watcher.kill()
        states = [line.split()[-1] for line in out.splitlines()[1:]]
        assert states[0] == "success"
        assert "pending" in states
        assert states[-1] == "success" and states.index("pending") < len(states) - 1
        plugin = ok(
            server.kubectl(
                "get", "pods", "-n", "gpu-operator", "--field-selector", "spec.nodeName=gpu-node2",
                "-l", "app=nvidia-driver-daemonset", "-o", "jsonpath={.items[0].metadata.name}",
            )
        )  # fmt: skip
        listing = ok(server.kubectl("exec", "-n", "gpu-operator", plugin, "--", "nvidia-smi", "-L"))
        assert listing.count("MIG 1g.10gb") == 56
        ok(server.kubectl("uncordon", "gpu-node2"))
        assert all(checklist(server).values())
        ds = ("ds/nvidia-device-plugin-daemonset", "-n", "gpu-operator")
        ok(server.kubectl("rollout", "restart", *ds))
        status = ok(server.kubectl("rollout", "status", *ds, "--timeout=60s"))
        assert status.splitlines()[-1] == (
            'daemon set "nvidia-device-plugin-daemonset" successfully rolled out'
        )
