"""A lab session's saved state: its world, transcript, history, checklist and shell, and the
JSON it is saved as (simulators.lab.session.LabSession holds one and runs its commands)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simulators.lab import sliced_json
from simulators.lab.environment import ShellState
from simulators.lab.results import TranscriptEntry
from simulators.lab.shell import PROMPT
from simulators.lab.typed import Typed
from simulators.lab.world import HostWorld, World

# 2: the world is the cluster API's store plus kadmin's home (issue 9); 1 was the old model.
STATE_VERSION = 2


@dataclass
class SessionState:
    ticket_id: str
    seed: int
    world: HostWorld
    transcript: list[TranscriptEntry] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    hints_shown: int = 0
    done: dict[str, bool] = field(default_factory=dict)
    shell: ShellState = field(default_factory=ShellState)
    version: int = STATE_VERSION
    # Every line run since the lab was new (simulators.lab.typed): unknown until set.
    typed: Typed = field(default_factory=lambda: Typed(None))

    def to_json(self, *, copy: bool = True) -> dict[str, Any]:
        return {
            **self._all_but_transcript(copy=copy),
            "transcript": [entry.to_json() for entry in self.transcript],
        }

    def encode(self) -> str:
        """to_json's data as JSON text, from the live world without copying it, and from each
        transcript entry's own text (see TranscriptEntry.encoded)."""
        head = sliced_json.dumps(self._all_but_transcript(copy=False, compact=True))
        entries = ", ".join(entry.encoded for entry in self.transcript)
        return f'{head[:-1]}, "transcript": [{entries}]}}'

    def _all_but_transcript(self, *, copy: bool, compact: bool = False) -> dict[str, Any]:
        # compact: a world forked from its ticket's template is saved as the template's name
        # and what changed since (World.as_template); the export (to_json) holds it whole.
        named = self.world.as_template() if compact else None
        return {
            "version": self.version,
            "ticket_id": self.ticket_id,
            "seed": self.seed,
            "world": named or self.world.to_json(copy=copy),
            # An unchanged template comes back with its own (MockCluster.fork).
            "controllers": None
            if named and "changes" not in named
            else self.world.controllers_to_json(),
            "history": list(self.history),
            "hints_shown": self.hints_shown,
            "done": dict(self.done),
            "shell": self.shell.to_json(),
            "typed": self.typed.to_json(),
        }

    @classmethod
    def from_json(
        cls, data: dict[str, Any], world: HostWorld | None = None, *, trusted: bool = True
    ) -> SessionState:
        if world is None:
            world = World.from_json(data["world"])
            # Quiet runs vouch for the saved cluster, so only a lab this site saved keeps them.
            world.restore_controllers(data.get("controllers") if trusted else None)
        return cls(
            ticket_id=str(data["ticket_id"]),
            seed=int(data["seed"]),
            world=world,
            transcript=[
                TranscriptEntry(
                    str(e["line"]), str(e["output"]), int(e["step"]), str(e.get("prompt", PROMPT))
                )
                for e in data.get("transcript") or []
            ],
            history=[str(h) for h in data.get("history") or []],
            hints_shown=int(data.get("hints_shown", 0)),
            done={str(k): bool(v) for k, v in (data.get("done") or {}).items()},
            shell=ShellState.from_json(data.get("shell")),
            # A lab's record of what was typed is the site's own: an imported state has none.
            typed=Typed.from_json(data.get("typed") if trusted else None),
        )
