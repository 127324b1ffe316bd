"""A lab at rest: its world held as what changed since its ticket's template, and its transcript,
compressed, until a command or a reader needs them again (``LabSession.rest``).

A kept lab's live world holds, beyond its template, every object its learner's commands made or
changed as the API's JSON dicts (a solved MIG ticket: about 80 Events and a dozen replaced
pods, 250 KB), and its transcript up to 512 KiB of output (its long outputs compressed one by
one: ``TranscriptEntry``). The same changes as the saved form's JSON (``World.as_template``) and the
transcript's text, compressed, are 4-25 KB (a solved lab at rest: 16-47 KB in all). Waking
forks the template again and applies the changes (``world.from_template``, as a lab opened
from the database does: 0.6-4.3 ms), with the controllers' quiet runs and the controllers a
step leaves out, so the woken world answers every command as the live one would have, and
saves the same text (``tests/unit/lab/test_lab_resting.py``).
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from typing import Any

from simulators.lab import sliced_json
from simulators.lab.results import TranscriptEntry
from simulators.lab.world import HostWorld, World, from_template

# zlib's fastest level: resting is paid on the server's thread, and the saved form's JSON is
# mostly repeated keys, names and timestamps, which the fastest level already packs 8-10x.
LEVEL = 1


@dataclass(frozen=True)
class Rested:
    """A lab at rest: its world's saved form and its transcript as compressed JSON, and its
    kadmin host (kept live: the page reads the step and the runai login without waking)."""

    packed: bytes
    host: HostWorld


def rest(world: HostWorld, transcript: list[TranscriptEntry]) -> Rested | None:
    """``world`` and ``transcript`` at rest, or None where the world cannot rest (not forked
    from a template: a real cluster, a world restored whole). Both are left as they were."""
    if not isinstance(world, World):
        return None
    named = world.as_template()
    if named is None:
        return None
    data: dict[str, Any] = {
        "world": named,
        "controllers": world.controllers_to_json(),
        "left_out": sorted(world.left_out),
        "transcript": [[e.line, e.output, e.step, e.prompt] for e in transcript],
    }
    packed = zlib.compress(sliced_json.dumps(data, separators=(",", ":")).encode(), LEVEL)
    # The host stands in for the world while it rests: the same HostState, no cluster.
    return Rested(packed, HostWorld(_ASLEEP, world.state))


def wake(rested: Rested, spec: dict[str, Any]) -> tuple[World, list[TranscriptEntry]]:
    """The world and transcript ``rest`` packed, on the ticket's world ``spec`` (its template
    forked, the changes applied, the controllers' quiet runs restored)."""
    data = json.loads(zlib.decompress(rested.packed))
    world = from_template(spec, data["world"])
    if data["controllers"] is not None:
        world.restore_controllers(data["controllers"])
    world.left_out = frozenset(data["left_out"])
    world.state = rested.host.state
    transcript = [TranscriptEntry(*entry) for entry in data["transcript"]]
    return world, transcript


class _Asleep:
    """The cluster of a resting world's stand-in: nothing may reach it (LabSession wakes the
    world first), and a mistake says so instead of reading another lab's objects."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"a resting lab's cluster was read ({name}); wake it first")


_ASLEEP: Any = _Asleep()
