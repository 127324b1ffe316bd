"""kubectl cluster-info: the control plane and the kube-system services marked as such."""

from __future__ import annotations

from simulators.cluster.api import ApiError
from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import COMMON, error_text
from simulators.lab.kubectl.config import SERVER
from simulators.lab.tool import Context, Output

FLAGS = list(COMMON)


def run(ctx: Context, parsed: Parsed) -> Output:
    if parsed.positionals[:1] == ["dump"]:
        return Output.error("error: cluster-info dump is not available in this lab")
    ns = parsed.value("namespace") or "kube-system"
    try:
        services = ctx.api.list(
            "services", ns, label_selector="kubernetes.io/cluster-service=true"
        ).get("items", [])
    except ApiError as exc:
        return Output.error(error_text(exc))
    lines = [f"Kubernetes control plane is running at {SERVER}"]
    for svc in services:
        meta = svc["metadata"]
        ports = (svc.get("spec") or {}).get("ports") or []
        name = str(meta["name"])
        if ports:
            port = ports[0]
            scheme = "https" if port.get("name") == "https" or port.get("port") == 443 else ""
            # utilnet.JoinSchemeNamePort: [scheme:]name[:port-name]
            name = ":".join(p for p in (scheme, name, str(port.get("name") or "")) if p)
        link = f"{SERVER}/api/v1/namespaces/{meta.get('namespace', ns)}/services/{name}/proxy"
        title = (meta.get("labels") or {}).get("kubernetes.io/name") or meta["name"]
        lines.append(f"{title} is running at {link}")
    lines += [
        "",
        "To further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.",
    ]
    return Output("\n".join(lines))
