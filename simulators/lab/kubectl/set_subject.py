"""kubectl set subject (-f FILENAME | TYPE NAME) [--user=] [--group=] [--serviceaccount=NS:NAME],
as k8s.io/kubectl/pkg/cmd/set/set_subject.go: the subjects a role binding or cluster role
binding lacks added after its own (users, groups, then service accounts, each sorted)."""

from __future__ import annotations

import copy
from typing import Any

from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import KubectlError, namespace
from simulators.lab.kubectl.set_common import (
    BASE_FLAGS,
    SELECTOR,
    Change,
    Failure,
    complete,
    send_all,
)
from simulators.lab.tool import Context, Output

FLAGS = [
    *BASE_FLAGS,
    SELECTOR,
    Flag("user", long="user", takes_value=True),
    Flag("group", long="group", takes_value=True),
    Flag("serviceaccount", long="serviceaccount", takes_value=True),
]

RBAC = "rbac.authorization.k8s.io"
_BINDINGS = ("RoleBinding", "ClusterRoleBinding")


def _key(subject: Any) -> tuple[str, str, str, str]:
    """A subject as Go compares two rbacv1.Subject values."""
    if not isinstance(subject, dict):
        return ("", "", "", "")
    return tuple(  # type: ignore[return-value]
        str(subject.get(k) or "") for k in ("kind", "apiGroup", "name", "namespace")
    )


def wanted(parsed: Parsed) -> list[dict[str, str]]:
    """The subjects the flags name, in the order kubectl adds them."""
    out: list[dict[str, str]] = []
    for kind, key in (("User", "user"), ("Group", "group")):
        out += [{"kind": kind, "apiGroup": RBAC, "name": n} for n in sorted(set(parsed.all(key)))]
    for account in sorted(set(parsed.all("serviceaccount"))):
        ns, _, name = account.partition(":")
        out.append({"kind": "ServiceAccount", "name": name, "namespace": ns or namespace(parsed)})
    return out


def run(ctx: Context, parsed: Parsed, words: list[str]) -> Output:
    """`kubectl set subject`: Complete (printer, objects), Validate, Run."""
    del words
    dry, output, local, items = complete(ctx, parsed)
    if not (parsed.all("user") or parsed.all("group") or parsed.all("serviceaccount")):
        raise KubectlError(
            "error: you must specify at least one value of user, group or serviceaccount"
        )
    for account in parsed.all("serviceaccount"):
        tokens = account.split(":")
        if len(tokens) != 2 or not tokens[1]:
            raise KubectlError("error: serviceaccount must be <namespace>:<name>")
        if not tokens[0] and any(i.info.kind == "ClusterRoleBinding" for i in items):
            raise KubectlError(
                "error: serviceaccount must be <namespace>:<name>, namespace must be specified"
            )
    subjects = wanted(parsed)
    changes: list[Change] = []
    for item in items:
        if item.info.group != RBAC or item.info.kind not in _BINDINGS:
            changes.append(
                Change(
                    item,
                    None,
                    "setting subjects is only supported for RoleBinding/ClusterRoleBinding",
                )
            )
            continue
        after = copy.deepcopy(item.obj)
        existing = list(after.get("subjects") or [])
        have = {_key(s) for s in existing}
        added = [s for s in subjects if _key(s) not in have]
        if not added:
            continue  # nothing transformed: no patch at all
        after["subjects"] = existing + added
        changes.append(Change(item, after))
    failures: list[Failure] = []
    return send_all(
        ctx,
        changes,
        failures,
        dry=dry,
        local=local,
        output=output,
        operation="subjects updated",
        patch_failure="failed to patch subjects to rolebinding: ",
    )
