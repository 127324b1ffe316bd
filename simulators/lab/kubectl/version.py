"""kubectl version: the cluster's one version (`simulators.cluster.versions`), client and server."""

from __future__ import annotations

import json

from simulators.cluster import versions
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("client", long="client"),
    Flag("output", long="output", short="o", takes_value=True),
]

VERSION = versions.GIT_VERSION


def run(ctx: Context, parsed: Parsed) -> Output:
    output = parsed.value("output")
    if output in ("json", "yaml"):
        doc: dict[str, object] = {
            "clientVersion": versions.CLIENT_INFO,
            "kustomizeVersion": versions.KUSTOMIZE_VERSION,
        }
        if not parsed.has("client"):
            doc["serverVersion"] = versions.SERVER_INFO
        if output == "json":
            return Output(json.dumps(doc, indent=2))
        from simulators.lab.kubectl.printing import to_yaml

        return Output(to_yaml(doc).rstrip("\n"))
    if output:
        return Output.error("error: --output must be 'yaml' or 'json'")
    lines = [f"Client Version: {VERSION}", f"Kustomize Version: {versions.KUSTOMIZE_VERSION}"]
    if not parsed.has("client"):
        lines.append(f"Server Version: {VERSION}")
    return Output("\n".join(lines))
