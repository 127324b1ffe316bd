"""A lab ticket served by ``python -m simulators apiserver`` and solved with the real kubectl."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from tests.cluster_server import RunningServer, start_cluster_server


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def checklist(server: RunningServer) -> dict[str, bool]:
    with urllib.request.urlopen(f"{server.url}/lab/v1/checklist", timeout=10) as response:
        items = json.load(response)["items"]
    return {item["id"]: item["done"] for item in items}


def eventually[T](read: Callable[[], T], wanted: Callable[[T], bool], seconds: float = 30) -> T:
    """What `read` returns once `wanted` holds for it, or its last value after `seconds` (the
    cluster's controllers act on the served clock's ticks, not on the request)."""
    deadline = time.monotonic() + seconds
    value = read()
    while not wanted(value) and time.monotonic() < deadline:
        time.sleep(0.25)
        value = read()
    return value


def settled_checklist(server: RunningServer) -> dict[str, bool]:
    """The checklist once every item is done, or as it stands after 30 s."""
    return eventually(lambda: checklist(server), lambda done: all(done.values()))


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
            "--request-timeout=120s",
        )  # fmt: skip
        state_path = "jsonpath={.metadata.labels.nvidia\\.com/mig\\.config\\.state}"
        assert watcher.stdout is not None
        # The watch's header and first row: it is listening before anything changes.
        seen = watcher.stdout.readline() + watcher.stdout.readline()
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
            # MIG Manager needs a few steps (one a second): wait for it as a learner would.
            for _ in range(90):
                state = ok(server.kubectl("get", "node", "gpu-node2", "-o", state_path))
                if state == "success":
                    break
                time.sleep(1)
            time.sleep(1.5)  # the watch's last event on its way
        finally:
            watcher.terminate()
            out, _ = watcher.communicate(timeout=20)
        states = [line.split()[-1] for line in (seen + out).splitlines()[1:]]
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


def test_mig_mixed_is_solved_with_the_real_kubectl(tmp_path: Path) -> None:
    with start_cluster_server("mig-mixed", tmp_path, timeout=120) as server:
        assert not any(checklist(server).values())
        config = server.home / "custom-mig-config.yaml"
        config.write_text(
            config.read_text().replace("mig-config.yaml:", "config.yaml:"), encoding="utf-8"
        )
        ok(server.kubectl("apply", "-f", "custom-mig-config.yaml"))
        ok(
            server.kubectl(
                "delete", "pod", "-n", "gpu-operator", "-l", "app=nvidia-mig-manager",
                "--field-selector", "spec.nodeName=gpu-node3",
            )
        )  # fmt: skip
        strategy = '{"spec":{"mig":{"strategy":"mixed"}}}'
        ok(server.kubectl("patch", "clusterpolicies.nvidia.com/cluster-policy", "--type",
                          "merge", "-p", strategy))  # fmt: skip
        ok(server.kubectl("uncordon", "gpu-node3"))
        ok(server.kubectl("delete", "pod", "triton"))
        triton = server.home / "triton.yaml"
        triton.write_text(
            triton.read_text().replace("nvidia.com/gpu: 1", "nvidia.com/mig-1g.10gb: 1"),
            encoding="utf-8",
        )
        ok(server.kubectl("apply", "-f", "triton.yaml"))
        waited = server.kubectl("wait", "--for=condition=Ready", "pod/triton", "--timeout=60s")
        assert ok(waited).strip() == "pod/triton condition met"
        done = checklist(server)
        for _ in range(20):
            if all(done.values()):
                break
            time.sleep(1)
            done = checklist(server)
        assert done == {"layout-applied": True, "strategy-mixed": True, "triton-on-slice": True}


def test_driver_stack_is_diagnosed_and_fixed_with_the_real_kubectl(tmp_path: Path) -> None:
    with start_cluster_server("driver-stack", tmp_path, timeout=120) as server:
        assert not checklist(server)["gpus-advertised"]
        on_node3 = ("-n", "gpu-operator", "--field-selector", "spec.nodeName=gpu-node3")
        driver = ok(
            server.kubectl(
                "get", "pods", *on_node3, "-l", "app=nvidia-driver-daemonset",
                "-o", "jsonpath={.items[0].metadata.name}",
            )
        )  # fmt: skip
        log = ok(server.kubectl("logs", "-n", "gpu-operator", driver))
        assert log.splitlines()[-1] == (
            "Could not unload NVIDIA driver kernel modules, driver is in use"
        )
        ok(server.kubectl("label", "node", "gpu-node3", "nvidia.com/gpu.deploy.driver=false",
                          "--overwrite"))  # fmt: skip
        waited = server.kubectl(
            "wait", "--for=condition=Ready", "pod", *on_node3[:2],
            "-l", "app=nvidia-operator-validator", "--timeout=60s",
        )  # fmt: skip
        assert "condition met" in ok(waited)
        gpus = "jsonpath={.status.allocatable.nvidia\\.com/gpu}"
        allocatable = eventually(
            lambda: ok(server.kubectl("get", "node", "gpu-node3", "-o", gpus)), "8".__eq__
        )
        assert allocatable == "8"
        done = settled_checklist(server)
        assert all(done.values()), done


def test_fabric_nccl_is_diagnosed_and_fixed_with_the_real_kubectl(tmp_path: Path) -> None:
    with start_cluster_server("fabric-nccl", tmp_path, timeout=120) as server:
        assert not checklist(server)["nccl-ib"]
        ns = ("-n", "runai-team-llm")
        log = ok(server.kubectl("logs", "llm-dist-master-0", *ns))
        assert "NCCL INFO NET/IB : No device found." in log
        assert "NCCL INFO Using network Socket" in log
        rdma = "jsonpath={.status.allocatable.rdma/rdma_shared_device_a}"
        assert ok(server.kubectl("get", "node", "gpu-node1", "-o", rdma)) == "63"
        # The API server refuses a running pod's new resources, whatever the client.
        resize = server.kubectl(
            "patch", "pod", "llm-dist-master-0", *ns, "-p",
            '{"spec":{"containers":[{"name":"llm-dist","resources":{"limits":'
            '{"rdma/rdma_shared_device_a":"1"}}}]}}',
        )  # fmt: skip
        assert resize.returncode == 1
        assert 'The Pod "llm-dist-master-0" is invalid: spec: Forbidden: pod updates' in (
            resize.stderr
        )
        fix = (
            '{"spec":{"extendedResources":{"value":["rdma/rdma_shared_device_a=1"]},'
            '"capabilities":{"value":["IPC_LOCK"]}}}'
        )
        ok(server.kubectl("patch", "distributedworkloads.run.ai", "llm-dist", *ns,
                          "--type", "merge", "-p", fix))  # fmt: skip
        ok(server.kubectl("delete", "pods", *ns, "-l", "workloadName=llm-dist"))
        log = ""
        for _ in range(60):
            got = server.kubectl("logs", "llm-dist-master-0", *ns)
            log = got.stdout if got.returncode == 0 else ""
            if "Using network IB" in log:
                break
            time.sleep(1)
        assert "NCCL INFO Using network IB" in log and "NET/Socket" not in log


def test_toolkit_runtime_is_diagnosed_and_fixed_with_the_real_kubectl(tmp_path: Path) -> None:
    with start_cluster_server("toolkit-runtime", tmp_path, timeout=120) as server:
        assert checklist(server) == {
            "toolkit-ready": False,
            "runtime-class": True,
            "smoke-passed": False,
            "policy-ready": True,
        }
        classes = ok(server.kubectl("get", "runtimeclass"))
        assert classes.splitlines()[0].split() == ["NAME", "HANDLER", "AGE"]
        assert classes.splitlines()[1].split()[:2] == ["nvidia", "nvidia"]
        explained = ok(server.kubectl("explain", "runtimeclass.handler"))
        assert "FIELD: handler <string>" in explained and "is immutable" in explained
        events = ok(
            server.kubectl(
                "get", "events", "--field-selector", "reason=FailedCreatePodSandBox",
                "-o", "jsonpath={.items[0].message}",
            )
        )  # fmt: skip
        assert events == (
            "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get "
            'sandbox runtime: no runtime for "nvidia" is configured'
        )
        toolkit = ok(server.kubectl("get", "clusterpolicy", "cluster-policy",
                                    "-o", "jsonpath={.spec.toolkit.enabled}"))  # fmt: skip
        assert toolkit == "false"
        patched = ok(
            server.kubectl(
                "patch", "clusterpolicy", "cluster-policy", "--type", "merge",
                "-p", '{"spec":{"toolkit":{"enabled":true}}}',
            )
        )  # fmt: skip
        assert patched == "clusterpolicy.nvidia.com/cluster-policy patched\n"
        waited = server.kubectl(
            "wait", "--for=condition=Complete", "job/gpu-smoke", "--timeout=60s"
        )
        assert "job.batch/gpu-smoke condition met" in ok(waited)
        assert "NVIDIA-SMI 550.127.08" in ok(server.kubectl("logs", "job/gpu-smoke"))
        missing = server.kubectl(
            "run", "smi", "--image=nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
            "--restart=Never", '--overrides={"spec":{"runtimeClassName":"gpu"}}',
            "--", "nvidia-smi",
        )  # fmt: skip
        assert missing.returncode == 1
        assert missing.stderr.strip() == (
            'Error from server (Forbidden): pods "smi" is forbidden: pod rejected: '
            'RuntimeClass "gpu" not found'
        )
        done = settled_checklist(server)
        assert all(done.values()), done
