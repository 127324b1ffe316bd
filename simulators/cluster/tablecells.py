"""The cells of server-side tables: durations, labels and selectors as kube-apiserver prints them.

apimachinery's HumanDuration, translateTimestampSince, labels.FormatLabels and
metav1.FormatLabelSelector, and the small readers every printer uses (metadata, age, a pod
template's containers). Shared by the printers of each kind group and the lab's kubectl.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from simulators.cluster.api import Obj
from simulators.cluster.clock import parse_time

Cell = Any
Column = tuple[str, str, int]  # name, type, priority
RowPrinter = Callable[[Obj, datetime], list[Cell]]
# A kind's printer: its column definitions and how one object becomes a row.
Printer = tuple[tuple[Column, ...], RowPrinter]


# --------------------------------------------------------------------- durations
def human_duration(seconds: float) -> str:
    """apimachinery's duration.HumanDuration: 5s, 2m50s, 27m, 3h5m, 2d3h, 400d, 3y20d."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        rest = (hours // 24) % 365
        years = hours // 24 // 365
        return f"{years}y" if rest == 0 else f"{years}y{rest}d"
    return f"{hours // 24 // 365}y"


def since(timestamp: Any, now: datetime) -> str:
    """translateTimestampSince: ``<unknown>`` for a missing time."""
    if not timestamp:
        return "<unknown>"
    try:
        moment = parse_time(str(timestamp))
    except ValueError:
        return "<unknown>"
    return human_duration((now - moment).total_seconds())


# --------------------------------------------------------------------- helpers
def metadata(obj: Obj) -> Obj:
    meta: Obj = obj.get("metadata") or {}
    return meta


def age(obj: Obj, now: datetime) -> str:
    return since(metadata(obj).get("creationTimestamp"), now)


def format_labels(labels: dict[str, Any] | None) -> str:
    """labels.FormatLabels: sorted ``k=v`` joined by commas, ``<none>`` when empty."""
    if not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def format_label_selector(selector: Obj | None) -> str:
    """metav1.FormatLabelSelector."""
    if not selector:
        return "<none>"
    parts: list[str] = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or []:
        key, op = expr.get("key", ""), expr.get("operator", "")
        values = sorted(expr.get("values") or [])
        if op == "In":
            parts.append(f"{key} in ({','.join(values)})")
        elif op == "NotIn":
            parts.append(f"{key} notin ({','.join(values)})")
        elif op == "Exists":
            parts.append(key)
        elif op == "DoesNotExist":
            parts.append(f"!{key}")
    text = ",".join(parts)
    return text or "<none>"


def containers_cells(spec: Obj) -> tuple[str, str]:
    containers = spec.get("containers") or []
    return (
        ",".join(str(c.get("name", "")) for c in containers),
        ",".join(str(c.get("image", "")) for c in containers),
    )


def template_spec(obj: Obj) -> Obj:
    spec: Obj = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    return spec
