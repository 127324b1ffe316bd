"""kubectl wait --for=condition=TYPE[=VALUE] | --for=delete | --for=jsonpath='{...}'=VALUE.

The lab's cluster only moves when a command changes it, so a condition that does not hold now
will not hold before the timeout either: wait answers at once, met or timed out, as kubectl
answers when the timeout runs out (the lab does not sleep through it)."""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ApiError, Obj
from simulators.lab import jsonpath
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    KubectlError,
    error_text,
    kind_name,
    namespace,
    read_list,
    targets,
)
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("for", long="for", takes_value=True),
    Flag("timeout", long="timeout", takes_value=True),
    Flag("all", long="all"),
    Flag("all-namespaces", long="all-namespaces", short="A"),
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("field-selector", long="field-selector", takes_value=True),
    Flag("output", long="output", short="o", takes_value=True),
]


def _condition(obj: Obj, kind: str, want: str) -> bool:
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if str(cond.get("type", "")).lower() == kind.lower():
            return str(cond.get("status", "")).lower() == want.lower()
    return False


def _jsonpath(obj: Obj, spec: str) -> bool:
    path, sep, want = spec.rpartition("=")
    if not sep:
        path, want = spec, ""
    path = path.strip()
    if path.startswith("{") and path.endswith("}"):
        path = path[1:-1]
    try:
        values = jsonpath.find(path, obj)
    except jsonpath.JsonPathError:
        return False
    if not sep:
        return bool(values)
    return any(_text(v) == want for v in values)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def run(ctx: Context, parsed: Parsed) -> Output:
    spec = parsed.value("for") or ""
    mode, _, rest = spec.partition("=")
    if mode not in ("condition", "delete", "jsonpath", "create"):
        raise KubectlError(
            f'error: unrecognized condition: "{spec}"'
            if spec
            else "error: unrecognized condition: []"
        )
    cluster = ctx.api
    ns = None if parsed.has("all-namespaces") else namespace(parsed)
    objs: list[tuple[Any, Obj | None, str]] = []
    for group in targets(cluster, parsed.positionals, verb="wait"):
        scope = ns if group.info.namespaced else None
        if group.names:
            for name in group.names:
                try:
                    objs.append((group.info, cluster.get(group.info.key, name, scope), name))
                except ApiError as exc:
                    if mode != "delete":
                        return Output(error_text(exc), 1)
                    objs.append((group.info, None, name))
        else:
            if not (parsed.has("all") or parsed.value("selector")):
                raise KubectlError("error: resource(s) were provided, but no name was specified")
            for item in read_list(
                cluster,
                group.info.key,
                scope,
                label_selector=parsed.value("selector") or "",
                field_selector=parsed.value("field-selector") or "",
            ):
                objs.append((group.info, item, item["metadata"]["name"]))
    if not objs:
        return Output("error: no matching resources found", 1)
    out: list[str] = []
    for info, obj, name in objs:
        label = f"{kind_name(info)}/{name}"
        if mode == "delete":
            if obj is None:
                continue
            met = False
        elif mode == "condition":
            kind, _, want = rest.partition("=")
            met = obj is not None and _condition(obj, kind, want or "true")
        elif mode == "create":
            met = obj is not None
        else:
            met = obj is not None and _jsonpath(obj, rest)
        if not met:
            return Output(
                "\n".join(
                    [*out, f"error: timed out waiting for the condition on {info.plural}/{name}"]
                ),
                1,
            )
        out.append(f"{label} condition met")
    return Output("\n".join(out))
