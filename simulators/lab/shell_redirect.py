"""A simple or compound command's redirections on the admin host: `<`, `<<`, `<<<`, `>`,
`>|`, `>>`, `&>`, `2>&1`, read from and written to the simulated home folder (simulators.lab.files);
`/dev/null` swallows, `/dev/stdout` and `/dev/stderr` are the terminal's. `redirections`
opens them before the command runs (as bash creates or empties its output files first),
`route` sends what the command printed where they say. Under `set -C` (noclobber) `>`, `&>`
and `>&` refuse a file that exists, as bash does; `>|` still empties it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from simulators.lab import files
from simulators.lab.shell_grammar import Redirect
from simulators.lab.shell_tokens import HereDoc, Refused

if TYPE_CHECKING:
    from simulators.lab.shell import Shell


def redirections(
    shell: Shell, redirects: list[Redirect], stdin: str
) -> tuple[str, dict[int, tuple[str, str]]]:
    """The command's stdin, and where fds 1 and 2 go: ("out"|"err"|"null", "") or
    (">"|">>", file name). Output files are created or emptied here, as bash does first."""
    targets: dict[int, tuple[str, str]] = {1: ("out", ""), 2: ("err", "")}
    for redirect in redirects:
        target = redirect.target
        if isinstance(target, HereDoc):
            body = target.body
            stdin = shell._expand_text(body) if target.expand else body
            continue
        if redirect.op == "<<<":
            stdin = " ".join(shell.expand(target)) + "\n"
            continue
        fields = shell.expand(target)
        if len(fields) != 1:
            raise Refused(f"bash: {target.text}: ambiguous redirect")
        path = fields[0]
        if redirect.op == ">&":
            if path in ("1", "2"):
                for fd in _fds(redirect.fd):
                    targets[fd] = targets[int(path)]
                continue
            if redirect.fd not in (-1, 1):
                raise Refused(f"bash: {path}: ambiguous redirect")
            redirect = Redirect(-1, ">", target)
        if redirect.op == "<":
            if path == "/dev/null":
                stdin = ""
                continue
            text = files.read(shell.ctx, path)
            if text is None:
                raise Refused(f"bash: {path}: No such file or directory")
            stdin = text
            continue
        if path in ("/dev/null", "/dev/stdout", "/dev/stderr"):
            where = {"/dev/null": "null", "/dev/stdout": "out", "/dev/stderr": "err"}[path]
            for fd in _fds(redirect.fd):
                targets[fd] = (where, "")
            continue
        exists = files.read(shell.ctx, path) is not None
        if exists and redirect.op == ">" and "noclobber" in shell.state.options:
            raise Refused(f"bash: {path}: cannot overwrite existing file")
        if redirect.op in (">", ">|") or not exists:
            problem = files.write(shell.ctx, path, "")
            if problem:
                raise Refused(problem)
        for fd in _fds(redirect.fd):
            targets[fd] = (">>", path)
    return stdin, targets


def route(
    shell: Shell, out: str, err: str, code: int, targets: dict[int, tuple[str, str]]
) -> tuple[str, str, int]:
    """Send stdout (exact text) and stderr (lines) where the redirections say; returns
    (stdout exactly, stderr's lines, status)."""
    shown: dict[str, list[str]] = {"out": [], "err": []}
    written: dict[str, list[str]] = {}
    for fd, text in ((2, err + "\n" if err else ""), (1, out)):
        if not text:
            continue
        where, path = targets.get(fd, ("out", ""))
        if where in shown:
            shown[where].append(text)
        elif where == ">>":
            written.setdefault(path, []).append(text)
    for path, texts in written.items():
        existing = files.read(shell.ctx, path) or ""
        problem = files.write(shell.ctx, path, existing + "".join(texts))
        if problem:
            shown["err"].append(problem + "\n")
            code = 1
    outs = shown["out"]
    # One piece as it is: a program's text read whole (fs.Prefix) keeps its size for wc -c.
    out = outs[0] if len(outs) == 1 else "".join(outs)
    return out, "".join(shown["err"]).removesuffix("\n"), code


def _fds(fd: int) -> tuple[int, ...]:
    return (1, 2) if fd == -1 else (fd,)
