"""kubectl scale --replicas=N for Deployments, ReplicaSets and StatefulSets."""

from __future__ import annotations

from simulators.cluster.api import ApiError
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    DRY_RUN,
    KubectlError,
    dry_run,
    dry_suffix,
    error_text,
    kind_name,
    namespace,
    targets,
)
from simulators.lab.tool import Context, Output

FLAGS = [*COMMON, DRY_RUN, Flag("replicas", long="replicas", takes_value=True)]


def run(ctx: Context, parsed: Parsed) -> Output:
    text = parsed.value("replicas")
    if text is None:
        raise KubectlError('error: required flag(s) "replicas" not set')
    try:
        replicas = int(text)
    except ValueError:
        raise KubectlError(
            f'error: invalid argument "{text}" for "--replicas" flag: strconv.ParseInt: parsing '
            f'"{text}": invalid syntax'
        ) from None
    if replicas < 0:
        raise KubectlError(
            "error: The --replicas=COUNT flag is required, and COUNT must be greater than or "
            "equal to 0"
        )
    dry = dry_run(parsed)
    cluster = ctx.api
    ns = namespace(parsed)
    out: list[str] = []
    for group in targets(cluster, parsed.positionals, verb="scale"):
        if group.info.key not in ("deployments.apps", "replicasets.apps", "statefulsets.apps"):
            return Output(f'error: no scaler has been implemented for "{group.info.kind}"', 1)
        for name in group.names:
            try:
                if dry:
                    # A dry run reads the object (so a missing one fails) and changes nothing.
                    cluster.get(group.info.key, name, ns)
                else:
                    cluster.patch(group.info.key, name, {"spec": {"replicas": replicas}}, ns)
            except ApiError as exc:
                return Output("\n".join([*out, error_text(exc)]), 1)
            out.append(f"{kind_name(group.info)}/{name} scaled{dry_suffix(dry)}")
    return Output("\n".join(out))
