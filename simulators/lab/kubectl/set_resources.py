"""kubectl set resources (-f FILENAME | TYPE NAME) --limits=... --requests=..., as
k8s.io/kubectl/pkg/cmd/set/set_resources.go: the quantities (in their canonical form, as
kubectl encodes a resource.Quantity) set on the containers `-c` matches."""

from __future__ import annotations

from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.quantities import canonical
from simulators.lab.kubectl.set_common import (
    BASE_FLAGS,
    CONTAINERS,
    SELECTOR,
    Change,
    Failure,
    complete,
    edited_pod_spec,
    select_containers,
    send_all,
)
from simulators.lab.tool import Context, Output

FLAGS = [
    *BASE_FLAGS,
    CONTAINERS,
    SELECTOR,
    Flag("limits", long="limits", takes_value=True),
    Flag("requests", long="requests", takes_value=True),
]


def parse_list(spec: str) -> dict[str, str]:
    """parseResourceList: `cpu=100m,memory=256Mi` with each quantity canonical."""
    out: dict[str, str] = {}
    if not spec:
        return out
    for statement in spec.split(","):
        parts = statement.split("=")
        if len(parts) != 2:
            raise KubectlError(
                f"error: Invalid argument syntax {statement}, expected <resource>=<value>"
            )
        out[parts[0]] = canonical(parts[1])
    return out


def _same(current: object, wanted: str) -> bool:
    try:
        return isinstance(current, str) and canonical(current) == wanted
    except KubectlError:
        return False


def run(ctx: Context, parsed: Parsed, words: list[str]) -> Output:
    """`kubectl set resources`: Complete (printer, objects), Validate, Run."""
    del words
    dry, output, local, items = complete(ctx, parsed)
    limits_spec = parsed.value("limits") or ""
    requests_spec = parsed.value("requests") or ""
    if not limits_spec and not requests_spec:
        raise KubectlError(
            "error: you must specify an update to requests or limits (in the form of "
            "--requests/--limits)"
        )
    wanted = {"limits": parse_list(limits_spec), "requests": parse_list(requests_spec)}
    chosen_name = parsed.value("containers") or "*"
    failures: list[Failure] = []
    changes: list[Change] = []
    for item in items:
        edited = edited_pod_spec(item)
        if isinstance(edited, Change):
            changes.append(edited)
            continue
        after, spec = edited
        chosen = select_containers(spec, chosen_name)
        if not chosen:
            failures.append(Failure(f"error: unable to find container named {chosen_name}"))
            continue
        for container in chosen:
            resources = container.get("resources")
            if not isinstance(resources, dict):
                resources = container["resources"] = {}
            for side, values in wanted.items():
                if not values:
                    continue
                current = resources.get(side)
                if not isinstance(current, dict):
                    current = resources[side] = {}
                for key, value in values.items():
                    if not _same(current.get(key), value):
                        current[key] = value
        changes.append(Change(item, after))
    return send_all(
        ctx,
        changes,
        failures,
        dry=dry,
        local=local,
        output=output,
        operation="resource requirements updated",
        patch_failure="failed to patch resources update to pod template ",
    )
