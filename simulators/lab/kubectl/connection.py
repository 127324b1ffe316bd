"""Whom a kubectl command connects as, to which cluster, in which namespace: the admin host's
kubeconfig (simulators.lab.kubeconfig) read as client-go's clientcmd reads it, with the
`--kubeconfig`, `--context`, `--cluster`, `--user` and `-n` flags over it, and clientcmd's
overrides of the cluster and the user: `--server`, `--insecure-skip-tls-verify`,
`--certificate-authority`, `--token`, `--client-certificate`.

The server is trusted by the cluster's CA (kubeconfig.ca_pem) in the cluster's
certificate-authority(-data), unless --insecure-skip-tls-verify; with neither, Go's TLS says
the certificate is signed by an unknown authority. The user is whom kube-apiserver's
authenticators take first: a client certificate before a bearer token (so `--token` beside
the admin's certificate still acts as the admin, kubernetes/kubectl#1657), then nobody
(system:anonymous).

Which file is `config_file.chosen`'s (`--kubeconfig FILE`, a missing one kubectl's `stat`
error; else `$KUBECONFIG`'s; else `~/.kube/config`); no file at all is an empty config, and
kubectl then falls back to `localhost:8080`, where nothing listens.

The messages are kubectl 1.36's, measured against the real binary. Where a name is missing,
the words depend on what the command asks clientcmd first: most verbs that act on named
objects ask for the namespace (`ConfirmUsable`, "Error in configuration: ..."), the others
for the REST config (`context "x" does not exist`); `-n` skips the namespace question.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
from dataclasses import dataclass, replace
from typing import Any, NoReturn

from simulators.cluster import access
from simulators.cluster.api import ClusterAPI
from simulators.cluster.impersonation import Impersonating
from simulators.controllers.runtime import klog
from simulators.lab import files, kubeconfig
from simulators.lab.flags import Parsed
from simulators.lab.kubeconfig import KubeconfigError
from simulators.lab.kubectl import auth, config_file
from simulators.lab.kubectl.common import KubectlError, process_id
from simulators.lab.tool import Context

LOCALHOST = "http://localhost:8080"
UNKNOWN_AUTHORITY = (
    "tls: failed to verify certificate: x509: certificate signed by unknown authority"
)
# An http:// request to the API server's TLS port: Go's server answers 400 (kubectl's words).
PLAIN_HTTP = "Error from server (BadRequest): the server rejected our request for an unknown reason"
# The verbs whose Complete asks clientcmd for the namespace before anything else.
NAMESPACE_FIRST = {
    "annotate",
    "attach",
    "cp",
    "delete",
    "describe",
    "edit",
    "events",
    "exec",
    "get",
    "label",
    "logs",
    "patch",
    "port-forward",
    "rollout",
    "scale",
    "set",
    "taint",
}
_NAMESPACE_FIRST_SUBCOMMANDS = {("create", "token"), ("top", "pods"), ("top", "pod"), ("top", "po")}
# Commands that never connect: they answer from the client alone.
LOCAL = {"completion", "config", "help", "kustomize", "options", "plugin"}
# kubectl get's discovery retries, each logged before the final refusal.
_DISCOVERY_TRIES = {"get": 5, "api-resources": 1}


@dataclass(frozen=True)
class Connection:
    """What the command uses: the context's namespace ("" when it names none) and the user the
    server authenticates (the admin, or a service account by its token)."""

    namespace: str
    who: access.Identity


ADMIN = Connection("", access.ADMIN)


def needed(sub: str, parsed: Parsed) -> bool:
    """Whether the command reads the kubeconfig at all (`version --client` does not)."""
    return sub not in LOCAL and not (sub == "version" and parsed.has("client"))


def _namespace_first(sub: str, parsed: Parsed) -> bool:
    if parsed.value("namespace"):
        return False  # clientcmd answers -n without reading the file
    first = next(iter(parsed.positionals), "")
    return sub in NAMESPACE_FIRST or (sub, first) in _NAMESPACE_FIRST_SUBCOMMANDS


def attach(ctx: Context, sub: str, parsed: Parsed, own_user: bool = False) -> None:
    """Connect the command as its flags and the kubeconfig say: `parsed.context_namespace` set,
    and `ctx.acting` the API as the user it runs as (a service account's token, `--as`), which
    kubectl's run clears after the command. `set` calls it once its subcommand has read its
    flags (they follow the subcommand's name)."""
    flags = parsed
    if own_user:  # the command's own --user (a subject's name) hides kubectl's global one
        flags = replace(parsed, values={k: v for k, v in parsed.values.items() if k != "user"})
    connected = connect(ctx, sub, flags) if needed(sub, parsed) else ADMIN
    parsed.context_namespace = connected.namespace
    who = connected.who if sub == "auth" else auth.identity(parsed, connected.who)
    if who != access.ADMIN:
        ctx.acting = Impersonating(ctx.world.api, who)


def connect(ctx: Context, sub: str, parsed: Parsed) -> Connection:
    """The connection the flags and the kubeconfig give, or KubeconfigError with the line(s)
    kubectl prints."""
    file = config_file.chosen(ctx, parsed)
    if file.explicit and file.text is None:
        raise KubeconfigError(f"error: stat {file.path}: no such file or directory")
    config = config_file.loaded(file)
    asked = {key: parsed.value(key) for key in ("context", "cluster", "user")}
    if not _namespace_first(sub, parsed):
        # The REST config asked first: a name given and missing, in its own words.
        for key, section in (("context", "contexts"), ("cluster", "clusters")):
            if asked[key] and asked[key] not in kubeconfig.named(config, section):
                raise KubeconfigError(f'error: {key} "{asked[key]}" does not exist')
    try:
        resolved = kubeconfig.resolve(config, **asked, server=parsed.value("server"))
    except KubeconfigError as exc:
        if str(exc) == kubeconfig.LOCALHOST:
            _refused(ctx, sub, LOCALHOST)
        raise
    cluster = kubeconfig.named(config, "clusters").get(resolved.cluster) or {}
    trusted, secure = _trust(ctx, parsed, cluster, resolved.cluster, file.path)
    server = _url(resolved.server, secure)
    if server == "http" + kubeconfig.SERVER.removeprefix("https"):
        raise KubeconfigError(PLAIN_HTTP)
    if server != kubeconfig.SERVER:  # the lab's cluster answers on it
        _refused(ctx, sub, server)
    if not trusted:
        _refused(ctx, sub, server, UNKNOWN_AUTHORITY)
    user = dict(kubeconfig.named(config, "users").get(resolved.user) or {})
    for key in ("token", "client-certificate"):
        if parsed.value(key):
            user[key] = parsed.value(key)
    who = _authenticated(ctx.world.api, user)
    if who is None:
        raise KubeconfigError("error: You must be logged in to the server (Unauthorized)")
    context = kubeconfig.named(config, "contexts").get(resolved.context) or {}
    return Connection(str(context.get("namespace") or ""), who)


def context_namespace(ctx: Context) -> str:
    """The current context's namespace ("" when none or unreadable), for tools such as helm
    that read the kubeconfig beside kubectl."""
    config = _readable(ctx)
    name = str(config.get("current-context") or "")
    return str(kubeconfig.named(config, "contexts").get(name, {}).get("namespace") or "")


def names(ctx: Context, section: str) -> list[str]:
    """The names of the kubeconfig's contexts, clusters or users, for Tab."""
    return sorted(kubeconfig.named(_readable(ctx), section))


def _readable(ctx: Context) -> kubeconfig.Config:
    """The kubeconfig kubectl would read without flags; an empty one where it cannot."""
    try:
        return config_file.loaded(config_file.chosen(ctx, Parsed()))
    except KubectlError:
        return kubeconfig.empty()


def _authenticated(api: ClusterAPI, user: dict[str, Any]) -> access.Identity | None:
    """Whom the server takes the user for, in the order of kube-apiserver's authenticators: the
    admin's client certificate (the lab's CA signed only that one; x509 comes before bearer
    tokens), a service account's token, a token it does not know (None: 401), or, with
    neither, the anonymous user kubeadm's apiserver lets in (`--anonymous-auth`)."""
    if user.get("client-certificate-data") or user.get("client-certificate"):
        return access.ADMIN
    token = user.get("token")
    if token:
        return access.token_identity(api, str(token))
    return access.ANONYMOUS


def _trust(
    ctx: Context, parsed: Parsed, cluster: dict[str, Any], name: str, config_path: str
) -> tuple[bool, bool]:
    """(whether the client trusts the lab's API server, whether it speaks TLS at all: a CA or
    --insecure-skip-tls-verify, which makes a server named without a scheme https).
    clientcmd's getCluster: --insecure-skip-tls-verify or --certificate-authority on the
    command line replace the cluster's CA and insecure setting; a CA file of the kubeconfig is
    read from the kubeconfig's folder. A CA file that cannot be read is clientcmd's error."""
    insecure = parsed.has("insecure-skip-tls-verify")
    ca_file = parsed.value("certificate-authority") or ""
    ca_data = ""
    if not (insecure or ca_file):
        insecure = cluster.get("insecure-skip-tls-verify") is True
        ca_data = str(cluster.get("certificate-authority-data") or "")
        ca_file = str(cluster.get("certificate-authority") or "")
        if ca_file and not ca_data:
            ca_file = posixpath.join(posixpath.dirname(config_path), ca_file)
    if insecure:
        return True, True
    if ca_data:
        try:
            pem = base64.b64decode(ca_data, validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            pem = ""
    elif ca_file:
        text = files.read(ctx, ca_file)
        if text is None:
            raise KubeconfigError(
                "Error in configuration: unable to read certificate-authority"
                f" {ca_file} for {name} due to open {ca_file}: no such file or directory"
            )
        pem = text
    else:
        return False, False
    return pem.strip() == kubeconfig.ca_pem().strip(), True


def _url(server: str, secure: bool) -> str:
    """The server's URL as client-go's DefaultServerURL makes it: a host without a scheme is
    https:// when the client has TLS settings, else http://."""
    server = server.rstrip("/")
    if "://" not in server:
        server = ("https://" if secure else "http://") + server
    return server


def _refused(ctx: Context, sub: str, server: str, why: str = "") -> NoReturn:
    """Nothing listens at `server` (or `why` it failed: the server's certificate not trusted):
    discovery's logged tries, then kubectl's last line."""
    host = server.split("://", 1)[-1]
    if why:
        dial = why
        final = f"Unable to connect to the server: {dial}"
    elif server == LOCALHOST:
        final = kubeconfig.LOCALHOST
        dial = f"dial tcp 127.0.0.1:{host.rsplit(':', 1)[-1]}: connect: connection refused"
    else:
        address = host if ":" in host else f"{host}:443"
        dial = f"dial tcp {address}: i/o timeout"
        final = f"Unable to connect to the server: {dial}"
    err = (
        '"Unhandled Error" err="couldn\'t get current server API group list: '
        f'Get \\"{server}/api?timeout=32s\\": {dial}"'
    )
    line = klog(ctx.world.api.now(), "E", "memcache.go:265", err, pid=process_id(ctx))
    tries = [line] * _DISCOVERY_TRIES.get(sub, 0)
    raise KubeconfigError("\n".join([*tries, final]))
