"""Real-cluster mode for the lab (``LAB_BACKEND=kubernetes``): which API a session runs on.

The tickets always run on their simulated cluster. In real-cluster mode one more "ticket",
``explore``, runs the same tools on the cluster of ``LAB_KUBECONFIG``/``KUBECONFIG`` (or the
in-cluster service account) through ``simulators.cluster.kube``: read-only unless
``LAB_ALLOW_WRITES``, namespaces limited to ``LAB_NAMESPACES`` (plus, with
``LAB_LEARNER_NAMESPACE_PREFIX``, one namespace per learner, created on first use). Nothing about
the cluster's address or credentials is ever put in a page, a frame or a saved lab.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from typing import Any

from django.conf import settings

from simulators.cluster.api import ApiError
from simulators.cluster.kube import KubeCluster, load_client
from simulators.lab.explore import EXPLORE
from simulators.lab.session import LabSession

__all__ = [
    "EXPLORE",
    "EXPLORE_ID",
    "cluster_for",
    "explore",
    "learner_namespace",
    "mode_context",
    "real_mode",
]

EXPLORE_ID = EXPLORE.id
_created: set[str] = set()


def real_mode() -> bool:
    return bool(settings.LAB_BACKEND == "kubernetes")


def mode_context() -> dict[str, Any]:
    """What the lab's pages say about the mode (never where the cluster is)."""
    return {
        "real_cluster": real_mode(),
        "cluster_writes": real_mode() and bool(settings.LAB_ALLOW_WRITES),
    }


@functools.cache
def _client() -> Any:
    return load_client(settings.LAB_KUBECONFIG or None)


def learner_namespace(session_key: str) -> str | None:
    prefix = str(settings.LAB_LEARNER_NAMESPACE_PREFIX or "")
    if not prefix:
        return None
    return prefix + hashlib.sha256(session_key.encode()).hexdigest()[:10]


def cluster_for(session_key: str) -> KubeCluster:
    """The kube backend as this learner may use it."""
    allowed = list(settings.LAB_NAMESPACES)
    own = learner_namespace(session_key)
    if own:
        allowed.append(own)
    api = KubeCluster(
        _client(),
        allow_writes=bool(settings.LAB_ALLOW_WRITES),
        namespaces=tuple(allowed) if allowed else None,
    )
    if own and settings.LAB_ALLOW_WRITES and own not in _created:
        # There already (409), or the cluster refuses: the learner's commands will say so.
        with contextlib.suppress(ApiError):
            api.create("namespaces", {"metadata": {"name": own, "labels": {"lab": "learner"}}})
        _created.add(own)
    return api


def explore(session_key: str, saved: Any = None) -> LabSession:
    return LabSession.on_cluster(cluster_for(session_key), saved)
