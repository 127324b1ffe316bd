"""The jq child process: runs jq programs (the real jq, its C library through the `jq` package)
for simulators.lab.jqtool, one JSON request per line on stdin, one JSON answer per line.

jq is C: a program such as `[range(1e9)]` is one call that Python cannot interrupt, so it runs
here, where the parent can kill it at the command's budget, and where its memory is capped
(RLIMIT_AS). This process holds nothing of the server's: an empty environment (a request
sets the lab's, for `$ENV` and `env`), an empty working folder and no module search path, so
jq's `import`/`include` find nothing; the parent refuses them first anyway.

Request: {"program", "text", "slurp", "null_input", "raw_input", "args", "env", "max_values",
"max_bytes"}. Answer: {"values": [...], "error": null | {"kind": "compile"|"runtime"|"parse",
"message"}, "truncated": bool}. The first line out is {"ready": true}.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
from typing import Any

MEMORY_BYTES = 512 * 1024 * 1024


def limit_process() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    # A lifetime cap: the parent restarts the worker when it is gone.
    resource.setrlimit(resource.RLIMIT_CPU, (300, 310))
    os.nice(5)
    os.chdir(tempfile.mkdtemp(prefix="lab-jq-"))
    os.environ.clear()


def answer(request: dict[str, Any]) -> dict[str, Any]:
    import jq

    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in (request.get("env") or {}).items()})
    values: list[Any] = []
    size = 0
    truncated = False
    try:
        program = jq.compile(request["program"], args=request.get("args") or {})
    except ValueError as exc:
        return {"values": [], "error": {"kind": "compile", "message": str(exc)}, "truncated": False}
    text = request.get("text") or ""
    try:
        if request.get("null_input"):
            outputs = program.input_value(None)
        elif request.get("raw_input"):
            lines = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
            lines = [] if not text else lines
            outputs = (
                program.input_value(text) if request.get("slurp") else program.input_values(lines)
            )
        else:
            outputs = program.input_text(text, slurp=bool(request.get("slurp")))
        for value in outputs:
            values.append(value)
            size += len(json.dumps(value, ensure_ascii=False)) + 1
            if size > request["max_bytes"] or len(values) >= request["max_values"]:
                truncated = True
                break
    except ValueError as exc:
        message = str(exc)
        kind = "parse" if message.startswith("parse error") else "runtime"
        return {"values": values, "error": {"kind": kind, "message": message}, "truncated": False}
    return {"values": values, "error": None, "truncated": truncated}


def main() -> None:
    limit_process()
    out = sys.stdout
    out.write('{"ready": true}\n')
    out.flush()
    for line in sys.stdin:
        try:
            reply = answer(json.loads(line))
        except MemoryError:
            reply = {"values": [], "error": {"kind": "memory", "message": ""}, "truncated": False}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
