"""`python -m simulators apiserver`: which world it serves and how it steps."""

from __future__ import annotations

from typing import Any

import pytest

from simulators.__main__ import main
from simulators.controllers import manager
from simulators.lab.apiserver import build_world


def test_the_sample_world_needs_nothing_from_the_lab() -> None:
    world = build_world("sample", 0)
    assert [n["metadata"]["name"] for n in world.api.list("nodes")["items"]] == [
        "gpu-node1", "gpu-node2", "gpu-node3",
    ]  # fmt: skip
    before = world.api.now()
    world.advance()
    assert (world.api.now() - before).total_seconds() == 10


def test_a_ticket_world_has_its_checklist_and_files() -> None:
    world = build_world("mig-mixed", 0)
    assert [item["id"] for item in world.checklist(world.api)] == [
        "layout-applied", "strategy-mixed", "triton-on-slice",
    ]  # fmt: skip
    assert "triton.yaml" in world.files


def test_an_external_scheduler_leaves_the_engine_out_of_every_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    world = build_world("mig-single", 0, scheduler="external")
    internal = build_world("mig-single", 0)
    ran: list[str] = []

    def recorder(name: str) -> Any:
        return lambda api: ran.append(name)

    monkeypatch.setattr(
        manager,
        "CONTROLLERS",
        tuple((name, recorder(name)) for name, _ in manager.CONTROLLERS),
    )
    world.advance()
    external = list(ran)
    ran.clear()
    internal.advance()
    assert "runai-scheduler" in ran and "node-lease" in ran
    # The same step as the lab's (its skipping of quiet controllers too), but the engine.
    assert external == [name for name in ran if name != "runai-scheduler"]


def test_an_unknown_ticket_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["apiserver", "--ticket", "no-such-ticket", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot serve ticket 'no-such-ticket':")
    assert len(err.strip().splitlines()) == 1
