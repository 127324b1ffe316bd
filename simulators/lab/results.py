"""What a typed line did, and what the transcript keeps of it.

`CommandResult` crosses process boundaries (the lab's annex, studysite.lab.annex) as the dict
`to_dict` makes and `from_dict` reads: one encoder, both ways.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any, cast

from simulators.lab.editor import EditorRequest
from simulators.lab.shell import PROMPT
from simulators.lab.streams import StreamRequest

# A transcript entry's output longer than this is held compressed (TranscriptEntry), at zlib's
# fastest level: it is paid once per command, and kubectl's output is repeated keys and columns.
PACK_AT = 512
PACK_LEVEL = 1
# The entries of no longer output are held CHUNK_ENTRIES at a time, their texts compressed
# together (fold_small): one alone packs to little, eight of a learner's commands to a fifth.
CHUNK_ENTRIES = 8


@dataclass(frozen=True)
class ChecklistItem:
    id: str
    text: str
    done: bool

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "done": self.done}


@dataclass(frozen=True)
class CommandResult:
    """What one typed line did.

    `checklist` is the whole checklist after the command; `changed` only the items
    whose `done` flipped; `clear` asks the terminal to clear the screen; `editor` is an
    editor the line opened (simulators.lab.editor), for the page to show. `prompt` is the
    prompt to show next: PS1 in the working folder (PROMPT in the home folder), or
    CONTINUATION (`> `) while a command is unfinished; `typed_at` the one the line was typed at.
    `open_line`: the output's last line ends in no newline (`printf x`, a watch's jsonpath
    template), so a stream's next output goes on on that line.
    """

    line: str
    output: str
    checklist: list[ChecklistItem]
    step: int
    clear: bool = False
    changed: list[ChecklistItem] = field(default_factory=list)
    exit_code: int = 0
    editor: EditorRequest | None = None
    stream: StreamRequest | None = None
    prompt: str = PROMPT
    typed_at: str = PROMPT
    open_line: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt": self.prompt,
            "typed_at": self.typed_at,
            "line": self.line,
            "output": self.output,
            "checklist": [i.to_dict() for i in self.checklist],
            "step": self.step,
            "clear": self.clear,
            "changed": [i.to_dict() for i in self.changed],
            "exit_code": self.exit_code,
            "editor": self.editor.to_dict() if self.editor else None,
            "stream": self.stream.to_dict() if self.stream else None,
            "open_line": self.open_line,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CommandResult:
        """The result `to_dict` made (another process's: the lab's annex). Raises KeyError,
        TypeError or ValueError for a dict that is not one; fields added since default."""
        return cls(
            str(data.get("line", "")),
            str(data["output"]),
            [ChecklistItem(**item) for item in data["checklist"]],
            int(data["step"]),
            bool(data.get("clear", False)),
            [ChecklistItem(**item) for item in data.get("changed", [])],
            exit_code=int(data.get("exit_code", 0)),
            editor=EditorRequest.from_dict(data.get("editor")),
            stream=StreamRequest.from_dict(data.get("stream")),
            prompt=str(data.get("prompt", PROMPT)),
            typed_at=str(data.get("typed_at", PROMPT)),
            open_line=bool(data.get("open_line", False)),
        )


class TranscriptEntry:
    """One command of the transcript: the line typed, its output, the world's step after it, and
    the prompt it was typed at (in its JSON only when it is not the home folder's PROMPT).

    Held as its JSON text (`encoded`, the form a lab's snapshot joins: an entry never changes,
    so it is encoded once, when it is made, and never again), and an output of more than
    PACK_AT characters as that text zlib-compressed: `output` and `encoded` inflate it when read
    (a page's transcript, a replay, a snapshot). A lab awake keeps up to
    MAX_TRANSCRIPT_OUTPUT (512 KiB) of output, which kubectl's tables and YAML pack 5-20 times,
    where the output and its JSON text were both kept, twice the output (issue 30). `size` is
    the output's length in characters, for the bounds that weigh entries without reading them
    (and a page that shows an output only when there is one).
    """

    __slots__ = ("_text", "line", "prompt", "size", "step")

    _text: str | bytes | tuple[Chunk, int]

    def __init__(self, line: str, output: str, step: int, prompt: str = PROMPT) -> None:
        self.line = line
        self.step = step
        self.prompt = prompt
        self.size = len(output)
        where = {"prompt": prompt} if prompt != PROMPT else {}
        text = json.dumps({"line": line, "output": output, "step": step, **where})
        self._text: str | bytes = (
            zlib.compress(text.encode(), PACK_LEVEL) if self.size > PACK_AT else text
        )

    @property
    def encoded(self) -> str:
        """This entry as JSON text: `json.dumps(self.to_json())`, byte for byte."""
        text = self._text
        if type(text) is str:
            return text
        if type(text) is bytes:
            return zlib.decompress(text).decode()
        chunk, index = cast("tuple[Chunk, int]", text)
        return chunk.text(index)

    @property
    def output(self) -> str:
        return str(json.loads(self.encoded)["output"]) if self.size else ""

    def to_json(self) -> dict[str, Any]:
        where = {"prompt": self.prompt} if self.prompt != PROMPT else {}
        return {"line": self.line, "output": self.output, "step": self.step, **where}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TranscriptEntry):
            return NotImplemented
        return self.encoded == other.encoded

    __hash__ = None  # type: ignore[assignment]  # equal by value, as the dataclass was

    def __repr__(self) -> str:
        return f"TranscriptEntry(line={self.line!r}, output={self.output!r}, step={self.step!r})"


class Chunk:
    """The JSON texts of CHUNK_ENTRIES entries, compressed together (``fold_small``)."""

    __slots__ = ("blob",)

    def __init__(self, texts: list[str]) -> None:
        # JSON text holds no line break of its own (json.dumps escapes them).
        self.blob = zlib.compress("\n".join(texts).encode(), PACK_LEVEL)

    def text(self, index: int) -> str:
        return zlib.decompress(self.blob).decode().split("\n")[index]


def fold_small(entries: list[TranscriptEntry]) -> None:
    """Hold the transcript's newest entries of short output (each alone as its JSON text) as
    one Chunk once there are CHUNK_ENTRIES of them: a learner's gets and labels, most of a
    transcript's entries, are 0.6 KB each as text and 0.15 KB packed eight together (a solved
    MIG lab's transcript: 8 KB held, 2 KB so). Entries before the newest chunk are chunked
    already, so only those after it are looked at (all of a transcript just restored); fewer
    than CHUNK_ENTRIES left over wait for more. Reading an entry inflates its chunk (a few KB).
    Only the entries' form changes: their text, equality and size stay."""
    loose: list[TranscriptEntry] = []
    for entry in reversed(entries):
        kind = type(entry._text)
        if kind is tuple:
            break
        if kind is str:
            loose.append(entry)
    loose.reverse()
    for start in range(0, len(loose) - CHUNK_ENTRIES + 1, CHUNK_ENTRIES):
        group = loose[start : start + CHUNK_ENTRIES]
        chunk = Chunk([cast(str, entry._text) for entry in group])
        for index, entry in enumerate(group):
            entry._text = (chunk, index)
