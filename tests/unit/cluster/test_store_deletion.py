"""Deletion in the mock store: graceful pod deletion, finalizers, namespaces, and owner
references (background garbage collection) kept in the owner index."""

from __future__ import annotations

import json
from typing import Any

from simulators.cluster import MockCluster
from tests.unit.cluster.test_store import api, error_of, pod

__all__ = ["api"]  # the fixture, shared with test_store


def test_deleting_an_owner_deletes_its_dependents(api: MockCluster) -> None:
    owner = api.create("configmaps", {"metadata": {"name": "owner"}})
    ref = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "owner",
        "uid": owner["metadata"]["uid"],
        "controller": True,
    }
    child = pod()
    child["metadata"]["ownerReferences"] = [ref]
    api.create("pods", child)
    api.create("configmaps", {"metadata": {"name": "kept", "ownerReferences": [ref]}})
    api.delete("configmaps", "owner", "default", propagation="Orphan")
    assert "ownerReferences" not in api.get("configmaps", "kept")["metadata"]
    assert "ownerReferences" not in api.get("pods", "p")["metadata"]


def test_background_deletion_removes_dependents(api: MockCluster) -> None:
    owner = api.create("configmaps", {"metadata": {"name": "owner"}})
    ref = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "owner",
        "uid": owner["metadata"]["uid"],
    }
    api.create("configmaps", {"metadata": {"name": "child", "ownerReferences": [ref]}})
    api.delete("configmaps", "owner")
    assert error_of(api.get, "configmaps", "child").code == 404


def test_a_bound_pod_terminates_gracefully_until_deleted_with_no_grace(
    api: MockCluster,
) -> None:
    api.create("pods", pod())
    api.bind("p", "default", "gpu-node1")
    deleted = api.delete("pods", "p")
    assert deleted["metadata"]["deletionTimestamp"] == "2026-11-10T09:40:30Z"
    assert deleted["metadata"]["deletionGracePeriodSeconds"] == 30
    assert api.get("pods", "p")["metadata"]["deletionTimestamp"]
    api.delete("pods", "p", grace_period=0)
    assert error_of(api.get, "pods", "p").code == 404


def test_an_unbound_pod_is_deleted_at_once(api: MockCluster) -> None:
    api.create("pods", pod())
    api.delete("pods", "p")
    assert error_of(api.get, "pods", "p").code == 404


def test_finalizers_hold_an_object_until_they_are_removed(api: MockCluster) -> None:
    api.create("configmaps", {"metadata": {"name": "c", "finalizers": ["lab/x"]}})
    held = api.delete("configmaps", "c")
    assert held["metadata"]["deletionTimestamp"]
    api.patch("configmaps", "c", {"metadata": {"finalizers": None}})
    assert error_of(api.get, "configmaps", "c").code == 404


def test_deleting_a_namespace_deletes_what_is_in_it(api: MockCluster) -> None:
    api.create("namespaces", {"metadata": {"name": "team"}})
    api.create("pods", pod(ns="team"))
    api.delete("namespaces", "team")
    assert api.list("pods", "team")["items"] == []


# ---------------------------------------------------------------------------- owner index


def owned_by(owner: dict[str, Any]) -> list[dict[str, Any]]:
    meta = owner["metadata"]
    return [{"apiVersion": "v1", "kind": owner["kind"], "name": meta["name"], "uid": meta["uid"]}]


def deleted_names(api: MockCluster, since: str) -> list[str]:
    events = api.watch("pods", resource_version=since) + api.watch(
        "configmaps", resource_version=since
    )
    ordered = sorted(events, key=lambda e: int(e.object["metadata"]["resourceVersion"]))
    return [e.object["metadata"]["name"] for e in ordered if e.type == "DELETED"]


def test_dependents_go_resource_by_resource_in_the_order_they_were_stored(
    api: MockCluster,
) -> None:
    owner = api.create("configmaps", {"metadata": {"name": "owner"}})
    api.create("pods", {**pod("a"), "metadata": {"name": "a", "ownerReferences": owned_by(owner)}})
    for name in ("c2", "c1"):
        api.create("configmaps", {"metadata": {"name": name, "ownerReferences": owned_by(owner)}})
    since = api.resource_version
    api.delete("configmaps", "owner")
    assert deleted_names(api, since) == ["owner", "c2", "c1", "a"]


def test_an_owner_reference_removed_by_a_patch_no_longer_ties_the_dependent(
    api: MockCluster,
) -> None:
    owner = api.create("configmaps", {"metadata": {"name": "owner"}})
    api.create("configmaps", {"metadata": {"name": "child", "ownerReferences": owned_by(owner)}})
    api.patch("configmaps", "child", {"metadata": {"ownerReferences": None}})
    api.delete("configmaps", "owner")
    assert api.get("configmaps", "child")["metadata"]["name"] == "child"


def test_an_owner_reference_added_by_an_update_ties_the_dependent(api: MockCluster) -> None:
    owner = api.create("configmaps", {"metadata": {"name": "owner"}})
    child = api.create("configmaps", {"metadata": {"name": "child"}})
    child["metadata"]["ownerReferences"] = owned_by(owner)
    api.update("configmaps", child)
    api.delete("configmaps", "owner")
    assert error_of(api.get, "configmaps", "child").code == 404


def test_a_dependent_with_a_second_owner_only_loses_the_deleted_ones_reference(
    api: MockCluster,
) -> None:
    first = api.create("configmaps", {"metadata": {"name": "first"}})
    second = api.create("configmaps", {"metadata": {"name": "second"}})
    refs = owned_by(first) + owned_by(second)
    api.create("configmaps", {"metadata": {"name": "child", "ownerReferences": refs}})
    api.delete("configmaps", "first")
    assert api.get("configmaps", "child")["metadata"]["ownerReferences"] == owned_by(second)
    api.delete("configmaps", "second")
    assert error_of(api.get, "configmaps", "child").code == 404


def test_an_orphaned_dependent_outlives_a_later_owner_of_the_same_name(
    api: MockCluster,
) -> None:
    owner = api.create("configmaps", {"metadata": {"name": "owner"}})
    api.create("configmaps", {"metadata": {"name": "child", "ownerReferences": owned_by(owner)}})
    api.delete("configmaps", "owner", propagation="Orphan")
    api.create("configmaps", {"metadata": {"name": "owner"}})
    api.delete("configmaps", "owner")
    assert api.get("configmaps", "child")["metadata"]["name"] == "child"


def test_deleting_a_namespace_collects_what_its_contents_owned_elsewhere(
    api: MockCluster,
) -> None:
    api.create("namespaces", {"metadata": {"name": "team"}})
    owner = api.create("configmaps", {"metadata": {"name": "owner", "namespace": "team"}})
    api.create("configmaps", {"metadata": {"name": "child", "ownerReferences": owned_by(owner)}})
    api.delete("namespaces", "team")
    assert error_of(api.get, "configmaps", "child").code == 404


def test_a_store_restored_from_json_still_collects_dependents(api: MockCluster) -> None:
    owner = api.create("configmaps", {"metadata": {"name": "owner"}})
    api.create("configmaps", {"metadata": {"name": "child", "ownerReferences": owned_by(owner)}})
    restored = MockCluster.from_json(json.loads(json.dumps(api.to_json())))
    restored.delete("configmaps", "owner")
    assert error_of(restored.get, "configmaps", "child").code == 404


def test_listings_stay_sorted_as_objects_come_and_go(api: MockCluster) -> None:
    api.create("namespaces", {"metadata": {"name": "team"}})

    def names(namespace: str | None = None) -> list[str]:
        return [p["metadata"]["name"] for p in api.select("pods", namespace)]

    for name in ("m", "b", "x"):
        api.create("pods", pod(name))
    api.create("pods", pod("a", ns="team"))
    assert names() == ["b", "m", "x", "a"]
    api.delete("pods", "m")
    api.create("pods", pod("c"))
    api.patch("pods", "b", {"metadata": {"labels": {"tier": "1"}}})
    assert names() == ["b", "c", "x", "a"]
    assert names("default") == ["b", "c", "x"]
    assert names("team") == ["a"]
    assert names("other") == []
