"""MIG profiles, layouts, strategies and scheduling MIG slices."""

from __future__ import annotations

import pytest

from simulators.engine import (
    EngineError,
    GpuRequest,
    MigDeviceConfig,
    MigLayout,
    MigStrategyError,
    advertised_resources,
    mig_advertisement,
)
from tests.unit.engine.engine_scenes import cluster_with, project


def test_all_1g_10gb_under_single_advertises_56_gpus_on_8_h100s() -> None:
    assert advertised_resources(8, "all-1g.10gb", "single") == {"nvidia.com/gpu": 56}


def test_mig_disabled_advertises_whole_gpus() -> None:
    assert advertised_resources(8, "all-disabled", "single") == {"nvidia.com/gpu": 8}
    assert advertised_resources(8, "all-disabled", "mixed") == {"nvidia.com/gpu": 8}


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        ("all-1g.10gb", {"nvidia.com/mig-1g.10gb": 56}),
        ("all-2g.20gb", {"nvidia.com/mig-2g.20gb": 24}),
        ("all-3g.40gb", {"nvidia.com/mig-3g.40gb": 16}),
        (
            "all-balanced",
            {
                "nvidia.com/mig-1g.10gb": 16,
                "nvidia.com/mig-2g.20gb": 8,
                "nvidia.com/mig-3g.40gb": 8,
            },
        ),
    ],
)
def test_mixed_advertises_one_resource_per_profile(layout: str, expected: dict[str, int]) -> None:
    assert advertised_resources(8, layout, "mixed") == expected


def test_several_profiles_under_single_make_the_device_plugin_crash_loop() -> None:
    with pytest.raises(MigStrategyError, match="mixed"):
        advertised_resources(8, "all-balanced", "single")
    advert = mig_advertisement(8, "all-balanced", "single")
    assert advert.crash_loop and advert.resources == {}


def test_a_custom_layout_can_leave_some_gpus_whole() -> None:
    layout = MigLayout(
        "half",
        (
            MigDeviceConfig(mig_enabled=False),
            MigDeviceConfig(mig_enabled=True, profiles={"1g.10gb": 7}, gpus=(0, 1, 2, 3)),
        ),
    )
    assert advertised_resources(8, layout, "mixed") == {
        "nvidia.com/gpu": 4,
        "nvidia.com/mig-1g.10gb": 28,
    }
    with pytest.raises(MigStrategyError):
        advertised_resources(8, layout, "single")


def test_profiles_that_do_not_fit_one_gpu_are_rejected() -> None:
    with pytest.raises(EngineError, match=r"1g\.10gb"):
        MigDeviceConfig(mig_enabled=True, profiles={"1g.10gb": 8})
    with pytest.raises(EngineError, match="do not fit"):
        MigDeviceConfig(mig_enabled=True, profiles={"3g.40gb": 2, "2g.20gb": 1})
    with pytest.raises(EngineError, match="unknown MIG profile"):
        GpuRequest.mig("5g.50gb")


def test_a_mig_slice_request_runs_on_a_mixed_node() -> None:
    cluster = cluster_with(nodes=1)
    cluster.set_mig_strategy("mixed")
    cluster.node("gpu-node1").mig_layout = "all-1g.10gb"
    project(cluster, "inf", 8)
    cluster.submit("triton", "inf", kind="inference", gpu=GpuRequest.mig("1g.10gb"))
    cluster.run_cycle()
    pod = cluster.workload("inf", "triton").pods[0]
    assert (pod.status.value, pod.node, pod.extended_resource) == (
        "Running",
        "gpu-node1",
        "nvidia.com/mig-1g.10gb",
    )


def test_asking_for_nvidia_com_gpu_on_a_mixed_mig_node_is_insufficient() -> None:
    cluster = cluster_with(nodes=1)
    cluster.set_mig_strategy("mixed")
    cluster.node("gpu-node1").mig_layout = "all-1g.10gb"
    project(cluster, "inf", 8)
    cluster.submit("triton", "inf", kind="inference")
    cluster.run_cycle()
    assert cluster.workload("inf", "triton").reason_message == (
        "Unable to schedule pod: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu."
    )


def test_single_strategy_slices_are_scheduled_as_gpus_and_labelled_by_profile() -> None:
    cluster = cluster_with(nodes=1)
    cluster.node("gpu-node1").mig_layout = "all-1g.10gb"
    project(cluster, "inf", 56)
    for i in range(10):
        cluster.submit(f"svc{i}", "inf")
    cluster.run_cycle()
    assert all(w.status == "Running" for w in cluster.workloads())
    assert cluster.node_usage("gpu-node1").allocatable == {"nvidia.com/gpu": 56}
