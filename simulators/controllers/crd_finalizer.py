"""The apiextensions API server's CRD finalizer: a CustomResourceDefinition deleted takes its
custom resources with it.

For each CRD with a ``deletionTimestamp`` and the ``customresourcecleanup`` finalizer: every
object of its kind is deleted (in every namespace); once none is left, the finalizer is
removed and the CRD goes. An object that has finalizers of its own keeps the CRD Terminating
until it is gone. (The lab's registry still serves the kind afterwards, empty.)
"""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.crds import CRDS, FINALIZER
from simulators.cluster.patches import deep_copy
from simulators.controllers.util import is_deleting, items, name_of, namespace_of


def _objects(api: ClusterAPI, key: str) -> list[Obj]:
    """The CRD's objects; none for a kind the registry does not serve (a CRD a learner made)."""
    try:
        return items(api, key)
    except ApiError:
        return []


def run(api: ClusterAPI) -> None:
    """Clean up after every CRD being deleted."""
    for crd in items(api, CRDS):
        finalizers = crd.get("metadata", {}).get("finalizers") or []
        if not is_deleting(crd) or FINALIZER not in finalizers:
            continue
        key = name_of(crd)
        for obj in _objects(api, key):
            if not is_deleting(obj):
                try:
                    api.delete(key, name_of(obj), namespace_of(obj) or None)
                except ApiError as error:
                    if error.code != 404:
                        raise
        if _objects(api, key):
            continue  # objects with finalizers of their own: wait for them
        updated = deep_copy(crd)
        updated["metadata"]["finalizers"] = [f for f in finalizers if f != FINALIZER]
        try:
            api.update(CRDS, updated)
        except ApiError as error:
            if error.code not in (404, 409):
                raise
