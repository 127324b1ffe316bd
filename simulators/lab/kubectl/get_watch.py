"""kubectl get --watch and --watch-only, as kubectl 1.36's GetOptions.watch runs them
(pkg/cmd/get/get.go): one resource type; what the list finds printed object by object through
one printer (a table in one flush; yaml with `---` between objects); then every watch event
through the same printer, a flush each (the tab writer keeps each column as wide as any flush
made it; the header once, before the first row any table of it shows; with
--output-watch-events, the event's type first). --watch-only prints no list; a watch of one
named object starts with the synthetic ADDED event kubectl suppresses.

The terminal resumes the command at each step of the world (simulators.lab.streams): `resume`
prints the events the store's watch log holds after the request's resourceVersion, as kubectl
prints them, and hands back the request with its printer's state (``Printer``: whether it
printed, the widths its writer remembers).
"""

from __future__ import annotations

import dataclasses

from simulators.cluster import printers
from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo, WatchEvent
from simulators.cluster.patches import key_sorted
from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import (
    KubectlError,
    Target,
    error_text,
    format_labels,
    kind_name,
    labels_of,
    list_error,
    meta,
)
from simulators.lab.kubectl.get import named_targets, printer_output, table_options, validate
from simulators.lab.kubectl.kyaml import to_kyaml
from simulators.lab.kubectl.printing import (
    TableOptions,
    cell_text,
    check_template,
    custom_column_rows,
    evaluate_template,
    sort_objects,
    table_rows,
    to_json,
    to_yaml,
)
from simulators.lab.kubectl.tabwriter import table as tab_table
from simulators.lab.streams import ROWS, StreamRequest
from simulators.lab.tool import Context, Output

ADDED = "ADDED"
# The EVENT column's cells, padded to one width (cli-runtime's formatEventType).
EVENT_CELLS = {t: t.ljust(8) for t in ("ADDED", "MODIFIED", "DELETED", "ERROR")}


@dataclasses.dataclass(frozen=True)
class Watched:
    """What one `get -w` line watches: its one target, where, and how it prints."""

    target: Target
    scope: str | None
    labels: str
    fields: str

    @property
    def named(self) -> str:
        return self.target.names[0] if self.target.names else ""


@dataclasses.dataclass
class Printer:
    """kubectl's one printer for the watch and its tab writer: whether it has printed (a
    table's header, yaml's `---`), and the column widths the writer remembers."""

    printed: bool = False
    widths: list[int] = dataclasses.field(default_factory=list)

    @classmethod
    def of(cls, request: StreamRequest) -> Printer:
        return cls(request.printed, list(request.widths))

    def into(self, request: StreamRequest, since: str) -> StreamRequest:
        return dataclasses.replace(
            request, since=since, printed=self.printed, widths=tuple(self.widths)
        )


def start(ctx: Context, parsed: Parsed) -> Output:
    """The first answer: the list (or the named object) as kubectl prints it before its watch
    starts, and the stream the terminal keeps going. With --sort-by, kubectl's warning first
    (Complete's, before anything can fail)."""
    warning = ""
    if parsed.value("sort-by"):
        warning = (
            "warning: --watch requested, --sort-by will be ignored for watch events received"
            if parsed.has("watch")
            else "warning: --watch-only requested, --sort-by will be ignored"
        )
    try:
        out = _start(ctx, parsed, warning)
    except KubectlError as exc:
        return Output(str(exc), 1, warning)
    return dataclasses.replace(out, stderr=warning) if warning else out


def _start(ctx: Context, parsed: Parsed, warning: str) -> Output:
    watched = _watched(ctx, parsed)
    cluster = ctx.api
    try:
        listed, since = _list(cluster, watched)
    except ApiError as exc:
        if watched.named and exc.reason == "NotFound" and parsed.has("ignore-not-found"):
            return Output("")
        if watched.named:
            return Output.error(error_text(exc))
        return Output.error(list_error(watched.target.info, exc, watched.labels, watched.fields))
    # kubectl makes its printer once it has what it watches: a bad format or template is
    # refused then, before anything is printed.
    output = printer_output(parsed)
    check_template(output)
    sorting = not (parsed.has("watch-only") or parsed.has("output-watch-events"))
    if warning and output in ("", "wide") and sorting:
        # Only the table printer sorts the list (kubectl's SortingPrinter), and not the list
        # as watch events (--output-watch-events); the events never.
        try:
            listed = sort_objects(listed, parsed.value("sort-by") or "")
        except KubectlError as exc:
            problem = str(exc).removeprefix("error: ")
            return Output.error(f"error: unable to output the provided object: {problem}")
    printer = Printer()
    text = ""
    if not parsed.has("watch-only"):
        text = _print(cluster, watched, parsed, output, [(ADDED, o) for o in listed], printer)
    if len(watched.target.names) > 1:
        # What r.Watch says once the objects are printed (after them, on the terminal).
        refused = "error: you may only watch a single resource or type of resource at a time"
        return Output(text + refused, 1)
    ctx.stream = printer.into(StreamRequest(ROWS, ""), since)
    return Output.exactly(text)


def resume(ctx: Context, parsed: Parsed, request: StreamRequest) -> Output:
    """The events after ``request.since``, each as kubectl prints it; ``ctx.stream`` is the
    request to resume from next."""
    watched = _watched(ctx, parsed)
    cluster = ctx.api
    info = watched.target.info
    fields = watched.fields
    if watched.named:
        fields = f"metadata.name={watched.named}"
    try:
        events = cluster.watch(
            info.key,
            watched.scope,
            resource_version=request.since or "0",
            label_selector=watched.labels,
            field_selector=fields,
        )
    except ApiError as exc:
        ctx.stream = None
        return Output.error(error_text(exc))
    since = resumed_after(events, request.since)
    output = printer_output(parsed)
    printer = Printer.of(request)
    pieces = [
        _print(cluster, watched, parsed, output, [(e.type, e.object)], printer) for e in events
    ]
    ctx.stream = printer.into(request, since)
    return Output.exactly("".join(pieces))


def resumed_after(events: list[WatchEvent], since: str) -> str:
    """The resourceVersion a watch resumes after once it has read `events`: the last one's
    (`since` where there were none)."""
    for event in reversed(events):
        version = meta(event.object).get("resourceVersion")
        if version:
            return str(version)
    return since


def _watched(ctx: Context, parsed: Parsed) -> Watched:
    validate(parsed)
    found, ns, _ = named_targets(ctx, parsed)
    labels = parsed.value("selector") or ""
    fields = parsed.value("field-selector") or ""
    if (labels or fields) and any(t.names for t in found):
        raise KubectlError("error: name cannot be provided when a selector is specified")
    if len({t.info.key for t in found}) > 1:
        raise KubectlError("error: you may only specify a single resource type")
    target = found[0]
    return Watched(target, target.scope(ns), labels, fields)


def _list(cluster: ClusterAPI, watched: Watched) -> tuple[list[Obj], str]:
    """What kubectl prints before it watches, and the resourceVersion its watch starts after."""
    info = watched.target.info
    if watched.target.names:
        objs = [cluster.get(info.key, name, watched.scope) for name in watched.target.names]
        return objs, str(meta(objs[0]).get("resourceVersion") or "")
    listed = cluster.list(
        info.key, watched.scope, label_selector=watched.labels, field_selector=watched.fields
    )
    items = listed.get("items") or []
    since = str((listed.get("metadata") or {}).get("resourceVersion") or "")
    return [o for o in items if isinstance(o, dict)], since


def _print(
    cluster: ClusterAPI,
    watched: Watched,
    parsed: Parsed,
    output: str,
    events: list[tuple[str, Obj]],
    printer: Printer,
) -> str:
    """Events through the one printer in one flush of its writer: their text, newline-ended."""
    if not events:
        return ""
    with_events = parsed.has("output-watch-events")
    info = watched.target.info
    if output in ("", "wide"):
        objs = [obj for _, obj in events]
        table = printers.table(cluster, info.key, objs, wide=output == "wide")
        opts = table_options(parsed, info, output, parsed.has("show-kind"))
        if watched.target.names and parsed.has("watch-only") and with_events:
            rows = _columnless(table, opts, header=not printer.printed)
        else:
            rows = table_rows(table, opts, header=not printer.printed)
        if with_events:
            head = len(rows) - len(events)
            rows = [["EVENT", *row] for row in rows[:head]] + [
                [EVENT_CELLS.get(event, event), *row]
                for (event, _), row in zip(events, rows[head:], strict=True)
            ]
        printer.printed = True
        return tab_table(rows, printer.widths) + "\n"
    if output.startswith("custom-columns="):
        header = not (printer.printed or parsed.has("no-headers"))
        # The columns read what the printer is given: with --output-watch-events, the event.
        docs = [{"type": e, "object": o} if with_events else o for e, o in events]
        rows = custom_column_rows(docs, output[15:], header)
        printer.printed = True
        return tab_table(rows, printer.widths) + "\n"
    texts = []
    for event, obj in events:
        doc: Obj = {"type": event, "object": obj} if with_events else obj
        texts.append(_text(output, doc, obj, info, parsed, printer.printed))
        printer.printed = True
    return "".join(texts)


def _columnless(table: Obj, opts: TableOptions, header: bool) -> list[list[str]]:
    """A watch's table rows as kubectl prints them when its printer never learned the table's
    columns: the server sends them with a watch's first event only, and a named object's
    --watch-only --output-watch-events leaves that one (the synthetic ADDED) unprinted. Only
    the columns kubectl adds are known (-L, --show-labels), and under them it prints the
    row's first cells (kubectl's quirk, measured against the real one)."""
    heads = [key.split("/")[-1].upper() for key in opts.label_columns]
    heads += ["LABELS"] * opts.show_labels
    rows = [heads] if header and not opts.no_headers else []
    for row in table.get("rows", []):
        labels = labels_of(row.get("object") or {})
        cells = [cell_text(cell) for cell in row.get("cells", [])]
        cells += [labels.get(key, "") for key in opts.label_columns]
        cells += [format_labels(labels)] * opts.show_labels
        rows.append(cells[: len(heads)])
    return rows


def _text(
    output: str, doc: Obj, obj: Obj, info: ResourceInfo, parsed: Parsed, printed: bool
) -> str:
    kind, _, template = output.partition("=")
    if output == "name":
        return f"{kind_name(info)}/{meta(obj).get('name', '')}\n"
    if output == "yaml":
        return ("---\n" if printed else "") + to_yaml(doc)
    if output == "kyaml" and doc is not obj:
        return to_kyaml({"type": doc["type"], "object": key_sorted(obj)}, sort_keys=False)
    if output == "kyaml":
        return to_kyaml(doc)
    if output == "json" and doc is not obj:
        # A WatchEvent is printed as json.Marshal writes it: on one line, type first.
        return f'{{"type":{to_json(doc["type"])},"object":{to_json(obj, compact=True)}}}\n'
    if output == "json":
        return to_json(obj) + "\n"
    return evaluate_template(kind, template, doc)
