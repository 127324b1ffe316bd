"""The admin host's editors: `vi`/`vim` and `nano` on the lab's files, and the protocol that
`kubectl edit` shares with them.

An editor is no terminal program here: a tool asks for one (`open_editor`), the session hands
the request to the page (CodeMirror with vim or nano keys, or the no-JavaScript form's
textarea), and what the learner saves comes back as a *save line*: a line that starts with
SAVE_MARK (a control character no terminal sends) and carries, as JSON, the request's token and
the buffer. The save line is run and kept like any typed line, so a lab's log replays it
exactly and every tab, process and restart sees the same files and objects. The token is all
the state an open editor has: nothing waits on the server while it is open.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from simulators.lab import files, fs
from simulators.lab.tool import Context, Output

# ASCII's record separator: never typed at a terminal, never part of a command.
SAVE_MARK = "\x1e"
# A buffer is at most a lab file's size; the save line adds the token and JSON's escapes.
MAX_BUFFER_BYTES = files.MAX_FILE_BYTES
MAX_SAVE_LINE_BYTES = 2 * MAX_BUFFER_BYTES + 4096
MODES = ("vim", "nano")
NEEDS_BROWSER = "{name}: the editor opens in the browser terminal; here, change files with sed -i"


@dataclass(frozen=True)
class EditorRequest:
    """An editor to open: `path` to show, the buffer `text`, `mode` (vim or nano) and the
    `token` a save sends back."""

    path: str
    text: str
    mode: str
    token: str

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "text": self.text, "mode": self.mode, "token": self.token}

    @classmethod
    def from_dict(cls, data: object) -> EditorRequest | None:
        if not isinstance(data, dict):
            return None
        fields = [data.get(key) for key in ("path", "text", "mode", "token")]
        if not all(isinstance(value, str) for value in fields):
            return None
        return cls(*(str(value) for value in fields))


def open_editor(ctx: Context, request: EditorRequest) -> None:
    """What a tool calls to open an editor once its command's output is out.

    vim shows a file's lines: the newline that ends the last one is not a line of its own
    (`G` goes to the last line of text), and writing ends the last line again ('fixendofline',
    save_file). So vim's buffer is the text without that newline; nano shows it as its empty
    last line, as nano does."""
    if request.mode == "vim" and request.text.endswith("\n"):
        request = dataclasses.replace(request, text=request.text[:-1])
    ctx.editor = request


def mode_of(command: str) -> str | None:
    """The key bindings for an editor command (`vi`, `/usr/bin/vim -u NONE`, `nano`), or None
    for an editor the host lacks."""
    word = command.strip().split(" ")[0].rsplit("/", 1)[-1] if command.strip() else ""
    if word in ("vi", "vim", "view", "nvim"):
        return "vim"
    if word in ("nano", "pico"):
        return "nano"
    return None


# ----------------------------------------------------------------------------- save lines


def save_line(token: str, text: str, path: str | None = None) -> str:
    """The line that saves `text` for the editor `token` (`path`: vim's `:w NAME`)."""
    return SAVE_MARK + json.dumps({"token": token, "text": text, "path": path})


def is_save(line: str) -> bool:
    return line.startswith(SAVE_MARK)


def save_too_long(line: str) -> str | None:
    """The message for a save line over MAX_SAVE_LINE_BYTES, else None."""
    if len(line) * 4 <= MAX_SAVE_LINE_BYTES:
        return None
    if len(line.encode("utf-8", errors="replace")) <= MAX_SAVE_LINE_BYTES:
        return None
    return f"editor: the buffer is too large to save (over {MAX_BUFFER_BYTES} bytes)"


Saver = Callable[[Context, dict[str, Any], str, str | None], Output]


def apply_save(ctx: Context, line: str, savers: dict[str, Saver]) -> tuple[Output, str]:
    """Run a save line: the output and the line the transcript shows for it.

    `savers` maps a token's `kind` to what saves it (`file` here, `kubectl-edit` in kubectl).
    """
    try:
        data = json.loads(line[len(SAVE_MARK) :])
        token = json.loads(data["token"])
        text, path = data["text"], data.get("path")
        kind = token["kind"]
        if not isinstance(text, str) or not (path is None or isinstance(path, str)):
            raise TypeError(text)
    except (ValueError, KeyError, TypeError):
        return Output.error("editor: the save was not understood; nothing was written"), "# save"
    saver = savers.get(kind) if isinstance(kind, str) else None
    if saver is None or not isinstance(token, dict):
        return Output.error("editor: the save was not understood; nothing was written"), "# save"
    if len(text.encode("utf-8", errors="replace")) > MAX_BUFFER_BYTES:
        return Output.error(f"editor: the buffer is over {MAX_BUFFER_BYTES} bytes"), "# save"
    shown = path or str(token.get("path") or "")
    return saver(ctx, token, text, path), f"# saved in {token.get('mode', 'the editor')}: {shown}"


# ------------------------------------------------------------------------- vi, vim, nano


def vi(ctx: Context, args: list[str]) -> Output:
    return _open_file(ctx, args, "vim")


def nano(ctx: Context, args: list[str]) -> Output:
    return _open_file(ctx, args, "nano")


def _open_file(ctx: Context, args: list[str], mode: str) -> Output:
    # Options (-R, +12, -l ...) change nothing a learner needs here; the first name is the file.
    names = [arg for arg in args if not arg.startswith(("-", "+"))]
    path = names[0] if names else ""
    if path and fs.locate(ctx, path).folder:
        # vim without netrw and nano both say so; the lab opens no editor on a folder.
        return Output.error(f'"{path}" is a directory')
    text = (files.read(ctx, path) if path else None) or ""
    token = json.dumps({"kind": "file", "mode": mode, "path": path})
    open_editor(ctx, EditorRequest(path=path, text=text, mode=mode, token=token))
    return Output()


def save_file(ctx: Context, token: dict[str, Any], text: str, path: str | None) -> Output:
    """Write the buffer to its file (or to `path`, vim's `:w NAME`) with the editor's words."""
    mode = token.get("mode")
    name = path or str(token.get("path") or "")
    if not name:
        if mode == "nano":
            return Output.error("[ No file name ]")
        return Output.error("E32: No file name")
    if text and not text.endswith("\n"):
        text += "\n"  # both editors end the file's last line
    new = files.read(ctx, name) is None
    problem = files.write(ctx, name, text)
    if problem:
        reason = problem.rsplit(": ", 1)[-1]
        if mode == "nano":
            return Output.error(f"[ Error writing {name}: {reason} ]")
        return Output.error(f'"{name}" E212: Can\'t open file for writing')
    lines = text.count("\n")
    if mode == "nano":
        return Output(f"[ Wrote {lines} line{'' if lines == 1 else 's'} ]")
    size = len(text.encode())
    return Output(f'"{name}"{" [New]" if new else ""} {lines}L, {size}B written')
