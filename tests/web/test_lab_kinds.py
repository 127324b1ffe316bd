"""What each kind of lab allows, as the store, the socket and the pages ask it."""

from __future__ import annotations

import pytest
from django.test import Client

from simulators.lab import LabSession
from simulators.lab.world import HostWorld, World
from studysite.lab import kinds, store
from studysite.lab.models import LoggedCommand, SavedLab

pytestmark = pytest.mark.django_db


def test_a_ticket_is_replayed_seeded_kept_and_progress_and_explore_is_none_of_these() -> None:
    ticket, explore = kinds.kind_of("mig-single"), kinds.kind_of("explore")
    assert (ticket.replays, ticket.seeded, ticket.kept, ticket.in_progress, ticket.annexed) == (
        True,
        True,
        True,
        True,
        True,
    )
    assert not any(
        (explore.replays, explore.seeded, explore.kept, explore.in_progress, explore.annexed)
    )
    assert explore.real_cluster and not ticket.real_cluster
    assert kinds.outside_progress() == ["explore"]


def test_explore_is_offered_only_in_real_cluster_mode_and_unknown_ids_never(
    client: Client,
) -> None:
    assert kinds.find("explore") is None and not kinds.offered("explore")
    assert kinds.find("no-such-ticket") is None and not kinds.offered("no-such-ticket")
    found = kinds.find("mig-single")
    assert found is not None and found.id == "mig-single"
    assert client.get("/lab/explore/").status_code == 404


def test_a_ticket_lab_logs_its_commands_for_replay_and_a_simulated_world_is_a_world() -> None:
    key = "k" * 32
    opened = store.open_lab(key, "mig-single")
    store.apply(opened, "kubectl get nodes")
    saved = SavedLab.objects.get(session_key=key, ticket="mig-single")
    assert list(LoggedCommand.objects.filter(lab=saved).values_list("line", flat=True)) == [
        "kubectl get nodes"
    ]
    world = LabSession.new("mig-single", seed=1).world
    assert isinstance(world, World) and isinstance(world, HostWorld)
