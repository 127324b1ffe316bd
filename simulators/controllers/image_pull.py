"""Pulling images from a private registry: what the kubelet's credential lookup decides.

NGC's public catalogue (``nvcr.io/nvidia/...``) needs no login; an NGC organisation's private
registry (``nvcr.io/<org>/...``) answers ``401 Unauthorized`` unless the pull carries NGC
credentials: user ``$oauthtoken`` and an NGC API key (``nvapi-...``) as the password. The kubelet
reads them from the pod's ``imagePullSecrets`` (secrets of type
``kubernetes.io/dockerconfigjson`` in the pod's namespace), which the ServiceAccount admission
plugin copies from the pod's ServiceAccount when the pod is created.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.controllers.util import namespace_of, spec

NGC_REGISTRY = "nvcr.io"
NGC_USER = "$oauthtoken"
NGC_KEY_PREFIX = "nvapi-"
PUBLIC_ORGS = ("nvidia",)
DOCKER_CONFIG_TYPE = "kubernetes.io/dockerconfigjson"
DOCKER_CONFIG_KEY = ".dockerconfigjson"


@dataclass(frozen=True)
class PullResult:
    ok: bool
    missing_secrets: tuple[str, ...] = ()


def needs_login(image: str) -> bool:
    parts = image.split("/")
    return len(parts) >= 3 and parts[0] == NGC_REGISTRY and parts[1] not in PUBLIC_ORGS


def _auths(secret: Obj) -> dict[str, Any]:
    if secret.get("type") != DOCKER_CONFIG_TYPE:
        return {}
    raw = (secret.get("data") or {}).get(DOCKER_CONFIG_KEY)
    if not isinstance(raw, str):
        return {}
    try:
        config = json.loads(base64.b64decode(raw, validate=True))
    except (binascii.Error, ValueError):
        return {}
    auths = config.get("auths") if isinstance(config, dict) else None
    return auths if isinstance(auths, dict) else {}


def _credentials(entry: Any) -> tuple[str, str]:
    if not isinstance(entry, dict):
        return "", ""
    user, password = str(entry.get("username") or ""), str(entry.get("password") or "")
    if not user and isinstance(entry.get("auth"), str):
        try:
            user, _, password = base64.b64decode(entry["auth"]).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return "", ""
    return user, password


def authorizes_ngc(secret: Obj) -> bool:
    """A docker-registry secret NGC accepts: ``$oauthtoken`` and an API key for nvcr.io."""
    for server, entry in _auths(secret).items():
        host = str(server).removeprefix("https://").removeprefix("http://").rstrip("/")
        if host.split("/")[0] != NGC_REGISTRY:
            continue
        user, password = _credentials(entry)
        if user == NGC_USER and password.startswith(NGC_KEY_PREFIX) and len(password) > 10:
            return True
    return False


def pull_secret_names(pod: Obj) -> list[str]:
    return [
        str(ref.get("name"))
        for ref in spec(pod).get("imagePullSecrets") or []
        if isinstance(ref, dict) and ref.get("name")
    ]


def try_pull(api: ClusterAPI, pod: Obj, image: str) -> PullResult:
    if not needs_login(image):
        return PullResult(True)
    missing: list[str] = []
    ok = False
    for name in pull_secret_names(pod):
        try:
            secret = api.get("secrets", name, namespace_of(pod))
        except ApiError:
            missing.append(name)
            continue
        ok = ok or authorizes_ngc(secret)
    return PullResult(ok, tuple(missing))


def unauthorized(image: str) -> str:
    """containerd's answer when nvcr.io refuses the pull (as the kubelet's event quotes it)."""
    repo, _, _tag = image.rpartition(":") if ":" in image.split("/")[-1] else (image, "", "")
    scope = repo.removeprefix(f"{NGC_REGISTRY}/").replace("/", "%2F")
    return (
        f'failed to pull and unpack image "{image}": failed to resolve reference "{image}": '
        "failed to authorize: failed to fetch anonymous token: unexpected status from GET "
        f"request to https://{NGC_REGISTRY}/proxy_auth?scope=repository%3A{scope}%3Apull: "
        "401 Unauthorized"
    )
