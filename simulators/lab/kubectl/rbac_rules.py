"""kubectl's ``pkg/util/rbac``: how ``describe role`` and ``auth can-i --list`` print rules.

``breakdown`` splits a PolicyRule into one rule per group, resource, verb and resource name (a
non-resource URL per URL and verb); ``compact`` merges the simple ones (one group, one resource,
at most one name, nothing else) on the same resource and name back into one rule with their
verbs, each verb once, in the order met; ``ordered`` sorts as kubectl does, by the text of Go's
``PolicyRule.String()``, whose first field is the verbs. ``rows`` gives the table's cells
(Resources, Non-Resource URLs, Resource Names, Verbs), resources as ``CombineResourceGroup``
writes them (``deployments.apps/scale``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Rule = dict[str, list[str]]
FIELDS = ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")
HEADER = ["Resources", "Non-Resource URLs", "Resource Names", "Verbs"]


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def breakdown(rule: Any) -> list[Rule]:
    """rbac.BreakdownRule."""
    if not isinstance(rule, dict):
        return []
    verbs, names = _strings(rule.get("verbs")), _strings(rule.get("resourceNames"))
    out: list[Rule] = []
    for group in _strings(rule.get("apiGroups")):
        for resource in _strings(rule.get("resources")):
            for verb in verbs:
                for name in [[n] for n in names] or [[]]:
                    out.append(_rule([verb], [group], [resource], name, []))
    for url in _strings(rule.get("nonResourceURLs")):
        out += [_rule([verb], [], [], [], [url]) for verb in verbs]
    return out


def _rule(verbs: list[str], groups: list[str], resources: list[str], names: list[str],
          urls: list[str]) -> Rule:  # fmt: skip
    return dict(zip(FIELDS, (verbs, groups, resources, names, urls), strict=True))


def compact(rules: Iterable[Rule]) -> list[Rule]:
    """rbac.CompactRules (its simple rules after the others, as a Go map's order is no order:
    `ordered` sorts them anyway)."""
    compacted: list[Rule] = []
    simple: dict[tuple[str, str, tuple[str, ...]], Rule] = {}
    for rule in rules:
        if (
            len(rule["apiGroups"]) == 1
            and len(rule["resources"]) == 1
            and len(rule["resourceNames"]) <= 1
            and not rule["nonResourceURLs"]
        ):
            key = (rule["apiGroups"][0], rule["resources"][0], tuple(rule["resourceNames"]))
            if key in simple:
                have = simple[key]["verbs"]
                have += [v for v in rule["verbs"] if v not in have]
            else:
                simple[key] = {k: list(v) for k, v in rule.items()}
        else:
            compacted.append(rule)
    return compacted + list(simple.values())


def go_string(rule: Rule) -> str:
    """PolicyRule.String()."""
    fields = ("Verbs", "APIGroups", "Resources", "ResourceNames", "NonResourceURLs")
    parts = [f"{field}:[{' '.join(rule[key])}]" for field, key in zip(fields, FIELDS, strict=True)]
    return "&PolicyRule{" + ",".join(parts) + ",}"


def ordered(rules: Iterable[Any]) -> list[Rule]:
    """The rules of a role (or a rules review) broken down, compacted and sorted, as kubectl
    prints them."""
    broken: list[Rule] = []
    for rule in rules:
        broken += breakdown(rule)
    return sorted(compact(broken), key=go_string)


def resource_column(rule: Rule) -> str:
    """describe.CombineResourceGroup: resource.group/subresource."""
    if not rule["resources"]:
        return ""
    resource, slash, sub = rule["resources"][0].partition("/")
    group = rule["apiGroups"][0] if rule["apiGroups"] else ""
    combined = f"{resource}.{group}" if group else resource
    return f"{combined}/{sub}" if slash else combined


def go_list(values: list[str]) -> str:
    """Go's %v of a []string."""
    return "[" + " ".join(values) + "]"


def rows(rules: Iterable[Any]) -> list[list[str]]:
    """The table's rows, without its header."""
    return [
        [
            resource_column(rule),
            go_list(rule["nonResourceURLs"]),
            go_list(rule["resourceNames"]),
            go_list(rule["verbs"]),
        ]
        for rule in ordered(rules)
    ]
