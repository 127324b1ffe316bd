"""What every tool (kubectl, runai, helm, files, ...) gets and returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from simulators.cluster.api import ClusterAPI
    from simulators.lab.world import World  # the world assembles tools' handlers: no cycle


@dataclass
class Output:
    """A command's result: text (stdout and stderr interleaved, as a terminal shows) and status."""

    text: str = ""
    code: int = 0

    @classmethod
    def error(cls, text: str, code: int = 1) -> Output:
        return cls(text, code)


@dataclass
class Context:
    """The session pieces a tool may touch besides the world."""

    world: World
    history: list[str] = field(default_factory=list)
    # Tools that are pure presentation (hint, help) get these from the session.
    next_hint: Callable[[], str] = lambda: "No hints for this ticket."
    stdin: str = ""

    @property
    def api(self) -> ClusterAPI:
        """The cluster as its API: the only door the tools use into the world."""
        return self.world.api


class UsageError(Exception):
    """A flag or argument mistake; the message is the tool's own one-line (or two-line) error."""


Tool = Callable[[Context, list[str]], Output]
