"""A lab saved before the cluster became an API opens afresh instead of failing."""

from __future__ import annotations

import pytest
from django.test import Client

from studysite.lab.models import LabSnapshot, SavedLab

pytestmark = pytest.mark.django_db


def test_a_lab_saved_by_the_old_model_is_reset_not_a_server_error(client: Client) -> None:
    client.get("/lab/mig-single/")
    saved = SavedLab.objects.get(ticket="mig-single")
    LabSnapshot.objects.filter(lab=saved).update(
        state={"version": 1, "ticket_id": "mig-single", "seed": 3, "world": {"step": 4}}
    )
    saved.save()  # as its writer did, which moves the row's stamp
    response = client.get("/lab/mig-single/")
    assert response.status_code == 200
    assert "0 of 4 done" in response.content.decode()
    assert LabSnapshot.objects.get(lab=saved).state["version"] == 2


def test_a_lab_whose_snapshot_is_lost_starts_afresh_not_a_server_error(client: Client) -> None:
    client.get("/lab/mig-single/")
    client.post("/lab/mig-single/command", {"line": "kubectl label node gpu-node1 lost=yes"})
    saved = SavedLab.objects.get(ticket="mig-single")
    LabSnapshot.objects.filter(lab=saved).delete()
    saved.save()  # as another process's writer would, so no kept copy is trusted
    response = client.get("/lab/mig-single/")
    assert response.status_code == 200
    assert "lost=yes" not in response.content.decode()
    assert LabSnapshot.objects.get(lab=saved).state["transcript"] == []
