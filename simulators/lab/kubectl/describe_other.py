"""kubectl describe for the other kinds: ConfigMaps, Namespaces, ServiceAccounts, Services,
and the generic describer kubectl uses for every kind without its own (custom resources
included), which prints the object's fields as an indented tree.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.lab.kubectl.common import format_labels, meta
from simulators.lab.kubectl.describe_common import (
    Writer,
    dig,
    write_events,
    write_labels_and_annotations,
)


def describe_configmap(cluster: ClusterAPI, cm: Obj, events: bool = True) -> str:
    w = Writer()
    m = meta(cm)
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    write_labels_and_annotations(w, m)
    w.write(0, "\nData\n====\n")
    data = cm.get("data") or {}
    for key in sorted(data):
        w.write(0, f"{key}:\n----\n")
        w.write(0, f"{data[key]}\n")
        w.write(0, "\n")
    w.write(0, "\nBinaryData\n====\n")
    binary = cm.get("binaryData") or {}
    for key in sorted(binary):
        w.write(0, f"{key}: {len(str(binary[key])) * 3 // 4} bytes\n")
    w.write(0, "\n")
    if events:
        write_events(cluster, w, cm, strict=True)
    return w.text()


def describe_namespace(cluster: ClusterAPI, ns: Obj, events: bool = True) -> str:
    w = Writer()
    m = meta(ns)
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    write_labels_and_annotations(w, m)
    w.write(0, f"Status:\t{dig(ns, 'status', 'phase') or ''}\n")
    # Quotas and limit ranges are listed only where the API serves them.
    for resource, empty in (
        ("resourcequotas", "No resource quota."),
        ("limitranges", "No LimitRange resource."),
    ):
        try:
            cluster.resolve(resource)
        except ApiError:
            continue
        w.write(0, "\n")
        w.write(0, f"{empty}\n")
    return w.text()


def describe_serviceaccount(cluster: ClusterAPI, sa: Obj, events: bool = True) -> str:
    w = Writer()
    m = meta(sa)
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    write_labels_and_annotations(w, m)
    names = [str(s.get("name", "")) for s in sa.get("imagePullSecrets") or []]
    header = "Image pull secrets:"
    if not names:
        w.write(0, f"{header}\t<none>\n")
    for i, name in enumerate(names):
        w.write(0, f"{header if i == 0 else ' ' * len(header)}\t{name}\n")
    if events:
        write_events(cluster, w, sa)
    return w.text()


def _endpoint_slices(cluster: ClusterAPI, svc: Obj) -> list[Obj]:
    m = meta(svc)
    try:
        listed = cluster.list(
            "endpointslices.discovery.k8s.io",
            str(m.get("namespace") or "") or None,
            label_selector=f"kubernetes.io/service-name={m.get('name', '')}",
        )
    except ApiError:
        return []
    return list(listed.get("items") or [])


def _format_endpoint_slices(slices: list[Obj], port_name: str) -> str:
    """kubectl's formatEndpointSlices: up to three address:port, then "+ N more..."."""
    if not slices:
        return "<none>"
    shown: list[str] = []
    count = 0
    for item in slices:
        endpoints = item.get("endpoints") or []
        ports = item.get("ports") or []
        pairs = (
            [(e, None) for e in endpoints]
            if not ports
            else [(e, p) for p in ports if (p.get("name") or "") == port_name for e in endpoints]
        )
        for endpoint, port in pairs:
            address = (endpoint.get("addresses") or [""])[0]
            if len(shown) < 3:
                shown.append(address if port is None else f"{address}:{port.get('port')}")
            count += 1
    text = ",".join(shown)
    return f"{text} + {count - 3} more..." if count > 3 else text


def describe_secret(cluster: ClusterAPI, secret: Obj, events: bool = True) -> str:
    """describeSecret: the data's keys with their sizes in bytes, never the values (a
    service-account token's key excepted, as kubectl shows it)."""
    del cluster, events
    w = Writer()
    m = meta(secret)
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    write_labels_and_annotations(w, m)
    kind = str(secret.get("type", ""))
    w.write(0, f"\nType:\t{kind}\n")
    w.write(0, "\nData\n====\n")
    data = secret.get("data") or {}
    for key in sorted(data):
        try:
            raw = base64.b64decode(str(data[key]))
        except (binascii.Error, ValueError):
            raw = b""
        if key == "token" and kind == "kubernetes.io/service-account-token":
            w.write(0, f"{key}:\t{raw.decode('utf-8', 'replace')}\n")
        else:
            w.write(0, f"{key}:\t{len(raw)} bytes\n")
    return w.text()


def describe_service(cluster: ClusterAPI, svc: Obj, events: bool = True) -> str:
    w = Writer()
    m, spec = meta(svc), svc.get("spec") or {}
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    write_labels_and_annotations(w, m)
    w.write(0, f"Selector:\t{format_labels(spec.get('selector') or {})}\n")
    w.write(0, f"Type:\t{spec.get('type', '')}\n")
    if spec.get("ipFamilyPolicy"):
        w.write(0, f"IP Family Policy:\t{spec['ipFamilyPolicy']}\n")
    families = spec.get("ipFamilies") or []
    w.write(0, f"IP Families:\t{','.join(families) if families else '<none>'}\n")
    w.write(0, f"IP:\t{spec.get('clusterIP', '')}\n")
    ips = spec.get("clusterIPs") or []
    w.write(0, f"IPs:\t{','.join(ips) if ips else '<none>'}\n")
    if spec.get("externalIPs"):
        w.write(0, f"External IPs:\t{','.join(spec['externalIPs'])}\n")
    if spec.get("externalName"):
        w.write(0, f"External Name:\t{spec['externalName']}\n")
    slices = _endpoint_slices(cluster, svc)
    for port in spec.get("ports") or []:
        name = port.get("name") or "<unset>"
        protocol = port.get("protocol", "TCP")
        w.write(0, f"Port:\t{name}\t{port.get('port', 0)}/{protocol}\n")
        w.write(0, f"TargetPort:\t{port.get('targetPort', port.get('port', 0))}/{protocol}\n")
        if port.get("appProtocol"):
            w.write(0, f"AppProtocol:\t{port['appProtocol']}\n")
        if port.get("nodePort"):
            w.write(0, f"NodePort:\t{name}\t{port['nodePort']}/{protocol}\n")
        w.write(0, f"Endpoints:\t{_format_endpoint_slices(slices, port.get('name') or '')}\n")
    w.write(0, f"Session Affinity:\t{spec.get('sessionAffinity', 'None')}\n")
    if spec.get("externalTrafficPolicy"):
        w.write(0, f"External Traffic Policy:\t{spec['externalTrafficPolicy']}\n")
    if spec.get("internalTrafficPolicy"):
        w.write(0, f"Internal Traffic Policy:\t{spec['internalTrafficPolicy']}\n")
    if events:
        write_events(cluster, w, svc)
    return w.text()


def _camel_split(text: str) -> list[str]:
    """fatih/camelcase.Split: runs of lower case, upper case, digits and anything else, an upper
    case run giving its last letter to a lower case run after it (`PDFLoader`: PDF, Loader)."""

    def kind(ch: str) -> int:
        return 1 if ch.islower() else 2 if ch.isupper() else 3 if ch.isdigit() else 4

    runs: list[str] = []
    for ch in text:
        if runs and kind(runs[-1][-1]) == kind(ch):
            runs[-1] += ch
        else:
            runs.append(ch)
    for i in range(len(runs) - 1):
        if kind(runs[i][0]) == 2 and kind(runs[i + 1][0]) == 1:
            runs[i + 1] = runs[i][-1] + runs[i + 1]
            runs[i] = runs[i][:-1]
    return [run for run in runs if run]


def _smart_label(field: str) -> str:
    """describe's smartLabelFor: a field of letters and dashes split as camel case, each word
    titled (or an acronym upper-cased) and joined by spaces; any other field as it is."""
    if any(not (ch.isalpha() or ch == "-") for ch in field):
        return field
    words = []
    for part in _camel_split(field):
        upper = part.upper()
        words.append(
            upper if upper in ("API", "URL", "UID", "OSB", "GUID") else part[:1].upper() + part[1:]
        )
    return " ".join(words)


def _unstructured(
    w: Writer, level: int, content: dict[str, Any], prefix: str, skip: set[str]
) -> None:
    for key in sorted(content):
        value = content[key]
        expr = f"{prefix}.{key}"
        if expr in skip:
            continue
        if isinstance(value, dict):
            w.write(level, f"{_smart_label(key)}:\n")
            _unstructured(w, level + 1, value, expr, skip)
        elif isinstance(value, list):
            w.write(level, f"{_smart_label(key)}:\n")
            for child in value:
                if isinstance(child, dict):
                    _unstructured(w, level + 1, child, expr, skip)
                else:
                    w.write(level + 1, f"{_go(child)}\n")
        else:
            w.write(level, f"{_smart_label(key)}:\t{_go(value)}\n")


def _go(value: Any) -> str:
    from simulators.lab.kubectl.printing import go_sprint

    return go_sprint(value)


def describe_generic(cluster: ClusterAPI, obj: Obj, events: bool = True) -> str:
    w = Writer()
    m = meta(obj)
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    w.write(0, f"Namespace:\t{m.get('namespace', '')}\n")
    write_labels_and_annotations(w, m)
    skip = {
        ".metadata.managedFields",
        ".metadata.name",
        ".metadata.namespace",
        ".metadata.labels",
        ".metadata.annotations",
    }
    _unstructured(w, 0, obj, "", skip)
    if events:
        write_events(cluster, w, obj)
    return w.text()
