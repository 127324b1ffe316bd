"""The clusterrole-aggregation controller of kube-controller-manager.

A ClusterRole with an ``aggregationRule`` holds no rules of its own: its ``rules`` are the
union of the rules of every other ClusterRole its ``clusterRoleSelectors`` select, taken
selector by selector, the selected roles in name order, each rule once (a rule equal to one
already taken, empty and missing lists alike, is skipped), and written back only when they
differ. So ``edit`` is ``system:aggregate-to-edit``'s rules then ``view``'s, and a learner's
ClusterRole labelled ``rbac.authorization.k8s.io/aggregate-to-view: "true"`` widens ``view``,
``edit`` and ``admin`` alike. An empty selector selects every ClusterRole.

Upstream reacts to each change of a ClusterRole through its informer, so a chain of aggregated
roles settles within moments; here one run repeats until nothing changes (at most once per
aggregated role and once more), so the chain settles in the step that changed it.
"""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.bootstrap_policy import RBAC
from simulators.cluster.patches import deep_copy
from simulators.cluster.selectors import selector_from_match_labels
from simulators.controllers.util import items, name_of

CLUSTER_ROLES = f"clusterroles.{RBAC}"


def _normal(rule: Any) -> Any:
    """A rule as Semantic.DeepEqual sees it: an empty list is a missing one."""
    if not isinstance(rule, dict):
        return rule
    return {k: v for k, v in rule.items() if v not in (None, [], {})}


def _selected(roles: list[Obj], selector: Any, owner: str) -> list[Obj]:
    if isinstance(selector, dict) and not selector:
        picked = roles  # an empty LabelSelector selects everything
    else:
        matches = selector_from_match_labels(selector if isinstance(selector, dict) else None)
        picked = [role for role in roles if matches(role)]
    return sorted((r for r in picked if name_of(r) != owner), key=name_of)


def aggregated_rules(role: Obj, roles: list[Obj]) -> list[Obj]:
    """The rules `role`'s aggregationRule gives it among `roles` (upstream's syncClusterRole)."""
    rule = role.get("aggregationRule") or {}
    selectors = rule.get("clusterRoleSelectors") if isinstance(rule, dict) else None
    taken: list[Obj] = []
    seen: list[Any] = []
    for selector in selectors if isinstance(selectors, list) else []:
        for other in _selected(roles, selector, name_of(role)):
            for candidate in other.get("rules") or []:
                normal = _normal(candidate)
                if normal not in seen:
                    seen.append(normal)
                    taken.append(candidate)
    return taken


def _differs(have: Any, want: list[Obj]) -> bool:
    return [_normal(r) for r in have or []] != [_normal(r) for r in want]


def run(api: ClusterAPI) -> None:
    """Fill every aggregated ClusterRole's rules from the roles it selects."""
    roles = items(api, CLUSTER_ROLES)
    owners = [r for r in roles if r.get("aggregationRule") is not None]
    for _ in range(len(owners) + 1):
        changed = False
        for owner in owners:
            want = aggregated_rules(owner, roles)
            if not _differs(owner.get("rules"), want):
                continue
            updated = deep_copy(owner)
            updated["rules"] = deep_copy(want)
            try:
                api.update(CLUSTER_ROLES, updated)
            except ApiError as error:
                if error.code not in (404, 409):  # gone, or changed meanwhile: next step
                    raise
                continue
            changed = True
        if not changed:
            return
        roles = items(api, CLUSTER_ROLES)
        owners = [r for r in roles if r.get("aggregationRule") is not None]
