"""The admin host's kubeconfig (~/.kube/config): a file the learner owns, read and written as
kubectl 1.36's client-go (clientcmd) reads and writes it.

A config is held as kubectl's v1.Config reads it (`kubectl config view --raw -o json`): its
fields in the struct's order, the clusters, users and contexts as lists of `{name, cluster}`
(`user`, `context`) sorted by name (clientcmd keeps them in maps), every field a stanza
always has filled in ("server", a context's "cluster" and "user") and every empty optional one
left out; data fields are base64 text. `dump` writes it as kubectl writes the file: YAML,
keys sorted, an empty section `null`, an empty `preferences` dropped.

`resolve` is what a command connects with, as clientcmd resolves it from the file and the
--context/--cluster/--user flags (fitted to 1,536 runs of the real `kubectl get pods`).
"""

from __future__ import annotations

import base64
import copy
import functools
import hashlib
import re
from dataclasses import dataclass
from typing import Any

import yaml

from simulators.cluster.documents import DocumentError, load_yaml
from simulators.lab import kubeconfig_v1 as v1
from simulators.lab import pem

NAME = ".kube/config"  # its name in HostState.files
PATH = "/home/admin/.kube/config"  # as kubectl prints it

CLUSTER = "dgx-cluster"
USER = "kubernetes-admin"
CONTEXT = f"{USER}@{CLUSTER}"
SERVER = "https://10.0.0.10:6443"
# A kubeconfig's permission bits: kubectl writes a new one 0600, and kubeadm's admin.conf,
# copied to ~/.kube/config, keeps its 0600.
MODE = 0o600

Config = dict[str, Any]
SECTIONS = {"clusters": "cluster", "users": "user", "contexts": "context"}
LOCALHOST = (
    "The connection to the server localhost:8080 was refused - did you specify the right host "
    "or port?"
)


class KubeconfigError(Exception):
    """str(exc) is kubectl's whole message, e.g. 'error: no context exists with the name: "x"'."""


# ---------------------------------------------------------------------------- load, dump


def empty() -> Config:
    """clientcmd's NewConfig: what a missing or empty file reads as."""
    return {"kind": "Config", "apiVersion": "v1", "clusters": [], "users": [], "contexts": [],
            "current-context": ""}  # fmt: skip


def load(text: str, path: str = PATH) -> Config:
    """Parse a kubeconfig file as clientcmd does; a file that is not YAML or not a kubeconfig
    raises KubeconfigError with kubectl's `error loading config file` line. Every kubectl
    command reads the file: a text read before is parsed once (a copy is returned)."""
    return copy.deepcopy(_loaded(text, path))


@functools.lru_cache(maxsize=64)  # at most 64 files of 64 KiB kept
def _loaded(text: str, path: str) -> Config:
    prefix = f'error: error loading config file "{path}": '
    try:
        doc = v1.plain(_first_document(text))
    except DocumentError as exc:
        raise KubeconfigError(prefix + str(exc)) from None
    except yaml.YAMLError as exc:
        problem = str(getattr(exc, "problem", None) or "could not parse")
        mark = getattr(exc, "problem_mark", None)
        if problem.startswith("found undefined alias") and mark is not None:
            alias = re.match(r"\*([^\s,\]}]*)", text[mark.index :])
            name = alias.group(1) if alias else ""
            raise KubeconfigError(f"{prefix}yaml: unknown anchor '{name}' referenced") from None
        raise KubeconfigError(f"{prefix}yaml: {_where(exc)}{problem}") from None
    if doc is None:
        return empty()
    if not isinstance(doc, dict):
        raise KubeconfigError(
            f"{prefix}couldn't get version/kind; json parse error: json: cannot unmarshal "
            f'{v1.json_kind(doc)} into Go value of type struct {{ APIVersion string "json:\\"'
            'apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
        )
    for key in ("apiVersion", "kind"):
        if doc.get(key) is not None and not isinstance(doc[key], str):
            raise KubeconfigError(
                f"{prefix}couldn't get version/kind; json parse error: json: cannot unmarshal "
                f"{v1.json_kind(doc[key])} into Go struct field .{key} of type string"
            )
    kind, version = doc.get("kind") or "Config", doc.get("apiVersion") or "v1"
    if (kind, version) != ("Config", "v1"):
        raise KubeconfigError(
            f'{prefix}no kind "{kind}" is registered for version "{version}" in scheme '
            '"k8s.io/client-go/tools/clientcmd/api/latest/latest.go:50"'
        )
    error = v1.check(doc, "Config", "Config.")
    if error:
        raise KubeconfigError(prefix + error)
    for section, inner in SECTIONS.items():
        entries = [e if isinstance(e, dict) else {} for e in doc.get(section) or []]
        names = [str(entry.get("name") or "") for entry in entries]
        duplicate = next((name for name in names if names.count(name) > 1), None)
        if duplicate is not None:
            kind = "AuthInfo" if section == "users" else inner.title()
            listed = " ".join(v1.go_value(entry, f"Named{kind}") for entry in entries)
            raise KubeconfigError(
                f"{prefix}error converting *[]Named{kind} into *map[string]*api.{kind}: "
                f'duplicate name "{duplicate}" in list: [{listed}]'
            )
    return normalized(doc)


def _first_document(text: str) -> Any:
    """The file's first YAML document (go-yaml reads no further)."""
    try:
        return load_yaml(text)
    except yaml.composer.ComposerError as exc:
        mark = exc.problem_mark
        if exc.problem != "but found another document" or mark is None:
            raise
        return load_yaml(text[: mark.index])


def _where(exc: yaml.YAMLError) -> str:
    """go-yaml's "line N: ": the problem's line (0-based; 1-based for a scanner error), else
    the context's, and nothing on the first line."""
    problem, context = getattr(exc, "problem_mark", None), getattr(exc, "context_mark", None)
    line = 0
    if problem is not None and problem.line:
        line = problem.line + isinstance(exc, yaml.scanner.ScannerError)
    elif context is not None:
        line = context.line
    return f"line {line}: " if line else ""


def printable(config: Config) -> Config:
    """The config as kubectl prints and writes it: empty sections null."""
    return {key: (value or None) if key in SECTIONS else value for key, value in config.items()}


def dump(config: Config) -> str:
    """The file as kubectl writes it back after a change."""
    # Imported here: the kubectl package imports this module (through files and its verbs).
    from simulators.lab.kubectl.printing import to_yaml

    return to_yaml(printable(normalized(config)))


def normalized(config: Config) -> Config:
    """`config` after a change, as kubectl reads it back: canonical, each section sorted."""
    out: Config = v1.canon(config, "Config")
    for section in SECTIONS:
        out[section] = sorted(out[section] or [], key=lambda entry: str(entry["name"]))
    out["kind"], out["apiVersion"] = "Config", "v1"  # whatever the file said: it is v1 Config
    return out


def named(config: Config, section: str) -> dict[str, dict[str, Any]]:
    """A section as clientcmd's map: name -> the cluster, user or context."""
    inner = SECTIONS[section]
    return {str(entry["name"]): entry[inner] for entry in config.get(section) or []}


def with_named(config: Config, section: str, entries: dict[str, dict[str, Any]]) -> Config:
    """`config` with a section replaced by `entries` (name -> body), normalized."""
    inner = SECTIONS[section]
    listed = [{"name": name, inner: body} for name, body in entries.items()]
    return normalized({**config, section: listed})


# ---------------------------------------------------------------------------- the lab's file


def _pem(kind: str, seed: str, der_head: str) -> str:
    """Plausible PEM text: a real DER header, then bytes hashed from `seed` (no randomness)."""
    body, digest = base64.b64decode(der_head), seed.encode()
    while len(body) < 150:
        digest = hashlib.sha256(digest).digest()
        body += digest
    text = base64.b64encode(body).decode()
    lines = [text[i : i + 64] for i in range(0, len(text), 64)]
    return f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----\n"


def b64(text: str) -> str:
    """A data field's value for a file's text."""
    return base64.b64encode(text.encode()).decode()


@functools.cache
def ca_pem() -> str:
    """The cluster's CA certificate (kubeadm's /etc/kubernetes/pki/ca.crt): the one root a
    client trusts the API server by (connection.connect)."""
    return _pem(
        "CERTIFICATE",
        "ca",
        "MIIC/jCCAeagAwIBAgIBADANBgkqhkiG9w0BAQsFADAVMRMwEQYDVQQDEwprdWJlcm5ldGVz",
    )


@functools.cache
def admin_certificate_pem() -> str:
    """The admin's client certificate, the one certificate the cluster's CA signed."""
    return _pem(
        "CERTIFICATE", "admin", "MIIDKTCCAhGgAwIBAgIIQmVuY2hhZG0wDQYJKoZIhvcNAQELBQAwFTETMBEGA1UE"
    )


@functools.cache
def admin_key_pem() -> str:
    """The admin's private key, the one that matches admin_certificate_pem."""
    return _pem("RSA PRIVATE KEY", "admin-key", "MIIEowIBAAKCAQEAwJ7sZ2Bm")


@functools.cache
def starting_text() -> str:
    """The lab's file at a lab's start, as kubeadm's admin.conf is once kubectl rewrote it
    (made once: every new lab's home folder holds it)."""
    cert, key = admin_certificate_pem(), admin_key_pem()
    config = empty()
    config["clusters"] = [
        {
            "name": CLUSTER,
            "cluster": {"server": SERVER, "certificate-authority-data": b64(ca_pem())},
        }
    ]
    config["users"] = [
        {"name": USER, "user": {"client-certificate-data": b64(cert), "client-key-data": b64(key)}}
    ]
    config["contexts"] = [{"name": CONTEXT, "context": {"cluster": CLUSTER, "user": USER}}]
    config["current-context"] = CONTEXT
    return dump(config)


# ---------------------------------------------------------------------------- PEM files


def _der(text: str) -> bytes:
    """The DER bytes of a PEM file's first block."""
    return pem.blocks(text)[0][1]


def holds_ca(text: str) -> bool:
    """Whether a PEM file holds the cluster's CA among its certificates: a bundle does, as
    Go's x509.CertPool (kubectl) and OpenSSL's CAfile (curl) take every certificate in it."""
    return _der(ca_pem()) in pem.certificates(text)


def is_admin_certificate(text: str) -> bool:
    """Whether a file's first certificate is the admin's (what the server authenticates)."""
    return next(iter(pem.certificates(text)), b"") == _der(admin_certificate_pem())


def is_lab_certificate(text: str) -> bool:
    """Whether a file's first certificate is one the lab made (the CA's or the admin's): it
    stands for an RSA certificate, though its body is made up (no parser reads it)."""
    first = next(iter(pem.certificates(text)), b"")
    return first in (_der(ca_pem()), _der(admin_certificate_pem()))


def is_admin_key(text: str) -> bool:
    """Whether a file's first private key is the admin's."""
    return next(iter(pem.private_keys(text)), b"") == _der(admin_key_pem())


# ---------------------------------------------------------------------------- resolve


@dataclass(frozen=True)
class Resolved:
    context: str
    cluster: str
    user: str
    namespace: str  # the context's, else "default" (a command's -n goes over it)
    server: str


def resolve(
    config: Config,
    *,
    context: str | None = None,
    cluster: str | None = None,
    user: str | None = None,
    server: str | None = None,
) -> Resolved:
    """What a kubectl command connects with, as clientcmd's ClientConfig resolves it from the
    file and the --context/--cluster/--user flags (measured with `kubectl get pods`, which asks
    for the namespace first). A context that names no cluster, a missing one or one without a
    server, and no current-context at all, leave kubectl on its default, localhost:8080, unless
    `server` (the --server flag) names one."""
    contexts, clusters = named(config, "contexts"), named(config, "clusters")
    name = context or str(config.get("current-context") or "")
    errors = []
    if name and name not in contexts:
        errors.append(f"context was not found for specified context: {name}")
    if cluster and cluster not in clusters:
        errors.append(f'no server found for cluster "{cluster}"')
    if len(errors) > 1:
        raise KubeconfigError("Error in configuration: \n" + "\n".join(f"* {e}" for e in errors))
    if errors:
        head = "Error in configuration: " if errors[0].startswith("context") else "error: "
        raise KubeconfigError(head + errors[0])
    chosen = contexts.get(name, {})
    if user and user not in named(config, "users"):
        raise KubeconfigError(f'error: auth info "{user}" does not exist')
    cluster_name = cluster or str(chosen.get("cluster") or "")
    server = server or str(clusters.get(cluster_name, {}).get("server") or "")
    if not server:
        raise KubeconfigError(LOCALHOST)
    namespace = str(chosen.get("namespace") or "default")
    user_name = user or str(chosen.get("user") or "")
    return Resolved(name, cluster_name, user_name, namespace, server)
