"""kubectl events: the namespace's (or every namespace's) events, oldest first, as kubectl's
event printer lays them out (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE)."""

from __future__ import annotations

from datetime import datetime

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl import gosort
from simulators.lab.kubectl.common import (
    COMMON,
    KubectlError,
    error_text,
    namespace,
    parse_ts,
    read_list,
    since,
)
from simulators.lab.kubectl.get_watch import Printer, resumed_after
from simulators.lab.kubectl.printing import PRINT_FLAGS, object_output, object_text
from simulators.lab.kubectl.tabwriter import table
from simulators.lab.streams import ROWS, StreamRequest
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("all-namespaces", long="all-namespaces", short="A"),
    Flag("for", long="for", takes_value=True),
    Flag("types", long="types", takes_value=True),
    Flag("no-headers", long="no-headers"),
    Flag("watch", long="watch", short="w"),
    *PRINT_FLAGS,
]
TYPES = ("Normal", "Warning")
_ZERO = datetime.min


def _event_time(event: Obj) -> datetime:
    """eventTime(): the series' last observation, else lastTimestamp, else eventTime."""
    series = event.get("series") or {}
    for text in (
        series.get("lastObservedTime"),
        event.get("lastTimestamp"),
        event.get("eventTime"),
    ):
        moment = parse_ts(str(text or ""))
        if moment is not None:
            return moment.replace(tzinfo=None)
    return _ZERO


def _interval(cluster: ClusterAPI, event: Obj) -> str:
    first = event.get("eventTime") or event.get("firstTimestamp")
    first_since = since(cluster, str(first) if first else None)
    series = event.get("series")
    if isinstance(series, dict):
        return (
            f"{since(cluster, series.get('lastObservedTime'))} (x{series.get('count', 0)} "
            f"over {first_since})"
        )
    count = int(event.get("count") or 0)
    if count > 1:
        return f"{since(cluster, event.get('lastTimestamp'))} (x{count} over {first_since})"
    return first_since


def _types(parsed: Parsed) -> set[str]:
    """--types, checked: the event types to print (all where none is named)."""
    types = [t for t in (parsed.value("types") or "").split(",") if t]
    for kind in types:
        if kind.capitalize() not in TYPES:
            raise KubectlError(f"error: valid --types are {', '.join(TYPES)}")
    return {t.capitalize() for t in types} or set(TYPES)


def _wanted(parsed: Parsed, events: list[Obj]) -> list[Obj]:
    """The events --for and --types keep."""
    allowed = _types(parsed)
    wanted = parsed.value("for")
    if wanted:
        kind, _, name = wanted.partition("/")
        events = [
            e
            for e in events
            if str((e.get("involvedObject") or {}).get("name")) == name
            and str((e.get("involvedObject") or {}).get("kind", "")).lower()
            in (kind.lower(), kind.lower().rstrip("s"))
        ]
    return [e for e in events if e.get("type") in allowed]


def _row(cluster: ClusterAPI, event: Obj, all_ns: bool) -> list[str]:
    involved = event.get("involvedObject") or {}
    return [
        *([str(event["metadata"].get("namespace", ""))] if all_ns else []),
        _interval(cluster, event),
        str(event.get("type", "")),
        str(event.get("reason", "")),
        f"{involved.get('kind', '')}/{involved.get('name', '')}",
        str(event.get("message", "")).strip(),
    ]


def _header(all_ns: bool) -> list[str]:
    return [*(["NAMESPACE"] if all_ns else []), "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]


def watch(ctx: Context, parsed: Parsed) -> Output:
    """kubectl events --watch (runWatch): no list, a watch whose first events are the
    namespace's events as the server holds them (not by time), then each new one; every event
    its own flush of the tab writer, which remembers its widths; the header once, with the
    first; no "No events found". The terminal resumes the line (`ctx.resume`) at each step."""
    cluster = ctx.api
    all_ns = parsed.has("all-namespaces")
    ns = None if all_ns else namespace(parsed)
    _types(parsed)
    request = ctx.resume if ctx.resume is not None and ctx.resume.kind == ROWS else None
    try:
        if request is None:
            listed = cluster.list("events", ns)
            found = [e for e in listed.get("items") or [] if isinstance(e, dict)]
            since = str((listed.get("metadata") or {}).get("resourceVersion") or "")
            request = StreamRequest(ROWS, "", since=since)
        else:
            changes = cluster.watch("events", ns, resource_version=request.since or "0")
            # Events expire after an hour; kubectl prints no DELETED one.
            found = [e.object for e in changes if e.type != "DELETED"]
            since = resumed_after(changes, request.since)
    except ApiError as exc:
        ctx.stream = None
        return Output(error_text(exc), 1)
    printer = Printer.of(request)
    pieces = []
    for event in _wanted(parsed, found):
        rows = [_row(cluster, event, all_ns)]
        if not printer.printed and not parsed.has("no-headers"):
            rows.insert(0, _header(all_ns))
        printer.printed = True
        pieces.append(table(rows, printer.widths) + "\n")
    ctx.stream = printer.into(request, since)
    return Output.exactly("".join(pieces))


def run(ctx: Context, parsed: Parsed) -> Output:
    if parsed.positionals:
        raise KubectlError(f'error: unknown command "{parsed.positionals[0]}" for "kubectl events"')
    if parsed.has("watch") and not parsed.value("output"):
        return watch(ctx, parsed)
    cluster = ctx.api
    all_ns = parsed.has("all-namespaces")
    ns = None if all_ns else namespace(parsed)
    output = object_output(parsed) if parsed.value("output") else ""
    _types(parsed)
    try:
        events = _wanted(parsed, list(read_list(cluster, "events", ns)))
    except ApiError as exc:
        return Output(error_text(exc), 1)
    if not events:
        return Output(f"No events found in {ns} namespace." if ns else "No events found.")

    def swap(i: int, j: int) -> None:
        events[i], events[j] = events[j], events[i]

    # sort.Sort, as kubectl's SortableEvents: unstable, so ties fall as Go's pdqsort leaves them.
    gosort.sort(len(events), lambda i, j: _event_time(events[i]) < _event_time(events[j]), swap)
    if output:
        # The EventList it read, in any -o its PrintFlags take (-o name names none of them).
        if output == "name":
            return Output("")
        items = [{"kind": "Event", "apiVersion": "v1", **e} for e in events]
        doc = {"kind": "EventList", "apiVersion": "v1", "metadata": {}, "items": items}
        return Output(object_text(doc, "", output, "").removesuffix("\n"))
    rows = [] if parsed.has("no-headers") else [_header(all_ns)]
    rows += [_row(cluster, event, all_ns) for event in events]
    return Output(table(rows))
