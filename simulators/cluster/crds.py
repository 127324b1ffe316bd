"""The CustomResourceDefinitions of the custom kinds the registry serves (the GPU Operator's,
the Network Operator's, KAI Scheduler's and Run:ai's), as their charts install them.

Each is the CRD the API server would hold for its kind: its group, names (kind, list kind,
plural, singular, short names, categories), scope, one served storage version with the kind's
printer columns and status subresource, a schema that keeps every field (the lab does not
check the kinds' own schemas), `conversion: None`, the `customresourcecleanup` finalizer, and a
status whose names are accepted and Established. A CRD deleted takes its objects with it
(``simulators.controllers.crd_finalizer``), but the registry serves the kinds whatever these
objects say.
"""

from __future__ import annotations

from simulators.cluster.api import Obj, ResourceInfo

CRDS = "customresourcedefinitions.apiextensions.k8s.io"
FINALIZER = "customresourcecleanup.apiextensions.k8s.io"
# The groups a cluster without Run:ai lacks.
RUNAI_GROUPS = frozenset({"run.ai", "scheduling.run.ai"})
# What the registry gives a custom kind declared without printer columns.
AGE_ONLY = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}


def _names(info: ResourceInfo) -> Obj:
    names: Obj = {"kind": info.kind, "listKind": info.list_kind, "plural": info.plural}
    if info.short_names:
        names["shortNames"] = list(info.short_names)
    names["singular"] = info.singular
    if info.categories:
        names["categories"] = list(info.categories)
    return names


def definition(info: ResourceInfo, created: str) -> Obj:
    """The CRD of one custom kind, created at `created`."""
    version: Obj = {"name": info.version, "served": True, "storage": True}
    if list(info.printer_columns) != [AGE_ONLY]:  # a CRD without columns prints NAME and AGE
        version["additionalPrinterColumns"] = [dict(c) for c in info.printer_columns]
    version["schema"] = {
        "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    }
    if "status" in info.subresources:
        version["subresources"] = {"status": {}}
    conditions = [
        ("NamesAccepted", "NoConflicts", "no conflicts found"),
        ("Established", "InitialNamesAccepted", "the initial names have been accepted"),
    ]
    return {
        "metadata": {"name": f"{info.plural}.{info.group}", "finalizers": [FINALIZER]},
        "spec": {
            "conversion": {"strategy": "None"},
            "group": info.group,
            "names": _names(info),
            "scope": "Namespaced" if info.namespaced else "Cluster",
            "versions": [version],
        },
        "status": {
            "acceptedNames": _names(info),
            "conditions": [
                {
                    "lastTransitionTime": created,
                    "message": message,
                    "reason": reason,
                    "status": "True",
                    "type": kind,
                }
                for kind, reason, message in conditions
            ],
            "storedVersions": [info.version],
        },
    }


def definitions(resources: tuple[ResourceInfo, ...], created: str, *, runai: bool) -> list[Obj]:
    """Every custom kind's CRD, in the registry's order; without Run:ai, none of its groups."""
    return [
        definition(info, created)
        for info in resources
        if info.custom and (runai or info.group not in RUNAI_GROUPS)
    ]
