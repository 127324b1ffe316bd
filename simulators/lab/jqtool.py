"""jq on kadmin: the real jq (PyPI `jq`, its C library) run in a child process within the
command's budget, with jq 1.7's options and wording.

jq's own work cannot be interrupted from Python, so it runs in simulators.lab.jq_worker: one
child per server process, started on first use, killed when a program outlasts the command's
remaining CPU budget (`jq 'repeat(.)'`, `jq '[range(1e9)]'`) or its memory cap, and started
again for the next. Input is at most the lab's output limit; output stops at it too. The
child sees the lab's exported variables as its environment and nothing of the host's.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from simulators.lab import budget, files
from simulators.lab.budget import BudgetExceeded
from simulators.lab.tool import Context, Output

STARTUP_SECONDS = 20.0
# The child's wall time per request, as a multiple of the command's CPU budget left: on a
# busy machine the child waits for a core like everyone else.
WALL_FACTOR = 2.0
MAX_VALUES = 100_000
# The child's time is not the command thread's, so the session's processor share does not
# see it: the child's wall time is metered here instead, per server process. jq gets at most
# RATE seconds a second (a burst of BURST), whoever runs it.
RATE = 0.5
BURST = 2.0
BUSY = "jq: error: the lab's jq is busy; try again in a moment"
WORKER_SCRIPT = Path(__file__).resolve().with_name("jq_worker.py")
_MODULES = re.compile(r"\b(import|include|modulemeta|get_search_list)\b")
HELP_HINT = (
    "Use jq --help for help with command-line options,\n"
    "or see the jq manpage, or online docs  at https://jqlang.github.io/jq"
)
USAGE = (
    "Usage:\tjq [OPTIONS] FILTER [FILES...]\n"
    "\tjq [OPTIONS] --args FILTER [ARGUMENTS...]\n"
    "\tjq [OPTIONS] --jsonargs FILTER [JSON_VALUES...]\n\n"
    "jq is a tool for processing JSON inputs, applying the given filter to\n"
    "its JSON text inputs and producing the filter's results as JSON on\n"
    "standard output.\n\n" + HELP_HINT
)


class Worker:
    """The client side of one jq child: one request at a time, restarted after a kill."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None
        self.buffer = b""
        self.tokens = BURST
        self.refilled = time.monotonic()

    def allows(self, now: float) -> bool:
        """Whether the child's recent time leaves room for another request (see RATE)."""
        self.tokens = min(BURST, self.tokens + (now - self.refilled) * RATE)
        self.refilled = now
        return self.tokens > 0

    def _start(self) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            # The worker's file by path: it imports jq and the standard library only.
            [sys.executable, "-E", "-s", str(WORKER_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={},
            close_fds=True,
        )
        self.process, self.buffer = process, b""
        if self._read_line(STARTUP_SECONDS) is None:
            self.stop()
            raise OSError("jq worker did not start")
        return process

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            with contextlib.suppress(OSError):
                process.kill()
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                process.wait(timeout=5)
            for stream in (process.stdin, process.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()

    def _read_line(self, seconds: float) -> bytes | None:
        process = self.process
        assert process is not None and process.stdout is not None
        stdout: IO[bytes] = process.stdout
        deadline = time.monotonic() + seconds
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([stdout], [], [], left)
            if not ready:
                return None
            chunk = os.read(stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def run(self, request: dict[str, Any], seconds: float) -> dict[str, Any] | None:
        """The child's answer, or None when it ran out of time or died (it is then killed).
        Raises Busy when jq has used its share of the processor (RATE)."""
        with self.lock:
            started = time.monotonic()
            if not self.allows(started):
                raise Busy
            try:
                return self._run(request, seconds)
            finally:
                self.tokens -= time.monotonic() - started

    def _run(self, request: dict[str, Any], seconds: float) -> dict[str, Any] | None:
        process = self.process
        if process is None or process.poll() is not None:
            process = self._start()
        assert process.stdin is not None
        try:
            process.stdin.write(json.dumps(request).encode() + b"\n")
            process.stdin.flush()
        except OSError:
            self.stop()
            return None
        line = self._read_line(seconds)
        if line is None:
            self.stop()
            return None
        reply: dict[str, Any] = json.loads(line)
        return reply


class Busy(Exception):
    """jq has used its share of the processor for now."""


WORKER = Worker()


class _Usage(Exception):
    pass


def jq(ctx: Context, args: list[str]) -> Output:
    try:
        options, program, names = _parse(args)
    except _Usage as exc:
        return Output("", 2, stderr=str(exc))
    if program is None:
        if not ctx.stdin:
            return Output("", 2, stderr=USAGE)
        program = "."
    if _MODULES.search(_without_strings(program)):
        return Output(
            "", 3, stderr="jq: error: modules are not available in this lab\njq: 1 compile error"
        )
    texts: list[str] = []
    for name in names or ["-"]:
        text, why = (ctx.stdin, "") if name == "-" else files.opened(ctx, name)
        if text is None:
            return Output("", 2, stderr=f"jq: error: Could not open {name}: {why}")
        texts.append(text)
    text = "".join(texts)
    limits = budget.limits()
    if len(text) > limits.output_bytes:
        return Output(
            "",
            2,
            stderr=f"jq: error: input over the lab's limit of {limits.output_bytes // 1024} KiB",
        )
    request = {
        "program": program,
        "text": text,
        "slurp": "slurp" in options,
        "null_input": "null_input" in options,
        "raw_input": "raw_input" in options,
        "args": options.get("args", {}),
        "env": ctx.env,
        "max_values": MAX_VALUES,
        "max_bytes": limits.output_bytes + 1,
    }
    budget.check_time()
    meter = budget.current()
    left = max(0.02, limits.cpu_seconds - meter.spent())
    try:
        reply = WORKER.run(request, left * WALL_FACTOR)
    except OSError:
        return Output("", 2, stderr="jq: error: jq could not start in this lab; try again")
    except Busy:
        return Output("", 2, stderr=BUSY)
    if reply is None:
        meter.exceeded = True
        ms = round(limits.cpu_seconds * 1000)
        raise BudgetExceeded(
            f"jq: stopped: it used more than {ms} ms of CPU time (the lab's limit)"
        )
    out = _format(reply["values"], options)
    if reply.get("truncated"):
        budget.check_output(limits.output_bytes + 1, "jq")
    budget.check_output(len(out), "jq")
    error = reply.get("error")
    if error:
        return Output(out, *_error(error, names, text))
    if "exit_status" in options:
        values = reply["values"]
        code = 4 if not values else (1 if values[-1] in (None, False) else 0)
        return Output(out, code)
    return Output(out)


def _error(error: dict[str, str], names: list[str], text: str) -> tuple[int, str]:
    kind, message = error["kind"], error["message"]
    if kind == "compile":
        return 3, message.replace("\n\njq:", "\njq:")
    if kind == "parse":
        return 2, "jq: error (at <stdin>:" + str(text.count("\n")) + "): " + message
    if kind == "memory":
        return 5, "jq: error: cannot allocate memory"
    where = names[-1] if names and names[-1] != "-" else "<stdin>"
    return 5, f"jq: error (at {where}:{text.count(chr(10))}): {message}"


def _without_strings(program: str) -> str:
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', program)


def _parse(args: list[str]) -> tuple[dict[str, Any], str | None, list[str]]:
    options: dict[str, Any] = {}
    named: dict[str, Any] = {}
    program: str | None = None
    names: list[str] = []
    short = {
        "r": "raw", "j": "join", "c": "compact", "n": "null_input", "s": "slurp", "S": "sort",
        "e": "exit_status", "a": "ascii", "R": "raw_input", "M": "", "C": "",
    }  # fmt: skip
    long = {
        "--raw-output": "raw", "--join-output": "join", "--compact-output": "compact",
        "--null-input": "null_input", "--slurp": "slurp", "--sort-keys": "sort",
        "--exit-status": "exit_status", "--ascii-output": "ascii", "--raw-input": "raw_input",
        "--tab": "tab", "--monochrome-output": "", "--color-output": "", "--raw-output0": "raw",
    }  # fmt: skip
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg in ("--arg", "--argjson"):
            if i + 1 >= len(args):
                raise _Usage(
                    f"jq: {arg} takes two parameters (e.g. {arg} varname value)\n{HELP_HINT}"
                )
            name, value = args[i], args[i + 1]
            i += 2
            if arg == "--argjson":
                try:
                    named[name] = json.loads(value)
                except ValueError:
                    raise _Usage(
                        f"jq: Invalid JSON text passed to --argjson\n{HELP_HINT}"
                    ) from None
            else:
                named[name] = value
            continue
        if arg == "--indent":
            if i >= len(args) or budget.bounded_int(args[i], 8) is None:
                raise _Usage(f"jq: --indent takes one parameter\n{HELP_HINT}")
            options["indent"] = budget.bounded_int(args[i], 8)
            i += 1
            continue
        if arg in long:
            if long[arg]:
                options[long[arg]] = True
            continue
        if arg.startswith("-") and len(arg) > 1 and not arg.startswith("--"):
            for flag in arg[1:]:
                if flag not in short:
                    raise _Usage(f"jq: Unknown option: {arg}\n{HELP_HINT}")
                if short[flag]:
                    options[short[flag]] = True
            continue
        if arg.startswith("--"):
            raise _Usage(f"jq: Unknown option: {arg}\n{HELP_HINT}")
        if program is None:
            program = arg
        else:
            names.append(arg)
    options["args"] = named
    return options, program, names


def _format(values: list[Any], options: dict[str, Any]) -> str:
    if "compact" in options:
        indent: int | str | None = None
    elif "tab" in options:
        indent = "\t"
    else:
        indent = options.get("indent", 2) or None
    out: list[str] = []
    size, limit = 0, budget.limits().output_bytes
    for count, value in enumerate(values):
        # Formatting counts against the command's budget: stop at its time or output limit
        # instead of formatting values that could never be shown.
        if count % 1024 == 0:
            budget.check_time()
        if isinstance(value, str) and ("raw" in options or "join" in options):
            out.append(value)
        else:
            out.append(
                json.dumps(
                    _finite(value),
                    indent=indent,
                    separators=(",", ":") if indent is None else (",", ": "),
                    ensure_ascii="ascii" in options,
                    sort_keys="sort" in options,
                )
            )
        size += len(out[-1]) + 1
        if size > limit:
            budget.check_output(size, "jq")
    return ("" if "join" in options else "\n").join(out)


def _finite(value: Any) -> Any:
    """jq prints NaN as null and infinities as the largest doubles."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else math.copysign(1.7976931348623157e308, value)
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value
