"""Label and field selectors with the API server's grammar and errors."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from simulators.cluster.api import ApiError, Obj

_KEY_RE = re.compile(
    r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
)
_VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


@dataclass(frozen=True)
class Requirement:
    key: str
    op: str  # = != in notin exists !
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        present = self.key in labels
        if self.op == "exists":
            return present
        if self.op == "!":
            return not present
        if self.op == "=":
            return present and labels[self.key] == self.values[0]
        if self.op == "!=":
            return not present or labels[self.key] != self.values[0]
        if self.op == "in":
            return present and labels[self.key] in self.values
        return not present or labels[self.key] not in self.values  # notin


def _bad(selector: str, why: str) -> ApiError:
    return ApiError(400, "BadRequest", f"unable to parse requirement: {why}")


def _split_top(text: str) -> list[str]:
    """Split on commas outside parentheses."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _check_key(selector: str, key: str) -> None:
    if not key or len(key.rpartition("/")[2]) > 63 or _KEY_RE.match(key) is None:
        raise _bad(
            selector,
            f'<nil>: Invalid value: "{key}": name part must consist of alphanumeric characters, '
            "'-', '_' or '.', and must start and end with an alphanumeric character",
        )


def _check_value(selector: str, value: str) -> None:
    if len(value) > 63 or _VALUE_RE.match(value) is None:
        raise _bad(
            selector,
            f'values[0][{value}]: Invalid value: "{value}": a valid label must be an empty string '
            "or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with an alphanumeric character",
        )


_SET_RE = re.compile(r"^\s*(\S+?)\s+(in|notin)\s*\((.*)\)\s*$")


def parse_label_selector(selector: str) -> list[Requirement]:
    requirements: list[Requirement] = []
    if not selector.strip():
        return requirements
    for raw in _split_top(selector):
        part = raw.strip()
        if not part:
            raise _bad(selector, "found '', expected: identifier")
        set_match = _SET_RE.match(part)
        if set_match:
            key, op, inner = set_match.groups()
            values = tuple(v.strip() for v in inner.split(",") if v.strip())
            _check_key(selector, key)
            for value in values:
                _check_value(selector, value)
            requirements.append(Requirement(key, op, values))
            continue
        if part.startswith("!"):
            key = part[1:].strip()
            _check_key(selector, key)
            requirements.append(Requirement(key, "!"))
            continue
        for op in ("!=", "==", "="):
            if op in part:
                key, _, value = part.partition(op)
                key, value = key.strip(), value.strip()
                _check_key(selector, key)
                _check_value(selector, value)
                requirements.append(Requirement(key, "!=" if op == "!=" else "=", (value,)))
                break
        else:
            if " " in part:
                raise _bad(selector, f"found '{part.split()[1]}', expected: in, notin, =, ==, !=")
            _check_key(selector, part)
            requirements.append(Requirement(part, "exists"))
    return requirements


def label_matcher(selector: str) -> Callable[[Obj], bool]:
    requirements = parse_label_selector(selector)
    if not requirements:
        return lambda obj: True

    def matches(obj: Obj) -> bool:
        labels = obj.get("metadata", {}).get("labels") or {}
        return all(r.matches(labels) for r in requirements)

    return matches


def selector_from_match_labels(selector: Obj | None) -> Callable[[Obj], bool]:
    """A ``LabelSelector`` object (``matchLabels``, ``matchExpressions``) as a matcher."""
    if not selector:
        return lambda obj: False
    requirements: list[Requirement] = [
        Requirement(k, "=", (str(v),)) for k, v in (selector.get("matchLabels") or {}).items()
    ]
    ops = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}
    for expr in selector.get("matchExpressions") or []:
        op = ops.get(str(expr.get("operator")), "exists")
        requirements.append(Requirement(str(expr.get("key")), op, tuple(expr.get("values") or ())))

    def matches(obj: Obj) -> bool:
        labels = obj.get("metadata", {}).get("labels") or {}
        return all(r.matches(labels) for r in requirements)

    return matches


# The fields each kind supports in a field selector (beyond metadata.name/namespace).
_POD_FIELDS = (
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
)
_EVENT_FIELDS = (
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
)
FIELDS: dict[str, tuple[str, ...]] = {
    "pods": _POD_FIELDS,
    "events": _EVENT_FIELDS,
    "nodes": ("spec.unschedulable",),
    "namespaces": ("status.phase",),
    "secrets": ("type",),
    "replicasets.apps": ("status.replicas",),
    "jobs.batch": ("status.successful",),
}


def field_value(obj: Obj, path: str, parts: list[str]) -> str:
    """``obj``'s value at a field selector's ``path`` (split into ``parts``), as text."""
    if path == "source":
        return str((obj.get("source") or {}).get("component", ""))
    current: Any = obj
    for part in parts:
        if not isinstance(current, dict):
            return ""
        current = current.get(part)
    if current is None:
        return "false" if path in ("spec.unschedulable", "spec.hostNetwork") else ""
    if isinstance(current, bool):
        return "true" if current else "false"
    return str(current)


def field_matcher(resource: str, selector: str) -> Callable[[Obj], bool]:
    if not selector.strip():
        return lambda obj: True
    allowed = ("metadata.name", "metadata.namespace", *FIELDS.get(resource, ()))
    # Paths split once per selector, not once per object: the event recorder's selector
    # runs over a namespace's events on every event it records.
    terms: list[tuple[str, list[str], bool, str]] = []
    for raw in selector.split(","):
        part = raw.strip()
        for op in ("!=", "==", "="):
            if op in part:
                key, _, value = part.partition(op)
                key = key.strip()
                break
        else:
            raise ApiError(
                400, "BadRequest", f"invalid selector: '{selector}'; can't understand '{part}'"
            )
        if key not in allowed:
            raise ApiError(400, "BadRequest", f"field label not supported: {key}")
        terms.append((key, key.split("."), op != "!=", value.strip()))

    def matches(obj: Obj) -> bool:
        for key, parts, equal, value in terms:
            if (field_value(obj, key, parts) == value) != equal:
                return False
        return True

    return matches
