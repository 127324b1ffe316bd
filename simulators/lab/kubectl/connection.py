"""Whom a kubectl command connects as, to which cluster, in which namespace: the admin host's
kubeconfig (simulators.lab.kubeconfig) read as client-go's clientcmd reads it, with the
`--kubeconfig`, `--context`, `--cluster`, `--user` and `-n` flags over it, and clientcmd's
overrides of the cluster and the user: `--server`, `--insecure-skip-tls-verify`,
`--certificate-authority`, `--token`, `--client-certificate`, `--client-key`.

The server is trusted by the cluster's CA (kubeconfig.holds_ca: the file or data holds it,
alone or in a bundle, as Go's x509 pool takes every certificate), unless
--insecure-skip-tls-verify; with neither, Go's TLS says the certificate is signed by an
unknown authority; with both, client-go refuses. The user is whom kube-apiserver's
authenticators take first: a client certificate before a bearer token (so `--token` beside
the admin's certificate still acts as the admin, kubernetes/kubectl#1657; a certificate the
CA did not sign is x509's error, and the token is tried next, else 401), then nobody
(system:anonymous). `--server http://...` at the TLS port is answered 400 by Go's server,
which each verb words its own way (`plain_http`).

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
from simulators.cluster.impersonation import Impersonating
from simulators.controllers.runtime import klog
from simulators.lab import files, kubeconfig, pem
from simulators.lab.flags import Parsed
from simulators.lab.kubeconfig import KubeconfigError
from simulators.lab.kubectl import auth, config_file, create, tls_keys
from simulators.lab.kubectl.common import KubectlError, process_id
from simulators.lab.tool import Context

LOCALHOST = "http://localhost:8080"
UNKNOWN_AUTHORITY = (
    "tls: failed to verify certificate: x509: certificate signed by unknown authority"
)
# An http:// request to the API server's TLS port: Go's server answers 400 (kubectl's words).
REJECTED = "the server rejected our request for an unknown reason"
PLAIN_HTTP = f"Error from server (BadRequest): {REJECTED}"
# client-go's TLSConfigFor: a CA (file or data) beside insecure-skip-tls-verify.
INSECURE_WITH_CA = (
    "error: specifying a root certificates file with the insecure flag is not allowed"
)
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
    cluster = _cluster(
        parsed, kubeconfig.named(config, "clusters").get(resolved.cluster), file.path
    )
    user = _user(parsed, kubeconfig.named(config, "users").get(resolved.user), file.path)
    errors = [
        *_user_errors(ctx, user, resolved.user),
        *_cluster_errors(ctx, cluster, resolved.cluster),
    ]
    if len(errors) == 1:
        raise KubeconfigError(f"error: {errors[0]}")
    if errors:
        raise KubeconfigError("Error in configuration: \n" + "\n".join(f"* {e}" for e in errors))
    trusted, secure = _trust(ctx, cluster)
    server = _url(resolved.server, secure)
    if server == "http" + kubeconfig.SERVER.removeprefix("https"):
        plain_http(ctx, sub, parsed)
    if server != kubeconfig.SERVER:  # the lab's cluster answers on it
        _refused(ctx, sub, server)
    if not trusted:
        _refused(ctx, sub, server, UNKNOWN_AUTHORITY)
    who = _authenticated(ctx, sub, user)
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


def _cluster(parsed: Parsed, cluster: dict[str, Any] | None, config_path: str) -> dict[str, Any]:
    """The cluster's TLS settings as clientcmd's getCluster merges them: --insecure-skip-tls-verify
    or --certificate-authority on the command line replace the cluster's CA and insecure setting
    (all three); a CA file of the kubeconfig is read from the kubeconfig's folder."""
    cluster = dict(cluster or {})
    insecure = parsed.has("insecure-skip-tls-verify")
    ca_file = parsed.value("certificate-authority") or ""
    if insecure or ca_file:
        return {"insecure-skip-tls-verify": insecure, "certificate-authority": ca_file}
    ca_file = str(cluster.get("certificate-authority") or "")
    if ca_file:
        cluster["certificate-authority"] = posixpath.join(posixpath.dirname(config_path), ca_file)
    return cluster


def _user(parsed: Parsed, user: dict[str, Any] | None, config_path: str) -> dict[str, Any]:
    """The user's credentials with kubectl's flags over them: --client-certificate and
    --client-key replace the file's certificate (key) and its data, --token the token; the
    kubeconfig's own files are read from its folder."""
    user = dict(user or {})
    for key in ("client-certificate", "client-key"):
        if user.get(key):
            user[key] = posixpath.join(posixpath.dirname(config_path), str(user[key]))
        if parsed.value(key):
            user[key] = parsed.value(key)
            user.pop(key + "-data", None)
    if parsed.value("token"):
        user["token"] = parsed.value("token")
    return user


def _user_errors(ctx: Context, user: dict[str, Any], name: str) -> list[str]:
    """clientcmd's validateAuthInfo: a client certificate needs a key, and its files must open."""
    if not (user.get("client-certificate") or user.get("client-certificate-data")):
        return []
    errors = []
    if not (user.get("client-key") or user.get("client-key-data")):
        errors.append(
            f"client-key-data or client-key must be specified for {name} to use the"
            " clientCert authentication method."
        )
    for key, word in (("client-certificate", "client-cert"), ("client-key", "client-key")):
        path = str(user.get(key) or "")
        if path and files.read(ctx, path) is None:
            errors.append(
                f"unable to read {word} {path} for {name} due to open {path}:"
                " no such file or directory"
            )
    return errors


def _cluster_errors(ctx: Context, cluster: dict[str, Any], name: str) -> list[str]:
    """clientcmd's validateClusterInfo: a CA file that does not open."""
    path = str(cluster.get("certificate-authority") or "")
    if not path or cluster.get("certificate-authority-data") or files.read(ctx, path) is not None:
        return []
    return [
        f"unable to read certificate-authority {path} for {name} due to open {path}:"
        " no such file or directory"
    ]


def _pem_of(ctx: Context, entry: dict[str, Any], key: str) -> str:
    """A credential's PEM text: its base64 `-data` field, else its file's text."""
    data = str(entry.get(key + "-data") or "")
    if data:
        try:
            return base64.b64decode(data, validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return ""
    path = str(entry.get(key) or "")
    return (files.read(ctx, path) or "") if path else ""


def _authenticated(ctx: Context, sub: str, user: dict[str, Any]) -> access.Identity | None:
    """Whom the server takes the user for, in the order of kube-apiserver's authenticators: a
    client certificate (x509 comes before bearer tokens; the lab's CA signed only the admin's:
    another is x509's error, and kube-apiserver's union then tries the token, or answers 401:
    None), a service account's token, a token it does not know (None), or, with neither, the
    anonymous user kubeadm's apiserver lets in (`--anonymous-auth`). A
    certificate or key Go's tls.X509KeyPair cannot pair fails the handshake first."""
    token = user.get("token")
    if user.get("client-certificate-data") or user.get("client-certificate"):
        _client_pair(ctx, sub, user)
        if kubeconfig.is_admin_certificate(_pem_of(ctx, user, "client-certificate")):
            return access.ADMIN
        # x509's error: the union goes on to the token; without one, anonymous is not asked.
        return access.token_identity(ctx.world.api, str(token)) if token else None
    if token:
        return access.token_identity(ctx.world.api, str(token))
    return access.ANONYMOUS


def _client_pair(ctx: Context, sub: str, user: dict[str, Any]) -> None:
    """Go's tls.X509KeyPair over the certificate and key, kubectl's words where it fails. Two
    files are loaded at the handshake (client-go's cert_rotation logs the failure, then the
    connection fails as an unreachable server does); data is loaded before any request."""
    cert = _pem_of(ctx, user, "client-certificate")
    key = _pem_of(ctx, user, "client-key")
    if not pem.certificates(cert):
        why = tls_keys.NO_CERTIFICATE_PEM
    elif not pem.private_keys(key):
        why = tls_keys.NO_KEY_PEM
    elif not (why := tls_keys.pair_error(cert, key)):
        return
    lazy = not (user.get("client-certificate-data") or user.get("client-key-data"))
    if not lazy:
        raise KubeconfigError(f"error: {why}")
    logged = f'"Loading client cert failed" err="{why}" key="key"'
    first = klog(ctx.world.api.now(), "E", "cert_rotation.go:172", logged, pid=process_id(ctx))
    _refused(ctx, sub, kubeconfig.SERVER, why, first=[first])


def _trust(ctx: Context, cluster: dict[str, Any]) -> tuple[bool, bool]:
    """(whether the client trusts the lab's API server, whether it speaks TLS at all: a CA or
    insecure-skip-tls-verify, which makes a server named without a scheme https). A CA
    beside insecure-skip-tls-verify is client-go's TLSConfigFor error; a CA file trusts the
    server when it holds the cluster's CA (kubeconfig.holds_ca: a bundle does)."""
    insecure = cluster.get("insecure-skip-tls-verify") is True
    has_ca = bool(cluster.get("certificate-authority-data") or cluster.get("certificate-authority"))
    if insecure and has_ca:
        raise KubeconfigError(INSECURE_WITH_CA)
    if insecure:
        return True, True
    if not has_ca:
        return False, False
    return kubeconfig.holds_ca(_pem_of(ctx, cluster, "certificate-authority")), True


def _url(server: str, secure: bool) -> str:
    """The server's URL as client-go's DefaultServerURL makes it: a host without a scheme is
    https:// when the client has TLS settings, else http://."""
    server = server.rstrip("/")
    if "://" not in server:
        server = ("https://" if secure else "http://") + server
    return server


def _refused(
    ctx: Context, sub: str, server: str, why: str = "", first: list[str] | None = None
) -> NoReturn:
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
    raise KubeconfigError("\n".join([*(first or []), *tries, final]))


# kubectl's discovery tries against a server that answers 400, each logged (kubectl 1.36
# against Go's "Client sent an HTTP request to an HTTPS server." answer).
_PLAIN_TRIES = {
    "get": 5,
    "delete": 5,
    "describe": 5,
    "label": 5,
    "scale": 5,
    "cluster-info": 5,
    "logs": 4,
    "api-resources": 1,
    "api-versions": 1,
    "run": 1,
}


def plain_http(ctx: Context, sub: str, parsed: Parsed) -> NoReturn:
    """`--server http://...` at the API server's TLS port: Go's server answers every request
    400, and each verb says so in its own words (measured with kubectl 1.36)."""
    args = parsed.positionals
    err = f'"Unhandled Error" err="couldn\'t get current server API group list: {REJECTED}"'
    line = klog(ctx.world.api.now(), "E", "memcache.go:265", err, pid=process_id(ctx))
    tries = [line] * _PLAIN_TRIES.get(sub, 0)
    final = [PLAIN_HTTP]
    if sub == "version":
        from simulators.cluster import versions

        final = [
            f"Client Version: {versions.GIT_VERSION}",
            f"Kustomize Version: {versions.KUSTOMIZE_VERSION}",
            PLAIN_HTTP,
        ]
    elif sub == "api-versions":
        final = [f"error: couldn't get available api versions from server: {REJECTED}"]
    elif sub == "cluster-info":
        debug = "To further debug and diagnose cluster problems, use 'kubectl cluster-info dump'."
        final = ["", debug, PLAIN_HTTP]
    elif sub == "auth" and args[:1] == ["whoami"]:
        final = [f"{PLAIN_HTTP} (post selfsubjectreviews.authentication.k8s.io)"]
    elif sub == "auth" and args[:1] == ["can-i"] and len(args) == 3:
        resource = args[2].split("/", 1)[0]
        tries = [line] * 2
        final = [
            f"Warning: the server doesn't have a resource type '{resource}'",
            "",
            f"{PLAIN_HTTP} (post selfsubjectaccessreviews.authorization.k8s.io)",
        ]
    elif sub in ("create", "apply") and parsed.value("filename"):
        final = [
            f'error: error validating "{parsed.value("filename")}": error validating data: failed'
            f" to download openapi: {REJECTED}; if you choose to ignore these errors, turn"
            " validation off with --validate=false"
        ]
    elif sub == "create" and args[:1] in (["namespace"], ["ns"]):
        final = [f"{PLAIN_HTTP} (post namespaces)"]
    elif sub == "create" and args[:1] in (["role"], ["clusterrole"]):
        tries = [line] * 2
    elif sub == "create" and args[:1] == ["token"] and len(args) > 1:
        final = [f"error: failed to create token: {REJECTED} (post serviceaccounts {args[1]})"]
    elif sub == "create" and (posted := create.refused_post(args)):
        final = [f"error: {posted[0]} {REJECTED} (post {posted[1]})"]
    raise KubeconfigError("\n".join([*tries, *final]))
