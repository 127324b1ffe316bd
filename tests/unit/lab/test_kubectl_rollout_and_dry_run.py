"""kubectl rollout history/undo/pause/resume, --dry-run that changes nothing, -o name on
label, and cobra's suggestions for a mistyped verb: what the real kubectl prints."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.unit.lab.kubectl_world import World


@pytest.fixture
def world() -> World:
    return World()


def test_rollout_history_lists_the_deployments_revisions(world: World) -> None:
    out = world.run("kubectl rollout history deployment/runai-agent -n runai")
    assert out.code == 0
    assert out.text == "deployment.apps/runai-agent \nREVISION  CHANGE-CAUSE\n1         <none>"


def test_rollout_undo_with_one_revision_fails_with_exit_status_one(world: World) -> None:
    out = world.run("kubectl rollout undo deploy/runai-agent -n runai")
    assert (out.text, out.code) == (
        'error: no rollout history found for deployment "runai-agent"',
        1,
    )


def _second_revision(world: World) -> None:
    """A new template (revision 2) beside the first ReplicaSet, as the controller leaves it."""
    api = world.api
    deploy = api.get("deployments.apps", "runai-agent", "runai")
    first = next(
        rs
        for rs in api.list("replicasets.apps", "runai")["items"]
        if rs["metadata"]["ownerReferences"][0]["uid"] == deploy["metadata"]["uid"]
    )
    template: Any = copy.deepcopy(deploy["spec"]["template"])
    template["spec"]["containers"][0]["image"] = "registry.local/agent:v2"
    api.patch(
        "deployments.apps",
        "runai-agent",
        {"spec": {"template": template}},
        "runai",
        patch_type="merge",
    )
    second = copy.deepcopy(first)
    second["metadata"] = {
        "name": "runai-agent-v2",
        "namespace": "runai",
        "annotations": {
            "deployment.kubernetes.io/revision": "2",
            "kubernetes.io/change-cause": "kubectl set image",
        },
        "ownerReferences": first["metadata"]["ownerReferences"],
    }
    second["spec"]["template"] = template
    second.pop("status", None)
    api.create("replicasets.apps", second, "runai")


def test_rollout_undo_puts_back_the_previous_revisions_template(world: World) -> None:
    _second_revision(world)
    history = world.run("kubectl rollout history deploy/runai-agent -n runai").text
    assert history.endswith("1         <none>\n2         kubectl set image")
    out = world.run("kubectl rollout undo deploy/runai-agent -n runai")
    assert (out.text, out.code) == ("deployment.apps/runai-agent rolled back", 0)
    image = world.api.get("deployments.apps", "runai-agent", "runai")["spec"]["template"]
    assert image["spec"]["containers"][0]["image"] != "registry.local/agent:v2"
    again = world.run("kubectl rollout undo deploy/runai-agent -n runai --to-revision=1")
    assert again.text == (
        "deployment.apps/runai-agent skipped rollback (current template already matches revision 1)"
    )


def test_pause_then_resume_and_their_errors_when_repeated(world: World) -> None:
    _second_revision(world)
    assert world.run("kubectl rollout pause deploy/runai-agent -n runai").text == (
        "deployment.apps/runai-agent paused"
    )
    assert world.api.get("deployments.apps", "runai-agent", "runai")["spec"]["paused"] is True
    again = world.run("kubectl rollout pause deploy/runai-agent -n runai")
    assert (again.text, again.code) == (
        'error: deployments.apps "runai-agent" is already paused',
        1,
    )
    undo = world.run("kubectl rollout undo deploy/runai-agent -n runai")
    assert undo.code == 1 and "cannot rollback a paused deployment" in undo.text
    assert world.run("kubectl rollout resume deploy/runai-agent -n runai").text == (
        "deployment.apps/runai-agent resumed"
    )
    not_paused = world.run("kubectl rollout resume deploy/runai-agent -n runai")
    assert (not_paused.text, not_paused.code) == (
        'error: deployments.apps "runai-agent" is not paused',
        1,
    )


@pytest.mark.parametrize(
    ("line", "printed"),
    [
        (
            "kubectl scale deploy/runai-agent -n runai --replicas=3 --dry-run=client",
            "deployment.apps/runai-agent scaled (dry run)",
        ),
        (
            "kubectl scale deploy/runai-agent -n runai --replicas=3 --dry-run=server",
            "deployment.apps/runai-agent scaled (server dry run)",
        ),
        ("kubectl cordon gpu-node1 --dry-run=server", "node/gpu-node1 cordoned (server dry run)"),
        (
            "kubectl label ns runai tier=system --dry-run=client",
            "namespace/runai labeled (dry run)",
        ),
        (
            "kubectl annotate ns runai team=a --dry-run=server -o name",
            "namespace/runai",
        ),
        (
            'kubectl patch ns runai --type merge -p \'{"metadata":{"labels":{"a":"b"}}}\' '
            "--dry-run=client",
            # kubectl patch sets its printer's operation after the dry-run suffix would have
            # been added (patch.go's ToPrinter): kubectl 1.36 prints no "(dry run)" here.
            "namespace/runai patched",
        ),
    ],
)
def test_a_dry_run_prints_kubectls_line_and_changes_nothing(
    world: World, line: str, printed: str
) -> None:
    before = world.state()
    out = world.run(line)
    assert (out.text, out.code) == (printed, 0)
    assert world.state() == before


def test_a_dry_run_with_yaml_output_prints_the_changed_object_and_keeps_the_world(
    world: World,
) -> None:
    before = world.state()
    out = world.run("kubectl label ns runai tier=system --dry-run=client -o yaml")
    assert "    tier: system" in out.text
    assert out.text.startswith("apiVersion: v1\nkind: Namespace\n")
    assert world.state() == before


def test_an_unknown_dry_run_value_is_refused(world: World) -> None:
    out = world.run("kubectl scale deploy/runai-agent -n runai --replicas=3 --dry-run=yes")
    assert out.code == 1
    assert out.text == 'error: Invalid dry-run value (yes). Must be "none", "server", or "client".'


def test_label_with_output_name_prints_only_the_object(world: World) -> None:
    out = world.run("kubectl label ns runai tier=system -o name")
    assert out.text == "namespace/runai"
    assert world.api.get("namespaces", "runai")["metadata"]["labels"]["tier"] == "system"


@pytest.mark.parametrize(
    ("word", "suggestions"),
    [("gett", ["set", "get"]), ("lgs", ["logs"]), ("hlp", ["top", "cp"]), ("xyzzy", [])],
)
def test_a_mistyped_verb_gets_cobras_suggestions_in_kubectls_order(
    world: World, word: str, suggestions: list[str]
) -> None:
    out = world.run(f"kubectl {word} pods")
    head = f'error: unknown command "{word}" for "kubectl"'
    tail = "\n\nDid you mean this?\n" + "\n".join(f"\t{s}" for s in suggestions)
    assert out.code == 1
    assert out.text == (head + tail if suggestions else head)


def test_a_server_dry_run_answers_with_what_the_server_would_store_and_stores_nothing(
    world: World,
) -> None:
    before = world.state()
    client = world.run("kubectl create namespace scratch --dry-run=client -o yaml").text
    server = world.run("kubectl create namespace scratch --dry-run=server -o yaml").text
    # The client prints the manifest it would send; the server adds what it sets on a create.
    assert "uid:" not in client and "phase: Active" not in client
    assert "uid:" in server and "phase: Active" in server and "- kubernetes" in server
    assert world.state() == before
    assert world.run("kubectl get ns scratch").code == 1


def test_rollout_history_revision_prints_that_revisions_pod_template_untabulated(
    world: World,
) -> None:
    _second_revision(world)
    out = world.run("kubectl rollout history deploy/runai-agent -n runai --revision=2")
    assert out.code == 0
    lines = out.text.split("\n")
    assert lines[:3] == [
        "deployment.apps/runai-agent with revision #2",
        "Pod Template:",
        "  Labels:\tapp=runai-agent",
    ]
    # The ReplicaSet's change cause is shown on the template, tabs as kubectl writes them.
    assert "  Annotations:\tkubernetes.io/change-cause: kubectl set image" in out.text
    assert "    Image:\tregistry.local/agent:v2" in lines
    assert lines[-1] == "  Tolerations:\t<none>"


def test_rollout_history_output_name_lists_the_revisions_replicasets(world: World) -> None:
    out = world.run("kubectl rollout history deploy/runai-agent -n runai --revision=1 -o name")
    assert out.code == 0
    assert out.text.startswith("replicaset.apps/runai-agent-")


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--revision=2", "error: unable to find the specified revision"),
        ("--revision=-1", "error: revision must be a positive integer: -1"),
        (
            "--revision=abc",
            'error: invalid argument "abc" for "--revision" flag: strconv.ParseInt: parsing '
            "\"abc\": invalid syntax\nSee 'kubectl rollout history --help' for usage.",
        ),
    ],
)
def test_rollout_history_of_a_revision_it_cannot_show_fails_with_kubectls_message(
    world: World, flag: str, message: str
) -> None:
    out = world.run(f"kubectl rollout history deploy/runai-agent -n runai {flag}")
    assert (out.text, out.code) == (message, 1)


def test_rollout_on_a_bare_type_acts_on_every_object_of_it_in_the_namespace(world: World) -> None:
    out = world.run("kubectl rollout history deploy -n runai")
    entries = out.text.split("\n\n")
    assert len(entries) > 1
    assert all(e.endswith("REVISION  CHANGE-CAUSE\n1         <none>") for e in entries)
    names = [e.split(" ", 1)[0] for e in entries]
    assert names == sorted(names) and "deployment.apps/runai-agent" in names
    empty = world.run("kubectl rollout restart deploy -n nothing-here")
    assert (empty.text, empty.code) == ("No resources found in nothing-here namespace.", 0)
