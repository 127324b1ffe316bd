"""Structural sharing (simulators.cluster.sharing): a new object holds another's identical parts
instead of copies, and never says anything different for it."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from simulators.cluster.patches import deep_copy
from simulators.cluster.sharing import identical, share_parts
from simulators.cluster.store import MockCluster

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([1.0, 0.0]),
    st.text("ab", max_size=2),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("abc"), inner, max_size=3)
    ),
    max_leaves=12,
)
OBJECTS = st.dictionaries(st.sampled_from("abcd"), VALUES, max_size=4)


def parts(value: Any) -> list[Any]:
    found = [value]
    if isinstance(value, dict):
        for item in value.values():
            found.extend(parts(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(parts(item))
    return found


@given(old=OBJECTS, new=OBJECTS)
def test_sharing_never_changes_what_either_object_says(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    old_text, new_text = json.dumps(old), json.dumps(new)
    share_parts(old, new)
    assert json.dumps(old) == old_text
    assert json.dumps(new) == new_text


@given(old=OBJECTS)
def test_an_unchanged_copy_holds_the_old_objects_parts_not_copies(old: dict[str, Any]) -> None:
    new = deep_copy(old)
    share_parts(old, new)
    assert all(new[key] is old[key] for key in old if isinstance(old[key], dict | list))


def test_equal_values_of_other_types_or_key_orders_are_not_identical() -> None:
    assert not identical({"a": 1}, {"a": True})
    assert not identical({"a": 1}, {"a": 1.0})
    assert not identical({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not identical([{"a": 1}], [{"a": True}])
    assert identical({"a": [1, {"b": "c"}]}, {"a": [1, {"b": "c"}]})
    old, new = {"x": {"a": 1, "b": 2}}, {"x": {"b": 2, "a": 1}}
    share_parts(old, new)
    assert list(new["x"]) == ["b", "a"]


def test_a_pod_replacing_a_deleted_one_holds_its_siblings_spec_in_a_fork() -> None:
    store = MockCluster(seed=3)
    owner = store.create("configmaps", {"metadata": {"name": "owner"}})
    ref = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "owner",
        "uid": owner["metadata"]["uid"],
    }
    spec = {"containers": [{"name": "c", "image": "nginx", "args": ["--a", "--b"]}]}
    store.create("pods", {"metadata": {"name": "first", "ownerReferences": [ref]}, "spec": spec})
    fork = store.fork()
    fork.delete("pods", "first", grace_period=0)
    fork.create("pods", {"metadata": {"name": "second", "ownerReferences": [ref]}, "spec": spec})
    first = next(store.iter_objects("pods"))
    second = next(fork.iter_objects("pods"))
    assert second["metadata"]["name"] == "second"
    assert second["spec"]["containers"] is first["spec"]["containers"]
    assert second["metadata"]["ownerReferences"] is first["metadata"]["ownerReferences"]
    assert [p["metadata"]["name"] for p in store.list("pods")["items"]] == ["first"]


def test_values_nested_as_deep_as_the_api_allows_are_compared_without_a_crash() -> None:
    deep: dict[str, Any] = {}
    cur = deep
    for _ in range(5000):
        cur["a"] = {}
        cur = cur["a"]
    other = _nested(5000)
    assert identical(deep, other)
    assert not identical(deep, _nested(4999))


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value
