"""A new lab starts from its ticket's template world (built once per process and seed) without
rebuilding it: a fork that shares the template's objects. Learners' labs never see each other's
changes, the template never changes, and a forked lab behaves exactly as one built from scratch.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from simulators.lab import LabError, LabSession
from simulators.lab.session_state import SessionState
from simulators.lab.tickets import list_tickets, load_ticket
from simulators.lab.world import build_world, new_world, template_world

TICKETS = [t.id for t in list_tickets()]


def world_json(session_or_world: Any) -> str:
    world = getattr(session_or_world, "world", session_or_world)
    return json.dumps(world.to_json(), sort_keys=True)


def built_from_scratch(ticket_id: str, seed: int) -> LabSession:
    ticket = load_ticket(ticket_id)
    state = SessionState(ticket_id=ticket.id, seed=seed, world=build_world(ticket.world, seed))
    return LabSession(state, ticket)


def test_a_new_lab_starts_from_the_tickets_template_without_rebuilding_it() -> None:
    template = template_world(load_ticket("mig-single").world, 11)
    lab = LabSession.new("mig-single", seed=11)
    assert lab.world is not template and lab.world.api is not template.api
    # The same objects, not copies: nothing about the cluster was built again.
    nodes = list(lab.world.api.iter_objects("nodes"))
    assert nodes and all(
        a is b for a, b in zip(nodes, template.api.iter_objects("nodes"), strict=True)
    )


def test_a_template_fork_equals_the_world_built_from_scratch() -> None:
    for ticket_id in TICKETS:
        spec = load_ticket(ticket_id).world
        assert world_json(new_world(spec, 3)) == world_json(build_world(spec, 3)), ticket_id


def test_seeds_still_vary_the_generated_names_and_uids() -> None:
    one, other = LabSession.new("mig-single", seed=1), LabSession.new("mig-single", seed=2)
    names = {p["metadata"]["name"] for p in one.world.api.list("pods", "gpu-operator")["items"]}
    others = {p["metadata"]["name"] for p in other.world.api.list("pods", "gpu-operator")["items"]}
    assert names != others


def test_one_learners_changes_leave_another_learners_lab_and_the_template_unchanged() -> None:
    ticket = load_ticket("mig-single")
    template = template_world(ticket.world, 21)
    template_before = world_json(template)
    mine, theirs = LabSession.new("mig-single", seed=21), LabSession.new("mig-single", seed=21)
    theirs_before = world_json(theirs)
    for line in [
        *mine.answer_key(),
        "kubectl label node gpu-node2 team=research",
        "kubectl delete pod -n gpu-operator --all",
        "kubectl annotate ns default note=mine",
        "cat <<EOF > notes.txt\nmine\nEOF",
    ]:
        assert "internal error" not in mine.run(line).output
    assert world_json(mine) != theirs_before
    assert world_json(theirs) == theirs_before
    assert world_json(template) == template_before
    assert "notes.txt" not in theirs.world.state.files
    assert "team" not in theirs.world.api.get("nodes", "gpu-node2")["metadata"]["labels"]


@pytest.mark.parametrize("ticket_id", TICKETS)
def test_the_answer_key_from_a_template_reaches_the_same_world_as_from_scratch(
    ticket_id: str,
) -> None:
    seed = 5
    template = template_world(load_ticket(ticket_id).world, seed)
    template_before = world_json(template)
    forked, scratch = LabSession.new(ticket_id, seed=seed), built_from_scratch(ticket_id, seed)
    bystander = LabSession.new(ticket_id, seed=seed)
    bystander_before = world_json(bystander)
    for lab in (forked, scratch):
        for line in lab.answer_key():
            lab.run(line)
        assert lab.is_complete()
    assert world_json(forked) == world_json(scratch)
    assert forked.to_json()["transcript"] == scratch.to_json()["transcript"]
    assert world_json(template) == template_before
    assert world_json(bystander) == bystander_before


def test_a_new_labs_snapshot_names_its_template_and_restores_the_same_lab() -> None:
    lab = LabSession.new("image-pull", seed=9)
    lab.run("cat <<EOF > notes.txt")  # a here-document begun, nothing run yet
    snapshot = lab.encode()
    assert len(snapshot) < 1024
    back = LabSession.from_json(snapshot)
    assert world_json(back) == world_json(lab)
    assert back.awaiting and back.to_json()["shell"] == lab.to_json()["shell"]
    # The export always holds the whole world.
    assert "cluster" in lab.to_json()["world"]


@pytest.mark.parametrize("ticket_id", TICKETS)
def test_a_labs_snapshot_holds_what_changed_since_its_template_and_restores_the_same_lab(
    ticket_id: str,
) -> None:
    lab = LabSession.new(ticket_id, seed=1)
    key = lab.answer_key()
    for line in [*key[: len(key) // 2], "kubectl delete pod -n gpu-operator --all"]:
        lab.run(line)
    snapshot = json.loads(lab.encode())
    assert set(snapshot["world"]) == {"template", "changes", "host"}
    back = LabSession.from_json(snapshot)
    assert world_json(back) == world_json(lab)
    for line in [*lab.answer_key()[len(key) // 2 :], "kubectl get pods -A", "kubectl get ev -A"]:
        assert back.run(line).output == lab.run(line).output
    assert world_json(back) == world_json(lab) and back.is_complete() == lab.is_complete()


def test_a_snapshot_after_ordinary_commands_is_a_fraction_of_the_whole_world() -> None:
    lab = LabSession.new("image-pull", seed=1)
    for line in [*lab.answer_key(), *["kubectl get nodes"] * 20]:
        lab.run(line)
    saved_world = json.loads(lab.encode())["world"]
    assert len(json.dumps(saved_world)) < len(json.dumps(lab.world.to_json())) / 5


def test_a_snapshot_whose_changes_are_damaged_is_refused_with_the_labs_error() -> None:
    lab = LabSession.new("image-pull", seed=1)
    lab.run("kubectl label node gpu-node1 mine=yes")
    data = json.loads(lab.encode())
    data["world"]["changes"]["removed"] = {"nodes": [["", "no-such-node"]]}
    with pytest.raises(LabError, match="damaged"):
        LabSession.from_json(data)


def test_a_lab_restored_from_a_template_snapshot_goes_on_as_the_original() -> None:
    lab = LabSession.new("mig-single", seed=2)
    back = LabSession.from_json(lab.encode())
    for line in lab.answer_key():
        assert back.run(line).output == lab.run(line).output
    assert world_json(back) == world_json(lab) and back.is_complete()


def test_a_file_naming_a_template_instead_of_a_cluster_is_refused_on_import() -> None:
    snapshot = LabSession.new("mig-single", seed=2).encode()
    with pytest.raises(LabError, match="damaged"):
        LabSession.from_json(snapshot, trusted=False)


def test_a_snapshot_naming_a_template_the_ticket_no_longer_has_is_refused() -> None:
    data = json.loads(LabSession.new("mig-single", seed=2).encode())
    data["world"]["template"]["world"] = "0" * 16
    with pytest.raises(LabError, match="world has changed"):
        LabSession.from_json(data)


def test_a_lab_restored_from_its_whole_world_shares_what_it_still_has_with_its_template() -> None:
    lab = LabSession.new("image-pull", seed=4)
    lab.run("kubectl label node gpu-node1 mine=yes")
    back = LabSession.from_json(lab.encode())
    assert world_json(back) == world_json(lab)
    template = template_world(load_ticket("image-pull").world, 4)
    theirs = {o["metadata"]["name"]: o for o in template.api.iter_objects("namespaces")}
    assert all(
        o is theirs[o["metadata"]["name"]] for o in back.world.api.iter_objects("namespaces")
    )
    node = back.world.api.get("nodes", "gpu-node1")
    assert node["metadata"]["labels"]["mine"] == "yes"
    # Its own writes still leave the template as it was.
    before = world_json(template)
    for line in back.answer_key():
        back.run(line)
    assert back.is_complete() and world_json(template) == before


def test_a_lab_saved_before_worlds_were_built_differently_is_refused_not_misapplied(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ticket is the same, but every cluster now starts with one more object (as when
    admin, edit and view were added): the saved changes were made against another template."""
    from simulators.cluster import seed as cluster_seed
    from simulators.lab import world as world_module

    lab = LabSession.new("mig-single", seed=3)
    lab.run("kubectl label node gpu-node1 mine=yes")
    data = json.loads(lab.encode())
    original = cluster_seed.seed_defaults

    def one_more(api: Any, **kwargs: Any) -> None:
        original(api, **kwargs)
        api.create("configmaps", {"metadata": {"name": "new", "namespace": "default"}})

    monkeypatch.setattr(world_module, "seed_defaults", one_more)
    world_module._templates.clear()
    try:
        with pytest.raises(LabError, match="world has changed"):
            LabSession.from_json(data)
    finally:
        world_module._templates.clear()
