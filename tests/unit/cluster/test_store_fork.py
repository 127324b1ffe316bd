"""MockCluster.fork: an independent store that shares the stored objects with its original."""

from __future__ import annotations

import json

import pytest

from simulators.cluster.api import ApiError
from simulators.cluster.store import MockCluster


def state(store: MockCluster) -> str:
    return json.dumps(store.to_json(), sort_keys=True)


def small_cluster() -> MockCluster:
    store = MockCluster(seed=4)
    store.create("configmaps", {"metadata": {"name": "settings"}, "data": {"a": "1"}})
    owner = store.create("configmaps", {"metadata": {"name": "owner"}})
    store.create(
        "configmaps",
        {
            "metadata": {
                "name": "owned",
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "ConfigMap",
                        "name": "owner",
                        "uid": owner["metadata"]["uid"],
                    }
                ],
            }
        },
    )
    store.append_log("default", "p", "c", ["one"])
    return store


def test_a_fork_answers_as_its_original_and_writes_to_either_stay_apart() -> None:
    original = small_cluster()
    before = state(original)
    fork = original.fork()
    assert state(fork) == before
    fork.patch("configmaps", "settings", {"data": {"a": "2"}, "metadata": {"labels": {"x": "y"}}})
    fork.delete("configmaps", "owner")  # garbage collection takes "owned" with it
    fork.create("configmaps", {"metadata": {"name": "new"}})
    fork.append_log("default", "p", "c", ["two"])
    fork.clock.advance()
    assert state(original) == before
    assert original.get("configmaps", "settings")["data"] == {"a": "1"}
    assert {c["metadata"]["name"] for c in original.list("configmaps")["items"]} >= {
        "owner",
        "owned",
    }
    assert {c["metadata"]["name"] for c in fork.list("configmaps")["items"]} >= {"new", "settings"}
    assert "owned" not in {c["metadata"]["name"] for c in fork.list("configmaps")["items"]}
    # The original goes on as before: its own names, versions and garbage collection.
    original.delete("configmaps", "owner")
    assert "owned" not in {c["metadata"]["name"] for c in original.list("configmaps")["items"]}


def test_two_forks_of_one_store_make_the_same_names_and_versions() -> None:
    original = small_cluster()
    one, other = original.fork(), original.fork()
    made = [
        store.create("configmaps", {"metadata": {"generateName": "w-"}}) for store in (one, other)
    ]
    assert made[0]["metadata"] == made[1]["metadata"]
    assert one.resource_version == other.resource_version != original.resource_version


def test_a_forks_write_keeps_the_unchanged_parts_of_the_original_object_not_copies() -> None:
    original = small_cluster()
    original.patch("configmaps", "settings", {"data": {"big": "x" * 1000}})
    fork = original.fork()
    fork.patch("configmaps", "settings", {"metadata": {"labels": {"mine": "yes"}}})
    before = next(
        c for c in original.iter_objects("configmaps") if c["metadata"]["name"] == "settings"
    )
    after = next(c for c in fork.iter_objects("configmaps") if c["metadata"]["name"] == "settings")
    assert after is not before and after["data"] is before["data"]
    assert "labels" not in before["metadata"] and after["metadata"]["labels"] == {"mine": "yes"}
    fork.patch("configmaps", "settings", {"data": {"big": "changed"}})
    assert original.get("configmaps", "settings")["data"]["big"] == "x" * 1000


def test_a_dry_run_store_checks_every_rule_and_its_original_keeps_nothing() -> None:
    original = small_cluster()
    before = state(original)
    dry = original.dry_run()
    changed = dry.patch("configmaps", "settings", {"data": {"a": "2"}})
    stored = original.get("configmaps", "settings")["metadata"]["resourceVersion"]
    assert changed["data"] == {"a": "2"}
    assert changed["metadata"]["resourceVersion"] == stored
    assert (
        "resourceVersion" not in dry.create("configmaps", {"metadata": {"name": "n"}})["metadata"]
    )
    with pytest.raises(ApiError, match="already exists"):
        dry.create("configmaps", {"metadata": {"name": "settings"}})
    assert state(original) == before


def test_a_secrets_string_data_is_stored_in_data_as_base64() -> None:
    store = MockCluster(seed=1)
    secret = store.create(
        "secrets",
        {"metadata": {"name": "s"}, "data": {"a": "YQ==", "k": "b2xk"}, "stringData": {"k": "v"}},
    )
    assert "stringData" not in secret
    assert secret["data"] == {"a": "YQ==", "k": "dg=="}
