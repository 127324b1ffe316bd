"""The lab's saved tickets travel in the progress file like every other kind of progress."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from simulators.lab import list_tickets
from simulators.lab.environment import MAX_ELEMENTS
from studysite.lab.models import SavedLab
from studysite.lab.progress import replayed

pytestmark = pytest.mark.django_db


def whole_states(document: dict[str, Any]) -> dict[str, Any]:
    """The document with each lab as a whole state (the form of older files, and of a lab a
    replay could not rebuild) instead of its seed and typed lines."""
    labs = document["parts"]["lab"]
    for index, entry in enumerate(labs):
        if "typed" in entry:
            state = replayed(entry["ticket"], entry).to_json()
            labs[index] = {
                "ticket": entry["ticket"],
                "exam_mode": entry["exam_mode"],
                "state": state,
            }
    return document


def upload(client: Client, document: dict) -> str:
    content = json.dumps(document).encode()
    response = client.post("/progress/import", {"file": SimpleUploadedFile("p.json", content)})
    return response.content.decode()


def test_a_lab_exported_in_one_browser_comes_back_in_another(client: Client) -> None:
    client.post("/lab/mig-single/command", {"line": "kubectl cordon gpu-node2"})
    document = json.loads(client.get("/progress/export").content)
    assert [entry["ticket"] for entry in document["parts"]["lab"]] == ["mig-single"]
    other = Client()
    upload(other, document)
    page = other.get("/lab/mig-single/").content.decode()
    assert "node/gpu-node2 cordoned" in page


def test_a_damaged_lab_in_the_file_is_refused_and_changes_nothing(client: Client) -> None:
    client.post("/lab/mig-single/command", {"line": "kubectl cordon gpu-node2"})
    document = whole_states(json.loads(client.get("/progress/export").content))
    document["parts"]["lab"][0]["state"] = {"world": "nonsense"}
    body = upload(client, document)
    assert "The saved lab for ticket mig-single in that file is damaged." in body
    assert "node/gpu-node2 cordoned" in client.get("/lab/mig-single/").content.decode()


def test_a_lab_whose_shell_holds_an_array_past_the_bounds_is_refused(client: Client) -> None:
    client.post("/lab/mig-single/command", {"line": "nodes=($(kubectl get nodes -o name))"})
    document = whole_states(json.loads(client.get("/progress/export").content))
    arrays = document["parts"]["lab"][0]["state"]["shell"]["arrays"]
    assert arrays["nodes"] == [
        "a",
        {"0": "node/gpu-node1", "1": "node/gpu-node2", "2": "node/gpu-node3"},
    ]
    arrays["nodes"] = ["a", {str(i): "x" for i in range(MAX_ELEMENTS + 1)}]
    body = upload(client, document)
    assert "The saved lab for ticket mig-single in that file is damaged." in body


def test_a_lab_for_an_unknown_ticket_is_refused(client: Client) -> None:
    document = json.loads(client.get("/progress/export").content)
    document["parts"]["lab"] = [{"ticket": "rm-rf", "state": {}}]
    assert "names a ticket this site lacks" in upload(client, document)


def test_the_progress_page_counts_solved_tickets_and_reset_erases_labs(client: Client) -> None:
    client.post("/lab/mig-single/command", {"line": "kubectl get nodes"})
    none = f"0 of {len(list_tickets())} lab tickets solved"
    assert none in client.get("/progress/").content.decode()
    client.post("/progress/reset/erase", {"part": ["lab"]})
    assert not SavedLab.objects.exists()
