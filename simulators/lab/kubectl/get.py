"""kubectl get: server-side tables, -o wide|yaml|json|name|jsonpath=|custom-columns=, -L,
--show-labels, --sort-by, -l, --field-selector, --no-headers, -A, several types at once."""

from __future__ import annotations

import json

from simulators.cluster import printers
from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo
from simulators.cluster.discovery import KUBERNETES_VERSION
from simulators.cluster.request import scale_of
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    NO_SUBRESOURCE,
    KubectlError,
    Target,
    error_text,
    kind_name,
    list_error,
    meta,
    namespace,
    read_list,
    targets,
)
from simulators.lab.kubectl.filenames import (
    FILE_FLAGS,
    KUSTOMIZE,
    file_targets,
    kustomize_error,
    single_file,
)
from simulators.lab.kubectl.kyaml import to_kyaml
from simulators.lab.kubectl.printing import (
    OUTPUT_ERROR,
    PRINT_FLAGS,
    TableOptions,
    custom_columns,
    evaluate_template,
    list_doc,
    output_format,
    render,
    sort_objects,
    table_rows,
    to_json,
    to_yaml,
)
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("all-namespaces", long="all-namespaces", short="A"),
    *PRINT_FLAGS,
    Flag("label-columns", long="label-columns", short="L", takes_value=True),
    Flag("show-labels", long="show-labels"),
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("field-selector", long="field-selector", takes_value=True),
    Flag("sort-by", long="sort-by", takes_value=True),
    Flag("watch", long="watch", short="w"),
    Flag("watch-only", long="watch-only"),
    Flag("output-watch-events", long="output-watch-events"),
    Flag("no-headers", long="no-headers"),
    Flag("ignore-not-found", long="ignore-not-found"),
    Flag("show-kind", long="show-kind"),
    Flag("chunk-size", long="chunk-size", takes_value=True),
    Flag("raw", long="raw", takes_value=True),
    Flag("subresource", long="subresource", takes_value=True),
    *FILE_FLAGS,
    KUSTOMIZE,
]


OUTPUTS = ("", "wide", "yaml", "kyaml", "json", "name")
TEMPLATED = ("jsonpath=", "jsonpath-as-json=", "custom-columns=", "go-template=")


def check_output(output: str) -> None:
    if output in OUTPUTS or output.startswith(TEMPLATED):
        return
    if output in ("jsonpath", "custom-columns", "jsonpath-as-json", "go-template"):
        return
    raise KubectlError(OUTPUT_ERROR.format(output))


def fetch(
    cluster: ClusterAPI, target: Target, ns: str | None, parsed: Parsed, errors: list[str]
) -> list[Obj]:
    """The objects one target names (or lists), errors collected as kubectl prints them."""
    resource = target.info.key
    scope = target.scope(ns)
    selector = parsed.value("selector") or ""
    fields = parsed.value("field-selector") or ""
    sub = parsed.value("subresource")
    if target.names:
        objs = []
        for name in target.names:
            if sub is not None and sub not in target.info.subresources:
                errors.append(NO_SUBRESOURCE)
                continue
            try:
                obj = cluster.get(resource, name, scope)
                # A status subresource is the object; a scale one its autoscaling/v1 Scale.
                objs.append(scale_of(obj) if sub == "scale" else obj)
            except ApiError as exc:
                if not (exc.reason == "NotFound" and parsed.has("ignore-not-found")):
                    errors.append(error_text(exc))
        return objs
    try:
        return read_list(cluster, resource, scope, label_selector=selector, field_selector=fields)
    except ApiError as exc:
        errors.append(list_error(target.info, exc, selector, fields))
        return []


def raw(cluster: ClusterAPI, path: str) -> Output:
    """`kubectl get --raw PATH`: the body the API server sends for a GET of PATH."""
    parts = [p for p in path.split("?", 1)[0].split("/") if p]
    not_found = Output.error(
        "Error from server (NotFound): the server could not find the requested resource"
    )
    if not path.startswith("/"):
        return Output.error(f'error: parse "{path}": invalid URI for request')
    if parts == ["version"]:
        return Output(json.dumps(KUBERNETES_VERSION, separators=(",", ":")))
    if parts in (["healthz"], ["livez"], ["readyz"]):
        return Output("ok")
    if parts[:1] == ["api"] and len(parts) >= 3:
        group, version, rest = "", parts[1], parts[2:]
    elif parts[:1] == ["apis"] and len(parts) >= 4:
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return not_found
    ns: str | None = None
    if rest[0] == "namespaces" and len(rest) >= 3:
        ns, rest = rest[1], rest[2:]
    if len(rest) > 2:
        return not_found
    info = next(
        (
            i
            for i in cluster.resources()
            if i.group == group and i.version == version and i.plural == rest[0]
        ),
        None,
    )
    if info is None:
        return not_found
    try:
        if len(rest) == 2:
            body = cluster.get(info.key, rest[1], ns if info.namespaced else None)
        else:
            body = cluster.list(info.key, ns)
    except ApiError as exc:
        return Output.error(error_text(exc))
    return Output(json.dumps(body, separators=(",", ":"), ensure_ascii=False))


def printer_output(parsed: Parsed) -> str:
    """-o (with --template) as get's printer takes it, or the error it refuses it with."""
    output = output_format(parsed)
    if output.partition("=")[0] == "template":  # kubectl's other name for go-template
        output = "go-" + output
    check_output(output)
    if output in ("jsonpath", "jsonpath-as-json", "go-template"):
        raise KubectlError("error: template format specified but no template given")
    if output == "custom-columns":
        raise KubectlError("error: custom-columns format specified but no custom columns given")
    return output


def validate(parsed: Parsed) -> None:
    """The flag combinations kubectl get's Validate refuses before it reads anything."""
    output = parsed.value("output")
    if parsed.value("raw") is not None:
        if parsed.positionals:  # Complete's, before Validate
            raise KubectlError("error: arguments may not be passed when --raw is specified")
        if parsed.has("watch") or parsed.has("watch-only") or parsed.value("selector"):
            raise KubectlError(
                "error: --raw may not be specified with other flags that filter the server "
                "request or alter the output"
            )
        if output:
            raise KubectlError("error: --raw and --output are mutually exclusive")
    if parsed.has("show-labels") and output not in (None, "", "wide"):
        raise KubectlError(f"error: --show-labels option cannot be used with {output} printer")
    if parsed.has("output-watch-events") and not (parsed.has("watch") or parsed.has("watch-only")):
        raise KubectlError(
            "error: --output-watch-events option can only be used with --watch or --watch-only"
        )


def named_targets(ctx: Context, parsed: Parsed) -> tuple[list[Target], str | None, bool]:
    """What a get line names (its types and names, or its files' objects), the namespace it
    reads (None with -A), and whether files named them."""
    all_ns = parsed.has("all-namespaces")
    ns = None if all_ns else namespace(parsed)
    from_files = file_targets(ctx, parsed, "get")
    if from_files is not None:
        return from_files, ns, True
    return targets(ctx.api, parsed.positionals, all_namespaces=all_ns), ns, False


def table_options(parsed: Parsed, info: ResourceInfo, output: str, kind: bool) -> TableOptions:
    """How kubectl's table printer decorates a table of `info` for this get line."""
    return TableOptions(
        wide=output == "wide",
        no_headers=parsed.has("no-headers"),
        with_namespace=parsed.has("all-namespaces") and info.namespaced,
        with_kind=info if kind else None,
        label_columns=[c for v in parsed.all("label-columns") for c in v.split(",") if c],
        show_labels=parsed.has("show-labels"),
    )


def run(ctx: Context, parsed: Parsed) -> Output:
    cluster = ctx.api
    validate(parsed)
    raw_path = parsed.value("raw")
    if raw_path is not None:
        return raw(cluster, raw_path)
    if parsed.value("kustomize") is not None:
        return Output.error(kustomize_error(ctx, parsed.value("kustomize") or ""))
    try:
        output = printer_output(parsed)
        printer_error = None
    except KubectlError as exc:
        output, printer_error = "", exc
    all_ns = parsed.has("all-namespaces")
    groups, ns, from_files = named_targets(ctx, parsed)
    scales = parsed.value("subresource") == "scale"
    if parsed.value("subresource") is not None and any(not g.names for g in groups):
        raise KubectlError("error: subresource cannot be used when bulk resources are specified")
    if (parsed.value("selector") or parsed.value("field-selector")) and any(
        g.names for g in groups
    ):
        raise KubectlError("error: name cannot be provided when a selector is specified")
    errors: list[str] = []
    # kubectl's singleItemImplied: one object named, or one file.
    single = single_file(parsed) if from_files else (len(groups) == 1 and len(groups[0].names) == 1)
    if printer_error is not None:
        # kubectl makes its printer once it has something to print: one named object it could
        # not get is all it says.
        if single and not fetch(cluster, groups[0], ns, parsed, errors):
            return _result("", errors)
        raise printer_error
    fetched: list[tuple[Target, list[Obj]]] = []
    # The kinds of kubectl's infos: a list it got (empty or not) or a named object it got.
    kinds: set[str] = set()
    for group in groups:
        before = len(errors)
        objs = fetch(cluster, group, ns, parsed, errors)
        fetched.append((group, objs))
        if objs or (not group.names and len(errors) == before):
            kinds.add(group.info.key)
    sort_by = parsed.value("sort-by")
    if sort_by:
        try:
            fetched = [(g, sort_objects(objs, sort_by)) for g, objs in fetched]
        except KubectlError:
            if output not in ("", "wide"):
                raise
            # kubectl's table sorter drops every row when no row has the field.
            fetched = [(g, []) for g, _ in fetched]
    objs_all = [o for _, objs in fetched for o in objs]
    text = ""
    if output in ("yaml", "kyaml", "json", "name") or output.startswith(TEMPLATED):
        if single and errors:
            # A single named object that failed: kubectl prints only the error.
            return _result("", errors)
        if not objs_all and parsed.has("ignore-not-found"):
            return _result("", errors)
        if output == "name":
            text = "\n".join(
                f"{'scale.autoscaling' if scales else kind_name(g.info)}/{meta(o).get('name', '')}"
                for g, objs in fetched
                for o in objs
            )
        elif output.startswith("custom-columns="):
            spec = output.partition("=")[2]
            text = custom_columns(objs_all, spec, parsed.has("no-headers"))
        else:
            data = objs_all[0] if single and len(objs_all) == 1 else list_doc(objs_all)
            kind, _, template = output.partition("=")
            if kind in ("jsonpath", "jsonpath-as-json", "go-template"):
                # The prompt follows the template's own last newline, not one more.
                text = evaluate_template(kind, template, data).removesuffix("\n")
            elif output == "yaml":
                text = to_yaml(data).rstrip("\n")
            elif output == "kyaml":
                text = to_kyaml(data).rstrip("\n")
            else:
                text = to_json(data)
        return _result(text, errors)
    # kubectl's multipleGVKsRequested: what it got is of more than one kind (a kind it could
    # not list, or no named object of which it found, does not count).
    with_kind = parsed.has("show-kind") or len(kinds) > 1
    blocks: list[str] = []
    for group, objs in fetched:
        if not objs:
            continue
        if scales:
            table = printers.scale_table(cluster, objs)
        else:
            table = printers.table(cluster, group.info.key, objs, wide=output == "wide")
        opts = table_options(parsed, group.info, output, with_kind)
        blocks.append(render(table_rows(table, opts)))
    separator = "\n" if parsed.has("no-headers") else "\n\n"
    text = separator.join(blocks)
    if not text and not errors and not parsed.has("ignore-not-found"):
        return Output(_empty(groups, ns, all_ns))
    return _result(text, errors)


def _empty(groups: list[Target], ns: str | None, all_ns: bool) -> str:
    if not all_ns and all(g.info.namespaced for g in groups):
        return f"No resources found in {ns} namespace."
    return "No resources found"


def _result(text: str, errors: list[str]) -> Output:
    parts = [p for p in [text, *errors] if p]
    return Output("\n".join(parts), 1 if errors else 0)
