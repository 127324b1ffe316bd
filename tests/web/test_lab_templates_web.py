"""A class opening one ticket: every learner's lab is a fork of one of a few template worlds."""

from __future__ import annotations

import json
from typing import Any
from unittest.mock import ANY

import pytest
from django.test import Client

from simulators.lab import world
from studysite.lab import store
from studysite.lab.models import SavedLab
from studysite.lab.store import SEED_VARIANTS, lab_seed, other_seed

pytestmark = pytest.mark.django_db


def test_a_class_of_learners_opening_one_ticket_builds_at_most_a_few_worlds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    world._templates.clear()
    built: list[int] = []
    real_build = world.build_world

    def counted(ticket: str | dict[str, Any], seed: int = 0) -> world.World:
        built.append(seed)
        return real_build(ticket, seed)

    monkeypatch.setattr(world, "build_world", counted)
    seeds = set()
    for _learner in range(24):
        client = Client()
        assert client.get("/lab/mig-single/").status_code == 200
        key = client.session.session_key
        seeds.add(lab_seed(key, "mig-single"))
        client.post("/lab/mig-single/command", {"line": "kubectl get nodes"})
    assert len(built) == len(seeds) <= SEED_VARIANTS
    assert len(seeds) > 1, "learners' worlds still differ (generated names, uids)"


def test_one_learners_command_leaves_the_next_learners_new_lab_as_the_ticket_starts() -> None:
    first, second = Client(), Client()
    first.get("/lab/mig-single/")
    first.post("/lab/mig-single/command", {"line": "kubectl label node gpu-node1 mine=yes"})
    second.get("/lab/mig-single/")
    seed = lab_seed(second.session.session_key, "mig-single")
    opened = store.peek_lab(second.session.session_key, "mig-single")
    fresh = world.build_world("mig-single", seed)
    assert json.dumps(opened.lab.world.to_json()) == json.dumps(fresh.to_json())


def test_a_reset_draws_another_of_the_worlds() -> None:
    for seed in range(SEED_VARIANTS):
        drawn = {other_seed(seed) for _ in range(50)}
        assert seed not in drawn and drawn <= set(range(SEED_VARIANTS))
    assert other_seed(3_000_000_001) in range(SEED_VARIANTS)  # a lab seeded before variants


def test_a_labs_first_command_saves_the_name_of_its_starting_world_and_the_command() -> None:
    client = Client()
    client.get("/lab/mig-single/")
    client.post("/lab/mig-single/command", {"line": "kubectl label node gpu-node1 mine=yes"})
    saved = SavedLab.objects.get(ticket="mig-single")
    assert saved.snapshot.data()["world"] == {
        "template": {"world": ANY, "seed": lab_seed(client.session.session_key, "mig-single")}
    }
    assert len(saved.snapshot.packed) < 1024
    store.kept.clear()  # as another process sees it: from the database
    lab = store.open_lab(client.session.session_key, "mig-single").lab
    assert lab.world.api.get("nodes", "gpu-node1")["metadata"]["labels"]["mine"] == "yes"
    assert "node/gpu-node1 labeled" in lab.transcript[-1].output
