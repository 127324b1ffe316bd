"""What every kubectl verb shares: errors as kubectl prints them, targets, namespaces, ages."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo
from simulators.cluster.clock import parse_time
from simulators.cluster.printers import human_duration
from simulators.lab.flags import Flag, FlagError, Parsed, parse_bool
from simulators.lab.gotext import go_quote
from simulators.lab.tool import Context

DEFAULT_NS = "default"

NS_FLAG = Flag("namespace", long="namespace", short="n", takes_value=True)
# Global flags every kubectl command accepts; the kubeconfig's are read by
# simulators.lab.kubectl.connection.
COMMON = [
    NS_FLAG,
    Flag("help", long="help", short="h"),
    Flag("context", long="context", takes_value=True),
    Flag("kubeconfig", long="kubeconfig", takes_value=True),
    Flag("cluster", long="cluster", takes_value=True),
    Flag("user", long="user", takes_value=True),
    Flag("verbosity", long="v", short="v", takes_value=True),
    Flag("request-timeout", long="request-timeout", takes_value=True),
    # Impersonation: every request is then authorized as that user (cluster.impersonation).
    Flag("as", long="as", takes_value=True),
    Flag("as-group", long="as-group", takes_value=True),
    Flag("as-uid", long="as-uid", takes_value=True),
    # clientcmd's overrides of the kubeconfig's cluster and user (connection.connect).
    Flag("server", long="server", short="s", takes_value=True),
    Flag("token", long="token", takes_value=True),
    Flag("insecure-skip-tls-verify", long="insecure-skip-tls-verify"),
    Flag("certificate-authority", long="certificate-authority", takes_value=True),
    Flag("client-certificate", long="client-certificate", takes_value=True),
    Flag("client-key", long="client-key", takes_value=True),
    Flag("username", long="username", takes_value=True),
    Flag("password", long="password", takes_value=True),
    Flag("tls-server-name", long="tls-server-name", takes_value=True),
]


# The shell's own process id is 4242 ($$); each kubectl it starts gets the next ones.
_FIRST_PID = 4243


def process_id(ctx: Context) -> int:
    """This kubectl's process id, as its klog lines show it."""
    return _FIRST_PID + len(ctx.history)


_INT32 = re.compile(r"[+-]?[0-9]+")


def check_verbosity(parsed: Parsed) -> None:
    """klog's -v read as its Level.Set reads it (strconv.ParseInt(value, 10, 32)): a
    FlagError in pflag's words for anything else."""
    value = parsed.value("verbosity")
    if value is None:
        return
    reason = "invalid syntax" if not _INT32.fullmatch(value) else ""
    if not reason and not -(2**31) <= int(value) < 2**31:
        reason = "value out of range"
    if reason:
        raise FlagError(
            f'invalid argument "{value}" for "-v, --v" flag: strconv.ParseInt: '
            f"parsing {go_quote(value)}: {reason}"
        )


# Bare, it is "unchanged" (cmdutil.AddDryRunFlag's NoOptDefVal): a deprecated client dry run.
DRY_RUN = Flag("dry-run", long="dry-run", takes_value=True, no_opt="unchanged")
# What the API server answers for a subresource the kind does not have (--subresource).
NO_SUBRESOURCE = "Error from server (NotFound): the server could not find the requested resource"


def dry_run(parsed: Parsed) -> str:
    """--dry-run's strategy: "" (none), "client" or "server", as cmdutil.GetDryRunStrategy
    reads it: bare (`--dry-run`) or a boolean it is client or none, with klog's deprecation
    warning noted (Parsed.warn)."""
    value = parsed.value("dry-run")
    if value is None or value == "none":
        return ""
    if value in ("client", "server"):
        return value
    boolean = parse_bool(value)
    if boolean is not None:
        mode = "client" if boolean else "none"
        parsed.warn(
            f"--dry-run={value} is deprecated (boolean value) and can be replaced with "
            f"--dry-run={mode}.",
            "helpers.go:733" if boolean else "helpers.go:736",
        )
        return "client" if boolean else ""
    if value == DRY_RUN.no_opt:
        parsed.warn(
            "--dry-run is deprecated and can be replaced with --dry-run=client.", "helpers.go:719"
        )
        return "client"
    raise KubectlError(
        f'error: Invalid dry-run value ({value}). Must be "none", "server", or "client".'
    )


# DeleteFlags' --cascade; bare, it is "background".
CASCADE = Flag("cascade", long="cascade", takes_value=True, no_opt="background")
_CASCADES = ("background", "foreground", "orphan")


def cascade(parsed: Parsed) -> str:
    """DeleteFlags' --cascade strategy (GetCascadingStrategy): a strategy, or a deprecated
    boolean with its warning noted (Parsed.warn)."""
    value = parsed.value("cascade")
    if value is None:
        return "background"
    if value in _CASCADES:
        return value
    boolean = parse_bool(value)
    if boolean is None:
        raise KubectlError(
            f'error: invalid cascade value ({value}). Must be "background", "foreground", or '
            '"orphan"'
        )
    strategy = "background" if boolean else "orphan"
    parsed.warn(
        f"warning: --cascade={value} is deprecated (boolean value) and can be replaced with "
        f"--cascade={strategy}."
    )
    return strategy


def dry_run_writer(cluster: ClusterAPI, mode: str) -> ClusterAPI | None:
    """Where a command writes under the dry-run strategy `mode` ("", "client" or "server"):
    the cluster itself; for a server dry run a copy that goes through every rule and is then
    dropped (a store's ``dry_run``), or None where the cluster has none (a real cluster's
    client); None for a client dry run, which never asks the server."""
    if not mode:
        return cluster
    fork = getattr(cluster, "dry_run", None) if mode == "server" else None
    return fork() if fork is not None else None


def dry_suffix(mode: str) -> str:
    """What kubectl appends to a result line under a dry run."""
    return {"client": " (dry run)", "server": " (server dry run)"}.get(mode, "")


class KubectlError(Exception):
    """kubectl's message for a failed command (printed as is, exit 1)."""


def see(sub: str) -> str:
    """What pflag appends to a flag error."""
    return f"See 'kubectl {sub} --help' for usage."


def usage(sub: str) -> str:
    """What cmdutil.UsageErrorf appends to a usage error."""
    return f"See 'kubectl {sub} -h' for help and examples"


def api(ctx: Context) -> ClusterAPI:
    return ctx.api


def error_text(exc: ApiError) -> str:
    """cmdutil.CheckErr's wording for a Status error from the server."""
    if exc.reason == "Invalid":
        details = exc.details or {}
        kind, name = details.get("kind", ""), details.get("name", "")
        causes = details.get("causes") or []
        head = f'The {kind} "{name}" is invalid' if (kind or name) else "The request is invalid"
        if not causes:
            return head if (kind or name) else f"{head}: {exc.message}"
        msgs: list[str] = []
        for cause in causes:
            msg = f"{cause.get('field', '')}: {cause.get('message', '')}"
            if msg not in msgs:
                msgs.append(msg)
        if len(msgs) == 1:
            return f"{head}: {msgs[0]}"
        return f"{head}: \n" + "\n".join(f"* {m}" for m in msgs)
    if exc.reason:
        return f"Error from server ({exc.reason}): {exc.message}"
    return f"Error from server: {exc.message}"


def list_error(info: ResourceInfo, exc: ApiError, label: str = "", field: str = "") -> str:
    """The resource builder's wording for a list the server refused (BadRequest, NotFound)."""
    if exc.reason not in ("BadRequest", "NotFound"):
        return error_text(exc)
    resource = f"{info.group}/{info.version}, Resource={info.plural}"
    if not label and not field:
        message = f'Unable to list "{resource}": {exc.message}'
    else:
        message = (
            f'Unable to find "{resource}" that match label selector "{label}", '
            f'field selector "{field}": {exc.message}'
        )
    return error_text(ApiError(exc.code, exc.reason, message, exc.details))


class _BuilderGets:
    """The cluster as kubectl's resource builder gets a named object (cli-runtime's Info.Get):
    an object not found in a namespace other than default is that namespace's NotFound when
    the namespace itself is missing; the rest of the API as it is."""

    def __init__(self, api: ClusterAPI) -> None:
        self.inner = api

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def get(self, resource: str, name: str, namespace: str | None = None) -> Obj:
        try:
            return self.inner.get(resource, name, namespace)
        except ApiError as exc:
            if exc.code != 404 or not namespace or namespace == "default":
                raise
            try:
                self.inner.get("namespaces", namespace)
            except ApiError as missing:
                if missing.code == 404:
                    raise missing from None
            raise


def builder_gets(api: ClusterAPI) -> ClusterAPI:
    """`api` read as kubectl's resource builder reads named objects (_BuilderGets)."""
    return cast(ClusterAPI, _BuilderGets(api))


def read_list(
    cluster: ClusterAPI,
    resource: str,
    namespace: str | None = None,
    *,
    label_selector: str = "",
    field_selector: str = "",
) -> list[Obj]:
    """The items of a list call, for printing only: on the mock store, the stored objects
    themselves, as its HTTP server prints them (a table of every pod need not copy every pod).
    """
    select = getattr(cluster, "select", None)
    if select is not None:
        selected: list[Obj] = select(
            resource, namespace, label_selector=label_selector, field_selector=field_selector
        )
        return selected
    listed = cluster.list(
        resource, namespace, label_selector=label_selector, field_selector=field_selector
    )
    items = listed.get("items", [])
    return list(items) if isinstance(items, list) else []


def namespace(parsed: Parsed) -> str:
    """The command's namespace: -n, else the kubeconfig context's, else default."""
    return parsed.value("namespace") or parsed.context_namespace or DEFAULT_NS


def resolve(cluster: ClusterAPI, word: str) -> ResourceInfo:
    try:
        return cluster.resolve(word)
    except ApiError:
        raise KubectlError(f'error: the server doesn\'t have a resource type "{word}"') from None


def kind_name(info: ResourceInfo) -> str:
    """`-o name`'s prefix: pod, deployment.apps, clusterpolicy.nvidia.com."""
    kind = info.kind.lower()
    return f"{kind}.{info.group}" if info.group else kind


@dataclass
class Target:
    """Objects of one kind a command names: by name, or all (no names). `namespace` is the
    objects' own where a file named them (`-f`), else None: the command's namespace."""

    info: ResourceInfo
    names: list[str]
    namespace: str | None = None

    def scope(self, ns: str | None) -> str | None:
        """Where the objects are: None for a cluster-scoped kind, else their own namespace or
        the command's `ns`."""
        return (self.namespace or ns) if self.info.namespaced else None


def targets(
    cluster: ClusterAPI, positionals: list[str], verb: str = "get", all_namespaces: bool = False
) -> list[Target]:
    """`pods a b`, `deploy,ds`, `pod/a node/b` as kubectl's resource builder reads them."""
    found = _targets(cluster, positionals, verb)
    if all_namespaces and any(t.names and t.info.namespaced for t in found):
        raise KubectlError("error: a resource cannot be retrieved by name across all namespaces")
    return found


def _targets(cluster: ClusterAPI, positionals: list[str], verb: str) -> list[Target]:
    if not positionals:
        raise KubectlError(
            'You must specify the type of resource to get. Use "kubectl api-resources" for a '
            "complete list of supported resources.\n\nerror: Required resource not specified.\n"
            'Use "kubectl explain <resource>" for a detailed description of that resource (e.g. '
            "kubectl explain pods).\nSee 'kubectl get -h' for help and examples"
            if verb == "get"
            else "error: You must provide one or more resources by argument or filename.\n"
            "Example resource specifications include:\n   '-f rsrc.yaml'\n"
            "   '--filename=rsrc.json'\n"
            "   '<resource> <name>'\n   '<resource>'"
        )
    if any("/" in p for p in positionals):
        out: list[Target] = []
        for item in positionals:
            kind, sep, name = item.partition("/")
            if not sep:
                raise KubectlError(
                    "error: there is no need to specify a resource type as a separate argument "
                    "when passing arguments in resource/name form (e.g. 'kubectl get "
                    "resource/<resource_name>' instead of 'kubectl get resource "
                    "resource/<resource_name>'"
                )
            if not name:
                raise KubectlError(
                    "error: arguments in resource/name form must have a single resource and name"
                )
            info = resolve(cluster, kind)
            if out and out[-1].info == info:
                out[-1].names.append(name)
            else:
                out.append(Target(info, [name]))
        return out
    infos: list[ResourceInfo] = []
    for word in positionals[0].split(","):
        if not word:
            continue
        category = _category(cluster, word)
        if category:  # a category is expanded before a resource is looked up (ReplaceAliases)
            infos.extend(category)
            continue
        info = resolve(cluster, word)
        if info not in infos:
            infos.append(info)
    return [Target(info, list(positionals[1:])) for info in infos]


def _category(cluster: ClusterAPI, category: str) -> list[ResourceInfo]:
    return [info for info in cluster.resources() if category in info.categories]


def parse_ts(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return parse_time(text)
    except ValueError:
        return None


def since(cluster: ClusterAPI, timestamp: str | None) -> str:
    """translateTimestampSince: `<unknown>` for no time, else the age."""
    moment = parse_ts(timestamp)
    if moment is None:
        return "<unknown>"
    return human_duration((cluster.now() - moment).total_seconds())


def rfc1123z(timestamp: str | None) -> str:
    moment = parse_ts(timestamp)
    if moment is None:
        return "Mon, 01 Jan 0001 00:00:00 +0000"
    return moment.strftime("%a, %d %b %Y %H:%M:%S +0000")


def meta(obj: Obj) -> dict[str, object]:
    m = obj.get("metadata")
    return m if isinstance(m, dict) else {}


def labels_of(obj: Obj) -> dict[str, str]:
    labels = meta(obj).get("labels")
    return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}


def format_labels(labels: dict[str, str]) -> str:
    """labels.FormatLabels: the `k=v` strings sorted (so `a.b=1` sorts before `a=1`)."""
    return ",".join(sorted(f"{k}={v}" for k, v in labels.items())) or "<none>"


def pod_name_arg(word: str) -> str:
    return word.partition("/")[2] if word.startswith(("pod/", "pods/", "po/")) else word
