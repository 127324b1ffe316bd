"""The lab's public API: one learner's terminal session on one ticket.

    session = LabSession.new("mig-single", seed=7)
    result = session.run("kubectl get nodes")      # CommandResult
    session.complete("kubectl get no")             # ["nodes"]
    data = session.to_json()                       # JSON-safe dict for the database
    same = LabSession.from_json(data)              # exact round trip

Output uses "\\n"; the websocket consumer turns it into "\\r\\n" for xterm.js.
`run` and `complete` never raise for any input line: mistakes get the real
tool's message. Bad input to the API itself (unknown ticket, broken saved
state) raises LabError.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulators.cluster.store import MockCluster
from simulators.lab import budget, checks, editor, resting, streams
from simulators.lab.builtins import CLEAR_SCREEN
from simulators.lab.editor import EditorRequest
from simulators.lab.environment import MAX_PENDING_BYTES, MAX_PENDING_LINES
from simulators.lab.errors import LabError
from simulators.lab.explore import EXPLORE, ClusterWorld
from simulators.lab.kubectl import edit as kubectl_edit
from simulators.lab.results import ChecklistItem, CommandResult, TranscriptEntry, fold_small
from simulators.lab.session_builtins import MAX_HISTORY as MAX_HISTORY
from simulators.lab.session_builtins import SESSION_BUILTINS
from simulators.lab.session_state import STATE_VERSION, SessionState
from simulators.lab.shell import CONTINUATION, MAX_LINE_BYTES, Shell, prompt_in
from simulators.lab.shell_grammar import needs_more
from simulators.lab.tickets import Ticket, load_ticket
from simulators.lab.tool import Context, Output
from simulators.lab.typed import Typed
from simulators.lab.world import (
    HostState,
    HostWorld,
    World,
    from_template,
    new_world,
    share_with_template,
    template_world,
)

if TYPE_CHECKING:
    from simulators.cluster.api import ClusterAPI

log = logging.getLogger(__name__)

JSON = Any
OLD_VERSION_MESSAGE = "This lab was saved by an older version and has been reset"
MAX_TRANSCRIPT = 300
MAX_STORED_OUTPUT = 32 * 1024
# All the output the transcript keeps, newest first: more than the terminal ever replays (256 KiB),
# so a session of large outputs stays cheap to save, open and send, while a long one of small
# outputs still keeps its MAX_TRANSCRIPT commands.
MAX_TRANSCRIPT_OUTPUT = 512 * 1024
INTERNAL_ERROR = "lab: internal error; the command was ignored (please report it)"
# The terminal's Ctrl+C, sent as a line: drops a command still being typed (after `> `).
INTERRUPT = "\x03"


# zlib's default level for a shelved lab (LabSession.shelve): a fifth smaller than the fastest
# level, for 0.2 ms more on a lab of 20 commands, paid once by the resting thread.
SHELVED_LEVEL = 6


class LabSession:
    """A ticket's world, its terminal transcript and checklist."""

    def __init__(self, state: SessionState, ticket: Ticket) -> None:
        self._state = state
        self._ticket = ticket
        self._world = state.world
        # The world at rest (rest): then _world and state.world are its host's stand-in.
        self._rested: resting.Rested | None = None
        self._hints_allowed = True
        # The editor the last line opened, while the page may still show it (kept in memory:
        # replaying the log sets it again, a snapshot has none).
        self.editor: EditorRequest | None = None
        if isinstance(self._world.api, MockCluster):
            # The terminal's tools read and write; nothing watches this store.
            self._world.api.keep_watch_history(0)
        if not state.done:
            state.done = {item.id: item.done for item in self._evaluate()}
        fold_small(state.transcript)

    # -- construction and persistence -------------------------------------------------
    @classmethod
    def new(cls, ticket_id: str, seed: int = 0, content_dir: Path | None = None) -> LabSession:
        """A fresh session; raises UnknownTicketError for an unknown ticket id."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise LabError("seed: must be an integer")
        ticket = load_ticket(ticket_id, content_dir)
        # A fork of the ticket's template world (built once per process and seed): a few ms.
        world = new_world(ticket.world, seed)
        state = SessionState(ticket_id=ticket.id, seed=seed, world=world, typed=Typed([]))
        return cls(state, ticket)

    @staticmethod
    def prepare(ticket_id: str, seed: int = 0, content_dir: Path | None = None) -> None:
        """Build now the template world that ``new`` forks for this ticket and seed (once per
        process; nothing if it is built): its cost is the process's, never a learner's command."""
        template_world(load_ticket(ticket_id, content_dir).world, seed)

    @classmethod
    def on_cluster(cls, api: ClusterAPI, data: JSON = None) -> LabSession:
        """Free exploration of a real cluster (real-cluster mode): the tools run on ``api``.

        Nothing is staged and nothing is simulated (the cluster's own controllers act); only
        the kadmin host is kept, so ``data`` (a saved ``to_json()``) restores the transcript,
        history and home folder, never the cluster.
        """
        host = HostState(seed=0)
        state = SessionState(ticket_id=EXPLORE.id, seed=0, world=ClusterWorld(api, host))
        if isinstance(data, dict) and isinstance(data.get("world"), dict):
            try:
                saved = SessionState.from_json({**data, "world": {}}, world=state.world)
                saved.world.state = HostState.from_json(data["world"].get("host"))
                state = saved
            except (LabError, TypeError, ValueError, KeyError, AttributeError):
                pass  # a damaged save: start afresh, the cluster is unchanged anyway
        return cls(state, EXPLORE)

    def to_json(self) -> dict[str, Any]:
        """Everything (world, transcript, step, hints shown) as JSON-safe values."""
        self._awake()
        return self._state.to_json()

    def encode(self) -> str:
        """to_json's data as JSON text (a lab's snapshot, several times a minute for every
        learner), made without copying the world first (see SessionState.encode)."""
        world = self._awake()
        try:
            return self._state.encode()
        finally:
            world.pack_idle()

    @classmethod
    def from_json(
        cls, data: JSON, content_dir: Path | None = None, *, trusted: bool = True
    ) -> LabSession:
        """Restore a session saved with to_json (a dict, or its JSON text).

        Untrusted data (a file a learner imports) restores everything but the controllers'
        quiet runs, which only vouch for a cluster this site saved itself.
        """
        if isinstance(data, str | bytes):
            try:
                data = json.loads(data)
            except ValueError as exc:
                raise LabError(f"saved lab state is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise LabError("saved lab state has an unknown format")
        version = data.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version < STATE_VERSION:
            raise LabError(OLD_VERSION_MESSAGE)
        if version != STATE_VERSION:
            raise LabError("saved lab state has an unknown format")
        world = None
        saved_world = data.get("world")
        if isinstance(saved_world, dict) and "template" in saved_world:
            # A snapshot naming a template (SessionState.encode): the site's own only.
            if not trusted:
                raise LabError("saved lab state is damaged: no cluster")
            spec = load_ticket(str(data.get("ticket_id")), content_dir).world
            world = from_template(spec, saved_world)
            if data.get("controllers") is not None:
                try:
                    world.restore_controllers(data["controllers"])
                except (KeyError, TypeError, ValueError, AttributeError) as exc:
                    raise LabError(f"saved lab state is damaged: {exc}") from None
        try:
            state = SessionState.from_json(data, world, trusted=trusted)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise LabError(f"saved lab state is damaged: {exc}") from None
        ticket = load_ticket(state.ticket_id, content_dir)
        if world is None and isinstance(state.world, World):
            share_with_template(state.world, ticket.world)
        # Kept as between two commands (MockCluster.pack_idle).
        state.world.pack_idle()
        return cls(state, ticket)

    def reset(self, content_dir: Path | None = None) -> LabSession:
        """A fresh session on the same ticket and seed."""
        return LabSession.new(self._state.ticket_id, self._state.seed, content_dir)

    # -- read-only views --------------------------------------------------------------
    @property
    def ticket(self) -> Ticket:
        return self._ticket

    @property
    def ticket_id(self) -> str:
        return self._state.ticket_id

    @property
    def seed(self) -> int:
        return self._state.seed

    @property
    def step(self) -> int:
        return self._state.world.state.step

    @property
    def typed(self) -> list[tuple[str, bool]] | None:
        """Every line run since the lab was new, with its hints flag; None where a replay of
        them could not rebuild it (simulators.lab.typed)."""
        lines = self._state.typed.lines
        return None if lines is None else list(lines)

    @property
    def prompt(self) -> str:
        """The prompt the terminal shows now: `> ` while a command is still being typed, else
        bash's PS1 with the working folder (shell.prompt_in)."""
        shell = self._state.shell
        return CONTINUATION if shell.pending else prompt_in(shell.cwd)

    @property
    def awaiting(self) -> bool:
        """A command is unfinished (an open here-document, quote, `|` ...): the next line,
        even a blank one, belongs to it."""
        return bool(self._state.shell.pending)

    @property
    def world(self) -> HostWorld:
        return self._awake()

    @property
    def runai_logged_in(self) -> bool:
        """Whether the runai CLI on the admin host is logged in (the lab page's notice)."""
        return self._state.world.state.runai.logged_in

    def rest(self) -> bool:
        """Hold the world as what changed since its ticket's template, compressed
        (simulators.lab.resting), until a command or a reader of it or the transcript wakes it:
        a solved lab kept idle then holds a fifth of what it did. False where the world cannot
        rest (not forked from a template). Only while nothing else runs on this lab (its lock
        held)."""
        if self._rested is None:
            rested = resting.rest(self._world, self._state.transcript)
            if rested is None:
                return False
            self._rested = rested
            self._world = self._state.world = rested.host
            self._state.transcript = []
        return True

    @property
    def at_rest(self) -> bool:
        return self._rested is not None

    def shelve(self) -> bytes | None:
        """The whole lab as its saved form (what a fold saves: ``encode``), compressed, for a
        holder that lets go of this object and keeps only that (studysite.lab.kept): one block
        of 4-21 KB where a lab at rest is a few hundred objects. None where the saved form
        would lose something: a world not forked from a template (a real cluster) or an editor
        the page may still show. ``unshelve`` gives the lab back; this one is left as it was,
        awake."""
        if self.editor is not None:
            return None
        if self._rested is None and self._world.origin is None:
            return None
        return zlib.compress(self.encode().encode(), SHELVED_LEVEL)

    @classmethod
    def unshelve(cls, shelved: bytes) -> LabSession:
        """The lab ``shelve`` packed, answering every command as the shelved one would have."""
        return cls.from_json(zlib.decompress(shelved))

    def _awake(self) -> HostWorld:
        rested = self._rested
        if rested is not None:
            world, self._state.transcript = resting.wake(rested, self._ticket.world)
            fold_small(self._state.transcript)
            world.api.keep_watch_history(0)
            self._world = self._state.world = world
            self._rested = None
        return self._world

    @property
    def transcript(self) -> list[TranscriptEntry]:
        self._awake()
        return list(self._state.transcript)

    @property
    def history(self) -> list[str]:
        return list(self._state.history)

    def replay(self) -> str:
        """The transcript as the terminal showed it: each prompt, command and output."""
        parts = []
        self._awake()
        for entry in self._state.transcript:
            parts.append(entry.prompt + entry.line.replace("\n", "\n" + CONTINUATION) + "\n")
            output = entry.output
            if output:
                parts.append(output if output.endswith("\n") else output + "\n")
        pending = self._state.shell.pending
        if pending:
            parts.append(
                prompt_in(self._state.shell.cwd) + f"\n{CONTINUATION}".join(pending) + "\n"
            )
        return "".join(parts)

    def hints(self) -> list[str]:
        return list(self._ticket.hints)

    def answer_key(self) -> list[str]:
        """The answer key with pod names filled in for this session's world."""
        return [self._resolve(cmd) for cmd in self._ticket.answer_key]

    def checklist(self) -> list[ChecklistItem]:
        return [
            ChecklistItem(item.id, item.text, self._state.done.get(item.id, False))
            for item in self._ticket.checklist
        ]

    def is_complete(self) -> bool:
        return all(item.done for item in self.checklist())

    # -- the terminal -----------------------------------------------------------------
    def run(self, line: str, *, hints: bool = True) -> CommandResult:
        """Run one typed line; every command run advances the clock one step.

        A line that leaves the command unfinished (an open here-document or quote, a
        trailing `|`, `&&`, `||` or backslash) is kept, and the result's prompt is `> `, as
        in bash; the command runs, as one, with the line that completes it. INTERRUPT drops
        an unfinished command. `line` may hold several lines (a pasted here-document).
        With `hints` off (exam mode) the `hint` command answers that hints are off.
        """
        self._hints_allowed = hints
        self._awake()
        if not isinstance(line, str):
            line = str(line)
        line = line.rstrip("\r\n")
        shell = self._state.shell
        typed_at = prompt_in(shell.cwd)  # a command's first line's: PS1 where it was typed
        if line.strip() or shell.pending:
            self._state.typed.record(line, hints)
        if line == INTERRUPT:
            shell.pending.clear()
            return CommandResult("", "", self.checklist(), self.step, prompt=self.prompt)
        if not line.strip() and not shell.pending:
            return CommandResult(line, "", self.checklist(), self.step, prompt=self.prompt)
        typed = line
        saving, stepping = editor.is_save(line), streams.is_step(line)
        if shell.pending and not saving and not stepping:
            if (
                len(shell.pending) >= MAX_PENDING_LINES
                or sum(len(p) + 1 for p in shell.pending) + len(line) > MAX_PENDING_BYTES
            ):
                shell.pending.clear()
                message = "bash: command too long for this lab (over 64 KiB); it was dropped"
                return CommandResult(
                    line, message, self.checklist(), self.step, exit_code=2, prompt=self.prompt
                )
            line = "\n".join([*shell.pending, line])
        if not saving and not stepping and len(line) <= MAX_PENDING_BYTES and needs_more(line):
            shell.pending[:] = line.split("\n")
            return CommandResult(typed, "", self.checklist(), self.step, prompt=CONTINUATION)
        if not saving and not stepping:
            shell.pending.clear()
            self._remember(line)
        ctx = self._context()
        clear = False
        if (
            len(line.encode("utf-8", errors="replace")) <= MAX_LINE_BYTES
            and line.strip() == "clear"
        ):
            clear = True
        shown = line
        # The checklist reads the cluster as the output showed it: before the world's step for
        # a command, after it for a stream's step (whose probe reads the stepped world). An item
        # never ticks while the learner's screen still shows the state just before it.
        items: list[ChecklistItem] | None = None
        try:
            if saving:
                # What an editor saved (simulators.lab.editor): kept and replayed as a line.
                result, shown = editor.apply_save(ctx, line, SAVERS)
                items = self._checklist_now()
                result = self._step(result)
            elif stepping:
                # A stream's step (simulators.lab.streams): the world moves, then the probe.
                since = streams.watching(self.world.api, streams.parse_step(line))
                self._step(Output(""))
                ctx.stream, result = streams.step(line, self._prober(since), self.world.api.now)
            else:
                result = Shell(ctx, self._builtins()).execute(line)
                if ctx.stream is not None:
                    now = self.world.api.now
                    ctx.stream, result = streams.begin(ctx.stream, line, result, self._probe, now)
                items = self._checklist_now()
                since = streams.watching(self.world.api, ctx.stream)
                result = self._step(result)
                if since is not None and ctx.stream is not None:
                    # A watch prints what the command's own step changed at once.
                    more, ctx.stream = self._prober(since)(ctx.stream.probe, ctx.stream)
                    # kubectl's printer goes on where it stopped: on the same line after a
                    # template that ended none (`-o jsonpath='{.metadata.name}'`).
                    joint = "\n" if result.newline else ""
                    text = joint.join(t for t in (result.text, more.text) if t)
                    newline = more.newline if more.text else result.newline
                    result = dataclasses.replace(result, text=text, code=more.code, newline=newline)
        except Exception:
            log.exception("lab command failed: %r", line[:200])
            result = Output.error(INTERNAL_ERROR)
            ctx.editor = ctx.stream = None
        self.editor = ctx.editor
        line = shown
        before = dict(self._state.done)
        if items is None:
            items = self._checklist_now()
        self._state.done = {item.id: item.done for item in items}
        changed = [item for item in items if before.get(item.id) != item.done]
        output = result.text
        meter = budget.current()
        self._state.typed.spent(meter.spent())
        if meter.exceeded:
            self._state.typed.give_up()  # where it stopped depends on CPU time
        if not stepping:
            # A stream's steps are no commands: the transcript keeps the command's first answer,
            # and says it is a snapshot (the form and a replay show no stream). `clear`'s escape
            # sequence is for the live terminal, not the page's transcript.
            kept = "\n".join(filter(None, [output, streams.NOT_STREAMED])) if ctx.stream else output
            self._state.transcript.append(
                TranscriptEntry(
                    line=line,
                    output=kept.replace(CLEAR_SCREEN, "")[:MAX_STORED_OUTPUT],
                    step=self.step,
                    prompt=typed_at,
                )
            )
            self._state.transcript = _bounded(self._state.transcript)
            fold_small(self._state.transcript)
        # Between commands the lab holds what its cluster changed packed (MockCluster.pack_idle).
        self.world.pack_idle()
        return CommandResult(
            line=line,
            output=output,
            checklist=items,
            step=self.step,
            clear=clear,
            changed=changed,
            exit_code=result.code,
            editor=ctx.editor,
            stream=ctx.stream,
            prompt=self.prompt,
            typed_at=typed_at,
            open_line=bool(output) and not result.newline,
        )

    def _checklist_now(self) -> list[ChecklistItem]:
        """The checklist as the cluster shows it now; the last one while the command's budget
        is spent (the checklist waits for the next command, as the cluster's work does)."""
        return self.checklist() if budget.current().exceeded else self._evaluate()

    def _step(self, result: Output) -> Output:
        """The world's step after a command. The cluster's work counts against the command's
        budget too (see budget.Meter): once it is spent, the step's remaining controllers wait
        for the next command, and the learner is told so in one line (unless the command itself
        already said it was stopped)."""
        already = budget.current().exceeded
        ticked = self.world.tick(stop=budget.out_of_time, give_way=budget.give_way)
        if (not ticked or budget.out_of_time()) and not already:
            text = "\n".join(t for t in (result.text, budget.cluster_stopped()) if t)
            return dataclasses.replace(result, text=text)
        return result

    def _probe(self, line: str, resume: streams.StreamRequest | None) -> streams.Probed:
        """A stream's command, run on the world as it is (no step, no transcript)."""
        return self._prober(None)(line, resume)

    def _prober(self, since: str | None) -> streams.Probe:
        """The probe of a step; a watch resumes after `since` (streams.watching; None: where
        its request says)."""

        def probe(line: str, resume: streams.StreamRequest | None) -> streams.Probed:
            ctx = self._context()
            if resume is not None and since is not None:
                resume = dataclasses.replace(resume, since=since)
            ctx.resume = resume
            return Shell(ctx, self._builtins()).execute(line), ctx.stream

        return probe

    def complete(self, line: str) -> list[str]:
        """Completion candidates for the last word of `line` (empty when none)."""
        try:
            if not isinstance(line, str):
                return []
            return Shell(self._context(), self._builtins()).complete(line)
        except Exception:
            log.exception("lab completion failed: %r", line[:200])
            return []

    # -- internals --------------------------------------------------------------------
    def _remember(self, line: str) -> None:
        history = self._state.history
        history.append(line)
        if len(history) > MAX_HISTORY:
            del history[: len(history) - MAX_HISTORY]

    def _context(self) -> Context:
        return Context(
            world=self.world,
            history=self._state.history,
            next_hint=self._next_hint,
            shell=self._state.shell,
        )

    def _next_hint(self) -> str:
        if not self._hints_allowed:
            return "hint: hints are off in exam mode"
        hints = self._ticket.hints
        if not hints:
            return "No hints for this ticket."
        index = self._state.hints_shown % len(hints)
        self._state.hints_shown += 1
        return f"Hint {index + 1}/{len(hints)}: {hints[index]}"

    def _evaluate(self) -> list[ChecklistItem]:
        world = self.world
        if not isinstance(world, World):
            return []  # the checks read a simulated cluster; a real one's tickets have none
        return [
            ChecklistItem(item.id, item.text, checks.evaluate(self._ticket.id, item.id, world))
            for item in self._ticket.checklist
        ]

    def _builtins(self) -> dict[str, Any]:
        return SESSION_BUILTINS

    _TEMPLATE = re.compile(r"\{pod:([a-z0-9-]+)@([a-z0-9-]+)\}")

    def _resolve(self, command: str) -> str:
        """Fill `{pod:<component>@<node>}` with that GPU Operator pod's current name."""

        def repl(match: re.Match[str]) -> str:
            component, node = match.group(1), match.group(2)
            pods = self.world.api.list(
                "pods",
                "gpu-operator",
                label_selector=f"app={component}",
                field_selector=f"spec.nodeName={node}",
            )["items"]
            live = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
            return str(live[0]["metadata"]["name"]) if live else f"{component}-<pod>"

        return self._TEMPLATE.sub(repl, command)


SAVERS: dict[str, editor.Saver] = {"file": editor.save_file, "kubectl-edit": kubectl_edit.save}


def _bounded(transcript: list[TranscriptEntry]) -> list[TranscriptEntry]:
    """The newest entries within MAX_TRANSCRIPT and MAX_TRANSCRIPT_OUTPUT."""
    size, start = 0, len(transcript)
    while (
        start > 0
        and len(transcript) - start < MAX_TRANSCRIPT
        and size + transcript[start - 1].size <= MAX_TRANSCRIPT_OUTPUT
    ):
        start -= 1
        size += transcript[start].size
    return transcript[start:] if start else transcript
