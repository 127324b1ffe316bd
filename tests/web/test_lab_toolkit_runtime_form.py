"""toolkit-runtime solved through the form fallback (no JavaScript, no websocket)."""

from __future__ import annotations

import pytest
from django.test import Client

from simulators.lab import load_ticket

pytestmark = pytest.mark.django_db

PAGE = "/lab/toolkit-runtime/"


def test_the_toolkit_ticket_is_solved_through_the_form(client: Client) -> None:
    body = client.get(PAGE).content.decode()
    assert "2 of 4 done" in body and "gpu-smoke.yaml" in body
    for line in load_ticket("toolkit-runtime").answer_key:
        response = client.post(PAGE + "command", {"line": line})
        assert response.status_code == 302
    body = client.get(PAGE).content.decode()
    assert "no runtime for &quot;nvidia&quot; is configured" in body
    assert "clusterpolicy.nvidia.com/cluster-policy patched" in body
    assert "NVIDIA-SMI 550.127.08" in body
    assert "4 of 4 done" in body
    assert "data-solved-panel hidden" not in body
