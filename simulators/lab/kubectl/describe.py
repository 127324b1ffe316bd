"""kubectl describe: client-side describers per kind, reading only what the API returns.

Each describer is a port of kubectl's (pkg/describe/describe.go): the same lines written to
the same tabwriter (padding 2), so sections align as kubectl's do. This module holds the verb and
the one table of describers; they live in ``describe_pods`` (pods, nodes),
``describe_workloads`` (DaemonSets, Deployments, ReplicaSets), ``describe_rbac`` (roles and
bindings) and ``describe_other`` (the rest
and the generic describer), their shared sections in ``describe_common``.
"""

from __future__ import annotations

from collections.abc import Callable

from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    KubectlError,
    error_text,
    meta,
    namespace,
    resolve,
    targets,
)
from simulators.lab.kubectl.describe_other import (
    describe_configmap,
    describe_generic,
    describe_namespace,
    describe_secret,
    describe_service,
    describe_serviceaccount,
)
from simulators.lab.kubectl.describe_pods import describe_node, describe_pod
from simulators.lab.kubectl.describe_rbac import describe_binding, describe_role
from simulators.lab.kubectl.describe_workloads import (
    describe_daemonset,
    describe_deployment,
    describe_job,
    describe_replicaset,
    describe_statefulset,
)
from simulators.lab.kubectl.filenames import FILE_FLAGS, file_targets
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("all-namespaces", long="all-namespaces", short="A"),
    Flag("show-events", long="show-events"),
    *FILE_FLAGS,
]


Describer = Callable[[ClusterAPI, Obj, bool], str]
DESCRIBERS: dict[str, Describer] = {
    "pods": describe_pod,
    "nodes": describe_node,
    "configmaps": describe_configmap,
    "namespaces": describe_namespace,
    "daemonsets.apps": describe_daemonset,
    "deployments.apps": describe_deployment,
    "jobs.batch": describe_job,
    "replicasets.apps": describe_replicaset,
    "secrets": describe_secret,
    "serviceaccounts": describe_serviceaccount,
    "statefulsets.apps": describe_statefulset,
    "services": describe_service,
    "roles.rbac.authorization.k8s.io": describe_role,
    "clusterroles.rbac.authorization.k8s.io": describe_role,
    "rolebindings.rbac.authorization.k8s.io": describe_binding,
    "clusterrolebindings.rbac.authorization.k8s.io": describe_binding,
}


def describe(cluster: ClusterAPI, info: ResourceInfo, obj: Obj, events: bool = True) -> str:
    return DESCRIBERS.get(info.key, describe_generic)(cluster, obj, events)


def run(ctx: Context, parsed: Parsed) -> Output:
    cluster = ctx.api
    all_ns = parsed.has("all-namespaces")
    ns = None if all_ns else namespace(parsed)
    args = parsed.positionals
    from_files = file_targets(ctx, parsed, "describe")
    if not args and from_files is None:
        raise KubectlError(
            'error: You must specify the type of resource to describe. Use "kubectl '
            'api-resources" for a complete list of supported resources.'
        )
    groups = (
        targets(cluster, args, verb="describe", all_namespaces=all_ns)
        if from_files is None
        else from_files
    )
    found: list[tuple[ResourceInfo, Obj, bool]] = []  # each with whether a list found it
    errors: list[str] = []
    raw: list[str] = []  # the same errors, each as its own message (see _written)
    prefix_match = False
    selector = parsed.value("selector") or ""
    for group in groups:
        scope = group.scope(ns)
        if group.names:
            for name in group.names:
                try:
                    found.append((group.info, cluster.get(group.info.key, name, scope), False))
                except ApiError as exc:
                    if exc.reason == "NotFound" and len(args) == 2 and "/" not in args[0]:
                        # describe matches by name prefix when the exact name is not found.
                        listed = cluster.list(group.info.key, scope).get("items", [])
                        matches = [
                            o for o in listed if str(meta(o).get("name", "")).startswith(name)
                        ]
                        if matches:
                            found += [(group.info, o, True) for o in matches]
                            prefix_match = True
                            continue
                    errors.append(error_text(exc))
                    raw.append(exc.message)
        else:
            try:
                listed = cluster.list(group.info.key, scope, label_selector=selector)
            except ApiError as exc:
                errors.append(error_text(exc))
                raw.append(exc.message)
                continue
            found += [(group.info, o, True) for o in listed.get("items", [])]
    # kubectl shows events for one object found by its exact name (or when asked to).
    show_events = parsed.has("show-events") or (len(found) <= 1 and not errors and not prefix_match)
    texts: list[str] = []
    failed: list[str] = []  # the describers' own errors, each once (RunDescribe's errs)
    for info, obj, listed_here in found:
        try:
            if listed_here:  # a describer gets its object itself, by name
                m = meta(obj)
                where = str(m.get("namespace") or "") or None
                obj = cluster.get(info.key, str(m.get("name", "")), where)
            texts.append(describe(cluster, info, obj, show_events))
        except ApiError as exc:
            if error_text(exc) not in failed:
                failed.append(error_text(exc))
    if not found and not errors:
        if all_ns:
            return Output("No resources found")
        return Output(f"No resources found in {ns} namespace.")
    errors = _written(errors, raw, failed)
    # The describers' texts as kubectl writes them; its errors follow on stderr, after any
    # blank line a describer ends with.
    text = "\n\n".join(texts)
    text = text.removesuffix("\n") if errors else text.rstrip("\n")
    parts = [p for p in [text, *errors] if p]
    return Output("\n".join(parts), 1 if errors else 0)


def _written(errors: list[str], raw: list[str], failed: list[str]) -> list[str]:
    """The error lines kubectl's CheckErr writes for RunDescribe's aggregate: the resource
    builder's errors (`errors`, each also as its bare message in `raw`) and the describers'
    (`failed`). The builder's errors are one aggregate in it: alone, it is unwrapped and each
    error written as the server's; beside a describer's error, it is written as its own
    message (its errors' bare messages, in brackets when several)."""
    if not errors or not failed:
        return [*errors, *failed]
    builder = raw[0] if len(raw) == 1 else f"[{', '.join(raw)}]"
    return [builder, *failed]


__all__ = ["describe", "describe_node", "describe_pod", "resolve", "run"]
