"""A CRD deleted takes its custom resources with it, then goes (the apiextensions CRD
finalizer); one whose objects have finalizers of their own waits for them."""

from __future__ import annotations

from simulators.cluster.crds import CRDS, FINALIZER
from simulators.controllers.manager import step
from simulators.lab.world import build_world

POLICIES = "nicclusterpolicies.mellanox.com"


def test_a_deleted_crd_takes_its_objects_and_then_goes() -> None:
    api = build_world("fabric-nccl", 0).api
    assert api.list(POLICIES)["items"], "the ticket's world has a NicClusterPolicy"
    api.delete(CRDS, POLICIES)
    assert api.get(CRDS, POLICIES)["metadata"]["finalizers"] == [FINALIZER]
    step(api)
    assert api.list(POLICIES)["items"] == []
    assert [c["metadata"]["name"] for c in api.list(CRDS)["items"]].count(POLICIES) == 0


def test_an_object_with_a_finalizer_of_its_own_keeps_the_crd_terminating() -> None:
    api = build_world("fabric-nccl", 0).api
    (policy,) = api.list(POLICIES)["items"]
    name = policy["metadata"]["name"]
    api.patch(POLICIES, name, {"metadata": {"finalizers": ["example.com/hold"]}})
    api.delete(CRDS, POLICIES)
    step(api, 2)
    assert api.get(CRDS, POLICIES)["metadata"]["deletionTimestamp"]
    assert api.get(POLICIES, name)["metadata"]["deletionTimestamp"]
    api.patch(POLICIES, name, {"metadata": {"finalizers": None}})
    step(api)
    assert POLICIES not in [c["metadata"]["name"] for c in api.list(CRDS)["items"]]
