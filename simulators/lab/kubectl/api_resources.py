"""kubectl api-resources: discovery, sorted by group then name."""

from __future__ import annotations

from simulators.cluster.api import ResourceInfo
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON, KubectlError
from simulators.lab.kubectl.tabwriter import table
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("output", long="output", short="o", takes_value=True),
    Flag("namespaced", long="namespaced", takes_value=True),
    Flag("api-group", long="api-group", takes_value=True),
    Flag("no-headers", long="no-headers"),
    Flag("verbs", long="verbs", takes_value=True),
    Flag("sort-by", long="sort-by", takes_value=True),
    Flag("categories", long="categories", takes_value=True),
    Flag("cached", long="cached"),
]

BINDING = ResourceInfo("", "v1", "Binding", "bindings", "binding", verbs=("create",))


def run(ctx: Context, parsed: Parsed) -> Output:
    output = parsed.value("output") or ""
    if output not in ("", "wide", "name"):
        raise KubectlError(f"error: --output {output} is not available")
    infos = [i for i in ctx.api.resources() if i.verbs]
    if not any(i.plural == "bindings" for i in infos):
        # Discovery lists pods' binding as a resource of its own; `get` never offers it.
        infos.append(BINDING)
    group = parsed.value("api-group")
    if group is not None:
        infos = [i for i in infos if i.group == group]
    namespaced = parsed.value("namespaced")
    if namespaced is not None:
        infos = [i for i in infos if i.namespaced == (namespaced in ("true", "1", "True"))]
    verbs = [v for value in parsed.all("verbs") for v in value.split(",") if v]
    infos = [i for i in infos if all(v in i.verbs for v in verbs)]
    sort_by = parsed.value("sort-by") or ""
    if sort_by == "name":
        infos.sort(key=lambda i: i.plural)
    elif sort_by == "kind":
        infos.sort(key=lambda i: (i.kind, i.plural))
    else:
        infos.sort(key=lambda i: (i.group, i.plural))
    if output == "name":
        return Output("\n".join(f"{i.plural}.{i.group}" if i.group else i.plural for i in infos))
    rows: list[list[str]] = []
    if not parsed.has("no-headers"):
        head = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
        rows.append(head + (["VERBS", "CATEGORIES"] if output == "wide" else []))
    for i in infos:
        row = [
            i.plural,
            ",".join(i.short_names),
            i.api_version,
            "true" if i.namespaced else "false",
            i.kind,
        ]
        if output == "wide":
            row += [",".join(i.verbs), ",".join(i.categories)]
        rows.append(row)
    return Output(table(rows))


VERSIONS_FLAGS = list(COMMON)


def run_versions(ctx: Context, parsed: Parsed) -> Output:
    """kubectl api-versions: every group/version discovery lists, sorted as strings."""
    if parsed.positionals:
        raise KubectlError(
            f'error: unknown command "{parsed.positionals[0]}" for "kubectl api-versions"'
        )
    found = {f"{i.group}/{i.version}" if i.group else i.version for i in ctx.api.resources()}
    return Output("\n".join(sorted(found)))
