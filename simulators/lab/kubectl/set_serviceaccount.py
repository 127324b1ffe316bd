"""kubectl set serviceaccount (alias sa) (-f FILENAME | TYPE NAME) SERVICE_ACCOUNT, as
k8s.io/kubectl/pkg/cmd/set/set_serviceaccount.go: the pod template's serviceAccountName set,
and the patch sent even when it changes nothing (so every object is reported updated)."""

from __future__ import annotations

from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import KubectlError, dry_run
from simulators.lab.kubectl.set_common import (
    BASE_FLAGS,
    LOCAL_SERVER,
    Change,
    Failure,
    edited_pod_spec,
    find,
    printer,
    send_all,
)
from simulators.lab.tool import Context, Output

FLAGS = [*BASE_FLAGS]


def run(ctx: Context, parsed: Parsed, words: list[str]) -> Output:
    """`kubectl set serviceaccount`: the last argument is the account, the rest the objects."""
    del words
    dry = dry_run(parsed)
    local = parsed.has("local")
    if local and dry == "server":
        raise KubectlError(LOCAL_SERVER)
    output = printer(parsed)
    if not parsed.positionals:
        raise KubectlError("error: serviceaccount is required")
    account = parsed.positionals[-1]
    items = find(ctx, parsed, parsed.positionals[:-1], all_flag=parsed.has("all"), local=local)
    changes: list[Change] = []
    for item in items:
        edited = edited_pod_spec(item)
        if isinstance(edited, Change):
            changes.append(edited)
            continue
        after, spec = edited
        spec["serviceAccountName"] = account
        changes.append(Change(item, after))
    failures: list[Failure] = []
    return send_all(
        ctx,
        changes,
        failures,
        dry=dry,
        local=local,
        output=output,
        operation="serviceaccount updated",
        patch_failure="failed to patch ServiceAccountName ",
        always=True,
    )
