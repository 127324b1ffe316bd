"""The lab exam's websocket: the task's own lab, no checklist in its frames, one clock."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from studysite.asgi import application
from studysite.lab import annex, exam, store
from studysite.lab.models import ExamAttempt, SavedLab
from tests.web.test_lab_annex import FakeAnnex
from tests.web.test_lab_consumer import new_session_key

pytestmark = [pytest.mark.django_db(transaction=True)]

ORIGIN = (b"origin", b"http://127.0.0.1:8000")


def communicator(path: str, key: str) -> WebsocketCommunicator:
    headers = [ORIGIN, (b"host", b"127.0.0.1:8000"), (b"cookie", f"sessionid={key}".encode())]
    return WebsocketCommunicator(application, path, headers=headers)


async def receive(comm: WebsocketCommunicator) -> dict[str, Any]:
    return json.loads(await comm.receive_from(timeout=5))


async def send_line(comm: WebsocketCommunicator, line: str) -> dict[str, Any]:
    await comm.send_to(text_data=json.dumps({"type": "line", "data": line}))
    return await receive(comm)


async def test_a_task_socket_drives_the_tasks_own_lab_and_never_shows_the_checks() -> None:
    key = await new_session_key()
    attempt = await database_sync_to_async(exam.start)(key, 60)
    task = await database_sync_to_async(lambda: attempt.tasks.get(position=2))()
    comm = communicator(f"/ws/lab/exam/{attempt.pk}/2/", key)
    connected, _ = await comm.connect(timeout=5)
    assert connected
    replay = await receive(comm)
    assert replay["replay"] is True and replay["checklist"] == []
    output = await send_line(comm, "hint")
    assert output["data"] == "hint: hints are off in exam mode"
    assert output["checklist"] == [] and "changed" not in output
    await comm.send_to(text_data=json.dumps({"type": "complete", "line": "kubectl ge"}))
    assert (await receive(comm))["items"] == []
    await comm.send_to(text_data=json.dumps({"type": "reset"}))
    assert (await receive(comm))["data"] == "frame refused: an exam task cannot be reset"

    def saved() -> tuple[list[str], bool]:
        lab = store.open_lab(exam.lab_key(attempt, 2), task.ticket).lab
        practice = SavedLab.objects.filter(session_key=key).exists()
        return [entry.line for entry in lab.transcript], practice

    lines, practice = await database_sync_to_async(saved)()
    assert lines == ["hint"] and not practice
    await database_sync_to_async(ExamAttempt.objects.filter(pk=attempt.pk).update)(
        deadline=timezone.now() - exam.GRACE - timedelta(seconds=1)
    )
    late = await send_line(comm, "kubectl get nodes")
    assert late["data"] == exam.TIME_UP
    assert (await database_sync_to_async(saved)())[0] == ["hint"]
    await comm.disconnect()


async def test_another_sessions_socket_is_refused() -> None:
    key, stranger = await new_session_key(), await new_session_key()
    attempt = await database_sync_to_async(exam.start)(key, 60)
    comm = communicator(f"/ws/lab/exam/{attempt.pk}/1/", stranger)
    connected, code = await comm.connect(timeout=5)
    assert not connected and code == 4404


async def test_a_heavy_sessions_exam_command_runs_here_and_the_task_notes_its_time(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.LAB_ANNEX = True
    fake = FakeAnnex(annex.AnnexError("an exam task's command never goes to the annex"))
    monkeypatch.setattr(annex, "_annex", fake)
    key = await new_session_key()
    attempt = await database_sync_to_async(exam.start)(key, 60)
    # The exam's labs spend the learner's own share: past it, practice labs go to the annex.
    store.cpu_share.allows(key, time.monotonic())
    store.cpu_share.charge(key, store.HEAVY_SECONDS + 0.1)
    comm = communicator(f"/ws/lab/exam/{attempt.pk}/1/", key)
    connected, _ = await comm.connect(timeout=5)
    assert connected
    await receive(comm)
    output = await send_line(comm, "kubectl get nodes")
    assert "gpu-node" in output["data"]
    assert fake.sent == []
    # The socket notes the command's time after it answers; its next frame's answer comes after.
    await comm.send_to(text_data=json.dumps({"type": "complete", "line": "kubectl ge"}))
    assert (await receive(comm))["items"] == []
    task = await database_sync_to_async(lambda: attempt.tasks.get(position=1))()
    assert task.first_command is not None and task.last_command is not None
    await comm.disconnect()
