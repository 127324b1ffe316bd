"""Discovery: the documents a client reads to learn what the served cluster has.

``/version``, ``/api``, ``/apis``, ``/apis/<group>``, each group-version's APIResourceList (with
the subresources kubectl looks for) and the OpenAPI v3 index and documents, reduced to what
kubectl reads from them. All are computed from the store's resource registry.
"""

from __future__ import annotations

import base64
import hashlib
import re

from simulators.cluster import openapi
from simulators.cluster.api import Obj, ResourceInfo
from simulators.cluster.store import MockCluster
from simulators.cluster.versions import SERVER_INFO

KUBERNETES_VERSION = SERVER_INFO


def api_versions(host: str) -> Obj:
    """``/api``: the core group's versions, served at the address the client used."""
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}],
    }


def group_versions(api: MockCluster) -> dict[str, list[str]]:
    """Every API group's versions, the preferred version first."""
    groups: dict[str, list[str]] = {}
    for info in api.registry.infos:
        versions = groups.setdefault(info.group, [])
        if info.version not in versions:
            versions.append(info.version)
    for versions in groups.values():
        versions.sort(key=_version_rank)
    return groups


def _version_rank(version: str) -> tuple[int, int, int]:
    # Kubernetes' version priority: GA before beta before alpha, higher numbers first.
    match = re.match(r"v(\d+)(alpha|beta)?(\d*)", version)
    if not match:
        return (3, 0, 0)
    major, stage, minor = match.groups()
    stage_rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (stage_rank, -int(major), -int(minor or 0))


def api_group_list(api: MockCluster) -> Obj:
    groups = []
    for name, versions in group_versions(api).items():
        if not name:
            continue
        entries = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
        groups.append({"name": name, "versions": entries, "preferredVersion": entries[0]})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(api: MockCluster, name: str) -> Obj | None:
    """``/apis/<group>``: one group's versions; None for a group the cluster does not serve."""
    versions = group_versions(api).get(name)
    if not versions:
        return None
    entries = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": name,
        "versions": entries,
        "preferredVersion": entries[0],
    }


def _subresource_entries(info: ResourceInfo) -> list[Obj]:
    entries: list[Obj] = []
    for sub in info.subresources:
        entry: Obj = {
            "name": f"{info.plural}/{sub}",
            "singularName": "",
            "namespaced": info.namespaced,
            "kind": info.kind,
            "verbs": ["get", "patch", "update"],
        }
        if sub == "log":
            entry["verbs"] = ["get"]
        elif sub == "exec":
            entry.update(kind="PodExecOptions", verbs=["create", "get"])
        elif sub == "attach":
            entry.update(kind="PodAttachOptions", verbs=["create", "get"])
        elif sub == "portforward":
            entry.update(kind="PodPortForwardOptions", verbs=["create", "get"])
        elif sub == "binding":
            entry.update(kind="Binding", verbs=["create"])
        elif sub == "eviction":
            entry.update(kind="Eviction", group="policy", version="v1", verbs=["create"])
        elif sub == "token":
            entry.update(
                kind="TokenRequest", group="authentication.k8s.io", version="v1", verbs=["create"]
            )
        elif sub == "scale":
            entry.update(kind="Scale", group="autoscaling", version="v1")
        entries.append(entry)
    return entries


def api_resource_list(api: MockCluster, group: str, version: str) -> Obj | None:
    infos = [i for i in api.registry.infos if i.group == group and i.version == version]
    if not infos:
        return None
    resources: list[Obj] = []
    for info in infos:
        entry: Obj = {
            "name": info.plural,
            "singularName": info.singular if info.plural != "bindings" else "binding",
            "namespaced": info.namespaced,
            "kind": info.kind,
            "verbs": list(info.verbs),
        }
        if info.short_names:
            entry["shortNames"] = list(info.short_names)
        if info.categories:
            entry["categories"] = list(info.categories)
        entry["storageVersionHash"] = base64.b64encode(
            hashlib.sha256(f"{group}/{version}/{info.kind}".encode()).digest()[:8]
        ).decode()
        resources.append(entry)
        resources.extend(_subresource_entries(info))
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/{version}" if group else version,
        "resources": resources,
    }


# --------------------------------------------------------------------- OpenAPI v3
def openapi_root(api: MockCluster) -> Obj:
    """``/openapi/v3``: one document per group-version, as kubectl's discovery expects."""
    paths: Obj = {}
    for group, versions in group_versions(api).items():
        for version in versions:
            prefix = f"apis/{group}/{version}" if group else f"api/{version}"
            digest = hashlib.sha256(prefix.encode()).hexdigest()[:32].upper()
            paths[prefix] = {"serverRelativeURL": f"/openapi/v3/{prefix}?hash={digest}"}
    return {"paths": paths}


def openapi_group_version(api: MockCluster, group: str, version: str) -> Obj | None:
    """A group-version's OpenAPI document, reduced to what kubectl reads from it: that every
    kind's PATCH takes ``fieldValidation`` (so kubectl leaves validation to the server), and the
    kinds' component schemas (``kubectl explain``; kubectl apply reads their
    ``x-kubernetes-patch-*`` extensions for strategic merges)."""
    infos = [i for i in api.registry.infos if i.group == group and i.version == version]
    if not infos:
        return None
    base = f"/apis/{group}/{version}" if group else f"/api/{version}"
    parameters = [
        {"name": name, "in": "query", "schema": {"type": "string", "uniqueItems": True}}
        for name in ("dryRun", "fieldManager", "fieldValidation", "force")
    ]
    paths: Obj = {}
    for info in infos:
        gvk = {"group": group, "version": version, "kind": info.kind}
        scope = f"{base}/namespaces/{{namespace}}" if info.namespaced else base
        operation = {
            "operationId": f"patch{info.kind}",
            "x-kubernetes-action": "patch",
            "x-kubernetes-group-version-kind": gvk,
            "parameters": parameters,
            "responses": {"200": {"description": "OK"}},
        }
        paths[f"{scope}/{info.plural}/{{name}}"] = {"patch": operation}
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": KUBERNETES_VERSION["gitVersion"]},
        "paths": paths,
        "components": {"schemas": openapi.components(infos)},
    }
