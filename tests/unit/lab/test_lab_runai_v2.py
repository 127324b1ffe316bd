"""The runai CLI as Run:ai's v2 reference documents it for the cluster release the lab runs."""

from __future__ import annotations

from simulators.lab import LabSession
from simulators.lab.world_cluster import RUNAI_VERSION


def test_runai_version_is_a_release_that_has_the_v2_clis_training_pytorch(
    validate: LabSession,
) -> None:
    first = validate.run("runai version").output.split("\n")[0]
    release = first.removeprefix("Version: ")
    major, minor = (int(part) for part in release.split(".")[:2])
    # v2 needs 2.18+; `runai training pytorch submit` (which the tickets use) arrived in 2.20.
    assert (major, minor) >= (2, 20)
    assert release == RUNAI_VERSION


def test_the_helm_chart_and_the_control_plane_image_report_the_same_release(
    validate: LabSession,
) -> None:
    listed = validate.run("helm list -n runai").output
    assert f"runai-cluster-{RUNAI_VERSION}" in listed
    images = validate.run(
        "kubectl get deploy -n runai "
        "-o jsonpath='{.items[*].spec.template.spec.containers[*].image}'"
    ).output
    assert f"runai:{RUNAI_VERSION}" in images
    assert "2.17" not in listed + images
