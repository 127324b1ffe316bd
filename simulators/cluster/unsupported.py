"""What the lab's cluster does not serve, said in one line by the API server and the lab's kubectl.

The lab's pods run no processes a terminal could reach: nothing listens on their ports, nothing
reads a stdin, and their file systems are not files. So ``kubectl port-forward``, ``attach``,
``cp``, ``debug`` (an ephemeral container) and ``run -i`` end with the line below instead of a
misleading not-found. The API server answers with a 400 Status carrying it: the subresource
(``portforward``, ``attach``, ``ephemeralcontainers``), the exec of ``tar`` (what ``kubectl
cp`` runs) and the pod ``run -i`` creates (a container with ``stdinOnce``). The lab's kubectl
prints it as ``error: <line>``.
"""

from __future__ import annotations

from simulators.cluster.api import ApiError

# What kubectl does -> why the lab cannot, in one line.
LIMITS = {
    "port-forward": "port-forward is not available in this lab: nothing listens inside its pods",
    "attach": "attach is not available in this lab: its pods have no terminal to attach to",
    "cp": "cp is not available in this lab: its pods have no file system to copy from or to",
    "debug": "debug is not available in this lab: its pods cannot run ephemeral containers",
    "run -i": "run -i is not available in this lab: its pods have no terminal to attach to; "
    "run it without -i and read its logs",
}
# The pod subresource each verb uses.
SUBRESOURCES = {
    "portforward": "port-forward",
    "attach": "attach",
    "ephemeralcontainers": "debug",
}


def limit(verb: str) -> str:
    """The line that says ``verb`` is beyond the lab."""
    return LIMITS[verb]


def refuse(verb: str) -> ApiError:
    """The API server's answer to a request the lab does not serve."""
    return ApiError(400, "BadRequest", LIMITS[verb])


def check_pod(obj: object) -> None:
    """Refuse the pod ``kubectl run -i`` creates (``stdinOnce``): nothing could attach to it."""
    spec = obj.get("spec") if isinstance(obj, dict) else None
    containers = spec.get("containers") if isinstance(spec, dict) else None
    for container in containers if isinstance(containers, list) else []:
        if isinstance(container, dict) and container.get("stdinOnce"):
            raise refuse("run -i")
