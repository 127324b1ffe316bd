"""nvidia-smi through `kubectl exec`: what the GPUs show comes from the pods on them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from simulators.lab.nvidia_smi import placements
from tests.unit.lab.kubectl_cluster import NODE_STATUS, Lab


def _pod(
    lab: Lab,
    name: str,
    ns: str,
    devices: str,
    annotations: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
) -> None:
    meta: dict[str, Any] = {
        "name": name,
        "namespace": ns,
        "annotations": {"lab.kadmin/gpu-devices": devices, **(annotations or {})},
        "labels": labels or {},
    }
    pod = lab.api.create(
        "pods",
        {
            "metadata": meta,
            "spec": {
                "nodeName": "gpu-node1",
                "containers": [
                    {
                        "name": "main",
                        "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                        "command": ["torchrun"],
                    }
                ],
            },
        },
        ns,
    )
    lab.api.update("pods", {**pod, "status": {"phase": "Running"}}, ns, subresource="status")


def _lab(layout: list[Any]) -> Lab:
    lab = Lab()
    lab.api.create(
        "nodes",
        {
            "metadata": {
                "name": "gpu-node1",
                "annotations": {"lab.kadmin/gpus": json.dumps(layout)},
            },
            "status": NODE_STATUS,
        },
    )
    lab.api.create("namespaces", {"metadata": {"name": "gpu-operator"}})
    lab.api.create("namespaces", {"metadata": {"name": "runai-team"}})
    _pod(lab, "nvidia-driver-daemonset-abcde", "gpu-operator", "")
    return lab


@pytest.fixture
def whole() -> Lab:
    lab = _lab([None] * 8)
    _pod(lab, "train", "default", "0,1")
    _pod(
        lab,
        "nb1-0-0",
        "runai-team",
        "2",
        {"gpu-fraction": "0.5"},
        {"workloadKind": "InteractiveWorkload"},
    )
    return lab


def test_gpus_in_use_show_memory_utilization_and_processes(whole: Lab) -> None:
    text = whole.out("kubectl exec -n gpu-operator nvidia-driver-daemonset-abcde -- nvidia-smi")
    rows = [line for line in text.split("\n") if "MiB /  81559MiB" in line]
    assert len(rows) == 8
    assert not rows[0].endswith("|      0%      Default |")
    assert "     1MiB /  81559MiB |      0%" in rows[7]
    assert "| Processes:" in text
    assert text.count("      C   torchrun") == 3


def test_inside_a_half_gpu_workspace_the_gpu_has_half_the_memory(whole: Lab) -> None:
    text = whole.out("kubectl exec -n runai-team nb1-0-0 -- nvidia-smi")
    assert "/  40779MiB |" in text
    assert "No running processes found" in text
    assert whole.out("kubectl exec -n runai-team nb1-0-0 -- nvidia-smi -L").startswith("GPU 0: ")


def test_a_pod_without_gpus_sees_no_devices(whole: Lab) -> None:
    _pod(whole, "cpu-only", "default", "")
    result = whole.run("kubectl exec cpu-only -- nvidia-smi")
    assert result.code == 6
    assert result.text == "No devices were found\ncommand terminated with exit code 6"


def test_list_gpus_with_mig_devices() -> None:
    lab = _lab([{"1g.10gb": 7}] + [None] * 7)
    text = lab.out("kubectl exec -n gpu-operator nvidia-driver-daemonset-abcde -- nvidia-smi -L")
    lines = text.split("\n")
    assert lines[0].startswith("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-")
    assert lines[1].startswith("  MIG 1g.10gb     Device  0: (UUID: MIG-")
    assert lines[8].startswith("GPU 1: ")


def test_gpu_instances_use_h100_profile_ids_and_placements() -> None:
    lab = _lab(
        [
            {"1g.10gb": 7},
            {"3g.40gb": 2},
            {"2g.20gb": 3},
            {"7g.80gb": 1},
            {"1g.20gb": 4},
            {"4g.40gb": 1},
            None,
            None,
        ]
    )
    text = lab.out(
        "kubectl exec -n gpu-operator nvidia-driver-daemonset-abcde -- nvidia-smi mig -lgi"
    )
    rows = [line for line in text.split("\n") if "MIG " in line]
    assert "|   0  MIG 1g.10gb         19        7          0:1     |" in rows
    assert "|   0  MIG 1g.10gb         19       13          6:1     |" in rows
    assert "|   1  MIG 3g.40gb          9        1          4:4     |" in rows
    assert "|   1  MIG 3g.40gb          9        2          0:4     |" in rows
    assert any(r.startswith("|   2  MIG 2g.20gb         14") for r in rows)
    assert "|   3  MIG 7g.80gb          0        0          0:8     |" in rows
    assert any(r.startswith("|   4  MIG 1g.20gb         15") for r in rows)
    assert any(r.startswith("|   5  MIG 4g.40gb          5") for r in rows)


def test_gpu_instance_profiles_count_free_placements() -> None:
    lab = _lab([{"3g.40gb": 1}] + [None] * 7)
    text = lab.out(
        "kubectl exec -n gpu-operator nvidia-driver-daemonset-abcde -- nvidia-smi mig -lgip"
    )
    assert "|   0  MIG 3g.40gb        9     1/2" in text
    assert "|   0  MIG 7g.80gb        0     0/1" in text


def test_compute_instances_list_one_per_gpu_instance() -> None:
    lab = _lab([{"2g.20gb": 3}] + [None] * 7)
    text = lab.out(
        "kubectl exec -n gpu-operator nvidia-driver-daemonset-abcde -- nvidia-smi mig -lci"
    )
    assert text.count("MIG 2g.20gb") == 3
    assert "|   0      3       MIG 2g.20gb          1         0          0:2     |" in text


def test_placements_put_larger_instances_first() -> None:
    assert placements(["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]) == [
        (1, 4, 4),
        (3, 0, 2),
        (9, 2, 1),
        (10, 3, 1),
    ]


def test_mig_listing_without_mig_gpus_is_an_error(whole: Lab) -> None:
    result = whole.run(
        "kubectl exec -n gpu-operator nvidia-driver-daemonset-abcde -- nvidia-smi mig -lgi"
    )
    assert result.code == 6


def test_every_screen_line_has_the_same_width(whole: Lab) -> None:
    text = whole.out("kubectl exec -n gpu-operator nvidia-driver-daemonset-abcde -- nvidia-smi")
    widths = {len(line) for line in text.split("\n")[1:] if line}
    assert widths == {91}
