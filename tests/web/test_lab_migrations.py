"""Upgrading the site keeps every learner's saved lab."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from simulators.lab import LabSession
from studysite.lab import store
from studysite.lab.models import SavedLab

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("lab", "0002_single_writer")]


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor


def test_a_lab_saved_before_snapshots_had_their_own_table_comes_back_whole() -> None:
    lab = LabSession.new("mig-single", seed=11)
    lab.run("kubectl cordon gpu-node2")
    old_apps = _migrate(BEFORE).loader.project_state(BEFORE).apps
    old_saved = old_apps.get_model("lab", "SavedLab").objects.create(
        session_key="k" * 32, ticket="mig-single", state=lab.to_json(), next_position=1
    )
    old_apps.get_model("lab", "LoggedCommand").objects.create(
        lab=old_saved, position=1, line="kubectl get nodes", hints=True
    )
    try:
        _migrate(_latest())
        restored, logged = store.restore(SavedLab.objects.get(pk=old_saved.pk))
        assert [entry.line for entry in restored.transcript] == [
            "kubectl cordon gpu-node2",
            "kubectl get nodes",
        ]
        assert logged == 1
        assert "SchedulingDisabled" in restored.transcript[-1].output
    finally:
        _migrate(_latest())


def test_going_back_two_migrations_puts_the_snapshot_back_in_its_row_unpacked() -> None:
    lab = LabSession.new("mig-single", seed=12)
    lab.run("kubectl cordon gpu-node1")
    saved = store.create("s" * 32, "mig-single", lab)
    try:
        old_apps = _migrate(BEFORE).loader.project_state(BEFORE).apps
        state = old_apps.get_model("lab", "SavedLab").objects.get(pk=saved.pk).state
        assert state["transcript"][0]["line"] == "kubectl cordon gpu-node1"
    finally:
        _migrate(_latest())


def _latest() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()
