"""kubectl create's generators (`create namespace|configmap|secret|deployment|service|job|
cronjob|serviceaccount|priorityclass|quota|role|clusterrole|rolebinding|clusterrolebinding|pdb|
ingress NAME ...`) and kubectl run: the object kubectl builds client-side, then created, or
printed under --dry-run (which changes nothing). `create token` (create_token) stores nothing.

Each generator returns (resource, object) as kubectl's own generator fills it, so
`--dry-run=client -o yaml` prints the same manifest; `-n` given explicitly sets the namespace.
"""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    KubectlError,
    dry_run,
    dry_run_writer,
    dry_suffix,
    error_text,
    kind_name,
    namespace,
)
from simulators.lab.kubectl.create_more import cronjob, ingress, pdb, rolebinding
from simulators.lab.kubectl.create_names import (
    OPTIONS_LINE,
    Generator,
    image_flag,
    literals,
    one_name,
)
from simulators.lab.kubectl.create_role import role_generator
from simulators.lab.kubectl.create_secret import secret_generator
from simulators.lab.kubectl.create_token import create_token
from simulators.lab.kubectl.printing import object_output, object_text
from simulators.lab.tool import Context, Output

FLAGS = [
    Flag("image", long="image", takes_value=True),
    Flag("replicas", long="replicas", short="r", takes_value=True),
    Flag("port", long="port", takes_value=True),
    Flag("from-literal", long="from-literal", takes_value=True),
    Flag("type", long="type", takes_value=True),
    Flag("tcp", long="tcp", takes_value=True),
    Flag("value", long="value", takes_value=True),
    Flag("description", long="description", takes_value=True),
    Flag("global-default", long="global-default"),
    Flag("hard", long="hard", takes_value=True),
    Flag("schedule", long="schedule", takes_value=True),
    Flag("labels", long="labels", short="l", takes_value=True),
    Flag("env", long="env", takes_value=True),
    Flag("restart", long="restart", takes_value=True),
    Flag("command", long="command"),
    Flag("role", long="role", takes_value=True),
    Flag("clusterrole", long="clusterrole", takes_value=True),
    Flag("user", long="user", takes_value=True),
    Flag("group", long="group", takes_value=True),
    Flag("serviceaccount", long="serviceaccount", takes_value=True),
    Flag("selector", long="selector", takes_value=True),
    Flag("min-available", long="min-available", takes_value=True),
    Flag("max-unavailable", long="max-unavailable", takes_value=True),
    Flag("rule", long="rule", takes_value=True),
    Flag("class", long="class", takes_value=True),
    Flag("external-name", long="external-name", takes_value=True),
]
SERVICE_HELP = f"""Create a service using a specified subcommand.

Aliases:
service, svc

Available Commands:
  clusterip      Create a ClusterIP service
  externalname   Create an ExternalName service
  loadbalancer   Create a LoadBalancer service
  nodeport       Create a NodePort service

Usage:
  kubectl create service [flags] [options]

Use "kubectl create service <command> --help" for more information about a given command.
{OPTIONS_LINE}"""


def _container_name(image: str) -> str:
    """The name kubectl derives from an image: its last path segment, without tag or digest."""
    last = image.rsplit("/", 1)[-1]
    return last.split("@", 1)[0].split(":", 1)[0]


def _namespace(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    del parsed
    name = one_name("create namespace", [name, *rest] if name else rest)
    return "namespaces", {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name},
        "spec": {},
        "status": {},
    }


def _configmap(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    name = one_name("create configmap", [name, *rest] if name else rest)
    obj: Obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    data = literals(parsed, encode=False)
    if data:
        obj["data"] = data
    return "configmaps", obj


def _deployment(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    images = image_flag(parsed)
    name = one_name("create deployment", [name, *rest] if name else rest)
    containers: list[Obj] = []
    for image in images:
        container: Obj = {"image": image, "name": _container_name(image), "resources": {}}
        containers.append(container)
    port = parsed.value("port")
    if port:
        containers[0]["ports"] = [{"containerPort": _int("port", port)}]
    labels = {"app": name}
    return "deployments.apps", {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"labels": dict(labels), "name": name},
        "spec": {
            "replicas": _int("replicas", parsed.value("replicas") or "1"),
            "selector": {"matchLabels": dict(labels)},
            "strategy": {},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"containers": containers},
            },
        },
        "status": {},
    }


def _int(flag: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise KubectlError(
            f'error: invalid argument "{text}" for "--{flag}" flag: strconv.ParseInt: parsing '
            f'"{text}": invalid syntax'
        ) from None


def _serviceaccount(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    del parsed
    name = one_name("create serviceaccount", [name, *rest] if name else rest)
    return "serviceaccounts", {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name},
    }


_SERVICE_TYPES = {
    "clusterip": "ClusterIP",
    "nodeport": "NodePort",
    "loadbalancer": "LoadBalancer",
    "externalname": "ExternalName",
}


def _service(kind: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    if kind not in _SERVICE_TYPES:
        if not kind:
            raise KubectlError(SERVICE_HELP)
        raise KubectlError(f'error: unknown command "{kind}" for "kubectl create service"')
    name = one_name(f"create service {kind}", rest)
    ports: list[Obj] = []
    for spec in parsed.all("tcp"):
        port, _, target = spec.partition(":")
        target = target or port
        ports.append(
            {
                "name": f"{port}-{target}",
                "port": _int("tcp", port),
                "protocol": "TCP",
                "targetPort": int(target) if target.isdigit() else target,
            }
        )
    spec_obj: Obj = {"ports": ports, "selector": {"app": name}, "type": _SERVICE_TYPES[kind]}
    if kind == "externalname":
        external = parsed.value("external-name")
        if not external:
            raise KubectlError('error: required flag(s) "external-name" not set')
        spec_obj = {"externalName": external, **spec_obj}
        if not ports:
            del spec_obj["ports"]
    return "services", {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"labels": {"app": name}, "name": name},
        "spec": spec_obj,
        "status": {"loadBalancer": {}},
    }


def _job(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    name = one_name("create job", [name, *rest] if name else rest)
    image = image_flag(parsed)[-1]
    container: Obj = {"image": image, "name": name, "resources": {}}
    if parsed.after_dashdash:
        container = {"command": list(parsed.after_dashdash), **container}
    return "jobs.batch", {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "template": {
                "metadata": {},
                "spec": {"containers": [container], "restartPolicy": "Never"},
            }
        },
        "status": {},
    }


def _priorityclass(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    name = one_name("create priorityclass", [name, *rest] if name else rest)
    obj: Obj = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "preemptionPolicy": "PreemptLowerPriority",
        "value": _int("value", parsed.value("value") or "0"),
    }
    if parsed.value("description"):
        obj["description"] = parsed.value("description")
    if parsed.has("global-default"):
        obj["globalDefault"] = True
    return "priorityclasses.scheduling.k8s.io", obj


def _quota(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    name = one_name("create quota", [name, *rest] if name else rest)
    hard: dict[str, str] = {}
    for pair in (parsed.value("hard") or "").split(","):
        if pair:
            key, _, value = pair.partition("=")
            hard[key] = value
    return "resourcequotas", {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name},
        "spec": {"hard": hard} if hard else {},
        "status": {},
    }


GENERATORS: dict[str, Generator] = {
    "cronjob": cronjob,
    "cj": cronjob,
    "rolebinding": rolebinding(cluster_wide=False),
    "clusterrolebinding": rolebinding(cluster_wide=True),
    "poddisruptionbudget": pdb,
    "pdb": pdb,
    "ingress": ingress,
    "ing": ingress,
    "namespace": _namespace,
    "ns": _namespace,
    "configmap": _configmap,
    "cm": _configmap,
    "deployment": _deployment,
    "deploy": _deployment,
    "serviceaccount": _serviceaccount,
    "sa": _serviceaccount,
    "job": _job,
    "priorityclass": _priorityclass,
    "pc": _priorityclass,
    "quota": _quota,
    "resourcequota": _quota,
}
SUBCOMMANDS: dict[str, Generator] = {"service": _service, "svc": _service}


def create(ctx: Context, parsed: Parsed) -> Output:
    """`kubectl create GENERATOR NAME [flags]`."""
    what, *rest = parsed.positionals
    if what == "token":
        return create_token(ctx, parsed, rest)
    # kubectl's warnings (a verb it does not know) come before the result or the error.
    warnings: list[str] = []
    generators = {
        **GENERATORS,
        "role": role_generator(False, ctx.api, warnings),
        "clusterrole": role_generator(True, ctx.api, warnings),
    }
    failure = ""
    try:
        if what in ("configmap", "cm"):
            failure = "failed to create configmap:"
        if what == "secret":
            failure = "failed to create secret"
            resource, obj = secret_generator(ctx)(rest[0] if rest else "", parsed, rest[1:])
        elif what in SUBCOMMANDS:
            kind = rest[0] if rest else ""
            resource, obj = SUBCOMMANDS[what](kind, parsed, rest[1:])
        elif what in generators:
            resource, obj = generators[what]("", parsed, rest)
        else:
            raise KubectlError(f'error: unknown command "{what}" for "kubectl create"')
        out = submit(ctx, parsed, resource, obj, "created", failure)
    except KubectlError as exc:
        if not warnings:
            raise
        raise KubectlError("\n".join([*warnings, str(exc)])) from None
    if warnings:
        return Output("\n".join([*warnings, out.text]), out.code)
    return out


def run(ctx: Context, parsed: Parsed) -> Output:
    """`kubectl run NAME --image=IMAGE [--labels] [--port] [--env] [-- COMMAND...]`: a Pod."""
    image = image_flag(parsed)[-1]
    name = one_name("run", parsed.positionals[:1] if parsed.positionals else [])
    labels: dict[str, str] = {"run": name}
    if parsed.value("labels"):
        labels = {}
        for pair in str(parsed.value("labels")).split(","):
            key, _, value = pair.partition("=")
            labels[key] = value
    container: Obj = {"image": image, "name": name, "resources": {}}
    args = list(parsed.after_dashdash or []) + parsed.positionals[1:]
    if args:
        container["command" if parsed.has("command") else "args"] = args
    envs = parsed.all("env")
    if envs:
        container["env"] = [
            {"name": e.partition("=")[0], "value": e.partition("=")[2]} for e in envs
        ]
    if parsed.value("port"):
        container["ports"] = [{"containerPort": _int("port", str(parsed.value("port")))}]
    restart = parsed.value("restart") or "Always"
    obj: Obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"labels": labels, "name": name},
        "spec": {
            "containers": [container],
            "dnsPolicy": "ClusterFirst",
            "restartPolicy": restart,
        },
        "status": {},
    }
    return submit(ctx, parsed, "pods", obj, "created")


def submit(
    ctx: Context, parsed: Parsed, resource: str, obj: Obj, verb: str, failure: str = ""
) -> Output:
    """Create `obj` (or not, under --dry-run) and print what kubectl prints for it; `failure`
    is the words some generators put before the server's refusal ("failed to create secret")."""
    output = object_output(parsed)
    dry = dry_run(parsed)
    cluster: ClusterAPI = ctx.api
    name = obj["metadata"]["name"]
    try:
        info = cluster.resolve(resource)
    except ApiError as exc:
        if dry != "client":
            return Output(error_text(exc), 1)
        # A client dry run never asks the server: a kind it does not serve still prints.
        if parsed.value("namespace") and obj.get("kind") not in CLUSTER_SCOPED:
            obj["metadata"]["namespace"] = parsed.value("namespace")
        return _printed_offline(obj, output, name)
    explicit = parsed.value("namespace")
    if info.namespaced and explicit:
        obj["metadata"]["namespace"] = explicit
    ns = namespace(parsed) if info.namespaced else None
    try:
        writer = dry_run_writer(cluster, dry)
        if writer is not None:
            # A server dry run goes through every rule the create would, on a copy that is
            # then dropped, and answers with the object as the server would store it.
            obj = writer.create(resource, obj, ns)
        elif dry == "server":
            _exists(cluster, resource, name, ns)
    except ApiError as exc:
        if failure:
            return Output(f"error: {failure} {exc.message}", 1)
        return Output(error_text(exc), 1)
    label = f"{kind_name(info)}/{name}"
    return Output(object_text(obj, label, output, verb + dry_suffix(dry)).removesuffix("\n"))


CLUSTER_SCOPED = {
    "Namespace",
    "Node",
    "ClusterRole",
    "ClusterRoleBinding",
    "PriorityClass",
    "StorageClass",
    "PersistentVolume",
}


def _printed_offline(obj: Obj, output: str, name: str) -> Output:
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    kind = str(obj.get("kind", "")).lower()
    label = f"{kind}.{group}" if group else kind
    return Output(
        object_text(obj, f"{label}/{name}", output, "created (dry run)").removesuffix("\n")
    )


def _exists(cluster: ClusterAPI, resource: str, name: str, ns: str | None) -> None:
    """A server dry run still fails where the create would: an object of that name exists."""
    try:
        cluster.get(resource, name, ns)
    except ApiError:
        return
    key = cluster.resolve(resource).key
    raise ApiError(409, "AlreadyExists", f'{key} "{name}" already exists')
