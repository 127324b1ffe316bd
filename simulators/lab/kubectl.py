"""kubectl against the lab's cluster backend.

Subcommands: get, describe, label, cordon, uncordon, drain, logs, exec, apply,
create, delete, patch (plus version). Outputs follow real kubectl: tabwriter
tables, `node/gpu-node2 labeled`, `Error from server (NotFound): ...`, pflag's
`error: unknown flag: --foo` with the `See 'kubectl get --help' for usage.` line.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import yaml

from simulators.backends.base import (
    GPU_OPERATOR_NS,
    ClusterPolicy,
    ConfigMap,
    Event,
    Node,
    Pod,
    parse_quantity,
)
from simulators.engine.mig import NAMED_LAYOUTS
from simulators.lab import gpu_operator, jsonpath, manifests, mig, nvidia_smi
from simulators.lab.flags import Flag, FlagError, Parsed, parse
from simulators.lab.render import kube_table, kv_block
from simulators.lab.state import format_age, sim_datetime
from simulators.lab.tool import Context, Output

DEFAULT_NS = "default"

# canonical type -> (aliases, namespaced, singular for messages, "kind.group" for names)
RESOURCE_TYPES: dict[str, tuple[tuple[str, ...], bool, str]] = {
    "nodes": (("node", "nodes", "no"), False, "node"),
    "pods": (("pod", "pods", "po"), True, "pod"),
    "configmaps": (("configmap", "configmaps", "cm"), True, "configmap"),
    "clusterpolicies.nvidia.com": (
        (
            "clusterpolicy",
            "clusterpolicies",
            "clusterpolicy.nvidia.com",
            "clusterpolicies.nvidia.com",
        ),
        False,
        "clusterpolicy.nvidia.com",
    ),
    "events": (("event", "events", "ev"), True, "event"),
    "namespaces": (("namespace", "namespaces", "ns"), False, "namespace"),
}
ALIASES = {alias: canon for canon, (aliases, _, _) in RESOURCE_TYPES.items() for alias in aliases}

SUBCOMMANDS = (
    "apply",
    "cordon",
    "create",
    "delete",
    "describe",
    "drain",
    "exec",
    "get",
    "label",
    "logs",
    "patch",
    "uncordon",
    "version",
)

NS_FLAG = Flag("namespace", long="namespace", short="n", takes_value=True)
COMMON = [NS_FLAG, Flag("help", long="help", short="h")]
FLAGS: dict[str, list[Flag]] = {
    "get": [
        *COMMON,
        Flag("all-namespaces", long="all-namespaces", short="A"),
        Flag("output", long="output", short="o", takes_value=True),
        Flag("label-columns", long="label-columns", short="L", takes_value=True),
        Flag("show-labels", long="show-labels"),
        Flag("selector", long="selector", short="l", takes_value=True),
        Flag("field-selector", long="field-selector", takes_value=True),
        Flag("watch", long="watch", short="w"),
        Flag("no-headers", long="no-headers"),
    ],
    "describe": [*COMMON, Flag("selector", long="selector", short="l", takes_value=True)],
    "label": [
        *COMMON,
        Flag("overwrite", long="overwrite"),
        Flag("all", long="all"),
        Flag("dry-run", long="dry-run", takes_value=True),
    ],
    "cordon": [*COMMON, Flag("dry-run", long="dry-run", takes_value=True)],
    "uncordon": [*COMMON, Flag("dry-run", long="dry-run", takes_value=True)],
    "drain": [
        *COMMON,
        Flag("ignore-daemonsets", long="ignore-daemonsets"),
        Flag("delete-emptydir-data", long="delete-emptydir-data"),
        Flag("delete-local-data", long="delete-local-data"),
        Flag("force", long="force"),
        Flag("grace-period", long="grace-period", takes_value=True),
        Flag("timeout", long="timeout", takes_value=True),
        Flag("disable-eviction", long="disable-eviction"),
    ],
    "logs": [
        *COMMON,
        Flag("container", long="container", short="c", takes_value=True),
        Flag("follow", long="follow", short="f"),
        Flag("previous", long="previous", short="p"),
        Flag("tail", long="tail", takes_value=True),
        Flag("selector", long="selector", short="l", takes_value=True),
        Flag("all-containers", long="all-containers"),
        Flag("timestamps", long="timestamps"),
    ],
    "exec": [
        *COMMON,
        Flag("container", long="container", short="c", takes_value=True),
        Flag("stdin", long="stdin", short="i"),
        Flag("tty", long="tty", short="t"),
    ],
    "apply": [*COMMON, Flag("filename", long="filename", short="f", takes_value=True)],
    "create": [*COMMON, Flag("filename", long="filename", short="f", takes_value=True)],
    "delete": [
        *COMMON,
        Flag("filename", long="filename", short="f", takes_value=True),
        Flag("selector", long="selector", short="l", takes_value=True),
        Flag("field-selector", long="field-selector", takes_value=True),
        Flag("grace-period", long="grace-period", takes_value=True),
        Flag("force", long="force"),
        Flag("now", long="now"),
        Flag("wait", long="wait"),
        Flag("all", long="all"),
    ],
    "patch": [
        *COMMON,
        Flag("patch", long="patch", short="p", takes_value=True),
        Flag("type", long="type", takes_value=True),
    ],
    "version": [
        *COMMON,
        Flag("client", long="client"),
        Flag("output", short="o", takes_value=True),
    ],
}
OUTPUT_FORMATS = ("wide", "yaml", "json", "name", "jsonpath=")


class KubectlError(Exception):
    """kubectl's message for a failed command (printed as is, exit 1)."""


def _see(sub: str) -> str:
    return f"See 'kubectl {sub} --help' for usage."


def run(ctx: Context, args: list[str]) -> Output:
    if not args or args[0] in ("-h", "--help", "help"):
        return Output(_HELP)
    sub = args[0]
    if sub not in SUBCOMMANDS:
        if sub.startswith("-"):
            return Output.error(f"error: unknown flag: {sub}\n{_see('')}".replace("  ", " "))
        return Output.error(
            f'error: unknown command "{sub}" for "kubectl"\nRun \'kubectl --help\' for usage.'
        )
    try:
        parsed = parse(args[1:], FLAGS[sub])
    except FlagError as exc:
        return Output.error(f"error: {exc}\n{_see(sub)}")
    if parsed.has("help"):
        return Output(f"Usage:\n  kubectl {sub} [options]\n\n{_see(sub).replace('See', 'Use')}")
    handler = _HANDLERS[sub]
    try:
        return handler(ctx, parsed)
    except KubectlError as exc:
        return Output.error(str(exc))


# ---------------------------------------------------------------------------- helpers


def _namespace(parsed: Parsed) -> str:
    return parsed.value("namespace") or DEFAULT_NS


def _resolve_type(word: str) -> str:
    canon = ALIASES.get(word.lower())
    if canon is None:
        raise KubectlError(f'error: the server doesn\'t have a resource type "{word}"')
    return canon


def _split_targets(positionals: list[str]) -> tuple[str, list[str]]:
    """`pods x y` or `pod/x node/y` → (type, names); mixed type/name lists use the first type."""
    if not positionals:
        raise KubectlError(
            'error: you must specify the type of resource to get. Use "kubectl api-resources" '
            "for a complete list of supported resources."
        )
    first = positionals[0]
    if "/" in first:
        kind_word, _, _ = first.partition("/")
        canon = _resolve_type(kind_word)
        names = []
        for item in positionals:
            k, sep, name = item.partition("/")
            if not sep:
                raise KubectlError(
                    "error: there is no need to specify a resource type as a separate argument "
                    "when passing arguments in resource/name form (e.g. 'kubectl get "
                    "resource/<resource_name>' instead of 'kubectl get resource "
                    "resource/<resource_name>'"
                )
            if _resolve_type(k) != canon:
                raise KubectlError("error: mixed resource types are not supported here")
            names.append(name)
        return canon, names
    canon = _resolve_type(first)
    return canon, positionals[1:]


def _singular(canon: str) -> str:
    return RESOURCE_TYPES[canon][2]


def _not_found(canon: str, name: str) -> str:
    plural = canon
    return f'Error from server (NotFound): {plural} "{name}" not found'


def _selector_matches(labels: dict[str, str], selector: str | None) -> bool:
    if not selector:
        return True
    for term in selector.split(","):
        term = term.strip()
        if not term:
            continue
        if "!=" in term:
            key, _, value = term.partition("!=")
            if labels.get(key.strip()) == value.strip():
                return False
        elif "=" in term:
            key, _, value = term.partition("=")
            key = key.strip().rstrip("=")
            if labels.get(key) != value.strip().lstrip("="):
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


def _field_matches(pod: Pod, selector: str | None) -> bool:
    if not selector:
        return True
    fields = {
        "spec.nodeName": pod.node_name or "",
        "metadata.name": pod.name,
        "metadata.namespace": pod.namespace,
        "status.phase": pod.phase,
    }
    for term in selector.split(","):
        negate = "!=" in term
        key, _, value = term.partition("!=" if negate else "=")
        key = key.strip()
        value = value.strip().lstrip("=")
        if key not in fields:
            raise KubectlError(
                f'Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match '
                f'label selector "", field selector "{selector}": field label not supported: {key}'
            )
        if (fields[key] == value) == negate:
            return False
    return True


def _pod_status(pod: Pod) -> str:
    if pod.reason:
        return pod.reason
    return pod.phase


def _restarts(pod: Pod, now: int) -> str:
    if pod.restarts and pod.reason == "CrashLoopBackOff":
        return f"{pod.restarts} ({format_age(min(now - (pod.started or now), 50) + 10)} ago)"
    return str(pod.restarts)


def _find_pod(ctx: Context, namespace: str, name: str) -> Pod:
    pod = ctx.world.backend.get_pod(namespace, name)
    if pod is None:
        raise KubectlError(_not_found("pods", name))
    return pod


# ---------------------------------------------------------------------------- get


def _objects(
    ctx: Context, canon: str, namespace: str | None, names: list[str], parsed: Parsed
) -> tuple[list[Any], list[str]]:
    """The objects to print and the NotFound errors for missing names."""
    backend = ctx.world.backend
    pool: list[Any]
    if canon == "nodes":
        pool = backend.list_nodes()
    elif canon == "pods":
        pool = backend.list_pods(namespace)
    elif canon == "configmaps":
        pool = backend.list_configmaps(namespace)
    elif canon == "clusterpolicies.nvidia.com":
        pool = backend.list_cluster_policies()
    elif canon == "events":
        pool = sorted(backend.list_events(namespace), key=lambda e: e.last_seen)
    else:
        pool = [_Namespace(n) for n in backend.list_namespaces()]
    selector = parsed.value("selector")
    if selector:
        pool = [o for o in pool if _selector_matches(getattr(o, "labels", {}), selector)]
    field_selector = parsed.value("field-selector")
    if field_selector and canon == "pods":
        pool = [o for o in pool if isinstance(o, Pod) and _field_matches(o, field_selector)]
    if not names:
        return pool, []
    found: list[Any] = []
    errors: list[str] = []
    for name in names:
        match = next((o for o in pool if o.name == name), None)
        if match is None:
            errors.append(_not_found(canon, name))
        else:
            found.append(match)
    return found, errors


class _Namespace:
    def __init__(self, name: str) -> None:
        self.name = name
        self.labels = {"kubernetes.io/metadata.name": name}


def _manifest(obj: Any, now: int) -> dict[str, Any]:
    if isinstance(obj, Node):
        return manifests.node_manifest(obj)
    if isinstance(obj, Pod):
        return manifests.pod_manifest(obj, now)
    if isinstance(obj, ConfigMap):
        return manifests.configmap_manifest(obj)
    if isinstance(obj, ClusterPolicy):
        return manifests.cluster_policy_manifest(obj)
    if isinstance(obj, Event):
        return manifests.event_manifest(obj)
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": obj.name, "labels": dict(obj.labels)},
        "status": {"phase": "Active"},
    }


def _get(ctx: Context, parsed: Parsed) -> Output:
    canon, names = _split_targets(parsed.positionals)
    namespaced = RESOURCE_TYPES[canon][1]
    all_ns = parsed.has("all-namespaces")
    namespace = None if (all_ns or not namespaced) else _namespace(parsed)
    output = parsed.value("output") or ""
    if output and not (output in ("wide", "yaml", "json", "name") or output.startswith("jsonpath")):
        raise KubectlError(
            f'error: unable to match a printer suitable for the output format "{output}", '
            "allowed formats are: custom-columns,custom-columns-file,go-template,"
            "go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,"
            "templatefile,wide,yaml"
        )
    objs, errors = _objects(ctx, canon, namespace, names, parsed)
    now = ctx.world.now
    if output.startswith("jsonpath"):
        template = output.partition("=")[2]
        if not template:
            raise KubectlError("error: template format specified but no template given")
        data: Any
        if names and len(objs) == 1 and not errors:
            data = _manifest(objs[0], now)
        else:
            data = manifests.list_manifest([_manifest(o, now) for o in objs])
        try:
            text = jsonpath.evaluate(template, data)
        except jsonpath.JsonPathError as exc:
            raise KubectlError(f"error: {exc}") from None
        return _with_errors(text, errors)
    if output in ("yaml", "json"):
        if not objs:
            return _with_errors("", errors)
        doc = (
            _manifest(objs[0], now)
            if names and len(objs) == 1
            else manifests.list_manifest([_manifest(o, now) for o in objs])
        )
        text = (
            manifests.to_yaml(doc).rstrip("\n") if output == "yaml" else json.dumps(doc, indent=4)
        )
        return _with_errors(text, errors)
    if output == "name":
        singular = _singular(canon)
        return _with_errors("\n".join(f"{singular}/{o.name}" for o in objs), errors)
    if not objs:
        if errors:
            return _with_errors("", errors)
        if namespace is not None and namespaced:
            return Output(f"No resources found in {namespace} namespace.")
        return Output("No resources found")
    table = _TABLES[canon](ctx, objs, parsed, all_ns and namespaced)
    return _with_errors(table, errors)


def _with_errors(text: str, errors: list[str]) -> Output:
    parts = [p for p in [text, *errors] if p]
    return Output("\n".join(parts), 1 if errors else 0)


def _label_columns(parsed: Parsed) -> list[str]:
    cols: list[str] = []
    for value in parsed.all("label-columns"):
        cols.extend(v for v in value.split(",") if v)
    return cols


def _label_header(key: str) -> str:
    return key.rsplit("/", 1)[-1].upper()


def _labels_text(labels: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items())) or "<none>"


def _node_table(ctx: Context, nodes: list[Node], parsed: Parsed, _all: bool) -> str:
    now = ctx.world.now
    wide = parsed.value("output") == "wide"
    cols = _label_columns(parsed)
    headers = ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    if wide:
        headers += [
            "INTERNAL-IP",
            "EXTERNAL-IP",
            "OS-IMAGE",
            "KERNEL-VERSION",
            "CONTAINER-RUNTIME",
        ]
    headers += [_label_header(c) for c in cols]
    if parsed.has("show-labels"):
        headers.append("LABELS")
    rows = []
    for n in nodes:
        row = [n.name, n.status, n.roles, format_age(now - n.created), n.kubelet_version]
        if wide:
            row += [n.internal_ip, "<none>", n.os_image, n.kernel_version, n.container_runtime]
        row += [n.labels.get(c, "") for c in cols]
        if parsed.has("show-labels"):
            row.append(_labels_text(n.labels))
        rows.append(row)
    return _maybe_headless(headers, rows, parsed)


def _maybe_headless(headers: list[str], rows: list[list[str]], parsed: Parsed) -> str:
    table = kube_table(headers, rows)
    if parsed.has("no-headers"):
        return "\n".join(table.split("\n")[1:])
    return table


def _pod_table(ctx: Context, pods: list[Pod], parsed: Parsed, all_ns: bool) -> str:
    now = ctx.world.now
    wide = parsed.value("output") == "wide"
    cols = _label_columns(parsed)
    headers = (["NAMESPACE"] if all_ns else []) + ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    if wide:
        headers += ["IP", "NODE", "NOMINATED NODE", "READINESS GATES"]
    headers += [_label_header(c) for c in cols]
    if parsed.has("show-labels"):
        headers.append("LABELS")
    rows = []
    for p in pods:
        row = ([p.namespace] if all_ns else []) + [
            p.name,
            f"{p.ready_count}/{len(p.containers)}",
            _pod_status(p),
            _restarts(p, now),
            format_age(now - p.created),
        ]
        if wide:
            row += [p.ip or "<none>", p.node_name or "<none>", "<none>", "<none>"]
        row += [p.labels.get(c, "") for c in cols]
        if parsed.has("show-labels"):
            row.append(_labels_text(p.labels))
        rows.append(row)
    return _maybe_headless(headers, rows, parsed)


def _cm_table(ctx: Context, cms: list[ConfigMap], parsed: Parsed, all_ns: bool) -> str:
    now = ctx.world.now
    headers = (["NAMESPACE"] if all_ns else []) + ["NAME", "DATA", "AGE"]
    rows = [
        ([c.namespace] if all_ns else []) + [c.name, str(len(c.data)), format_age(now - c.created)]
        for c in cms
    ]
    return _maybe_headless(headers, rows, parsed)


def _policy_table(ctx: Context, policies: list[ClusterPolicy], parsed: Parsed, _a: bool) -> str:
    now = ctx.world.now
    rows = [[p.name, p.state, format_age(now - p.created)] for p in policies]
    return _maybe_headless(["NAME", "STATUS", "AGE"], rows, parsed)


def _event_table(ctx: Context, events: list[Event], parsed: Parsed, all_ns: bool) -> str:
    now = ctx.world.now
    headers = (["NAMESPACE"] if all_ns else []) + [
        "LAST SEEN",
        "TYPE",
        "REASON",
        "OBJECT",
        "MESSAGE",
    ]
    rows = [
        ([e.namespace] if all_ns else [])
        + [
            format_age(now - e.last_seen),
            e.type,
            e.reason,
            f"{e.kind.lower()}/{e.name}",
            e.message,
        ]
        for e in events
    ]
    return _maybe_headless(headers, rows, parsed)


def _ns_table(ctx: Context, nss: list[_Namespace], parsed: Parsed, _a: bool) -> str:
    now = ctx.world.now
    ages = {}
    for ns in nss:
        if ns.name.startswith("runai-"):
            project = next(
                (p for p in ctx.world.state.runai.projects if f"runai-{p.name}" == ns.name), None
            )
            ages[ns.name] = format_age(now - (project.created if project else 0))
        else:
            ages[ns.name] = "31d"
    rows = [[n.name, "Active", ages[n.name]] for n in nss]
    return _maybe_headless(["NAME", "STATUS", "AGE"], rows, parsed)


_TABLES: dict[str, Callable[[Context, Any, Parsed, bool], str]] = {
    "nodes": _node_table,
    "pods": _pod_table,
    "configmaps": _cm_table,
    "clusterpolicies.nvidia.com": _policy_table,
    "events": _event_table,
    "namespaces": _ns_table,
}


# ---------------------------------------------------------------------------- describe


def _describe(ctx: Context, parsed: Parsed) -> Output:
    canon, names = _split_targets(parsed.positionals)
    namespace = _namespace(parsed)
    if canon not in ("nodes", "pods", "configmaps", "clusterpolicies.nvidia.com"):
        raise KubectlError(f"error: describe is not available for {canon} in this lab")
    objs, errors = _objects(
        ctx, canon, namespace if RESOURCE_TYPES[canon][1] else None, names, parsed
    )
    if not objs and not errors:
        if RESOURCE_TYPES[canon][1]:
            return Output(f"No resources found in {namespace} namespace.")
        return Output("No resources found")
    texts = []
    for obj in objs:
        if isinstance(obj, Node):
            texts.append(describe_node(ctx, obj))
        elif isinstance(obj, Pod):
            texts.append(describe_pod(ctx, obj))
        elif isinstance(obj, ConfigMap):
            texts.append(_describe_cm(obj))
        else:
            texts.append(_describe_policy(obj))
    return _with_errors("\n\n".join(texts), errors)


def _events_section(ctx: Context, kind: str, name: str, namespace: str) -> list[str]:
    now = ctx.world.now
    events = [
        e
        for e in ctx.world.backend.list_events()
        if e.kind == kind and e.name == name and (kind == "Node" or e.namespace == namespace)
    ]
    if not events:
        return ["Events:                <none>"]
    rows = []
    for e in sorted(events, key=lambda e: e.first_seen):
        age = format_age(now - e.last_seen)
        if e.count > 1:
            age = f"{age} (x{e.count} over {format_age(e.last_seen - e.first_seen + 10)})"
        rows.append([e.type, e.reason, age, e.source, e.message])
    table = kube_table(["Type", "Reason", "Age", "From", "Message"], rows)
    lines = table.split("\n")
    dash = kube_table(
        ["Type", "Reason", "Age", "From", "Message"],
        [["----", "------", "----", "----", "-------"], *rows],
    ).split("\n")[1]
    return ["Events:", "  " + lines[0], "  " + dash, *["  " + line for line in lines[1:]]]


def describe_node(ctx: Context, node: Node) -> str:
    world = ctx.world
    now = world.now
    labels = sorted(node.labels.items())
    lines = [f"Name:               {node.name}", f"Roles:              {node.roles}"]
    label_lines = [f"{k}={v}" for k, v in labels] or ["<none>"]
    lines.append(f"Labels:             {label_lines[0]}")
    lines += [f"                    {entry}" for entry in label_lines[1:]]
    annotations = [f"{k}: {v}" for k, v in sorted(node.annotations.items())] or ["<none>"]
    lines.append(f"Annotations:        {annotations[0]}")
    lines += [f"                    {entry}" for entry in annotations[1:]]
    created = sim_datetime(node.created).strftime("%a, %d %b %Y %H:%M:%S +0000")
    lines.append(f"CreationTimestamp:  {created}")
    taint = "node.kubernetes.io/unschedulable:NoSchedule" if node.unschedulable else "<none>"
    lines.append(f"Taints:             {taint}")
    lines.append(f"Unschedulable:      {'true' if node.unschedulable else 'false'}")
    lines += [
        "Conditions:",
        "  Type             Status  Reason                       Message",
        "  ----             ------  ------                       -------",
        "  MemoryPressure   False   KubeletHasSufficientMemory   kubelet has sufficient memory "
        "available",
        "  DiskPressure     False   KubeletHasNoDiskPressure     kubelet has no disk pressure",
        "  PIDPressure      False   KubeletHasSufficientPID      kubelet has sufficient PID "
        "available",
        "  Ready            True    KubeletReady                 kubelet is posting ready status",
        "Addresses:",
        f"  InternalIP:  {node.internal_ip}",
        f"  Hostname:    {node.name}",
        "Capacity:",
        *kv_block(_resource_pairs(node.capacity), indent=2),
        "Allocatable:",
        *kv_block(_resource_pairs(node.allocatable), indent=2),
        "System Info:",
        f"  Kernel Version:             {node.kernel_version}",
        f"  OS Image:                   {node.os_image}",
        "  Operating System:           linux",
        "  Architecture:               amd64",
        f"  Container Runtime Version:  {node.container_runtime}",
        f"  Kubelet Version:            {node.kubelet_version}",
        "PodCIDR:                      10.244.0.0/24",
    ]
    pods = [
        p
        for p in world.backend.list_pods()
        if p.node_name == node.name and p.phase not in ("Succeeded", "Failed")
    ]
    lines.append(f"Non-terminated Pods:          ({len(pods)} in total)")
    rows = []
    for p in pods:
        rows.append(
            [
                p.namespace,
                p.name,
                "0 (0%)",
                "0 (0%)",
                "0 (0%)",
                "0 (0%)",
                format_age(now - p.created),
            ]
        )
    pod_headers = [
        "Namespace",
        "Name",
        "CPU Requests",
        "CPU Limits",
        "Memory Requests",
        "Memory Limits",
        "Age",
    ]
    table = kube_table(pod_headers, [["-" * len(h) for h in pod_headers], *rows]).split("\n")
    lines += ["  " + t for t in table]
    lines += [
        "Allocated resources:",
        "  (Total limits may be over 100 percent, i.e., overcommitted.)",
    ]
    used = world.gpu_usage(node.name)
    alloc_rows = [["cpu", "0 (0%)", "0 (0%)"], ["memory", "0 (0%)", "0 (0%)"]]
    for key in sorted(k for k in node.allocatable if k.startswith("nvidia.com/")):
        amount = used.get(key, 0.0)
        text = str(int(amount)) if amount == int(amount) else f"{amount:g}"
        alloc_rows.append([key, text, text])
    table = kube_table(
        ["Resource", "Requests", "Limits"], [["--------", "--------", "------"], *alloc_rows]
    ).split("\n")
    lines += ["  " + t for t in table]
    lines += _events_section(ctx, "Node", node.name, "")
    return "\n".join(lines)


def _resource_pairs(resources: dict[str, str]) -> list[tuple[str, str]]:
    order = ["cpu", "ephemeral-storage", "hugepages-1Gi", "hugepages-2Mi", "memory"]
    keys = [k for k in order if k in resources]
    keys += sorted(k for k in resources if k.startswith("nvidia.com/"))
    keys += [k for k in sorted(resources) if k not in keys]
    # kubectl prints pods last.
    if "pods" in keys:
        keys.remove("pods")
        keys.append("pods")
    return [(k, resources[k]) for k in keys]


def describe_pod(ctx: Context, pod: Pod) -> str:
    node = ctx.world.backend.get_node(pod.node_name) if pod.node_name else None
    start = (
        sim_datetime(pod.started).strftime("%a, %d %b %Y %H:%M:%S +0000")
        if pod.started is not None
        else None
    )
    lines = [
        f"Name:             {pod.name}",
        f"Namespace:        {pod.namespace}",
        f"Priority:         {pod.priority}",
    ]
    if pod.priority_class:
        lines.append(f"Priority Class Name:  {pod.priority_class}")
    lines += [
        f"Service Account:  {pod.service_account}",
        f"Node:             {f'{node.name}/{node.internal_ip}' if node else '<none>'}",
    ]
    if start:
        lines.append(f"Start Time:       {start}")
    label_lines = [f"{k}={v}" for k, v in sorted(pod.labels.items())] or ["<none>"]
    lines.append(f"Labels:           {label_lines[0]}")
    lines += [f"                  {entry}" for entry in label_lines[1:]]
    lines.append(f"Status:           {pod.phase}")
    lines.append(f"IP:               {pod.ip or ''}".rstrip())
    if pod.owner_kind and pod.owner_kind != "RunaiWorkload":
        lines.append(f"Controlled By:    {pod.owner_kind}/{pod.owner_name}")
    lines.append("Containers:")
    for c in pod.containers:
        lines.append(f"  {c.name}:")
        lines.append(f"    Image:          {c.image}")
        if c.command:
            lines.append("    Command:")
            lines += [f"      {part}" for part in c.command]
        if pod.reason == "CrashLoopBackOff":
            lines += [
                "    State:          Waiting",
                "      Reason:       CrashLoopBackOff",
                "    Last State:     Terminated",
                "      Reason:       Error",
                "      Exit Code:    1",
            ]
        elif pod.phase == "Running":
            lines += ["    State:          Running", f"      Started:      {start}"]
        elif pod.phase == "Succeeded":
            lines += ["    State:          Terminated", "      Reason:       Completed"]
        else:
            lines += ["    State:          Waiting", "      Reason:       ContainerCreating"]
        lines.append(f"    Ready:          {'True' if pod.ready_count else 'False'}")
        lines.append(f"    Restart Count:  {pod.restarts}")
        if c.limits:
            lines.append("    Limits:")
            lines += kv_block(list(c.limits.items()), indent=6)
        if c.requests:
            lines.append("    Requests:")
            lines += kv_block(list(c.requests.items()), indent=6)
    lines.append("Conditions:")
    lines.append("  Type              Status")
    scheduled = "True" if pod.node_name else "False"
    ready = "True" if pod.ready_count else "False"
    lines += [
        f"  PodScheduled      {scheduled}",
        f"  Initialized       {scheduled}",
        f"  Ready             {ready}",
        f"  ContainersReady   {ready}",
    ]
    if pod.node_selector:
        pairs = [f"{k}={v}" for k, v in sorted(pod.node_selector.items())]
        lines.append(f"Node-Selectors:   {pairs[0]}")
        lines += [f"                  {p}" for p in pairs[1:]]
    else:
        lines.append("Node-Selectors:   <none>")
    lines.append("Tolerations:      node.kubernetes.io/not-ready:NoExecute op=Exists for 300s")
    lines.append("                  node.kubernetes.io/unreachable:NoExecute op=Exists for 300s")
    lines += _events_section(ctx, "Pod", pod.name, pod.namespace)
    return "\n".join(lines)


def _describe_cm(cm: ConfigMap) -> str:
    lines = [f"Name:         {cm.name}", f"Namespace:    {cm.namespace}"]
    labels = [f"{k}={v}" for k, v in sorted(cm.labels.items())] or ["<none>"]
    lines.append(f"Labels:       {labels[0]}")
    lines += [f"              {entry}" for entry in labels[1:]]
    lines += ["Annotations:  <none>", "", "Data", "===="]
    for key, value in cm.data.items():
        lines += [f"{key}:", "----", value.rstrip("\n"), ""]
    lines += ["", "BinaryData", "====", "", "Events:  <none>"]
    return "\n".join(lines)


def _describe_policy(policy: ClusterPolicy) -> str:
    body = manifests.to_yaml(manifests.cluster_policy_manifest(policy)).rstrip("\n")
    return f"Name:         {policy.name}\nNamespace:\n{body}"


# ---------------------------------------------------------------------------- label


def _label(ctx: Context, parsed: Parsed) -> Output:
    positionals = parsed.positionals
    if not positionals:
        raise KubectlError(
            "error: resource(s) were provided, but no name was specified\n" + _see("label")
        )
    if "/" in positionals[0]:
        kind_word, _, name = positionals[0].partition("/")
        canon = _resolve_type(kind_word)
        names = [name]
        updates = positionals[1:]
    else:
        canon = _resolve_type(positionals[0])
        names = [p for p in positionals[1:] if "=" not in p and not p.endswith("-")]
        updates = [p for p in positionals[1:] if "=" in p or p.endswith("-")]
    if canon not in ("nodes", "pods"):
        raise KubectlError(f"error: labels on {canon} are not writable in this lab")
    if not names:
        raise KubectlError("error: resource(s) were provided, but no name was specified")
    if not updates:
        raise KubectlError("error: at least one label update is required")
    changes: dict[str, str | None] = {}
    for update in updates:
        if update.endswith("-") and "=" not in update:
            changes[update[:-1]] = None
            continue
        key, _, value = update.partition("=")
        if not _valid_label_key(key):
            raise KubectlError(f"error: invalid label spec: {update}")
        if not _valid_label_value(value):
            raise KubectlError(
                f'error: invalid label value: "{update}": a valid label must be an empty string '
                "or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            )
        changes[key] = value
    backend = ctx.world.backend
    out: list[str] = []
    code = 0
    for name in names:
        labels: dict[str, str] | None
        if canon == "nodes":
            node = backend.get_node(name)
            labels = node.labels if node else None
        else:
            pod = backend.get_pod(_namespace(parsed), name)
            labels = pod.labels if pod else None
        if labels is None:
            out.append(_not_found(canon, name))
            code = 1
            continue
        if not parsed.has("overwrite"):
            clash = next((k for k, v in changes.items() if v is not None and k in labels), None)
            if clash is not None:
                out.append(
                    f"error: '{clash}' already has a value ({labels[clash]}), "
                    "and --overwrite is false"
                )
                code = 1
                continue
        effective = {
            k: v
            for k, v in changes.items()
            if (labels.get(k) != v if v is not None else k in labels)
        }
        for k, v in changes.items():
            if v is None and k not in labels:
                out.append(f'label "{k}" not found.')
        singular = _singular(canon)
        if not effective:
            out.append(f"{singular}/{name} not labeled")
            continue
        if canon == "nodes":
            backend.set_node_labels(name, effective)
        else:
            backend.set_pod_labels(_namespace(parsed), name, effective)
        out.append(f"{singular}/{name} labeled")
    return Output("\n".join(out), code)


def _valid_label_key(key: str) -> bool:
    if not key:
        return False
    prefix, sep, name = key.rpartition("/")
    if sep and (not prefix or len(prefix) > 253):
        return False
    return _valid_label_value(name) and bool(name)


def _valid_label_value(value: str) -> bool:
    if len(value) > 63:
        return False
    if not value:
        return True
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
    return all(ch in allowed for ch in value) and value[0].isalnum() and value[-1].isalnum()


# ---------------------------------------------------------------------------- cordon, drain


def _node_names(ctx: Context, parsed: Parsed, sub: str) -> list[Node]:
    if not parsed.positionals:
        raise KubectlError(f"error: USAGE: {sub} NODE [flags]\n{_see(sub)}")
    nodes = []
    for word in parsed.positionals:
        name = word.partition("/")[2] if word.startswith(("node/", "nodes/")) else word
        node = ctx.world.backend.get_node(name)
        if node is None:
            raise KubectlError(_not_found("nodes", name))
        nodes.append(node)
    return nodes


def _set_schedulable(ctx: Context, parsed: Parsed, verb: str, unschedulable: bool) -> Output:
    """`kubectl cordon` and `uncordon`: the same command with the flag the other way."""
    out = []
    for node in _node_names(ctx, parsed, verb):
        if node.unschedulable == unschedulable:
            out.append(f"node/{node.name} already {verb}ed")
        else:
            ctx.world.backend.set_unschedulable(node.name, unschedulable)
            out.append(f"node/{node.name} {verb}ed")
    return Output("\n".join(out))


def _cordon(ctx: Context, parsed: Parsed) -> Output:
    return _set_schedulable(ctx, parsed, "cordon", True)


def _uncordon(ctx: Context, parsed: Parsed) -> Output:
    return _set_schedulable(ctx, parsed, "uncordon", False)


def _drain(ctx: Context, parsed: Parsed) -> Output:
    backend = ctx.world.backend
    out: list[str] = []
    code = 0
    for node in _node_names(ctx, parsed, "drain"):
        if node.unschedulable:
            out.append(f"node/{node.name} already cordoned")
        else:
            backend.set_unschedulable(node.name, True)
            out.append(f"node/{node.name} cordoned")
        pods = [p for p in backend.list_pods() if p.node_name == node.name]
        daemon = [p for p in pods if p.owner_kind == "DaemonSet"]
        bare = [p for p in pods if not p.owner_kind]
        others = [p for p in pods if p.owner_kind and p.owner_kind != "DaemonSet"]
        problems = []
        if daemon and not parsed.has("ignore-daemonsets"):
            problems.append(
                "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): "
                + ", ".join(f"{p.namespace}/{p.name}" for p in daemon)
            )
        if bare and not parsed.has("force"):
            problems.append(
                "cannot delete Pods that declare no controller (use --force to override): "
                + ", ".join(f"{p.namespace}/{p.name}" for p in bare)
            )
        if problems:
            out.append(
                f'error: unable to drain node "{node.name}" due to error: '
                + ", ".join(problems)
                + ", continuing command..."
            )
            out.append("There are pending nodes to be drained:")
            out.append(f" {node.name}")
            out += problems
            code = 1
            continue
        warnings = []
        if daemon:
            warnings.append(
                "ignoring DaemonSet-managed Pods: "
                + ", ".join(f"{p.namespace}/{p.name}" for p in daemon)
            )
        if bare:
            warnings.append(
                "deleting Pods that declare no controller: "
                + ", ".join(f"{p.namespace}/{p.name}" for p in bare)
            )
        if warnings:
            out.append("Warning: " + "; ".join(warnings))
        victims = [*bare, *others]
        for p in victims:
            out.append(f"evicting pod {p.namespace}/{p.name}")
        for p in victims:
            backend.evict_pod(p.namespace, p.name)
            out.append(f"pod/{p.name} evicted")
        out.append(f"node/{node.name} drained")
    return Output("\n".join(out), code)


# ---------------------------------------------------------------------------- logs, exec


def _logs(ctx: Context, parsed: Parsed) -> Output:
    namespace = _namespace(parsed)
    backend = ctx.world.backend
    selector = parsed.value("selector")
    if selector:
        pods = [p for p in backend.list_pods(namespace) if _selector_matches(p.labels, selector)]
        if not pods:
            return Output("No resources found in " + namespace + " namespace.")
    else:
        if not parsed.positionals:
            raise KubectlError(
                "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\n"
                "POD or TYPE/NAME is a required argument for the logs command\n" + _see("logs")
            )
        word = parsed.positionals[0]
        name = word.partition("/")[2] if word.startswith(("pod/", "pods/")) else word
        pods = [_find_pod(ctx, namespace, name)]
    lines: list[str] = []
    for pod in pods:
        container = parsed.value("container")
        names = [c.name for c in pod.containers]
        if container and container not in names:
            raise KubectlError(f"error: container {container} is not valid for pod {pod.name}")
        if pod.phase == "Pending" and not pod.started:
            reason = "ContainerCreating" if pod.node_name else "Pending"
            raise KubectlError(
                f'Error from server (BadRequest): container "{names[0] if names else pod.name}" '
                f'in pod "{pod.name}" is waiting to start: {reason}'
            )
        lines += backend.pod_logs(pod.namespace, pod.name)
    tail = parsed.value("tail")
    if tail is not None:
        try:
            count = int(tail)
        except ValueError:
            raise KubectlError(
                f'error: invalid argument "{tail}" for "--tail" flag: strconv.ParseInt: '
                f'parsing "{tail}": invalid syntax\n{_see("logs")}'
            ) from None
        if count >= 0:
            lines = lines[-count:] if count else []
    return Output("\n".join(lines))


def _exec(ctx: Context, parsed: Parsed) -> Output:
    namespace = _namespace(parsed)
    if parsed.after_dashdash is None:
        if len(parsed.positionals) > 1:
            raise KubectlError(
                "error: exec [POD] [COMMAND] is not supported anymore. "
                "Use exec [POD] -- [COMMAND] instead"
            )
        raise KubectlError(
            "error: you must specify at least one command for the container\n" + _see("exec")
        )
    if not parsed.positionals:
        raise KubectlError(
            "error: expected 'exec (POD | TYPE/NAME) [-c CONTAINER] [flags] -- COMMAND [args...]'"
            ".\nPOD or TYPE/NAME is a required argument for the exec command\n" + _see("exec")
        )
    word = parsed.positionals[0]
    name = word.partition("/")[2] if word.startswith(("pod/", "pods/")) else word
    pod = _find_pod(ctx, namespace, name)
    command = parsed.after_dashdash
    if not command:
        raise KubectlError("error: you must specify at least one command for the container")
    if pod.phase != "Running":
        raise KubectlError(
            f"error: unable to upgrade connection: container not found "
            f'("{pod.containers[0].name if pod.containers else pod.name}")'
        )
    program = command[0]
    if program in ("bash", "sh", "/bin/bash", "/bin/sh"):
        return Output.error(
            "Unable to use a TTY - input is not a terminal or the right kind of file\n"
            "error: interactive shells are not available in this lab terminal; "
            "run one command after --, e.g. -- nvidia-smi -L"
        )
    if program != "nvidia-smi":
        return Output.error(
            "error: Internal error occurred: error executing command in container: failed to "
            "exec in container: failed to start exec: OCI runtime exec failed: exec failed: "
            "unable to start container process: exec: "
            f'"{program}": executable file not found in $PATH: unknown',
            126,
        )
    gpus = ctx.world.backend.node_gpus(pod.node_name or "")
    if pod.namespace != GPU_OPERATOR_NS:
        wanted = int(sum(pod.gpu_resources().values()))
        gpus = gpus[:wanted]
    return nvidia_smi.run(gpus, command[1:])


# ---------------------------------------------------------------------------- apply, create


def _read_sources(ctx: Context, parsed: Parsed, sub: str) -> list[tuple[str, str]]:
    files = parsed.all("filename")
    if not files:
        raise KubectlError(
            "error: must specify one of -f and -k\n\n" + _see(sub)
            if sub != "delete"
            else "error: resource(s) were provided, but no name was specified"
        )
    sources = []
    for f in files:
        if f == "-":
            sources.append(("STDIN", ctx.stdin))
            continue
        name = f.removeprefix("./").removeprefix("~/")
        if name not in ctx.world.state.files:
            raise KubectlError(f'error: the path "{f}" does not exist')
        sources.append((f, ctx.world.state.files[name]))
    return sources


def _apply_like(ctx: Context, parsed: Parsed, create: bool) -> Output:
    sub = "create" if create else "apply"
    sources = _read_sources(ctx, parsed, sub)
    backend = ctx.world.backend
    out: list[str] = []
    code = 0
    for filename, text in sources:
        try:
            docs = manifests.load_documents(text, filename)
        except manifests.ManifestError as exc:
            out.append(str(exc))
            code = 1
            continue
        if not docs:
            out.append("error: no objects passed to " + sub)
            code = 1
        for doc in docs:
            try:
                out.append(_apply_doc(ctx, doc, filename, parsed, create))
            except (manifests.ManifestError, KubectlError) as exc:
                out.append(str(exc))
                code = 1
    del backend
    return Output("\n".join(out), code)


def _apply_doc(
    ctx: Context, doc: dict[str, Any], filename: str, parsed: Parsed, create: bool
) -> str:
    backend = ctx.world.backend
    now = ctx.world.now
    kind = doc.get("kind")
    namespace = parsed.value("namespace") or DEFAULT_NS
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    doc_ns = meta.get("namespace")
    if parsed.value("namespace") and doc_ns and doc_ns != parsed.value("namespace"):
        raise KubectlError(
            f'error: the namespace from the provided object "{doc_ns}" does not match the '
            f"namespace \"{parsed.value('namespace')}\". You must pass '--namespace={doc_ns}' "
            "to perform this operation."
        )
    if kind == "Pod":
        pod = manifests.pod_from_manifest(doc, namespace, now, filename)
        if pod.namespace not in backend.list_namespaces():
            raise KubectlError(
                f'Error from server (NotFound): error when creating "{filename}": '
                f'namespaces "{pod.namespace}" not found'
            )
        existing = backend.get_pod(pod.namespace, pod.name)
        if existing is not None:
            if create:
                raise KubectlError(
                    f'Error from server (AlreadyExists): error when creating "{filename}": '
                    f'pods "{pod.name}" already exists'
                )
            if existing.applied_manifest is not None and _spec(existing.applied_manifest) == _spec(
                doc
            ):
                if existing.applied_manifest == doc:
                    return f"pod/{pod.name} unchanged"
                existing.labels = dict(pod.labels)
                existing.applied_manifest = copy.deepcopy(doc)
                return f"pod/{pod.name} configured"
            if _only_image_changed(existing, pod):
                for old, new in zip(existing.containers, pod.containers, strict=True):
                    old.image = new.image
                existing.applied_manifest = copy.deepcopy(doc)
                return f"pod/{pod.name} configured"
            raise KubectlError(
                f'The Pod "{pod.name}" is invalid: spec: Forbidden: pod updates may not change '
                "fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
                "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
                "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it "
                "was previously negative)"
            )
        backend.create_pod(pod)
        return f"pod/{pod.name} created"
    if kind == "ConfigMap":
        cm = manifests.configmap_from_manifest(doc, namespace, now, filename)
        existing_cm = backend.get_configmap(cm.namespace, cm.name)
        if existing_cm is not None:
            if create:
                raise KubectlError(
                    f'Error from server (AlreadyExists): error when creating "{filename}": '
                    f'configmaps "{cm.name}" already exists'
                )
            if existing_cm.data == cm.data and existing_cm.labels == cm.labels:
                return f"configmap/{cm.name} unchanged"
            cm.created = existing_cm.created
            backend.put_configmap(cm)
            return f"configmap/{cm.name} configured"
        if cm.namespace not in backend.list_namespaces():
            raise KubectlError(
                f'Error from server (NotFound): error when creating "{filename}": '
                f'namespaces "{cm.namespace}" not found'
            )
        backend.put_configmap(cm)
        return f"configmap/{cm.name} created"
    if kind == "ClusterPolicy":
        name = str(meta.get("name") or "")
        policy = backend.get_cluster_policy(name)
        spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
        assert isinstance(spec, dict)
        if policy is None:
            raise KubectlError(
                f'Error from server (Forbidden): error when creating "{filename}": only one '
                "ClusterPolicy is allowed; edit cluster-policy instead"
            )
        if create:
            raise KubectlError(
                f'Error from server (AlreadyExists): error when creating "{filename}": '
                f'clusterpolicies.nvidia.com "{name}" already exists'
            )
        _validate_policy(name, spec)
        if policy.spec == spec:
            return f"clusterpolicy.nvidia.com/{name} unchanged"
        backend.set_cluster_policy_spec(name, spec)
        return f"clusterpolicy.nvidia.com/{name} configured"
    name = meta.get("name", "")
    api = doc.get("apiVersion", "")
    raise KubectlError(
        f'error: resource mapping not found for name: "{name}" namespace: "{doc_ns or ""}" '
        f'from "{filename}": no matches for kind "{kind}" in version "{api}"\n'
        "ensure CRDs are installed first"
    )


def _spec(doc: dict[str, Any]) -> Any:
    return doc.get("spec")


def _only_image_changed(old: Pod, new: Pod) -> bool:
    if len(old.containers) != len(new.containers):
        return False
    for a, b in zip(old.containers, new.containers, strict=True):
        if (a.name, a.limits, a.requests, a.command) != (b.name, b.limits, b.requests, b.command):
            return False
    return old.node_selector == new.node_selector and old.scheduler_name == new.scheduler_name


def _apply(ctx: Context, parsed: Parsed) -> Output:
    return _apply_like(ctx, parsed, create=False)


def _create(ctx: Context, parsed: Parsed) -> Output:
    return _apply_like(ctx, parsed, create=True)


# ---------------------------------------------------------------------------- delete


def _delete(ctx: Context, parsed: Parsed) -> Output:
    backend = ctx.world.backend
    namespace = _namespace(parsed)
    targets: list[tuple[str, str, str]] = []  # (canon, namespace, name)
    if parsed.all("filename"):
        for filename, text in _read_sources(ctx, parsed, "delete"):
            try:
                docs = manifests.load_documents(text, filename)
            except manifests.ManifestError as exc:
                raise KubectlError(str(exc)) from None
            for doc in docs:
                meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
                assert isinstance(meta, dict)
                kind = str(doc.get("kind", "")).lower()
                canon = ALIASES.get(kind, kind + "s")
                targets.append(
                    (canon, str(meta.get("namespace") or namespace), str(meta.get("name", "")))
                )
    else:
        if not parsed.positionals:
            raise KubectlError(
                "error: You must provide one or more resources by argument or filename.\n"
                "Example resource specifications include:\n   '-f rsrc.yaml'\n   "
                "'--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"
            )
        canon, names = _split_targets(parsed.positionals)
        selector = parsed.value("selector")
        field_selector = parsed.value("field-selector")
        if not names and (selector or field_selector or parsed.has("all")):
            if canon != "pods":
                raise KubectlError(f"error: deleting {canon} by selector is not allowed here")
            pods = [
                p
                for p in backend.list_pods(namespace)
                if _selector_matches(p.labels, selector) and _field_matches(p, field_selector)
            ]
            if not pods:
                return Output("No resources found")
            names = [p.name for p in pods]
        elif not names:
            raise KubectlError("error: resource(s) were provided, but no name was specified")
        targets = [(canon, namespace, n) for n in names]
    out: list[str] = []
    code = 0
    force = parsed.has("force") and parsed.value("grace-period") == "0"
    if force:
        out.append(
            "Warning: Immediate deletion does not wait for confirmation that the running "
            "resource has been terminated. The resource may continue to run on the cluster "
            "indefinitely."
        )
    for canon, ns, name in targets:
        if canon == "pods":
            if backend.get_pod(ns, name) is None:
                out.append(_not_found("pods", name))
                code = 1
                continue
            backend.delete_pod(ns, name)
            out.append(f'pod "{name}" {"force deleted" if force else "deleted"}')
        elif canon == "configmaps":
            if backend.get_configmap(ns, name) is None:
                out.append(_not_found("configmaps", name))
                code = 1
                continue
            backend.delete_configmap(ns, name)
            out.append(f'configmap "{name}" deleted')
        elif canon in RESOURCE_TYPES:
            plural = canon
            out.append(
                f'Error from server (Forbidden): {plural} "{name}" is forbidden: User "admin" '
                f'cannot delete resource "{plural.split(".")[0]}" in API group '
                f'"{"nvidia.com" if "nvidia" in plural else ""}" at the cluster scope'
            )
            code = 1
        else:
            out.append(f'error: the server doesn\'t have a resource type "{canon}"')
            code = 1
    return Output("\n".join(out), code)


# ---------------------------------------------------------------------------- patch


def _merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = _merge_patch(result.get(key), value)
    return result


def _json_patch(target: Any, ops: Any) -> Any:
    if not isinstance(ops, list):
        raise KubectlError(
            "error: unable to parse the patch as a JSON patch: expected an array of operations"
        )
    doc = copy.deepcopy(target)
    for op in ops:
        if not isinstance(op, dict) or "path" not in op or "op" not in op:
            raise KubectlError("error: invalid JSON patch operation")
        parts = [p.replace("~1", "/").replace("~0", "~") for p in str(op["path"]).split("/")[1:]]
        if not parts:
            raise KubectlError("error: invalid JSON patch path")
        parent = doc
        for part in parts[:-1]:
            if not isinstance(parent, dict) or part not in parent:
                raise KubectlError(
                    f"The request is invalid: the server rejected our request due to an error in "
                    f'our request: doc is missing path: "{op["path"]}"'
                )
            parent = parent[part]
        if not isinstance(parent, dict):
            raise KubectlError("error: JSON patch paths into lists are not supported here")
        last = parts[-1]
        if op["op"] in ("add", "replace"):
            if op["op"] == "replace" and last not in parent:
                raise KubectlError(
                    "The request is invalid: the server rejected our request due to an error in "
                    f"our request: replace operation does not apply: doc is missing key: "
                    f"{op['path']}"
                )
            parent[last] = op.get("value")
        elif op["op"] == "remove":
            if last not in parent:
                raise KubectlError(
                    "The request is invalid: the server rejected our request due to an error in "
                    "our request: remove operation does not apply: doc is missing path: "
                    f'"{op["path"]}"'
                )
            del parent[last]
        else:
            raise KubectlError(f"error: unsupported JSON patch operation {op['op']!r}")
    return doc


def _validate_policy(name: str, spec: Any) -> None:
    value = spec.get("mig", {}).get("strategy") if isinstance(spec.get("mig"), dict) else None
    if value is not None and value not in ("single", "mixed"):
        raise KubectlError(
            f'The ClusterPolicy "{name}" is invalid: spec.mig.strategy: Unsupported value: '
            f'"{value}": supported values: "single", "mixed"'
        )


def _patch(ctx: Context, parsed: Parsed) -> Output:
    canon, names = _split_targets(parsed.positionals)
    if len(names) != 1:
        raise KubectlError(
            "error: resource(s) were provided, but no name was specified"
            if not names
            else "error: patch applies to exactly one resource here"
        )
    name = names[0]
    raw = parsed.value("patch")
    if raw is None:
        raise KubectlError("error: must specify -p to patch\n" + _see("patch"))
    patch_type = parsed.value("type") or "strategic"
    if patch_type not in ("strategic", "merge", "json"):
        raise KubectlError(
            f'error: --type must be one of [json merge strategic], not "{patch_type}"'
        )
    try:
        patch = yaml.safe_load(raw)
    except yaml.YAMLError:
        patch = None
        raise KubectlError(
            f'error: unable to parse "{raw}": yaml: did not find expected node content'
        ) from None
    if patch_type != "json" and not isinstance(patch, dict):
        raise KubectlError(f'error: unable to parse "{raw}": json: cannot unmarshal into object')
    backend = ctx.world.backend
    namespace = _namespace(parsed)

    def apply_patch(current: dict[str, Any]) -> dict[str, Any]:
        result = (
            _json_patch(current, patch) if patch_type == "json" else _merge_patch(current, patch)
        )
        if not isinstance(result, dict):
            raise KubectlError("error: the patch must produce an object")
        return result

    if canon == "clusterpolicies.nvidia.com":
        policy = backend.get_cluster_policy(name)
        if policy is None:
            raise KubectlError(_not_found(canon, name))
        if patch_type == "strategic":
            raise KubectlError(
                "Error from server (UnsupportedMediaType): the body of the request was in an "
                "unknown format - accepted media types include: application/json-patch+json, "
                "application/merge-patch+json, application/apply-patch+yaml"
            )
        current = manifests.cluster_policy_manifest(policy)
        updated = apply_patch(current)
        spec = updated.get("spec") if isinstance(updated.get("spec"), dict) else {}
        assert isinstance(spec, dict)
        _validate_policy(name, spec)
        if spec == policy.spec:
            return Output(f"clusterpolicy.nvidia.com/{name} patched (no change)")
        backend.set_cluster_policy_spec(name, spec)
        return Output(f"clusterpolicy.nvidia.com/{name} patched")
    if canon == "nodes":
        node = backend.get_node(name)
        if node is None:
            raise KubectlError(_not_found(canon, name))
        current = {
            "metadata": {"labels": dict(node.labels)},
            "spec": {"unschedulable": node.unschedulable} if node.unschedulable else {},
        }
        updated = apply_patch(current)
        meta = updated.get("metadata") or {}
        labels = meta.get("labels") if isinstance(meta, dict) else None
        spec = updated.get("spec") or {}
        changed = False
        if isinstance(labels, dict):
            new_labels = {str(k): str(v) for k, v in labels.items()}
            if new_labels != node.labels:
                changes: dict[str, str | None] = {
                    k: None for k in node.labels if k not in new_labels
                }
                changes.update(new_labels)
                backend.set_node_labels(name, changes)
                changed = True
        unsched = bool(spec.get("unschedulable", False)) if isinstance(spec, dict) else False
        if unsched != node.unschedulable:
            backend.set_unschedulable(name, unsched)
            changed = True
        return Output(f"node/{name} patched" + ("" if changed else " (no change)"))
    if canon == "configmaps":
        cm = backend.get_configmap(namespace, name)
        if cm is None:
            raise KubectlError(_not_found(canon, name))
        updated = apply_patch(manifests.configmap_manifest(cm))
        data = updated.get("data") or {}
        if not isinstance(data, dict):
            raise KubectlError("error: data must be a map of strings")
        new_data = {str(k): str(v) for k, v in data.items()}
        if new_data == cm.data:
            return Output(f"configmap/{name} patched (no change)")
        cm.data = new_data
        return Output(f"configmap/{name} patched")
    if canon == "pods":
        pod = _find_pod(ctx, namespace, name)
        current = manifests.pod_manifest(pod, ctx.world.now)
        updated = apply_patch(current)
        if updated.get("spec") != current.get("spec"):
            raise KubectlError(
                f'The Pod "{name}" is invalid: spec: Forbidden: pod updates may not change '
                "fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
                "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
                "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it "
                "was previously negative)"
            )
        meta = updated.get("metadata") or {}
        labels = meta.get("labels") if isinstance(meta, dict) else None
        if isinstance(labels, dict) and labels != pod.labels:
            pod.labels = {str(k): str(v) for k, v in labels.items()}
            return Output(f"pod/{name} patched")
        return Output(f"pod/{name} patched (no change)")
    raise KubectlError(f"error: patching {canon} is not supported in this lab")


def _version(ctx: Context, parsed: Parsed) -> Output:
    text = "Client Version: v1.31.4\nKustomize Version: v5.4.2"
    if not parsed.has("client"):
        text += "\nServer Version: v1.31.4"
    return Output(text)


_HANDLERS: dict[str, Callable[[Context, Parsed], Output]] = {
    "get": _get,
    "describe": _describe,
    "label": _label,
    "cordon": _cordon,
    "uncordon": _uncordon,
    "drain": _drain,
    "logs": _logs,
    "exec": _exec,
    "apply": _apply,
    "create": _create,
    "delete": _delete,
    "patch": _patch,
    "version": _version,
}

_HELP = """kubectl controls the Kubernetes cluster manager.

Commands available in this lab:
  get          Display one or many resources (nodes, pods, configmaps, clusterpolicies, events)
  describe     Show details of a node or pod
  label        Update the labels on a node (--overwrite to change an existing one)
  cordon       Mark node as unschedulable
  uncordon     Mark node as schedulable
  drain        Drain node in preparation for maintenance (--ignore-daemonsets)
  logs         Print the logs for a container in a pod
  exec         Execute a command in a container (-- nvidia-smi -L)
  apply        Apply a configuration to a resource by file name (-f)
  create       Create a resource from a file (-f)
  delete       Delete a pod (or a ConfigMap)
  patch        Update fields of a resource (--type merge -p '{...}')
  version      Print the client and server version information

Usage:
  kubectl [flags] [options]"""


# ---------------------------------------------------------------------------- completion


def complete(ctx: Context, words: list[str], current: str) -> list[str]:
    """Candidates for `current`, given the words typed after `kubectl`."""
    if not words:
        return [s for s in SUBCOMMANDS if s.startswith(current)]
    sub = words[0]
    if sub not in FLAGS:
        return []
    backend = ctx.world.backend
    prev = words[-1] if len(words) > 1 else ""
    namespace = DEFAULT_NS
    for i, w in enumerate(words):
        if w in ("-n", "--namespace") and i + 1 < len(words):
            namespace = words[i + 1]
        elif w.startswith("--namespace="):
            namespace = w.partition("=")[2]
        elif w.startswith("-n") and len(w) > 2 and not w.startswith("--"):
            namespace = w[2:]
    if current.startswith("-n") and len(current) > 2 and not current.startswith("--"):
        return [f"-n{ns}" for ns in backend.list_namespaces() if f"-n{ns}".startswith(current)]
    if prev in ("-n", "--namespace"):
        return _starting(backend.list_namespaces(), current)
    if prev in ("-o", "--output"):
        return _starting(["wide", "yaml", "json", "name", "jsonpath="], current)
    if prev in ("-f", "--filename"):
        return _starting(sorted(ctx.world.state.files), current)
    if prev in ("-L", "--label-columns", "-l", "--selector"):
        return _label_key_candidates(ctx, current, with_values=prev in ("-l", "--selector"))
    if prev == "--type":
        return _starting(["merge", "json", "strategic"], current)
    if current.startswith("-"):
        names = []
        for f in FLAGS[sub]:
            if f.long:
                names.append(f"--{f.long}" + ("=" if f.long == "output" else ""))
            if f.short:
                names.append(f"-{f.short}")
        return sorted(n for n in set(names) if n.startswith(current))
    positionals = _positionals(words[1:], FLAGS[sub])
    if sub in ("cordon", "uncordon", "drain"):
        return _starting([n.name for n in backend.list_nodes()], current)
    if sub in ("logs", "exec"):
        if "--" in words:
            after = words[words.index("--") + 1 :]
            if not after:
                return _starting(["nvidia-smi"], current)
            return _starting(["-L"], current)
        if not positionals:
            return _starting([p.name for p in backend.list_pods(namespace)], current)
        return []
    if sub in ("apply", "create"):
        return []
    if sub == "patch" and not positionals:
        return _starting(
            ["clusterpolicies.nvidia.com/cluster-policy", "nodes", "pods", "configmaps"], current
        )
    if sub in ("get", "describe", "delete", "label", "patch"):
        if not positionals:
            if "/" in current:
                kind_word, _, _ = current.partition("/")
                canon = ALIASES.get(kind_word)
                if canon is None:
                    return []
                return _starting(
                    [f"{kind_word}/{n}" for n in _names(ctx, canon, namespace)], current
                )
            types = ["nodes", "pods", "configmaps", "clusterpolicies.nvidia.com", "events"]
            if sub == "get":
                types.append("namespaces")
            if sub == "label":
                types = ["nodes", "pods"]
            if sub == "delete":
                types = ["pod", "configmap"]
            if sub == "describe":
                types = ["node", "pod", "configmap", "clusterpolicy"]
            return _starting(types, current)
        canon = ALIASES.get(positionals[0])
        if canon is None:
            return []
        if sub == "label" and len(positionals) >= 2:
            return _label_key_candidates(ctx, current, with_values=True)
        return _starting(_names(ctx, canon, namespace), current)
    return []


def _positionals(words: list[str], flags: list[Flag]) -> list[str]:
    takes = {f"--{f.long}" for f in flags if f.takes_value and f.long} | {
        f"-{f.short}" for f in flags if f.takes_value and f.short
    }
    out = []
    skip = False
    for w in words:
        if skip:
            skip = False
            continue
        if w in takes:
            skip = True
            continue
        if w.startswith("-"):
            continue
        out.append(w)
    return out


def _names(ctx: Context, canon: str, namespace: str) -> list[str]:
    backend = ctx.world.backend
    if canon == "nodes":
        return [n.name for n in backend.list_nodes()]
    if canon == "pods":
        return [p.name for p in backend.list_pods(namespace)]
    if canon == "configmaps":
        return [c.name for c in backend.list_configmaps(namespace)]
    if canon == "clusterpolicies.nvidia.com":
        return [c.name for c in backend.list_cluster_policies()]
    if canon == "namespaces":
        return backend.list_namespaces()
    return []


def _label_key_candidates(ctx: Context, current: str, with_values: bool) -> list[str]:
    backend = ctx.world.backend
    keys: set[str] = set()
    for node in backend.list_nodes():
        keys.update(node.labels)
    prefix = ""
    word = current
    if "," in current:
        prefix, _, word = current.rpartition(",")
        prefix += ","
    if with_values and "=" in word:
        key, _, _value = word.partition("=")
        values: set[str] = set()
        if key == mig.CONFIG_LABEL:
            values.update(mig.available_layouts(backend) or NAMED_LAYOUTS)
        for node in backend.list_nodes():
            if key in node.labels:
                values.add(node.labels[key])
        return _starting(sorted(f"{prefix}{key}={v}" for v in values), current)
    candidates = sorted(f"{prefix}{k}" for k in keys)
    if with_values:
        candidates = [c + "=" for c in candidates]
    return _starting(candidates, current)


def _starting(options: list[str], current: str) -> list[str]:
    return [o for o in options if o.startswith(current)]


__all__ = ["complete", "describe_node", "describe_pod", "gpu_operator", "parse_quantity", "run"]
