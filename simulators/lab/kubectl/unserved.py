"""The verbs the lab's cluster cannot serve: one line naming the limit (``unsupported.LIMITS``).

``port-forward``, ``attach``, ``cp`` and ``debug`` need a process inside a pod: the lab's
kubectl says so in the words the API server uses for the real kubectl, before parsing anything
else (an attached ``run`` is refused by run itself, after kubectl's own checks). kubectl's other
commands the lab does not serve (``autoscale``, ``proxy``, ...) say why in one line too, where
they would otherwise be "unknown" and suggest themselves.
"""

from __future__ import annotations

from simulators.cluster.unsupported import limit
from simulators.lab.tool import Output

VERBS = ("port-forward", "attach", "cp", "debug")
# kubectl's other commands, which need what the lab's cluster and admin host do not have.
ABSENT = {
    "autoscale": "autoscale is not available in this lab: its cluster serves no autoscaling API "
    "and runs no metrics server",
    "certificate": "certificate is not available in this lab: its cluster serves no "
    "certificate signing requests",
    "proxy": "proxy is not available in this lab: nothing on the admin host can listen on a port",
    "kustomize": "kustomize is not available in this lab: its home folder holds no "
    "kustomization folders",
    "kuberc": "kuberc is not available in this lab: its kubectl reads no preferences file",
    "plugin": "plugin is not available in this lab: the admin host has no kubectl plugins",
}


def refusal(verb: str) -> Output | None:
    """``error: <the lab's limit>`` for a verb it cannot serve, else None."""
    if verb in VERBS:
        return Output.error(f"error: {limit(verb)}")
    if verb in ABSENT:
        return Output.error(f"error: {ABSENT[verb]}")
    return None
