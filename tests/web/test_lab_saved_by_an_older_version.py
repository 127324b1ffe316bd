"""A lab saved before the cluster became an API opens afresh instead of failing."""

from __future__ import annotations

import pytest
from django.test import Client

from studysite.lab import saved as lab_saved
from studysite.lab.models import LabSnapshot, SavedLab

pytestmark = pytest.mark.django_db


def test_a_lab_saved_by_the_old_model_is_reset_not_a_server_error(client: Client) -> None:
    client.get("/lab/mig-single/")
    client.post("/lab/mig-single/command", {"line": "kubectl get nodes"})
    saved = SavedLab.objects.get(ticket="mig-single")
    LabSnapshot.objects.filter(lab=saved).update(
        state={"version": 1, "ticket_id": "mig-single", "seed": 3, "world": {"step": 4}},
        packed=None,
    )
    saved.save()  # as its writer did, which moves the row's stamp
    response = client.get("/lab/mig-single/")
    assert response.status_code == 200
    assert "0 of 4 done" in response.content.decode()
    assert LabSnapshot.objects.get(lab=saved).data()["version"] == 2


def test_a_lab_whose_snapshot_is_lost_starts_afresh_not_a_server_error_and_the_log_says_so(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    client.get("/lab/mig-single/")
    client.post("/lab/mig-single/command", {"line": "kubectl label node gpu-node1 lost=yes"})
    saved = SavedLab.objects.get(ticket="mig-single")
    LabSnapshot.objects.filter(lab=saved).delete()
    saved.save()  # as another process's writer would, so no kept copy is trusted
    response = client.get("/lab/mig-single/")
    assert response.status_code == 200
    assert "lost=yes" not in response.content.decode()
    assert LabSnapshot.objects.get(lab=saved).data()["transcript"] == []
    assert f"saved lab {saved.pk} could not be restored, started afresh" in caplog.text


def test_a_lab_saved_as_plain_json_opens_as_it_was_and_is_packed_at_its_next_fold(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    client.get("/lab/mig-single/")
    client.post("/lab/mig-single/command", {"line": "kubectl label node gpu-node1 kept=yes"})
    saved = SavedLab.objects.get(ticket="mig-single")
    snapshot = LabSnapshot.objects.get(lab=saved)
    # As the site saved snapshots before it packed them.
    LabSnapshot.objects.filter(lab=saved).update(state=snapshot.data(), packed=None)
    saved.save()  # so no copy kept in memory is trusted
    page = client.get("/lab/mig-single/").content.decode()
    assert "kept=yes" in page
    monkeypatch.setattr(lab_saved, "SNAPSHOT_EVERY", 1)  # the next command folds
    client.post("/lab/mig-single/command", {"line": "kubectl get nodes --show-labels"})
    snapshot = LabSnapshot.objects.get(lab=saved)
    assert snapshot.state is None
    assert [entry["line"] for entry in snapshot.data()["transcript"]] == [
        "kubectl label node gpu-node1 kept=yes",
        "kubectl get nodes --show-labels",
    ]
    assert "kept=yes" in snapshot.data()["transcript"][-1]["output"]
