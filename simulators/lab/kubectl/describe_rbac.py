"""kubectl describe for RBAC: Roles, ClusterRoles and their bindings.

Ports of pkg/describe/describe.go's RoleDescriber and ClusterRoleDescriber (name, labels,
annotations, then the PolicyRule table: the rules broken down, compacted and sorted as
``auth can-i --list`` prints them, ``simulators.lab.kubectl.rbac_rules``) and
RoleBindingDescriber and ClusterRoleBindingDescriber (the role it names, then one row per
subject). None of the four prints a namespace or events, as kubectl's do not.
"""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ClusterAPI, Obj
from simulators.lab.kubectl import rbac_rules
from simulators.lab.kubectl.common import meta
from simulators.lab.kubectl.describe_common import Writer, write_labels_and_annotations


def _header(w: Writer, obj: Obj) -> None:
    m = meta(obj)
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    write_labels_and_annotations(w, m)


def describe_role(cluster: ClusterAPI, role: Obj, events: bool = True) -> str:
    """A Role's or a ClusterRole's describer."""
    del cluster, events
    w = Writer()
    _header(w, role)
    w.write(0, "PolicyRule:\n")
    w.write(1, "\t".join(rbac_rules.HEADER) + "\n")
    w.write(1, "\t".join("-" * len(h) for h in rbac_rules.HEADER) + "\n")
    rules = role.get("rules")
    for row in rbac_rules.rows(rules if isinstance(rules, list) else []):
        w.write(1, "\t".join(row) + "\n")
    return w.text()


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def describe_binding(cluster: ClusterAPI, binding: Obj, events: bool = True) -> str:
    """A RoleBinding's or a ClusterRoleBinding's describer."""
    del cluster, events
    w = Writer()
    _header(w, binding)
    found = binding.get("roleRef")
    ref: Obj = found if isinstance(found, dict) else {}
    w.write(0, "Role:\n")
    w.write(1, f"Kind:\t{_text(ref.get('kind'))}\n")
    w.write(1, f"Name:\t{_text(ref.get('name'))}\n")
    w.write(0, "Subjects:\n")
    w.write(1, "Kind\tName\tNamespace\n")
    w.write(1, "----\t----\t---------\n")
    subjects = binding.get("subjects")
    for subject in subjects if isinstance(subjects, list) else []:
        if isinstance(subject, dict):
            cells = (_text(subject.get(k)) for k in ("kind", "name", "namespace"))
            w.write(1, "\t".join(cells) + "\n")
    return w.text()
