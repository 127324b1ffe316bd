"""More of kubectl create's generators: cronjob, rolebinding and clusterrolebinding,
poddisruptionbudget and ingress, each building the object as kubectl's generator does."""

from __future__ import annotations

from simulators.cluster.api import Obj
from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.create_names import Generator, image_flag, one_name


def cronjob(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    image = image_flag(parsed)[-1]
    name = one_name("create cronjob", [name, *rest] if name else rest)
    schedule = parsed.value("schedule")
    if not schedule:
        raise KubectlError('error: required flag(s) "schedule" not set')
    container: Obj = {"image": image, "name": name, "resources": {}}
    if parsed.after_dashdash:
        container = {"command": list(parsed.after_dashdash), **container}
    return "cronjobs.batch", {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {
            "jobTemplate": {
                "metadata": {"name": name},
                "spec": {
                    "template": {
                        "metadata": {},
                        "spec": {"containers": [container], "restartPolicy": "OnFailure"},
                    }
                },
            },
            "schedule": schedule,
        },
        "status": {},
    }


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


def ingress(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    name = one_name("create ingress", [name, *rest] if name else rest)
    rules: list[Obj] = []
    for rule in parsed.all("rule"):
        where, _, backend = rule.partition("=")
        host, slash, path = where.partition("/")
        service, _, port = backend.partition(":")
        prefix = path.endswith("*")
        entry: Obj = {
            "backend": {
                "service": {
                    "name": service,
                    "port": {"number": int(port)} if port.isdigit() else {"name": port},
                }
            },
            "path": "/" + path.rstrip("*") if slash else "/",
            "pathType": "Prefix" if prefix else "Exact",
        }
        http: Obj = {"http": {"paths": [entry]}}
        rules.append({"host": host, **http} if host else http)
    spec: Obj = {"rules": rules} if rules else {}
    if parsed.value("class"):
        spec = {"ingressClassName": parsed.value("class"), **spec}
    return "ingresses.networking.k8s.io", {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name},
        "spec": spec,
        "status": {"loadBalancer": {}},
    }
