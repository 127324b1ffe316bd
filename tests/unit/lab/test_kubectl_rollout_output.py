"""kubectl rollout restart|pause|resume|undo with -o and undo's --dry-run: the object printed
through kubectl's PrintFlags printers, as the real kubectl 1.36 prints it."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.unit.lab.kubectl_world import World
from tests.unit.lab.test_kubectl_rollout_and_dry_run import _second_revision

AGENT = "deploy/runai-agent -n runai"


@pytest.fixture
def world() -> World:
    return World()


def _image(world: World) -> str:
    deploy = world.api.get("deployments.apps", "runai-agent", "runai")
    return str(deploy["spec"]["template"]["spec"]["containers"][0]["image"])


def test_restart_with_output_name_prints_only_the_objects_name(world: World) -> None:
    out = world.run(f"kubectl rollout restart {AGENT} -o name")
    assert (out.text, out.code) == ("deployment.apps/runai-agent", 0)


def test_restart_with_yaml_prints_the_restarted_deployment_with_its_annotation(
    world: World,
) -> None:
    out = world.run(f"kubectl rollout restart {AGENT} -o yaml")
    printed = yaml.safe_load(out.text)
    annotations = printed["spec"]["template"]["metadata"]["annotations"]
    assert printed["kind"] == "Deployment" and "kubectl.kubernetes.io/restartedAt" in annotations


def test_pause_with_jsonpath_prints_the_paused_field_of_the_answer(world: World) -> None:
    out = world.run(f"kubectl rollout pause {AGENT} -o jsonpath={{.spec.paused}}")
    assert (out.text, out.code) == ("true", 0)


def test_resume_with_go_template_prints_the_template_over_the_resumed_object(
    world: World,
) -> None:
    world.run(f"kubectl rollout pause {AGENT}")
    out = world.run(f"kubectl rollout resume {AGENT} -o go-template={{{{.metadata.name}}}}")
    assert (out.text, out.code) == ("runai-agent", 0)


def test_templates_over_several_objects_run_on_without_a_separator(world: World) -> None:
    out = world.run("kubectl rollout restart deploy -n runai -o jsonpath={.metadata.name}")
    names = sorted(
        d["metadata"]["name"] for d in world.api.list("deployments.apps", "runai")["items"]
    )
    assert out.text == "".join(names)


def test_yaml_over_several_objects_has_no_document_separator(world: World) -> None:
    out = world.run("kubectl rollout restart deploy -n runai -o yaml")
    assert "---" not in out.text and out.text.count("kind: Deployment") > 1


def test_undo_with_json_prints_the_deployment_as_read_before_the_rollback(world: World) -> None:
    _second_revision(world)
    out = world.run(f"kubectl rollout undo {AGENT} -o json")
    printed = json.loads(out.text)
    assert list(printed)[:2] == ["kind", "apiVersion"]
    assert printed["spec"]["template"]["spec"]["containers"][0]["image"] == (
        "registry.local/agent:v2"
    )
    assert _image(world) != "registry.local/agent:v2"


def test_undo_client_dry_run_prints_the_revisions_template_and_changes_nothing(
    world: World,
) -> None:
    _second_revision(world)
    before = world.state()
    out = world.run(f"kubectl rollout undo {AGENT} --dry-run=client")
    assert out.code == 0
    assert out.text.startswith("deployment.apps/runai-agent Pod Template:\n  Labels:")
    assert out.text.endswith("\n (dry run)")
    assert world.state() == before


def test_undo_server_dry_run_says_rolled_back_and_changes_nothing(world: World) -> None:
    _second_revision(world)
    before = world.state()
    out = world.run(f"kubectl rollout undo {AGENT} --dry-run=server -o name")
    assert (out.text, out.code) == ("deployment.apps/runai-agent", 0)
    named = world.run(f"kubectl rollout undo {AGENT} --dry-run=server")
    assert named.text == "deployment.apps/runai-agent rolled back (server dry run)"
    assert world.state() == before


def test_an_unknown_format_is_refused_after_the_change_as_kubectl_does(world: World) -> None:
    out = world.run(f"kubectl rollout pause {AGENT} -o wide")
    assert out.code == 1
    assert out.text.startswith(
        'error: unable to match a printer suitable for the output format "wide", allowed '
        "formats are: go-template,"
    )
    assert world.api.get("deployments.apps", "runai-agent", "runai")["spec"]["paused"] is True


def test_several_refusals_print_one_bare_line_per_object(world: World) -> None:
    count = len(world.api.list("deployments.apps", "runai")["items"])
    out = world.run("kubectl rollout restart deploy -n runai -o jsonpath")
    assert out.text.split("\n") == ["template format specified but no template given"] * count


def test_dry_run_belongs_to_undo_alone(world: World) -> None:
    out = world.run(f"kubectl rollout restart {AGENT} --dry-run=client")
    assert (out.text, out.code) == (
        "error: unknown flag: --dry-run\nSee 'kubectl rollout restart --help' for usage.",
        1,
    )


def test_pause_goes_on_past_an_object_it_cannot_pause_and_reports_every_error(
    world: World,
) -> None:
    world.run(f"kubectl rollout pause {AGENT}")
    out = world.run("kubectl rollout pause deploy -n runai -o name")
    assert out.code == 1
    assert 'error: deployments.apps "runai-agent" is already paused' in out.text.split("\n")
    assert "deployment.apps/cluster-api" in out.text.split("\n")


def test_history_with_jsonpath_prints_each_revisions_replicaset(world: World) -> None:
    _second_revision(world)
    out = world.run(f"kubectl rollout history {AGENT} -o jsonpath={{.kind}},")
    assert (out.text, out.code) == ("ReplicaSet,ReplicaSet,", 0)
