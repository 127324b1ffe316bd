"""What kubectl's describers share: the prefix writer and the sections many kinds print.

Ports of pkg/describe/describe.go's helpers: labels, annotations, taints and tolerations, an
object's events, containers (with their state, resources, environment and mounts), volumes, a pod
template, the owner that controls an object and the pods an object owns.
"""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.lab.kubectl.common import meta, read_list, rfc1123z, since
from simulators.lab.kubectl.tabwriter import format_text

# Annotations kubectl describe never shows.
_SKIP_ANNOTATIONS = {"kubectl.kubernetes.io/last-applied-configuration"}
_MAX_ANNOTATION = 140


class Writer:
    """kubectl's PrefixWriter over a tabwriter: levels indent two spaces each."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._buf: list[str] = []

    def write(self, level: int, text: str) -> None:
        self._buf.append("  " * level + text)

    def line(self, text: str) -> None:
        self._buf.append(text + "\n")

    def flush(self) -> None:
        if self._buf:
            self._parts.append(format_text("".join(self._buf), minwidth=0, padding=2))
            self._buf = []

    def text(self) -> str:
        self.flush()
        return "".join(self._parts)

    def raw(self) -> str:
        """What was written, tabs as they are: a PrefixWriter straight to the output, as
        `rollout history --revision` prints a template (no tabwriter)."""
        return "".join(self._parts) + "".join(self._buf)


def dig(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def write_labels(w: Writer, title: str, labels: Any, initial: str = "") -> None:
    w.write(0, f"{initial}{title}:\t")
    if not isinstance(labels, dict) or not labels:
        w.line("<none>")
        return
    for i, key in enumerate(sorted(labels)):
        if i:
            # No indent before the tab: invisible in a table, and absent where a template is
            # printed untabulated (rollout history --revision).
            w.write(0, "\t")
        w.write(0, f"{key}={labels[key]}\n")


def write_annotations(w: Writer, title: str, annotations: Any) -> None:
    w.write(0, f"{title}:\t")
    keys = (
        sorted(k for k in annotations if k not in _SKIP_ANNOTATIONS)
        if isinstance(annotations, dict)
        else []
    )
    if not keys:
        w.line("<none>")
        return
    for i, key in enumerate(keys):
        if i:
            w.write(0, "\t")
        value = str(annotations[key]).removesuffix("\n")
        if len(value) + len(key) + 2 > _MAX_ANNOTATION or "\n" in value:
            w.write(0, f"{key}:\n")
            for part in value.split("\n"):
                short = (
                    part
                    if len(part) <= _MAX_ANNOTATION - 2
                    else part[: _MAX_ANNOTATION - 2] + "..."
                )
                w.write(0, f"\t  {short}\n")
        else:
            w.write(0, f"{key}: {value}\n")


def write_labels_and_annotations(w: Writer, m: Obj) -> None:
    """An object's Labels and Annotations sections, as nearly every describer starts."""
    write_labels(w, "Labels", m.get("labels"))
    write_annotations(w, "Annotations", m.get("annotations"))


def write_taints(w: Writer, title: str, taints: Any) -> None:
    w.write(0, f"{title}:\t")
    if not taints:
        w.line("<none>")
        return
    ordered = sorted(taints, key=lambda t: f"{t.get('effect', '')},{t.get('key', '')}")
    for i, taint in enumerate(ordered):
        if i:
            w.write(0, "\t")
        value = f"={taint['value']}" if taint.get("value") else ""
        w.write(0, f"{taint.get('key', '')}{value}:{taint.get('effect', '')}\n")


def write_tolerations(w: Writer, title: str, tolerations: Any, initial: str = "") -> None:
    w.write(0, f"{initial}{title}:\t")
    if not tolerations:
        w.line("<none>")
        return
    for i, tol in enumerate(sorted(tolerations, key=lambda t: t.get("key", ""))):
        if i:
            w.write(0, "\t")
        text = tol.get("key", "")
        if tol.get("value"):
            text += f"={tol['value']}"
        if tol.get("effect"):
            text += f":{tol['effect']}"
        if tol.get("operator") == "Exists" and not tol.get("value"):
            text += " op=Exists" if (tol.get("key") or tol.get("effect")) else "op=Exists"
        if tol.get("tolerationSeconds") is not None:
            text += f" for {tol['tolerationSeconds']}s"
        w.write(0, text + "\n")


def write_events(cluster: ClusterAPI, w: Writer, obj: Obj, strict: bool = False) -> None:
    """The object's events. When they cannot be listed, kubectl's searchEvents still returns
    its empty list, which describers print as `<none>` (they ignore the error), but for a
    `strict` one (the ConfigMap's, which returns it)."""
    m = meta(obj)
    ns = m.get("namespace") or None
    try:
        listed = read_list(cluster, "events", str(ns) if ns else None)
    except ApiError:
        if strict:
            raise
        listed = []
    uid = m.get("uid")
    items = [
        e
        for e in listed
        if dig(e, "involvedObject", "name") == m.get("name")
        and dig(e, "involvedObject", "kind") == obj.get("kind")
        and (
            not uid or not dig(e, "involvedObject", "uid") or dig(e, "involvedObject", "uid") == uid
        )
    ]
    if not items:
        w.write(0, "Events:\t<none>\n")
        return
    w.flush()
    items.sort(key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or ""))
    w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
    w.write(1, "----\t------\t----\t----\t-------\n")
    for e in items:
        first = (
            since(cluster, e.get("eventTime"))
            if e.get("eventTime")
            else since(cluster, e.get("firstTimestamp"))
        )
        series = e.get("series")
        count = int(e.get("count") or 0)
        if isinstance(series, dict):
            interval = (
                f"{since(cluster, series.get('lastObservedTime'))} "
                f"(x{series.get('count', 0)} over {first})"
            )
        elif count > 1:
            interval = f"{since(cluster, e.get('lastTimestamp'))} (x{count} over {first})"
        else:
            interval = first
        source = (
            dig(e, "source", "component")
            or e.get("reportingComponent")
            or e.get("reportingController", "")
        )
        message = str(e.get("message", "")).strip()
        field_path = dig(e, "involvedObject", "fieldPath")
        if field_path:
            message = f"{field_path}: {message}"
        w.write(1, f"{e.get('type', '')}\t{e.get('reason', '')}\t{interval}\t{source}\t{message}\n")


def _resources(w: Writer, resources: Any, level: int) -> None:
    if not isinstance(resources, dict):
        return
    for title, key in (("Limits", "limits"), ("Requests", "requests")):
        values = resources.get(key) or {}
        if values:
            w.write(level, f"{title}:\n")
        for name in sorted(values):
            w.write(level + 1, f"{name}:\t{quantity_string(values[name])}\n")


def quantity_string(value: Any) -> str:
    return str(value)


def _state(w: Writer, title: str, state: Any) -> None:
    state = state if isinstance(state, dict) else {}
    if "running" in state:
        w.write(2, f"{title}:\tRunning\n")
        w.write(3, f"Started:\t{rfc1123z(dig(state, 'running', 'startedAt'))}\n")
    elif "waiting" in state:
        w.write(2, f"{title}:\tWaiting\n")
        if dig(state, "waiting", "reason"):
            w.write(3, f"Reason:\t{state['waiting']['reason']}\n")
    elif "terminated" in state:
        t = state["terminated"]
        w.write(2, f"{title}:\tTerminated\n")
        if t.get("reason"):
            w.write(3, f"Reason:\t{t['reason']}\n")
        if t.get("message"):
            w.write(3, f"Message:\t{t['message']}\n")
        w.write(3, f"Exit Code:\t{t.get('exitCode', 0)}\n")
        if t.get("signal"):
            w.write(3, f"Signal:\t{t['signal']}\n")
        w.write(3, f"Started:\t{rfc1123z(t.get('startedAt'))}\n")
        w.write(3, f"Finished:\t{rfc1123z(t.get('finishedAt'))}\n")
    else:
        w.write(2, f"{title}:\tWaiting\n")


def _ports(ports: Any, key: str) -> str:
    out = []
    for p in ports or []:
        text = f"{p.get(key, 0)}/{p.get('protocol', 'TCP')}"
        if p.get("name"):
            text += f" ({p['name']})"
        out.append(text)
    return ", ".join(out)


def write_containers(
    w: Writer, label: str, containers: Any, statuses: Any, space: str, env_pod: Obj | None
) -> None:
    containers = containers or []
    by_name = {s.get("name"): s for s in statuses or []} if statuses is not None else {}
    w.write(0, f"{space}{label}:{' <none>' if not containers else ''}\n")
    for c in containers:
        found = by_name.get(c.get("name"))
        ok = found is not None
        status: dict[str, Any] = found or {}
        indent = " " if space else ""
        w.write(1, f"{indent}{c.get('name', '')}:\n")
        if ok:
            w.write(2, f"Container ID:\t{status.get('containerID', '')}\n")
        w.write(2, f"Image:\t{c.get('image', '')}\n")
        if ok:
            w.write(2, f"Image ID:\t{status.get('imageID', '')}\n")
        ports = _ports(c.get("ports"), "containerPort")
        w.write(2, f"Ports:\t{ports}\n" if "," in ports else f"Port:\t{ports or '<none>'}\n")
        host = _ports(c.get("ports"), "hostPort")
        w.write(2, f"Host Ports:\t{host}\n" if "," in host else f"Host Port:\t{host or '<none>'}\n")
        for title, key in (("Command", "command"), ("Args", "args")):
            if c.get(key):
                w.write(2, f"{title}:\n")
                for part in c[key]:
                    for line in str(part).split("\n"):
                        w.write(3, f"{line}\n")
        if ok:
            _state(w, "State", status.get("state"))
            if dig(status, "lastState", "terminated"):
                _state(w, "Last State", status.get("lastState"))
            w.write(2, f"Ready:\t{'True' if status.get('ready') else 'False'}\n")
            w.write(2, f"Restart Count:\t{status.get('restartCount', 0)}\n")
        _resources(w, c.get("resources"), 2)
        env = c.get("env") or []
        if not env:
            w.write(2, "Environment:\t<none>\n")
        else:
            w.write(2, "Environment:\n")
            for var in env:
                if "value" in var:
                    w.write(3, f"{var['name']}:\t{var['value']}\n")
                else:
                    w.write(3, f"{var.get('name', '')}:\t <set to a reference>\n")
        mounts = c.get("volumeMounts") or []
        if not mounts:
            w.write(2, "Mounts:\t<none>\n")
        else:
            w.write(2, "Mounts:\n")
            for m in sorted(mounts, key=lambda m: str(m.get("mountPath", ""))):
                flags = ["ro" if m.get("readOnly") else "rw"]
                if m.get("subPath"):
                    flags.append(f'path="{m["subPath"]}"')
                w.write(
                    3, f"{m.get('mountPath', '')} from {m.get('name', '')} ({','.join(flags)})\n"
                )


def write_volumes(w: Writer, volumes: Any, space: str) -> None:
    if not volumes:
        w.write(0, f"{space}Volumes:\t<none>\n")
        return
    w.write(0, f"{space}Volumes:\n")
    for v in volumes:
        # describeVolumes: LEVEL_1, and one more space when the section is indented.
        w.write(1, f"{' ' if space else ''}{v.get('name', '')}:\n")
        if "configMap" in v:
            w.write(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n")
            w.write(2, f"Name:\t{v['configMap'].get('name', '')}\n")
            w.write(2, f"Optional:\t{'true' if v['configMap'].get('optional') else 'false'}\n")
        elif "hostPath" in v:
            w.write(2, "Type:\tHostPath (bare host directory volume)\n")
            w.write(2, f"Path:\t{v['hostPath'].get('path', '')}\n")
            w.write(2, f"HostPathType:\t{v['hostPath'].get('type', '')}\n")
        elif "emptyDir" in v:
            w.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n")
            w.write(2, f"Medium:\t{v['emptyDir'].get('medium', '')}\n")
            limit = v["emptyDir"].get("sizeLimit")
            w.write(2, f"SizeLimit:\t{limit if limit else '<unset>'}\n")
        elif "projected" in v:
            w.write(
                2,
                "Type:\tProjected (a volume that contains injected data from multiple sources)\n",
            )
        else:
            w.write(2, "<unknown>\n")


def controller_of(obj: Obj) -> str:
    for ref in meta(obj).get("ownerReferences") or []:  # type: ignore[attr-defined]
        if ref.get("controller"):
            return f"{ref.get('kind')}/{ref.get('name')}"
    return ""


def selector_text(selector: Any) -> str:
    if not isinstance(selector, dict):
        return "<none>"
    parts = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or []:
        op = expr.get("operator", "")
        values = ",".join(sorted(expr.get("values") or []))
        if op == "In":
            parts.append(f"{expr.get('key')} in ({values})")
        elif op == "NotIn":
            parts.append(f"{expr.get('key')} notin ({values})")
        elif op == "Exists":
            parts.append(str(expr.get("key")))
        else:
            parts.append(f"!{expr.get('key')}")
    return ",".join(parts) or "<none>"


def write_pod_template(w: Writer, template: Any) -> None:
    w.write(0, "Pod Template:\n")
    template = template if isinstance(template, dict) else {}
    tm, ts = template.get("metadata") or {}, template.get("spec") or {}
    write_labels(w, "Labels", tm.get("labels"), initial="  ")
    if tm.get("annotations"):
        write_annotations(w, "  Annotations", tm.get("annotations"))
    if ts.get("serviceAccountName"):
        w.write(1, f"Service Account:\t{ts['serviceAccountName']}\n")
    if ts.get("initContainers"):
        write_containers(w, "Init Containers", ts["initContainers"], None, "  ", None)
    write_containers(w, "Containers", ts.get("containers"), None, "  ", None)
    write_volumes(w, ts.get("volumes"), "  ")
    if ts.get("priorityClassName"):
        w.write(1, f"Priority Class Name:\t{ts['priorityClassName']}\n")
    write_labels(w, "Node-Selectors", ts.get("nodeSelector"), initial="  ")
    write_tolerations(w, "Tolerations", ts.get("tolerations"), initial="  ")


def pod_counts(cluster: ClusterAPI, obj: Obj) -> tuple[int, int, int, int]:
    uid = meta(obj).get("uid")
    ns = str(meta(obj).get("namespace", ""))
    counts = {"Running": 0, "Pending": 0, "Succeeded": 0, "Failed": 0}
    for pod in read_list(cluster, "pods", ns):
        refs = meta(pod).get("ownerReferences") or []
        if any(r.get("uid") == uid for r in refs):  # type: ignore[attr-defined]
            phase = dig(pod, "status", "phase") or "Pending"
            counts[phase] = counts.get(phase, 0) + 1
    return counts["Running"], counts["Pending"], counts["Succeeded"], counts["Failed"]
