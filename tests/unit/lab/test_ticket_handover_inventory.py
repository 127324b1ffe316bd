"""The handover-inventory ticket: an inventory written into ~/handover/ on the admin host and
the partner's manifests applied from /tmp/partner-checks (simulators/lab/checks_files.py).
The node on MIG under the mixed strategy is the trap: it has a GPU, and offers no nvidia.com/gpu.
"""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all, wait

WHOLE_GPU_NODES = ["gpu-node1", "gpu-node2", "l40s-node1"]
PRODUCTS = {
    "gpu-node1": "NVIDIA-H100-80GB-HBM3",
    "gpu-node2": "NVIDIA-H100-80GB-HBM3",
    "gpu-node3": "NVIDIA-H100-80GB-HBM3",
    "l40s-node1": "NVIDIA-L40S",
}
PRODUCT_COLUMNS = (
    "-o 'custom-columns=NAME:.metadata.name,PRODUCT:.metadata.labels.nvidia\\.com/gpu\\.product'"
)


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("handover-inventory")


def write(lab: LabSession, name: str, lines: list[str]) -> None:
    """Put these lines into ~/handover/<name> (the folder made first)."""
    text = "\\n".join(lines)
    run_all(lab, ["mkdir -p ~/handover", f"printf '{text}\\n' > ~/handover/{name}"])


def test_the_answer_key_ticks_every_item(lab: LabSession) -> None:
    for line in lab.answer_key():
        assert "internal error" not in lab.run(line).output
    assert done(lab) == {"gpu-nodes": True, "products": True, "partner-checks": True}


def test_at_the_start_there_is_no_handover_folder_and_the_partner_left_four_files(
    lab: LabSession,
) -> None:
    assert "No such file or directory" in lab.run("ls ~/handover").output
    assert lab.run("ls /tmp/partner-checks").output.split() == [
        "00-namespace.yaml",
        "10-expectations.yaml",
        "20-gpu-smoke.yaml",
        "README.txt",
    ]
    assert done(lab) == {"gpu-nodes": False, "products": False, "partner-checks": False}


def test_the_mig_node_has_a_gpu_and_offers_no_whole_gpu(lab: LabSession) -> None:
    present = lab.run("kubectl get nodes -l nvidia.com/gpu.present=true -o name").output
    assert present.split() == [f"node/{name}" for name in PRODUCTS]
    allocatable = lab.run("kubectl describe node gpu-node3 | grep -A8 Allocatable").output
    assert "nvidia.com/gpu:          0" in allocatable
    assert "nvidia.com/mig-1g.10gb:  16" in allocatable


def test_listing_the_nodes_by_the_gpu_present_label_does_not_tick_gpu_nodes(
    lab: LabSession,
) -> None:
    run_all(
        lab,
        [
            "mkdir -p ~/handover",
            "kubectl get nodes -l nvidia.com/gpu.present=true -o custom-columns=NAME:.metadata.name"
            " --no-headers > ~/handover/gpu-nodes.txt",
        ],
    )
    assert lab.run("cat ~/handover/gpu-nodes.txt").output.split() == list(PRODUCTS)
    assert done(lab)["gpu-nodes"] is False


def test_names_with_the_node_prefix_do_not_tick_gpu_nodes(lab: LabSession) -> None:
    write(lab, "gpu-nodes.txt", [f"node/{name}" for name in WHOLE_GPU_NODES])
    assert done(lab)["gpu-nodes"] is False


def test_a_header_or_an_unsorted_list_does_not_tick_gpu_nodes(lab: LabSession) -> None:
    write(lab, "gpu-nodes.txt", ["NAME", *WHOLE_GPU_NODES])
    assert done(lab)["gpu-nodes"] is False
    write(lab, "gpu-nodes.txt", list(reversed(WHOLE_GPU_NODES)))
    assert done(lab)["gpu-nodes"] is False


def test_the_whole_gpu_nodes_written_by_hand_tick_gpu_nodes_without_a_last_newline(
    lab: LabSession,
) -> None:
    run_all(
        lab,
        [
            "mkdir -p ~/handover",
            "printf '  gpu-node1\\ngpu-node2  \\n\\nl40s-node1' > ~/handover/gpu-nodes.txt",
        ],
    )
    assert done(lab)["gpu-nodes"] is True


def test_a_products_file_with_a_wrong_product_does_not_tick_products(lab: LabSession) -> None:
    # gpu-node3 named as the single strategy would label it: under mixed, GFD keeps the GPU's.
    wrong = {**PRODUCTS, "gpu-node3": "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb"}
    write(lab, "gpu-products.txt", [f"{node} {product}" for node, product in wrong.items()])
    assert done(lab)["products"] is False


def test_a_products_file_without_the_mig_node_does_not_tick_products(lab: LabSession) -> None:
    rows = [f"{node} {product}" for node, product in PRODUCTS.items() if node != "gpu-node3"]
    write(lab, "gpu-products.txt", rows)
    assert done(lab)["products"] is False


def test_products_in_any_order_without_a_header_tick_products(lab: LabSession) -> None:
    rows = [f"{node}\\t{product}" for node, product in reversed(PRODUCTS.items())]
    write(lab, "gpu-products.txt", rows)
    assert done(lab)["products"] is True


def test_products_written_from_inside_the_folder_tick_products(lab: LabSession) -> None:
    run_all(
        lab,
        [
            "mkdir -p ~/handover",
            "cd ~/handover",
            f"kubectl get nodes -l nvidia.com/gpu.present=true {PRODUCT_COLUMNS}"
            " > gpu-products.txt",
        ],
    )
    assert done(lab)["products"] is True


def test_the_label_key_unquoted_loses_its_backslashes_and_prints_none(lab: LabSession) -> None:
    unquoted = PRODUCT_COLUMNS.replace("'", "")
    out = lab.run(f"kubectl get nodes {unquoted} --no-headers").output
    assert [line.split()[1] for line in out.splitlines()] == ["<none>"] * len(PRODUCTS)


def test_applying_only_one_of_the_partners_files_does_not_tick_partner_checks(
    lab: LabSession,
) -> None:
    lab.run("kubectl apply -f /tmp/partner-checks/00-namespace.yaml")
    wait(lab, 4)
    assert done(lab)["partner-checks"] is False
    created = lab.run("kubectl apply -f /tmp/partner-checks/20-gpu-smoke.yaml").output
    assert created == "job.batch/gpu-smoke created"  # the namespace exists now
    wait(lab, 4)
    assert done(lab)["partner-checks"] is False  # the ConfigMap is still missing


def test_the_job_alone_is_refused_without_the_partners_namespace(lab: LabSession) -> None:
    out = lab.run("kubectl apply -f /tmp/partner-checks/20-gpu-smoke.yaml").output
    assert out == 'Error from server (NotFound): namespaces "partner-checks" not found'
    assert done(lab)["partner-checks"] is False


def test_applying_the_folder_skips_the_readme_and_ticks_once_the_smoke_test_completes(
    lab: LabSession,
) -> None:
    out = lab.run("kubectl apply -f /tmp/partner-checks/").output
    assert out.splitlines() == [
        "namespace/partner-checks created",
        "configmap/handover-expectations created",
        "job.batch/gpu-smoke created",
    ]
    assert done(lab)["partner-checks"] is False  # the Job has not run yet
    wait(lab, 4)
    assert "Complete" in lab.run("kubectl get job gpu-smoke -n partner-checks").output
    assert done(lab)["partner-checks"] is True
    assert lab.run("kubectl logs -n partner-checks job/gpu-smoke").output.startswith("GPU 0: ")


def test_deleting_the_partners_namespace_unticks_partner_checks(lab: LabSession) -> None:
    lab.run("kubectl apply -f /tmp/partner-checks/")
    wait(lab, 4)
    assert done(lab)["partner-checks"] is True
    lab.run("kubectl delete namespace partner-checks --wait=false")
    assert done(lab)["partner-checks"] is False
