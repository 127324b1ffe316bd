"""More of kubectl create's generators: rolebinding and clusterrolebinding, poddisruptionbudget
and ingress, each building the object as kubectl's generator does (cronjob and job are
create_job's)."""

from __future__ import annotations

import re

from simulators.cluster.api import Obj
from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.create_names import Generator, one_name


def rolebinding(cluster_wide: bool) -> Generator:
    kind = "ClusterRoleBinding" if cluster_wide else "RoleBinding"
    command = f"create {kind.lower()}"

    def build(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
        name = one_name(command, [name, *rest] if name else rest)
        role, cluster_role = parsed.value("role"), parsed.value("clusterrole")
        if cluster_wide and not cluster_role:
            raise KubectlError('error: required flag(s) "clusterrole" not set')
        if not cluster_wide and bool(role) == bool(cluster_role):
            raise KubectlError("error: exactly one of clusterrole or role must be specified")
        ref_kind, ref_name = ("Role", role) if role else ("ClusterRole", cluster_role)
        subjects: list[Obj] = []
        for user in parsed.all("user"):
            subjects.append({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user})
        for group in parsed.all("group"):
            subjects.append(
                {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": group}
            )
        for account in parsed.all("serviceaccount"):
            ns, sep, sa = account.partition(":")
            if not sep or not ns or not sa:
                raise KubectlError(
                    f"error: serviceaccount must be <namespace>:<name>, got {account}"
                )
            subjects.append({"kind": "ServiceAccount", "name": sa, "namespace": ns})
        obj: Obj = {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": kind,
            "metadata": {"name": name},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": ref_kind,
                "name": ref_name,
            },
        }
        if subjects:
            obj["subjects"] = subjects
        plural = "clusterrolebindings" if cluster_wide else "rolebindings"
        return f"{plural}.rbac.authorization.k8s.io", obj

    return build


def pdb(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    name = one_name("create poddisruptionbudget", [name, *rest] if name else rest)
    selector = parsed.value("selector")
    if not selector:
        raise KubectlError('error: required flag(s) "selector" not set')
    spec: Obj = {}
    for flag, key in (("min-available", "minAvailable"), ("max-unavailable", "maxUnavailable")):
        value = parsed.value(flag)
        if value:
            spec[key] = int(value) if value.isdigit() else value
    if len(spec) != 1:
        raise KubectlError("error: one of min-available or max-unavailable must be specified")
    labels = dict(pair.partition("=")[::2] for pair in selector.split(",") if pair)
    spec["selector"] = {"matchLabels": labels}
    return "poddisruptionbudgets.policy", {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name},
        "spec": spec,
        "status": {
            "currentHealthy": 0,
            "desiredHealthy": 0,
            "disruptionsAllowed": 0,
            "expectedPods": 0,
        },
    }


# create_ingress.go's ruleRegex: host/path=svcname:svcport[,tls[=secret]] (a prefix match).
_RULE = re.compile(
    r"(?P<host>[\w*\-.]*)(?P<path>/.*)=(?P<svcname>[\w\-]+):(?P<svcport>[\w\-]+)"
    r"(,(?P<istls>tls)=?(?P<secretname>[\w\-]+)?)?",
    re.ASCII,
)


def _backend(service: str) -> Obj:
    """buildIngressBackendSvc: `name:port`, a number port as number, else as name (a zero or
    empty one left out, as Go's omitempty leaves it). A service without a port is kubectl's
    panic (a path holding `=` gets there), its first line only."""
    parts = service.split(":")
    if len(parts) < 2:
        raise KubectlError(f"panic: runtime error: index out of range [1] with length {len(parts)}")
    port = _int_or_str(parts[1])
    key = "number" if isinstance(port, int) else "name"
    return {"service": {"name": parts[0], "port": {key: port} if port else {}}}


def _int_or_str(text: str) -> int | str:
    """intstr.Parse: an int32 where strconv.ParseInt(text, 10, 32) reads one, else the text."""
    if re.fullmatch(r"[+-]?[0-9]+", text) and -(2**31) <= int(text) < 2**31:
        return int(text)
    return text


def _path(pathsvc: str) -> Obj:
    """buildHTTPIngressPath: `path=svc:port`, a path ending in `*` a Prefix, else Exact."""
    parts = pathsvc.split("=")
    path = "/" + parts[0]
    kind = "Exact"
    if path.endswith("*"):
        kind, path = "Prefix", path[:-1]
    return {"backend": _backend(parts[1] if len(parts) > 1 else ""), "path": path, "pathType": kind}


def _tls(rules: list[str]) -> list[Obj]:
    """buildTLSRules: one entry per secret, holding the hosts of the rules that name it."""
    entries: list[Obj] = []
    seen: set[str] = set()
    for rule in rules:
        parts = rule.split(",")
        if len(parts) != 2:
            continue
        host = rule.split("/", 1)[0]
        secret_parts = parts[1].split("=")
        secret = secret_parts[1] if len(secret_parts) > 1 else ""
        if host in seen:
            continue
        same = next((e for e in entries if e.get("secretName", "") == secret), None)
        seen.add(host)
        if same is not None:
            same.setdefault("hosts", []).append(host)
            continue
        entry: Obj = {}
        if host:
            entry["hosts"] = [host]
        if secret:
            entry["secretName"] = secret
        if entry:
            entries.append(entry)
    return entries


def _rules(rules: list[str]) -> list[Obj]:
    """buildIngressRules: one rule per host, its paths in the order given."""
    out: list[Obj] = []
    for rule in rules:
        host, _, pathsvc = rule.split(",")[0].partition("/")
        path = _path(pathsvc)
        same = next((r for r in out if r.get("host", "") == host), None)
        if same is not None:
            same["http"]["paths"].append(path)
            continue
        entry: Obj = {"host": host} if host else {}
        entry["http"] = {"paths": [path]}
        out.append(entry)
    return out


def ingress(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    """create ingress: --rule, --class, --default-backend and --annotation, validated and
    built as create_ingress.go does."""
    name = one_name("create ingress", [name, *rest] if name else rest)
    rules, annotations = parsed.all("rule"), parsed.all("annotation")
    default = parsed.value("default-backend") or ""
    if not default and not rules:
        raise KubectlError(
            "error: not enough information provided: every ingress has to either specify a "
            "default-backend (which catches all traffic) or a list of rules (which catch "
            "specific paths)"
        )
    for rule in rules:
        if not _RULE.match(rule):
            raise KubectlError(
                f"error: rule {rule} is invalid and should be in format "
                "host/path=svcname:svcport[,tls[=secret]]"
            )
    for annotation in annotations:
        if "=" not in annotation:
            raise KubectlError(
                f"error: annotation {annotation} is invalid and should be in format key=[value]"
            )
    if default and len(default.split(":")) != 2:
        raise KubectlError("error: default-backend should be in format servicename:serviceport")
    metadata: Obj = {"name": name}
    if annotations:
        metadata["annotations"] = dict(a.split("=", 1) for a in annotations)
    spec: Obj = {}
    if parsed.value("class"):
        spec["ingressClassName"] = parsed.value("class")
    if default:
        spec["defaultBackend"] = _backend(default)
    tls = _tls(rules)
    if tls:
        spec["tls"] = tls
    if rules:
        spec["rules"] = _rules(rules)
    return "ingresses.networking.k8s.io", {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": metadata,
        "spec": spec,
        "status": {"loadBalancer": {}},
    }
