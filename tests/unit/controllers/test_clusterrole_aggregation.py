"""The clusterrole-aggregation controller fills admin, edit and view, and any ClusterRole with an
aggregationRule, from the roles its selectors pick (kube-controller-manager's semantics)."""

from __future__ import annotations

import pytest

from simulators.cluster.api import Obj
from simulators.cluster.bootstrap_policy import ROLES
from simulators.controllers.clusterrole_aggregation import aggregated_rules
from simulators.controllers.manager import step
from simulators.lab.world import World, build_world

ROLES_KEY = "clusterroles.rbac.authorization.k8s.io"


@pytest.fixture(scope="module")
def world() -> World:
    return build_world("ci-service-account", 0)


def _rules(world: World, name: str) -> list[Obj]:
    rules: list[Obj] = world.api.get(ROLES_KEY, name)["rules"]
    return rules


def test_view_holds_exactly_the_aggregate_to_view_rules(world: World) -> None:
    assert _rules(world, "view") == ROLES["system:aggregate-to-view"][0]


def test_edit_is_aggregate_to_edit_then_view_in_name_order(world: World) -> None:
    want = ROLES["system:aggregate-to-edit"][0] + ROLES["system:aggregate-to-view"][0]
    assert _rules(world, "edit") == want


def test_admin_is_edit_then_aggregate_to_admin(world: World) -> None:
    assert _rules(world, "admin") == _rules(world, "edit") + ROLES["system:aggregate-to-admin"][0]


def test_a_labelled_role_widens_view_edit_and_admin_in_the_same_step() -> None:
    world = build_world("ci-service-account", 0)
    gpu = {"apiGroups": ["run.ai"], "resources": ["trainingworkloads"], "verbs": ["get"]}
    world.api.create(
        ROLES_KEY,
        {
            "metadata": {
                "name": "runai-view",
                "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"},
            },
            "rules": [gpu],
        },
    )
    step(world.api)
    for name in ("view", "edit", "admin"):
        assert gpu in _rules(world, name)
    world.api.delete(ROLES_KEY, "runai-view")
    step(world.api)
    for name in ("view", "edit", "admin"):
        assert gpu not in _rules(world, name)


def test_a_rule_already_taken_is_not_taken_twice_empty_lists_counting_as_missing() -> None:
    rule = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}
    same = {**rule, "resourceNames": []}
    roles = [
        {"metadata": {"name": "b", "labels": {"x": "1"}}, "rules": [same]},
        {"metadata": {"name": "a", "labels": {"x": "1"}}, "rules": [rule]},
    ]
    owner = {"metadata": {"name": "o"}, "aggregationRule": {"clusterRoleSelectors": [
        {"matchLabels": {"x": "1"}}]}}  # fmt: skip
    assert aggregated_rules(owner, roles) == [rule]


def test_selectors_are_taken_in_turn_and_an_empty_one_selects_every_other_role() -> None:
    first = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}
    second = {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}
    roles = [
        {"metadata": {"name": "a", "labels": {"y": "1"}}, "rules": [first]},
        {"metadata": {"name": "z", "labels": {"x": "1"}}, "rules": [second]},
    ]
    selectors = [{"matchLabels": {"x": "1"}}, {"matchLabels": {"y": "1"}}]
    owner = {"metadata": {"name": "o"}, "aggregationRule": {"clusterRoleSelectors": selectors}}
    assert aggregated_rules(owner, roles) == [second, first]
    everyone = {"metadata": {"name": "a"}, "aggregationRule": {"clusterRoleSelectors": [{}]}}
    assert aggregated_rules(everyone, roles) == [second]
