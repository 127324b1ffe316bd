"""What a typed line did, and what the transcript keeps of it.

`CommandResult` crosses process boundaries (the lab's annex, studysite.lab.annex) as the dict
`to_dict` makes and `from_dict` reads: one encoder, both ways.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any

from simulators.lab.editor import EditorRequest
from simulators.lab.shell import PROMPT
from simulators.lab.streams import StreamRequest


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
    prompt to show next: PROMPT, or CONTINUATION (`> `) while a command is unfinished.
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt": self.prompt,
            "line": self.line,
            "output": self.output,
            "checklist": [i.to_dict() for i in self.checklist],
            "step": self.step,
            "clear": self.clear,
            "changed": [i.to_dict() for i in self.changed],
            "exit_code": self.exit_code,
            "editor": self.editor.to_dict() if self.editor else None,
            "stream": self.stream.to_dict() if self.stream else None,
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
        )


@dataclass
class TranscriptEntry:
    line: str
    output: str
    step: int

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "output": self.output, "step": self.step}

    @functools.cached_property
    def encoded(self) -> str:
        """This entry as JSON text, made once.

        A lab's snapshot is rewritten every few dozen commands and holds up to
        MAX_TRANSCRIPT_OUTPUT of output: encoding it whole each time was a third of the
        snapshot's cost, with the interpreter held throughout. An entry never changes once
        written, so each is encoded for the first snapshot that holds it and reused after.
        """
        return json.dumps(self.to_json())
