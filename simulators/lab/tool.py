"""What every tool (kubectl, runai, helm, files, ...) gets and returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from simulators.lab.environment import ShellState

if TYPE_CHECKING:
    from simulators.cluster.api import ClusterAPI
    from simulators.lab.editor import EditorRequest
    from simulators.lab.streams import StreamRequest
    from simulators.lab.world import HostWorld  # the world assembles tools' handlers: no cycle


@dataclass
class Output:
    """A command's result: text (stdout and stderr interleaved, as a terminal shows) and status.

    A tool that keeps its error lines apart from its output (as a pipe or `2>/dev/null`
    needs) puts them in `stderr`; `text` is then stdout alone. Tools that leave `stderr`
    empty have their text sorted by `streams`.
    """

    text: str = ""
    code: int = 0
    stderr: str = ""
    # False when stdout does not end in a newline (`echo -n`, printf without \n): a pipe or
    # a file then gets the text exactly, as `echo -n admin | base64` needs.
    newline: bool = True
    # What a pipe, a file or $(...) gets instead of `text`, for a tool that prints otherwise
    # to a terminal (ls: its names in columns there, one a line elsewhere); None: the same.
    piped: str | None = None

    @classmethod
    def error(cls, text: str, code: int = 1) -> Output:
        return cls(text, code)

    @classmethod
    def exactly(cls, stdout: str, code: int = 0, stderr: str = "") -> Output:
        """An Output whose stdout, in a pipe or a file, is `stdout` byte for byte: its final
        newline kept as `newline`, and a lone newline (one blank line) kept as itself, since
        an empty text is no output at all."""
        if stdout == "\n":
            return cls(stdout, code, stderr, newline=False)
        newline = stdout.endswith("\n")
        return cls(stdout[:-1] if newline else stdout, code, stderr, newline=newline)


# Text a tool that does not separate its streams printed as an error (to stderr, not the pipe).
_ERROR_STARTS = ("error", "Error", "bash:", "Usage:", "usage:", "No resources found")


def streams(name: str, result: Output) -> tuple[str, str]:
    """(stdout, stderr) of the tool `name`'s result: its own `stderr`, or its error text
    sorted out."""
    if result.stderr:
        return result.text, result.stderr
    text = result.text
    if text.startswith("No resources found"):
        return "", text
    if result.code != 0 and (text.startswith(_ERROR_STARTS) or text.startswith(name + ":")):
        return "", text
    return text, ""


@dataclass
class Context:
    """The session pieces a tool may touch besides the world."""

    world: HostWorld
    history: list[str] = field(default_factory=list)
    # Tools that are pure presentation (hint, help) get these from the session.
    next_hint: Callable[[], str] = lambda: "No hints for this ticket."
    stdin: str = ""
    # An editor a command asked for (simulators.lab.editor.open_editor): the page opens it.
    editor: EditorRequest | None = None
    # A stream the command asked for (simulators.lab.streams.start): the terminal keeps it going.
    stream: StreamRequest | None = None
    # The watch a stream's step resumes (its probe line is the watching command again).
    resume: StreamRequest | None = None
    # The shell's variables and aliases, and the environment of the running command
    # (exported variables plus `NAME=value cmd` assignments), e.g. EDITOR for kubectl edit.
    shell: ShellState = field(default_factory=ShellState)
    env: dict[str, str] = field(default_factory=dict)
    # The files `<(...)` made for the command running (/dev/fd/63 -> its text): files.read
    # reads them; the shell empties it after each command.
    fds: dict[str, str] = field(default_factory=dict)

    # The API as another user sees it while a command impersonates one (kubectl --as).
    acting: ClusterAPI | None = None

    @property
    def api(self) -> ClusterAPI:
        """The cluster as its API: the only door the tools use into the world."""
        return self.acting if self.acting is not None else self.world.api


class UsageError(Exception):
    """A flag or argument mistake; the message is the tool's own one-line (or two-line) error."""


Tool = Callable[[Context, list[str]], Output]
