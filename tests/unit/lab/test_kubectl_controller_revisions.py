"""DaemonSets and StatefulSets keep their history as apps/v1 ControllerRevisions, as
kube-controller-manager does, so `kubectl rollout history|undo|status` over them answers as the
real kubectl 1.36 does against a real cluster."""

from __future__ import annotations

import json

import pytest

from simulators.controllers.manager import run_controllers
from tests.unit.lab.kubectl_world import World

DS = "ds/nvidia-mig-manager -n gpu-operator"
STS = "sts/prometheus-runai -n runai"


@pytest.fixture
def world() -> World:
    return World()


def _settle(world: World) -> None:
    world.api.clock.advance()
    run_controllers(world.api)


def _new_image(world: World) -> None:
    world.run(f"kubectl set image {DS} nvidia-mig-manager=registry.local/mig:v2")
    _settle(world)


def test_get_controllerrevisions_lists_one_revision_per_daemonset_with_its_controller(
    world: World,
) -> None:
    out = world.run("kubectl get controllerrevisions -n gpu-operator")
    header, *rows = out.text.split("\n")
    assert header.split() == ["NAME", "CONTROLLER", "REVISION", "AGE"]
    mig = next(r for r in rows if r.startswith("nvidia-mig-manager-"))
    assert mig.split()[1:3] == ["daemonset.apps/nvidia-mig-manager", "1"]


def test_a_revisions_data_is_the_patch_that_puts_the_template_back(world: World) -> None:
    out = world.run("kubectl get controllerrevisions -n runai -o json")
    revision = json.loads(out.text)["items"][0]
    template = revision["data"]["spec"]["template"]
    assert template["$patch"] == "replace"
    assert revision["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet"
    assert "controller-revision-hash" in revision["metadata"]["labels"]


def test_history_of_a_daemonset_lists_its_revisions(world: World) -> None:
    out = world.run(f"kubectl rollout history {DS}")
    assert out.text == (
        "daemonset.apps/nvidia-mig-manager \nREVISION  CHANGE-CAUSE\n1         <none>"
    )


def test_a_new_template_makes_a_second_revision_and_undo_returns_to_the_first(
    world: World,
) -> None:
    _new_image(world)
    assert world.run(f"kubectl rollout history {DS}").text.endswith(
        "1         <none>\n2         <none>"
    )
    second = world.run(f"kubectl rollout history {DS} --revision=2").text
    assert "registry.local/mig:v2" in second
    out = world.run(f"kubectl rollout undo {DS}")
    assert (out.text, out.code) == ("daemonset.apps/nvidia-mig-manager rolled back", 0)
    ds = world.api.get("daemonsets.apps", "nvidia-mig-manager", "gpu-operator")
    assert ds["spec"]["template"]["spec"]["containers"][0]["image"] != "registry.local/mig:v2"


def test_undo_with_one_revision_has_no_last_revision_to_roll_back_to(world: World) -> None:
    out = world.run(f"kubectl rollout undo {STS}")
    assert (out.text, out.code) == ("error: no last revision to roll back to", 1)


def test_undo_to_the_current_revision_is_skipped(world: World) -> None:
    out = world.run(f"kubectl rollout undo {STS} --to-revision=1")
    assert out.text == (
        "statefulset.apps/prometheus-runai skipped rollback "
        "(current template already matches revision 1)"
    )


def test_a_client_dry_run_undo_says_what_it_will_roll_back_to(world: World) -> None:
    _new_image(world)
    before = world.state()
    out = world.run(f"kubectl rollout undo {DS} --dry-run=client")
    assert out.text.startswith("daemonset.apps/nvidia-mig-manager will roll back to Pod Template:")
    assert world.state() == before


def test_history_with_output_name_names_the_daemonset_as_of_each_revision(world: World) -> None:
    _new_image(world)
    out = world.run(f"kubectl rollout history {DS} -o name")
    assert out.text == "daemonset.apps/nvidia-mig-manager\ndaemonset.apps/nvidia-mig-manager"


def test_statefulset_status_without_a_rolling_update_strategy_is_refused(world: World) -> None:
    out = world.run(f"kubectl rollout status {STS}")
    assert (out.text, out.code) == (
        "error: rollout status is only available for RollingUpdate strategy type",
        1,
    )


def test_statefulset_status_with_rolling_update_reports_the_revision(world: World) -> None:
    patch = '{"spec":{"updateStrategy":{"type":"RollingUpdate"}}}'
    world.run(f"kubectl patch {STS} --type merge -p '{patch}'")
    _settle(world)
    out = world.run(f"kubectl rollout status {STS}")
    assert out.text.startswith("statefulset rolling update complete 1 pods at revision ")
