"""kubectl create's generators (`create namespace|configmap|secret|deployment|service|job|
cronjob|serviceaccount|priorityclass|quota|role|clusterrole|rolebinding|clusterrolebinding|pdb|
ingress NAME ...`): the object kubectl builds client-side, then created, or printed under
--dry-run (which changes nothing). `create token` (create_token) stores nothing; kubectl run
is its own verb (run).

Each generator returns (resource, object) as kubectl's own generator fills it, so
`--dry-run=client -o yaml` prints the same manifest; `-n` given explicitly sets the namespace.
Each subcommand takes its own flags only (another's is pflag's `unknown flag`), and most put
their own words before the server's refusal (`error: failed to create configmap: ...`), as
kubectl 1.36's do; namespace, role and clusterrole print the server's error as it stands.
"""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl import create_role, create_secret, create_token
from simulators.lab.kubectl.common import (
    KubectlError,
    dry_run,
    dry_run_writer,
    dry_suffix,
    error_text,
    kind_name,
    namespace,
)
from simulators.lab.kubectl.create_job import cronjob, job_generator
from simulators.lab.kubectl.create_more import ingress, pdb, rolebinding
from simulators.lab.kubectl.create_names import Generator, image_flag, int_flag, one_name
from simulators.lab.kubectl.create_quota import quota, typed_status
from simulators.lab.kubectl.create_role import role_generator
from simulators.lab.kubectl.create_secret import secret_generator
from simulators.lab.kubectl.create_service import SERVICE_TYPES, service
from simulators.lab.kubectl.create_sources import configmap_data, configmap_hash, go_json
from simulators.lab.kubectl.go_order import struct_order
from simulators.lab.kubectl.printing import object_output, object_text
from simulators.lab.tool import Context, Output

# The generators' flags (each subcommand takes its own: check_flags), and -l, --env and
# --command, which none takes: check_flags refuses them as pflag names them.
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
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# More of the generators' flags (apply.CREATE_FLAGS adds them).
CREATE_ONLY_FLAGS = [
    Flag("from-file", long="from-file", takes_value=True),
    Flag("from-env-file", long="from-env-file", takes_value=True),
    Flag("annotation", long="annotation", takes_value=True),
    Flag("default-backend", long="default-backend", takes_value=True),
    Flag("from", long="from", takes_value=True),
    Flag("preemption-policy", long="preemption-policy", takes_value=True),
    Flag("scopes", long="scopes", takes_value=True),
    Flag("clusterip", long="clusterip", takes_value=True),
    Flag("node-port", long="node-port", takes_value=True),
    Flag("docker-server", long="docker-server", takes_value=True),
    Flag("docker-username", long="docker-username", takes_value=True),
    Flag("docker-password", long="docker-password", takes_value=True),
    Flag("docker-email", long="docker-email", takes_value=True),
    Flag("edit", long="edit"),
    Flag("windows-line-endings", long="windows-line-endings"),
    Flag("field-manager", long="field-manager", takes_value=True),
]
_ROLE = {"verb", "resource", "resource-name"}
_BINDING = {"clusterrole", "user", "group", "serviceaccount"}
_SOURCES = {"from-file", "from-literal", "from-env-file", "append-hash"}
_DOCKER = {"docker-server", "docker-username", "docker-password", "docker-email"}
# Each subcommand's own flags (kubectl create's printing, --dry-run, --validate,
# --save-config and the global flags are everyone's).
OWN_FLAGS: dict[str, set[str]] = {
    "namespace": set(),
    "serviceaccount": set(),
    "configmap": _SOURCES,
    "secret generic": _SOURCES | {"type"},
    "secret docker-registry": _DOCKER | {"from-file", "append-hash"},
    "secret tls": {"cert", "key", "append-hash"},
    "deployment": {"image", "port", "replicas"},
    "job": {"image", "from"},
    "cronjob": {"image", "schedule", "restart"},
    "priorityclass": {"value", "global-default", "description", "preemption-policy"},
    "quota": {"hard", "scopes"},
    "role": _ROLE,
    "clusterrole": _ROLE | {"non-resource-url", "aggregation-rule"},
    "rolebinding": _BINDING | {"role"},
    "clusterrolebinding": _BINDING,
    "poddisruptionbudget": {"min-available", "max-unavailable", "selector"},
    "ingress": {"class", "rule", "default-backend", "annotation"},
    "service clusterip": {"tcp", "clusterip"},
    "service nodeport": {"tcp", "node-port"},
    "service loadbalancer": {"tcp"},
    "service externalname": {"tcp", "external-name"},
    "token": {flag.key for flag in create_token.FLAGS},
}
# kubectl create's flags no subcommand has; how pflag names them when one is given.
_CREATE_ONLY = {"filename": "-f", "recursive": "-R", "edit": "--edit", "labels": "-l"}
_SPECIFIC = {
    *(flag.key for flag in [*FLAGS, *CREATE_ONLY_FLAGS, *create_role.FLAGS]),
    *(flag.key for flag in [*create_secret.FLAGS, *create_token.FLAGS]),
    *_CREATE_ONLY,
} - {"field-manager"}
ALIASES = {
    "ns": "namespace",
    "cm": "configmap",
    "deploy": "deployment",
    "sa": "serviceaccount",
    "cj": "cronjob",
    "pc": "priorityclass",
    "resourcequota": "quota",
    "pdb": "poddisruptionbudget",
    "ing": "ingress",
    "svc": "service",
}
# The words each generator puts before the server's refusal (create_*.go's fmt.Errorf).
FAILURES = {
    "configmap": "failed to create configmap:",
    "secret": "failed to create secret",
    "deployment": "failed to create deployment:",
    "serviceaccount": "failed to create serviceaccount:",
    "job": "failed to create job:",
    "cronjob": "failed to create cronjob:",
    "priorityclass": "failed to create priorityclass:",
    "quota": "failed to create quota:",
    "rolebinding": "failed to create rolebinding:",
    "clusterrolebinding": "failed to create clusterrolebinding:",
    "poddisruptionbudget": "failed to create poddisruptionbudgets:",
    "ingress": "failed to create ingress:",
}
# What a subcommand posts to, where kubectl 1.36 was measured refused by the server itself
# (connection.plain_http: "error: failed to create configmap: ... (post configmaps)").
POSTS = {
    "deployment": "deployments.apps",
    "configmap": "configmaps",
    "serviceaccount": "serviceaccounts",
    "rolebinding": "rolebindings.rbac.authorization.k8s.io",
    "job": "jobs.batch",
    "quota": "resourcequotas",
    "secret generic": "secrets",
    "service clusterip": "services",
}


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


def _configmap_generator(ctx: Context) -> Generator:
    """create configmap NAME [--from-file] [--from-literal] [--from-env-file] [--append-hash],
    its files read from `ctx`'s home folder."""

    def build(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
        name = one_name("create configmap", [name, *rest] if name else rest)
        obj: Obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
        data = configmap_data(ctx, parsed, name)
        if data:
            obj["data"] = data
        if parsed.has("append-hash"):
            obj["metadata"]["name"] = f"{name}-{configmap_hash(obj)}"
        return "configmaps", obj

    return build


def _deployment(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    images = image_flag(parsed)
    name = one_name("create deployment", [name, *rest] if name else rest)
    port = int_flag("create deployment", parsed, "port", -1)
    replicas = int_flag("create deployment", parsed, "replicas", 1)
    command = list(parsed.after_dashdash or [])
    if len(images) > 1 and command:
        raise KubectlError("error: cannot specify multiple --image options and command")
    containers: list[Obj] = []
    for image in images:
        container: Obj = {"image": image, "name": _container_name(image), "resources": {}}
        if command:
            container["command"] = command
        containers.append(container)
    if port >= 0:
        containers[0]["ports"] = [{"containerPort": port}]
    labels = {"app": name}
    return "deployments.apps", {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"labels": dict(labels), "name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": dict(labels)},
            "strategy": {},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"containers": containers},
            },
        },
        "status": {},
    }


def _serviceaccount(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    del parsed
    name = one_name("create serviceaccount", [name, *rest] if name else rest)
    return "serviceaccounts", {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name},
    }


def _priorityclass(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    name = one_name("create priorityclass", [name, *rest] if name else rest)
    value = int_flag("create priorityclass", parsed, "value", 0)
    obj: Obj = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "preemptionPolicy": parsed.value("preemption-policy", "PreemptLowerPriority"),
        "value": value,
    }
    if parsed.value("description"):
        obj["description"] = parsed.value("description")
    if parsed.has("global-default"):
        obj["globalDefault"] = True
    return "priorityclasses.scheduling.k8s.io", obj


GENERATORS: dict[str, Generator] = {
    "cronjob": cronjob,
    "rolebinding": rolebinding(cluster_wide=False),
    "clusterrolebinding": rolebinding(cluster_wide=True),
    "poddisruptionbudget": pdb,
    "ingress": ingress,
    "namespace": _namespace,
    "deployment": _deployment,
    "serviceaccount": _serviceaccount,
    "priorityclass": _priorityclass,
    "quota": quota,
}


def _command(what: str, rest: list[str]) -> str:
    """The subcommand's path after `create` ("configmap", "secret generic", "token"), or ""
    where there is none (an unknown one, or secret/service without a known kind)."""
    what = ALIASES.get(what, what)
    if what in ("secret", "service"):
        kind = rest[0] if rest else ""
        command = f"{what} {kind}"
        return command if command in OWN_FLAGS else ""
    return what if what in OWN_FLAGS else ""


def failure_words(command: str) -> str:
    """The words the subcommand ("configmap", "service clusterip") puts before the server's
    refusal, "" where it puts none."""
    what, _, kind = command.partition(" ")
    if what == "service":
        return f"failed to create {SERVICE_TYPES[kind]} service:" if kind in SERVICE_TYPES else ""
    return FAILURES.get(what, "")


def refused_post(args: list[str]) -> tuple[str, str] | None:
    """For `kubectl create ARGS` (aliases too): the subcommand's words before the server's
    refusal and the resource it posts to, where POSTS has them; else None."""
    command = _command(args[0], args[1:]) if args else ""
    if command not in POSTS:
        return None
    return failure_words(command), POSTS[command]


def is_subcommand(word: str) -> bool:
    """Whether `kubectl create WORD` names a subcommand (an alias too)."""
    return ALIASES.get(word, word) in {
        *GENERATORS,
        "configmap",
        "job",
        "role",
        "clusterrole",
        "secret",
        "service",
        "token",
    }


def check_flags(command: str, parsed: Parsed) -> None:
    """pflag's refusal of a flag the subcommand does not have (another subcommand's, or one
    of kubectl create's own such as -f)."""
    given = [*parsed.values, *sorted(parsed.bools)]
    for key in given:
        if key in _SPECIFIC and key not in OWN_FLAGS[command]:
            shown = _CREATE_ONLY.get(key, f"--{key}")
            what = (
                f"shorthand flag: '{shown[1]}' in {shown}" if len(shown) == 2 else f"flag: {shown}"
            )
            raise KubectlError(
                f"error: unknown {what}\nSee 'kubectl create {command} --help' for usage."
            )


# Flags cobra requires before the command runs (MarkFlagRequired).
REQUIRED = {
    "deployment": ("image",),
    "cronjob": ("image", "schedule"),
    "clusterrolebinding": ("clusterrole",),
    "service externalname": ("external-name",),
}

# Flags pflag parses as numbers (Int32Var, IntVar), and their bits.
INT_FLAGS = {
    "deployment": (("port", 32), ("replicas", 32)),
    "priorityclass": (("value", 32),),
    "service nodeport": (("node-port", 64),),
}


def _preflight(command: str, parsed: Parsed, names: list[str]) -> None:
    """What kubectl checks before a generator builds anything, in its order: pflag's number
    flags, cobra's required flags, then Complete's one NAME, --dry-run and -o (so a bad -o is
    reported before a bad source or rule)."""
    for flag, bits in INT_FLAGS.get(command, ()):
        int_flag(f"create {command}", parsed, flag, 0, bits)
    missing = [flag for flag in REQUIRED.get(command, ()) if not parsed.has(flag)]
    if missing:
        listed = ", ".join(f'"{flag}"' for flag in missing)
        raise KubectlError(f"error: required flag(s) {listed} not set")
    one_name(f"create {command}", names)
    dry_run(parsed)
    object_output(parsed)


def create(ctx: Context, parsed: Parsed) -> Output:
    """`kubectl create GENERATOR NAME [flags]`."""
    what, *rest = parsed.positionals
    command = _command(what, rest)
    if command:
        check_flags(command, parsed)
    what = ALIASES.get(what, what)
    if what == "token":
        return create_token.create_token(ctx, parsed, rest)
    if command:
        _preflight(command, parsed, rest[1:] if " " in command else rest)
    # kubectl's warnings (a verb it does not know) come before the result or the error.
    warnings: list[str] = []
    generators = {
        **GENERATORS,
        "configmap": _configmap_generator(ctx),
        "job": job_generator(ctx),
        "role": role_generator(False, ctx.api, warnings),
        "clusterrole": role_generator(True, ctx.api, warnings),
    }
    failure = FAILURES.get(what, "")
    try:
        if what == "secret":
            resource, obj = secret_generator(ctx)(rest[0] if rest else "", parsed, rest[1:])
        elif what == "service":
            kind = rest[0] if rest else ""
            resource, obj = service(kind, parsed, rest[1:])
            failure = failure_words(f"service {kind}")
        elif what in generators:
            resource, obj = generators[what]("", parsed, rest)
        else:
            raise KubectlError(f"error: unknown command {what!r}")
        out = submit(ctx, parsed, resource, obj, "created", failure)
    except KubectlError as exc:
        if not warnings:
            raise
        raise KubectlError("\n".join([*warnings, str(exc)])) from None
    if warnings:
        return Output("\n".join([*warnings, out.text]), out.code)
    return out


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
    # create service takes --save-config but never reads it.
    if parsed.has("save-config") and obj.get("kind") != "Service":
        save_config(obj)
    try:
        writer = dry_run_writer(cluster, dry)
        if writer is not None:
            # A server dry run goes through every rule the create would, on a copy that is
            # then dropped, and answers with the object as the server would store it.
            obj = writer.create(resource, obj, ns)
            if obj.get("kind") == "ResourceQuota":
                obj = typed_status(obj)
        elif dry == "server":
            exists(cluster, resource, name, ns)
    except ApiError as exc:
        if failure:
            return Output(f"error: {failure} {exc.message}", 1)
        return Output(error_text(exc), 1)
    label = f"{kind_name(info)}/{name}"
    return Output(object_text(obj, label, output, verb + dry_suffix(dry)).removesuffix("\n"))


def save_config(obj: Obj) -> None:
    """--save-config (util.CreateApplyAnnotation): the object as kubectl's JSON encoder writes
    it (Go's field order, a newline at the end) becomes its last-applied-configuration."""
    meta = dict(obj["metadata"])
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k != LAST_APPLIED}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    encoded = go_json(struct_order({**obj, "metadata": meta}), sort_keys=False) + "\n"
    obj["metadata"]["annotations"] = {**annotations, LAST_APPLIED: encoded}


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


def exists(cluster: ClusterAPI, resource: str, name: str, ns: str | None) -> None:
    """A server dry run still fails where the create would: an object of that name exists."""
    try:
        cluster.get(resource, name, ns)
    except ApiError:
        return
    key = cluster.resolve(resource).key
    raise ApiError(409, "AlreadyExists", f'{key} "{name}" already exists')
