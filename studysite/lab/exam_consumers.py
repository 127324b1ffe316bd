"""The lab exam's websocket: the lab terminal's (consumers.LabConsumer) on a task's own lab.

Bound to the browser session that owns the attempt. A line or an editor's save is run only
while the attempt accepts commands (exam.accepts: not finished, before the deadline plus its
grace); a reset is refused (a task's world is the one drawn for it). Frames carry no checklist:
the checks' state is shown in the report, at the end.
"""

from __future__ import annotations

import json
from typing import Any

from simulators.lab import PROMPT
from studysite.lab import exam, store
from studysite.lab.consumers import (
    CLOSE_NO_SESSION,
    CLOSE_TOO_MANY,
    CLOSE_UNKNOWN_TICKET,
    LabConsumer,
    at_door,
    cooling_down,
    in_pool,
    output_frame,
    replay_frame,
    session_exists,
)
from studysite.lab.models import ExamAttempt, ExamTask


def find_task(session_key: str, attempt_id: int, position: int) -> tuple[ExamAttempt, ExamTask]:
    """The session's unfinished attempt and its task (ExamTask.DoesNotExist if none)."""
    task = ExamTask.objects.select_related("attempt").get(
        attempt_id=attempt_id,
        attempt__session_key=session_key,
        attempt__finished__isnull=True,
        position=position,
    )
    return task.attempt, task


def current(attempt_id: int) -> ExamAttempt:
    return ExamAttempt.objects.get(pk=attempt_id)


def open_task(key: str, ticket: str) -> tuple[store.OpenLab, str]:
    opened = store.open_lab(key, ticket)
    with store.reading(opened) as lab:
        return opened, json.dumps(hidden(replay_frame(lab)))


def hidden(frame: dict[str, Any]) -> dict[str, Any]:
    """The frame without the checks' state."""
    if "checklist" in frame:
        frame = {**frame, "checklist": []}
    frame.pop("changed", None)
    return frame


class ExamConsumer(LabConsumer):
    async def connect(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        session = self.scope.get("session")
        if session is None or not session.session_key:
            await self.close(code=CLOSE_NO_SESSION)
            return
        if cooling_down(session.session_key):
            await self.close(code=CLOSE_TOO_MANY)
            return
        if not await at_door(session_exists, session):
            await self.close(code=CLOSE_NO_SESSION)
            return
        try:
            self.attempt, self.task = await at_door(
                find_task, session.session_key, kwargs["attempt"], kwargs["position"]
            )
        except ExamTask.DoesNotExist:
            await self.close(code=CLOSE_UNKNOWN_TICKET)
            return
        self.ticket = self.task.ticket
        await self.begin(session.session_key)

    async def open_terminal(self) -> tuple[store.OpenLab, str]:
        """The task's own lab, never the session's practice lab of the ticket."""
        key = exam.lab_key(self.attempt, self.task.position)
        return await at_door(open_task, key, self.ticket)

    async def dispatch_frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "reset":
            await self.send_error("frame refused: an exam task cannot be reset")
            return
        if kind in ("line", "save"):
            attempt = await in_pool(current, self.attempt.pk)
            if not exam.accepts(attempt):
                await self.send_json(output_frame(exam.TIME_UP, [], PROMPT))
                return
            version = self.opened.version
            await super().dispatch_frame(frame)
            if self.opened.version != version:
                await in_pool(exam.commanded, self.task)
            return
        await super().dispatch_frame(frame)

    async def send_json(self, content: dict[str, Any]) -> None:
        await super().send_json(hidden(content))
