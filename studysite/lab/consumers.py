"""The lab terminal's websocket: parse a frame, call the lab, send frames back.

Bound to an existing browser session (the cookie the page set); the origin is
checked exactly in studysite.limits. Limits: frame size, frames per second per
connection and per session, and a short queue of frames waiting for their turn.

`receive` only parses and queues, so the server's own buffer of incoming frames
drains at once; one task per connection then works through the queue in order.
Commands run in a small thread pool (never on the event loop) within their budget
(simulators.lab.budget), those of a session that spends a lot in the annex (a child process,
studysite.lab.annex); each is saved before its output is sent.

Frames in: `{"type": "line", "data": LINE}`, `{"type": "complete", "line": PARTIAL}`,
`{"type": "reset"}`, `{"type": "save", "token": TOKEN, "text": BUFFER, "path": NAME|null}` (an
editor's save, run as the line simulators.lab.editor makes of it). Frames out:
`{"type": "output", "data": TEXT, "checklist": [ITEM...]}` once on connect and after a reset with
`"replay": true` (the transcript's tail), and once per line or save, with `"clear": true` after
`clear`, `"prompt": "> "` while a command is unfinished (a here-document being typed; a line
`"\x03"` (Ctrl+C) drops it), `"editor": {"path", "text", "mode", "token"}` when it opens an
editor, and `"saved": true` and `"ok"` (written or not) for a save, `"stream": true` for a
command that keeps printing (simulators.lab.streams): then
`{"type": "stream", "data": TEXT, "checklist": ...}` as the world steps (`"clear": true` for
watch's new screen; `"open": true` on it and on the first frame when TEXT ends no line, as a
watch's jsonpath template leaves it, so the next goes on on that line) until
`{"type": "stream-end", "data": NOTE}`, which
`{"type": "interrupt"}` (Ctrl+C), the next line, or a stream started in another tab of the lab
brings; `{"type": "completions", "items": [...]}`;
`{"type": "error", "data": MESSAGE}` for a refused frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import json
import logging
import re
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import DatabaseError, connection

from simulators.lab import (
    PROMPT,
    ChecklistItem,
    CommandResult,
    LabSession,
    editor,
    sliced_json,
    streams,
)
from studysite import rates, sessions
from studysite.lab import admission, annex, cooldowns, kinds, store

log = logging.getLogger(__name__)

CLOSE_NO_SESSION = 4401
CLOSE_UNKNOWN_TICKET = 4404
CLOSE_TOO_MANY = 4429
CLOSE_INTERNAL_ERROR = 1011
# A line may be LAB_MAX_LINE_BYTES; its JSON frame (quotes, escapes, the type) may be larger.
FRAME_OVERHEAD = 1024
# Frames accepted but not yet handled, per connection; more is a flood.
MAX_QUEUED_FRAMES = 8
# An editor's save frame (the client writes "type" first) may carry a whole buffer.
SAVE_FRAME = re.compile(r'\{\s*"type"\s*:\s*"save"')
# The replay sends at most this much of the transcript's end.
REPLAY_BYTES = 256 * 1024
OMITTED = "[earlier output omitted]\n"
# Commands of every connection in this process run in these threads. A long command spends
# most of its time asleep (budget.Pace), so a few more threads than cores keep the short ones
# moving beside it; more would only queue on Python's lock.
POOL_SIZE = 6
POOL = ThreadPoolExecutor(max_workers=POOL_SIZE, thread_name_prefix="lab-command")
# A socket's opening work (its session's check, its lab opened and its replay built) runs on
# this thread of its own, not in the pool: sockets arriving together wait for each other (a few
# ms apiece), never for the commands, and the learners already typing never queue for a thread
# behind them. Beside eight newcomers, the quiet learners' slowest replies halved with it
# (docs/performance.md, round 45).
DOOR_SIZE = 1
DOOR = ThreadPoolExecutor(max_workers=DOOR_SIZE, thread_name_prefix="lab-door")


async def in_pool[T](func: Callable[..., T], *args: Any) -> T:
    """Run blocking lab and database work in the command pool.

    Each pool thread keeps its database connection open between commands
    (reconnecting per command cost more than most commands); a database error
    closes it, so the next command starts on a fresh one.
    """
    return await asyncio.get_running_loop().run_in_executor(POOL, _with_connection, func, args)


async def at_door[T](func: Callable[..., T], *args: Any) -> T:
    """Run a socket's opening work on the door's thread (see DOOR), as in_pool runs commands."""
    return await asyncio.get_running_loop().run_in_executor(DOOR, _with_connection, func, args)


async def run_line(opened: store.OpenLab, line: str) -> CommandResult:
    """One line, in this process's command pool or, for a session that spends a lot or a lab's
    first line (or a line that overran its probation here), the annex."""
    loop = asyncio.get_running_loop()
    if annex.serves(opened):
        async with admission.counted(opened, line):
            there = functools.partial(annex.apply, probation=annex.newcomers_probation(opened))
            return await loop.run_in_executor(annex.WAITERS, there, opened, line)
    # Sessions without history take turns in a small lane of the pool (admission).
    async with admission.turn(opened, line) as pace:
        here = functools.partial(store.apply, pace=pace, probation=annex.probation(opened))
        try:
            return await in_pool(here, opened, line)
        except store.Overran:
            pass
    return await loop.run_in_executor(annex.WAITERS, annex.apply, opened, line)


def on_every_pool_thread(action: Callable[[], object]) -> None:
    """Run `action` once in each thread of the pool and the door, after the work each had in
    hand (blocking): both are idle when it returns."""
    for executor, size in ((POOL, POOL_SIZE), (DOOR, DOOR_SIZE)):
        # Each task waits for the others, so every one of the threads takes exactly one.
        everyone = threading.Barrier(size)

        def each(everyone: threading.Barrier = everyone) -> None:
            everyone.wait(timeout=30)
            action()

        for done in [executor.submit(each) for _ in range(size)]:
            done.result()


def close_pool_connections() -> None:
    """Close every pool and door thread's database connection, for a database about to be
    dropped or restarted: PostgreSQL refuses to drop a database that sessions still hold."""
    # Looked up in each thread: `connection` is the thread's own (connection.close, taken here,
    # would be this thread's).
    on_every_pool_thread(lambda: connection.close())


def _with_connection[T](func: Callable[..., T], args: tuple[Any, ...]) -> T:
    try:
        return func(*args)
    except DatabaseError:
        connection.close()
        raise


# One bucket of frames per browser session, shared by its tabs in this process.
_session_limiters = rates.Buckets(lambda: settings.LAB_MAX_FRAMES_PER_SECOND)
# After a flood the session's new sockets are refused this long, on every worker (cooldowns).
FLOOD_COOLDOWN_SECONDS = 5.0
_flooded = cooldowns.Cooldowns()


def cooling_down(key: str) -> bool:
    return _flooded.active(key)


def cool_down(key: str) -> None:
    _flooded.start(key, FLOOD_COOLDOWN_SECONDS)


def session_limiter(key: str) -> rates.TokenBucket:
    return _session_limiters.get(key)


def replay_tail(text: str, limit: int = REPLAY_BYTES) -> str:
    """The end of the transcript, cut at a line, with a line saying what was left out."""
    if len(text) * 4 <= limit:
        return text
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text
    tail = data[-limit:].decode("utf-8", "ignore")
    newline = tail.find("\n")
    return OMITTED + (tail[newline + 1 :] if newline >= 0 else tail)


def output_frame(
    output: str, checklist: list[ChecklistItem], prompt: str = PROMPT, **flags: bool
) -> dict[str, Any]:
    """Output and the checklist after it, in one frame: one send per command, not two.
    `prompt` is sent when it is not the usual one: bash's `> ` while a command is unfinished."""
    items = [item.to_dict() for item in checklist]
    extra = {"prompt": prompt} if prompt != PROMPT else {}
    return {"type": "output", "data": output, **flags, **extra, "checklist": items}


def result_frame(result: CommandResult, **flags: bool) -> dict[str, Any]:
    """A line's or a save's output frame, with the editor it opens if any."""
    frame = output_frame(result.output, result.checklist, result.prompt, **flags)
    if result.clear:
        frame["clear"] = True
    if result.editor is not None:
        frame["editor"] = result.editor.to_dict()
    return frame


def completions(opened: store.OpenLab, line: str) -> list[str]:
    """Tab's candidates, read under the lab's lock: the lab may be resting (studysite.lab.kept)
    or running another tab's command."""
    store.catch_up(opened)
    with store.reading(opened) as lab:
        return lab.complete(line)


def frame_text(frame: dict[str, Any]) -> str:
    """A frame's JSON; one with a long output in pieces (sliced_json), so the interpreter's
    lock changes hands between them. A short one in one call: slicing costs about 20 us more."""
    if len(frame.get("data") or "") > sliced_json.STRING_SLICE:
        return sliced_json.dumps(frame)
    return json.dumps(frame)


def replay_frame(lab: LabSession) -> dict[str, Any]:
    return output_frame(replay_tail(lab.replay()), lab.checklist(), lab.prompt, replay=True)


def is_text(value: object) -> bool:
    """A str that encodes as UTF-8 (a lone surrogate from JSON's \\ud800 does not)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def session_exists(session: Any) -> bool:
    """The cookie names one a page load minted, whose row its first command writes
    (studysite.sessions: known by its tag, without a query), or a live, non-empty session (an
    invented or expired key loads empty)."""
    return sessions.is_minted(session.session_key) or bool(session.keys())


def open_terminal(session_key: str, ticket: str) -> tuple[store.OpenLab, str]:
    """The lab and its replay frame as text, built in the pool rather than on the event loop.
    A lab never typed in is not saved yet (store.peek_lab): its first line saves it."""
    opened = store.peek_lab(session_key, ticket)
    with store.reading(opened) as lab:
        return opened, frame_text(replay_frame(lab))


# The open stream of each lab in this process, by its saved id: one at a time, so a learner
# with ten watches open in ten tabs costs one stream's steps (the newest; the others end).
_streams: dict[int, LabConsumer] = {}


class LabConsumer(AsyncWebsocketConsumer):
    # `accepting` turns off at a flood or disconnect: later frames are dropped unread.
    # `closed` stops sends once the socket is gone.
    accepting = False
    closed = False
    worker: asyncio.Task[None] | None = None
    streaming: asyncio.Task[None] | None = None
    # Lab work taken in hand (commands, streams' steps, folds, opens): it runs to its end even
    # when the socket closes meanwhile, and disconnect waits for it.
    in_hand: set[asyncio.Future[Any]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.in_hand = set()

    async def connect(self) -> None:
        self.ticket = self.scope["url_route"]["kwargs"]["ticket"]
        session = self.scope.get("session")
        if not kinds.offered(self.ticket):
            await self.close(code=CLOSE_UNKNOWN_TICKET)
            return
        if session is None or not session.session_key:
            await self.close(code=CLOSE_NO_SESSION)
            return
        if cooling_down(session.session_key):
            await self.close(code=CLOSE_TOO_MANY)
            return
        if not await at_door(session_exists, session):
            await self.close(code=CLOSE_NO_SESSION)
            return
        await self.begin(session.session_key)

    async def begin(self, session_key: str) -> None:
        """Accept a connection checked by `connect` and start its worker."""
        self.session_key = session_key
        self.limiter = rates.TokenBucket(settings.LAB_MAX_FRAMES_PER_SECOND)
        self.shared_limiter = session_limiter(self.session_key)
        # A frame to handle, an error to send in its turn, or None: stop.
        self.queue: asyncio.Queue[dict[str, Any] | str | None] = asyncio.Queue(
            MAX_QUEUED_FRAMES + 1
        )
        # Accepted before the lab is opened: servers refuse a handshake left waiting (daphne after
        # 5 s), so a class connecting at once gets in at once and its labs open in turn; a frame
        # typed meanwhile waits in the queue.
        await self.accept()
        self.accepting = True
        annex.warm()
        self.worker = asyncio.create_task(self.work())

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its per-message hop to the shared sync thread.

        Channels runs close_old_connections in asgiref's one sync thread before every message,
        for handlers that use the database from that thread. This consumer's database work runs
        in its own pool (in_pool), whose connections that hop never sees; with hundreds of
        learners typing, every frame queued behind that one thread for nothing.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code: int) -> None:
        self.accepting = False
        self.closed = True
        await self.stop_stream()
        if self.worker is not None:
            # A command already in the pool still finishes and is saved; queued ones are dropped.
            self.worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.worker
        # Saved before the connection's end: a server shutting down, or a test's database
        # flushed after it, never meets a command still writing.
        await self.settled()
        # Let go of the lab: once idle, no holder left, it is kept shelved (kept.closed).
        opened = self.__dict__.pop("opened", None)
        store.kept.closed(opened.saved_id if isinstance(opened, store.OpenLab) else 0)

    async def settled(self) -> None:
        """Wait for the work in hand (see finishing) to end."""
        if self.in_hand:
            await asyncio.wait(list(self.in_hand))

    async def finishing[T](self, work: Awaitable[T]) -> T:
        """Await lab work that is not abandoned when this socket closes: cancelling the caller
        (a disconnect, Ctrl+C) stops the waiting, never the work, and disconnect waits for it."""
        task = asyncio.ensure_future(work)
        self.in_hand.add(task)
        task.add_done_callback(self.in_hand.discard)
        return await asyncio.shield(task)

    async def flood(self) -> None:
        """Drop what is queued, answer the command in hand, then close with 4429."""
        self.accepting = False
        cool_down(self.session_key)
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)
        if self.worker is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.worker
        self.closed = True
        await self.close(code=CLOSE_TOO_MANY)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.accepting:
            return  # frames that arrive after a flood's close are dropped, never run
        if not self.limiter.allow() or not self.shared_limiter.allow():
            await self.flood()
            return
        if self.queue.qsize() >= MAX_QUEUED_FRAMES:
            await self.flood()
            return
        self.queue.put_nowait(self.parse(text_data))

    @staticmethod
    def parse(text_data: str | None) -> dict[str, Any] | str:
        """The frame as a dict, or the error to answer it with."""
        limit = settings.LAB_MAX_LINE_BYTES + FRAME_OVERHEAD
        if text_data is not None and SAVE_FRAME.match(text_data):
            limit = editor.MAX_SAVE_LINE_BYTES + FRAME_OVERHEAD  # it carries an editor's buffer
        if text_data is None or len(text_data) > limit:
            return f"frame refused: send JSON text of at most {limit} bytes"
        try:
            frame = json.loads(text_data)
        except (ValueError, RecursionError):
            frame = None
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            return "frame refused: not a JSON object with a type"
        if not all(is_text(value) for value in frame.values() if isinstance(value, str)):
            return "frame refused: the text is not valid UTF-8 (a lone surrogate)"
        return frame

    async def work(self) -> None:
        try:
            self.opened, replay = await self.open_terminal()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("lab open failed")
            await self.send_error("lab: internal error; reload the page to try again")
            self.accepting, self.closed = False, True
            await self.close(code=CLOSE_INTERNAL_ERROR)
            return
        if not self.closed:
            await self.send(text_data=replay)
        while (frame := await self.queue.get()) is not None:
            if isinstance(frame, str):
                await self.send_error(frame)
                continue
            try:
                await self.dispatch_frame(frame)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("lab frame failed")
                await self.send_error("lab: internal error; the frame was ignored")

    async def open_terminal(self) -> tuple[store.OpenLab, str]:
        """The lab this socket drives, and its replay frame (the session's lab of the ticket)."""
        return await self.finishing(at_door(open_terminal, self.session_key, self.ticket))

    async def dispatch_frame(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        if kind == "line" and isinstance(frame.get("data"), str):
            await self.stop_stream()  # the next command ends this terminal's stream
            # Saved (committed) before its output goes out, here or in the annex.
            result = await self.finishing(run_line(self.opened, frame["data"]))
            if result.stream is not None:
                await self.start_stream(result)
            else:
                await self.send_json(result_frame(result))
            if store.fold_due(self.opened):
                await self.fold()
        elif kind == "interrupt":
            await self.stop_stream()
        elif kind == "save" and all(isinstance(frame.get(k), str) for k in ("token", "text")):
            path = frame.get("path") if isinstance(frame.get("path"), str) else None
            line = editor.save_line(frame["token"], frame["text"], path)
            result = await self.finishing(run_line(self.opened, line))
            await self.send_json(result_frame(result, saved=True, ok=result.exit_code == 0))
            if store.fold_due(self.opened):
                await self.fold()
        elif kind == "complete" and isinstance(frame.get("line"), str):
            opened = self.opened
            items = [] if opened.exam_mode else await in_pool(completions, opened, frame["line"])
            await self.send_json({"type": "completions", "items": items})
        elif kind == "reset":
            self.opened = await self.finishing(
                in_pool(store.reset_lab, self.session_key, self.ticket)
            )
            await self.send_json(replay_frame(self.opened.lab))
        else:
            await self.send_error(f"frame refused: unknown or incomplete frame {kind[:40]!r}")

    async def start_stream(self, result: CommandResult) -> None:
        """Answer a streaming command with its first snapshot, then keep it going."""
        request = result.stream
        assert request is not None
        stream = streams.Stream(request)
        first = stream.first(result.output)
        frame = result_frame(dataclasses.replace(result, output=first), stream=True)
        await self.send_json({**frame, "open": True} if first and result.open_line else frame)
        other = _streams.get(self.opened.saved_id)
        if other is not None and other is not self:
            await other.stop_stream("(stopped: a stream started in another tab of this lab)")
        _streams[self.opened.saved_id] = self
        self.streaming = asyncio.create_task(self.keep_streaming(stream))

    async def keep_streaming(self, stream: streams.Stream) -> None:
        """A step every interval: the world moves (kept as a line), and what changed is sent.

        Each step is one command's cost against the session's share (store.apply), so a stream
        costs what one command a second does; a share spent ends it with the shell's message.
        """
        request = stream.request
        loop = asyncio.get_running_loop()
        deadline = loop.time() + request.seconds
        note = stream.expired()
        try:
            while loop.time() < deadline:
                await asyncio.sleep(request.interval)
                result = await self.finishing(run_line(self.opened, streams.step_line(request)))
                if result.output in (store.SLOW_DOWN, store.BUSY):
                    note = result.output
                    break
                text, ended = stream.feed(result.output, result.exit_code)
                # A watch goes on from where this step left it (its resourceVersion).
                request = stream.request = result.stream or request
                if text or result.changed or request.kind == streams.SCREEN:
                    clear = {"clear": True} if request.kind == streams.SCREEN else {}
                    frame = output_frame(text, result.checklist, PROMPT, **clear)
                    if text and result.open_line and request.kind == streams.ROWS:
                        frame["open"] = True  # kubectl's template ended no line
                    await self.send_json({**frame, "type": "stream"})
                if store.fold_due(self.opened):
                    await self.fold()
                if ended:
                    note = ""
                    break
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("lab stream failed")
            note = "lab: internal error; the stream stopped"
        self.streaming = None
        if _streams.get(self.opened.saved_id) is self:
            del _streams[self.opened.saved_id]
        await self.send_json({"type": "stream-end", "data": note})

    async def stop_stream(self, note: str = "") -> None:
        """End this terminal's stream, if any (Ctrl+C, the next command, another tab's stream)."""
        task, self.streaming = self.streaming, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await self.settled()  # a step in hand lands before what follows
        if _streams.get(self.opened.saved_id) is self:
            del _streams[self.opened.saved_id]
        await self.send_json({"type": "stream-end", "data": note})

    async def fold(self) -> None:
        """The lab's fold, after the answer (store.fold). The command is saved already: a fold
        that fails is logged, not shown, and the next command's fold takes it up again."""
        try:
            await self.finishing(in_pool(store.fold, self.opened))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("lab fold failed")

    async def send_error(self, message: str) -> None:
        await self.send_json({"type": "error", "data": message})

    async def send_json(self, content: dict[str, Any]) -> None:
        if not self.closed:
            await self.send(text_data=frame_text(content))


class NoRouteConsumer(AsyncWebsocketConsumer):
    """Any websocket path without a route: refused at the handshake, like an HTTP 404."""

    async def connect(self) -> None:
        await self.close(code=CLOSE_UNKNOWN_TICKET)


class EchoConsumer(AsyncWebsocketConsumer):
    """A bare echo, routed only when LAB_BENCH_ECHO is on: the benchmark's baseline."""

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.send(text_data=text_data)
