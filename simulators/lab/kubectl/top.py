"""kubectl top: the lab's cluster runs no metrics-server, so kubectl answers as it does there."""

from __future__ import annotations

from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON, KubectlError
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("all-namespaces", long="all-namespaces", short="A"),
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("containers", long="containers"),
    Flag("no-headers", long="no-headers"),
    Flag("sort-by", long="sort-by", takes_value=True),
]


def run(ctx: Context, parsed: Parsed) -> Output:
    what = parsed.positionals[0] if parsed.positionals else ""
    if what not in ("node", "nodes", "no", "pod", "pods", "po"):
        raise KubectlError(
            'error: unknown command "' + what + '" for "kubectl top"'
            if what
            else "Display resource (CPU/memory) usage.\n\nAvailable Commands:\n  node          "
            "Display resource (CPU/memory) usage of nodes\n  pod           Display resource "
            "(CPU/memory) usage of pods"
        )
    # No metrics.k8s.io API group is served: exactly what kubectl prints on such a cluster.
    return Output.error("error: Metrics API not available")
