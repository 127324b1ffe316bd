"""`python -m simulators lab --ticket ID [--json] [--seed N]`: the lab on stdin/stdout.

Each input line is one line typed at the terminal (a here-document's lines follow its
command, as in bash). Plain mode prints the prompt (`> ` inside an unfinished command) and
the line, the output, and any checklist item that changed; `--json` prints one JSON object
per line: {"line", "output", "checklist": [...], "step", "prompt"}.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import TextIO

from simulators.lab.editor import NEEDS_BROWSER
from simulators.lab.errors import LabError, UnknownTicketError
from simulators.lab.session import LabSession
from simulators.lab.streams import NOT_STREAMED
from simulators.lab.tickets import list_tickets


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # One line and exit 2, like the engine's commands.
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def main(argv: list[str], stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    source = stdin if stdin is not None else sys.stdin
    sink = stdout if stdout is not None else sys.stdout
    parser = _Parser(prog="python -m simulators lab", add_help=False)
    parser.add_argument("--ticket", required=True)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        print(f"lab: {exc}", file=sys.stderr)
        return 2
    try:
        session = LabSession.new(args.ticket, seed=args.seed)
    except UnknownTicketError as exc:
        known = ", ".join(t.id for t in list_tickets())
        print(f"lab: {exc}; the tickets are: {known}", file=sys.stderr)
        return 2
    except LabError as exc:
        print(f"lab: {exc}", file=sys.stderr)
        return 2
    if not args.json:
        for item in session.checklist():
            sink.write(f"[{'x' if item.done else ' '}] {item.text}\n")
    for raw in source:
        line = raw.rstrip("\r\n")
        prompt = session.prompt  # `> ` while a here-document or quote is still open
        result = session.run(line)
        if result.stream is not None:
            output = "\n".join(filter(None, [result.output, NOT_STREAMED]))
            result = dataclasses.replace(result, output=output)
        if result.editor is not None:
            # No editor on a pipe: say so in the command's output, in one line.
            note = NEEDS_BROWSER.format(name=(line.split() or ["editor"])[0])
            output = "\n".join(filter(None, [result.output, note]))
            result = dataclasses.replace(result, output=output)
        if args.json:
            sink.write(
                json.dumps(
                    {
                        "line": result.line,
                        "output": result.output,
                        "checklist": [i.to_dict() for i in result.checklist],
                        "step": result.step,
                        "prompt": result.prompt,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
            continue
        sink.write(f"{prompt}{line}\n")
        if result.output:
            sink.write(result.output + "\n")
        for item in result.changed:
            sink.write(f"[{'x' if item.done else ' '}] {item.text}\n")
    sink.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
