"""kubectl create secret generic|docker-registry|tls (upstream's create_secret.go,
create_secret_docker.go and create_secret_tls.go): the Secret each builds client-side.

`tls` reads --cert and --key from the lab's file store (the home folder), never the host, and
checks them as Go's tls.X509KeyPair does: a CERTIFICATE block in the one, a `... PRIVATE KEY`
block in the other, with Go's wording when they are missing or swapped, then the certificate's
public key against the private key (tls_keys).
`--append-hash` appends kubectl's hash of the Secret to its name.
"""

from __future__ import annotations

import base64

from simulators.cluster.api import Obj
from simulators.lab import files, pem
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl import tls_keys
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.create_names import OPTIONS_LINE, Generator, one_name, string_slice
from simulators.lab.kubectl.create_sources import SecretData, go_json, secret_data, secret_hash
from simulators.lab.tool import Context

FLAGS = [
    Flag("cert", long="cert", takes_value=True),
    Flag("key", long="key", takes_value=True),
    Flag("append-hash", long="append-hash"),
]
# kubectl's default for --docker-server: Docker Hub, not the registry the image is on.
DOCKER_HUB = "https://index.docker.io/v1/"
DOCKER_CONFIG_KEY = ".dockerconfigjson"
SECRET_HELP = f"""Create a secret with specified type.

 A docker-registry type secret is for accessing a container registry.

 A generic type secret indicate an Opaque secret type.

 A tls type secret holds TLS certificate and its associated key.

Available Commands:
  docker-registry   Create a secret for use with a Docker registry
  generic           Create a secret from a local file, directory, or literal value
  tls               Create a TLS secret

Usage:
  kubectl create secret (docker-registry | generic | tls) [options]

Use "kubectl create secret <command> --help" for more information about a given command.
{OPTIONS_LINE}"""


def pem_types(text: str) -> list[str]:
    """The types of the PEM blocks Go's pem.Decode finds in `text`, in order."""
    return [kind for kind, _ in pem.blocks(text)]


def check_key_pair(cert: str, key: str) -> None:
    """tls.X509KeyPair's checks, with its messages: the PEM blocks, then the certificate's
    public key against the private key (tls_keys)."""
    cert_types = pem_types(cert)
    if "CERTIFICATE" not in cert_types:
        if not cert_types:
            raise KubectlError(f"error: {tls_keys.NO_CERTIFICATE_PEM}")
        if len(cert_types) == 1 and cert_types[0].endswith("PRIVATE KEY"):
            raise KubectlError(
                "error: tls: failed to find certificate PEM data in certificate input, but did "
                "find a private key; PEM inputs may have been switched"
            )
        raise KubectlError(
            'error: tls: failed to find "CERTIFICATE" PEM block in certificate input after '
            f"skipping PEM blocks of the following types: [{' '.join(cert_types)}]"
        )
    key_types = pem_types(key)
    if not any(pem.is_private_key(t) for t in key_types):
        if not key_types:
            raise KubectlError(f"error: {tls_keys.NO_KEY_PEM}")
        if key_types == ["CERTIFICATE"]:
            raise KubectlError(
                "error: tls: found a certificate rather than a key in the PEM for the private key"
            )
        raise KubectlError(
            'error: tls: failed to find PEM block with type ending in "PRIVATE KEY" in key '
            f"input after skipping PEM blocks of the following types: [{' '.join(key_types)}]"
        )
    tls_keys.check_match(pem.certificates(cert)[0], pem.private_keys(key)[0])


def _read(ctx: Context, path: str) -> str:
    text = files.read(ctx, path)
    if text is None:
        raise KubectlError(
            f"error: Cannot read file {path}, open {path}: no such file or directory"
        )
    return text


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _tls(ctx: Context, name: str, parsed: Parsed) -> Obj:
    cert_path, key_path = parsed.value("cert") or "", parsed.value("key") or ""
    if not cert_path or not key_path:
        raise KubectlError("error: key and cert must be specified")
    cert, key = _read(ctx, cert_path), _read(ctx, key_path)
    check_key_pair(cert, key)
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name},
        "data": {"tls.crt": _b64(cert), "tls.key": _b64(key)},
        "type": "kubernetes.io/tls",
    }


def _docker_registry(ctx: Context, name: str, parsed: Parsed) -> Obj:
    """--from-file (each source's key `.dockerconfigjson` unless it names one) or the
    --docker-* flags' config.json."""
    sources = [
        source if "=" in source else f"{DOCKER_CONFIG_KEY}={source}"
        for source in string_slice(parsed, "from-file")
    ]
    user, password = parsed.value("docker-username"), parsed.value("docker-password")
    server = parsed.value("docker-server", DOCKER_HUB)
    if not sources and (not user or not password or not server):
        raise KubectlError(
            "error: either --from-file or the combination of --docker-username, "
            "--docker-password and --docker-server is required"
        )
    obj: Obj = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name},
        "type": "kubernetes.io/dockerconfigjson",
    }
    if sources:
        secret = SecretData()
        secret.add_files(ctx, sources)
        if secret.data:
            obj["data"] = secret.data
        return obj
    entry: dict[str, str] = {"username": str(user), "password": str(password)}
    if parsed.value("docker-email"):
        entry["email"] = str(parsed.value("docker-email"))
    entry["auth"] = _b64(f"{user}:{password}")
    config = go_json({"auths": {server: entry}}, sort_keys=False)
    obj["data"] = {DOCKER_CONFIG_KEY: _b64(config)}
    return obj


def _generic(ctx: Context, name: str, parsed: Parsed) -> Obj:
    obj: Obj = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}}
    data = secret_data(ctx, parsed)
    if data:
        obj["data"] = data
    if parsed.value("type"):
        obj["type"] = parsed.value("type")
    return obj


def secret_generator(ctx: Context) -> Generator:
    """`create secret KIND NAME ...`, reading files (tls) from `ctx`'s file store."""

    def build(kind: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
        if kind not in ("generic", "docker-registry", "tls"):
            if not kind:
                raise KubectlError(SECRET_HELP)
            words = " ".join([kind, *rest])
            raise KubectlError(
                f'error: unknown command "{words}"\n'
                f"See 'kubectl create secret -h' for help and examples"
            )
        name = one_name(f"create secret {kind}", rest)
        if kind == "tls":
            obj = _tls(ctx, name, parsed)
        elif kind == "docker-registry":
            obj = _docker_registry(ctx, name, parsed)
        else:
            obj = _generic(ctx, name, parsed)
        if parsed.has("append-hash"):
            obj["metadata"]["name"] = f"{name}-{secret_hash(obj)}"
        return "secrets", obj

    return build
