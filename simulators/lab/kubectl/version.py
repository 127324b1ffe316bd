"""kubectl version: client v1.31.4 against the lab's v1.31.4 API server."""

from __future__ import annotations

import json

from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("client", long="client"),
    Flag("output", long="output", short="o", takes_value=True),
]

VERSION = "v1.31.4"
KUSTOMIZE = "v5.4.2"


def _info() -> dict[str, str]:
    return {
        "major": "1",
        "minor": "31",
        "gitVersion": VERSION,
        "gitCommit": "a78aa47129b8539636eb86a9d00e31b2720fe06b",
        "gitTreeState": "clean",
        "buildDate": "2024-12-10T11:43:21Z",
        "goVersion": "go1.22.10",
        "compiler": "gc",
        "platform": "linux/amd64",
    }


def run(ctx: Context, parsed: Parsed) -> Output:
    output = parsed.value("output")
    if output in ("json", "yaml"):
        doc: dict[str, object] = {"clientVersion": _info(), "kustomizeVersion": KUSTOMIZE}
        if not parsed.has("client"):
            doc["serverVersion"] = _info()
        if output == "json":
            return Output(json.dumps(doc, indent=2))
        from simulators.lab.kubectl.printing import to_yaml

        return Output(to_yaml(doc).rstrip("\n"))
    if output:
        return Output.error("error: --output must be 'yaml' or 'json'")
    lines = [f"Client Version: {VERSION}", f"Kustomize Version: {KUSTOMIZE}"]
    if not parsed.has("client"):
        lines.append(f"Server Version: {VERSION}")
    return Output("\n".join(lines))
