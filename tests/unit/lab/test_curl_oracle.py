"""The lab's curl against this machine's real curl: the real `/usr/bin/curl` asks the HTTP
server that `python -m simulators apiserver` runs (``simulators.cluster.server``, serving the
world ``simulators.lab.apiserver.build_world`` builds for the ticket and seed) and the lab's
curl asks a lab of the same ticket and seed, request for request, over a generated set: every
served kind listed cluster-wide and in a namespace, objects that exist and do not, label and
field selectors (encoded and raw, matching and not, malformed), discovery and paths that are
not the API's, a create, a refused create, deletes; each as the admin (the lab: the admin's
client certificate from the kubeconfig; the server: no impersonation), as the ticket's
service account (the lab: its token from TokenRequest; the server: `Impersonate-User`) and as
nobody (the server: impersonating system:anonymous in system:unauthenticated). The status
code and the body must be the same bytes.

The server runs in this process without its once-a-second ticker, and the lab's world steps
once after each change, as the server steps after one: so both worlds are the same at every
request (with the ticker the server's clock and leases would move between two requests).
The server is plain http on loopback: the real curl's URL is http://127.0.0.1:PORT with
`Host: 10.0.0.10:6443`, the lab's is https://10.0.0.10:6443 with `-k`.
"""

from __future__ import annotations

import base64
import json
import random
import shutil
import subprocess
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from simulators.cluster import access
from simulators.cluster.served import ServedCluster
from simulators.cluster.server import ClusterServer, make_server
from simulators.lab import budget, kubeconfig
from simulators.lab.apiserver import build_world
from simulators.lab.curl import curl
from simulators.lab.tool import Context
from simulators.lab.world import World, new_world

CURL = shutil.which("curl", path="/usr/bin")
TICKET, SEED = "ci-service-account", 7
NS, ACCOUNT = "runai-team-ml", "ci-deployer"
SA_USER = f"system:serviceaccount:{NS}:{ACCOUNT}"
API = "https://10.0.0.10:6443"
FORM = "application/x-www-form-urlencoded"  # curl -d's own: kube-apiserver's 415
WHO = ("admin", "account", "anonymous")
RBAC = "/apis/rbac.authorization.k8s.io/v1"
CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "from-curl", "labels": {"made-by": "curl"}},
    "data": {"a": "1"},
}
ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRole",
    "metadata": {"name": "ci-deploy"},
    "rules": [
        {"apiGroups": [""], "resources": ["pods", "configmaps"], "verbs": ["get", "list"]},
        {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "patch"]},
    ],
}
# A Role in NS granting `get` on namespaces, bound to the account: kube-apiserver's RequestInfo
# takes `/api/v1/namespaces/NS` as in NS, so it may read NS itself and no other namespace.
NS_READER = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "Role",
    "metadata": {"name": "ns-reader", "namespace": NS},
    "rules": [{"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get"]}],
}
NS_READER_BINDING = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "RoleBinding",
    "metadata": {"name": "ns-reader", "namespace": NS},
    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "ns-reader"},
    "subjects": [{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": NS}],
}

pytestmark = pytest.mark.skipif(CURL is None, reason="no /usr/bin/curl on this machine")


@dataclass(frozen=True)
class Call:
    who: str
    method: str
    target: str  # path and query
    body: str | None = None
    content_type: str = "application/json"


@dataclass
class Sides:
    port: int
    lab: World
    token: str


@pytest.fixture(scope="module")
def sides() -> Iterator[Sides]:
    served: ServedCluster = build_world(TICKET, SEED)
    server: ClusterServer = make_server(served, 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    lab = new_world(TICKET, SEED)
    config = kubeconfig.load(lab.state.files[kubeconfig.NAME])
    user = kubeconfig.named(config, "users")[kubeconfig.USER]
    lab.state.files["admin.crt"] = base64.b64decode(user["client-certificate-data"]).decode()
    lab.state.files["admin.key"] = base64.b64decode(user["client-key-data"]).decode()
    answer = access.token_request(lab.api, NS, ACCOUNT, {})
    try:
        yield Sides(int(server.server_address[1]), lab, str(answer["status"]["token"]))
    finally:
        server.stopping = True
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def real(sides: Sides, call: Call) -> tuple[int, bytes]:
    assert CURL is not None
    args = [CURL, "-s", "-w", "\n%{http_code}", "-X", call.method, "-H", "Host: 10.0.0.10:6443"]
    if call.who == "account":
        args += ["-H", f"Impersonate-User: {SA_USER}"]
    elif call.who == "anonymous":
        args += ["-H", "Impersonate-User: system:anonymous"]
        args += ["-H", "Impersonate-Group: system:unauthenticated"]
    if call.body is not None:
        args += ["-H", f"Content-Type: {call.content_type}", "--data-binary", call.body]
    args.append(f"http://127.0.0.1:{sides.port}{call.target}")
    out = subprocess.run(args, capture_output=True, timeout=30, check=False).stdout
    body, _, code = out.rpartition(b"\n")
    return int(code), body


def ours(sides: Sides, call: Call) -> tuple[int, bytes]:
    args = ["-sk", "-w", "\n%{http_code}", "-X", call.method]
    if call.who == "admin":
        args += ["--cert", "admin.crt", "--key", "admin.key"]
    elif call.who == "account":
        args += ["-H", f"Authorization: Bearer {sides.token}"]
    if call.body is not None:
        args += ["-H", f"Content-Type: {call.content_type}", "--data-binary", call.body]
    args.append(API + call.target)
    with budget.metered(budget.Meter(budget.Limits(cpu_seconds=30))):
        result = curl(Context(sides.lab), args)
    out = result.text + ("\n" if result.newline and result.text else "")
    body, _, code = out.rpartition("\n")
    if int(code) < 400 and call.method != "GET" and "dryRun" not in call.target:
        sides.lab.tick()  # the server steps once after each change it makes
    return int(code), body.encode()


def _base(group: str, version: str) -> str:
    return f"/apis/{group}/{version}" if group else f"/api/{version}"


def calls(lab: World, rng: random.Random) -> list[Call]:
    """The generated requests: reads of every kind, selectors, discovery; then writes; then
    the account's reads again once a role is bound to it."""
    api = lab.api
    reads: list[Call] = []

    def add(target: str, who: str | None = None) -> None:
        reads.append(Call(who or rng.choice(("admin", *WHO)), "GET", target))

    for info in api.registry.infos:
        if "list" not in info.verbs:
            continue
        base = _base(info.group, info.version)
        items = api.select(info.key)
        add(f"{base}/{info.plural}")
        if info.namespaced:
            namespace = items[0]["metadata"].get("namespace", NS) if items else NS
            add(f"{base}/namespaces/{namespace}/{info.plural}")
            add(f"{base}/namespaces/{NS}/{info.plural}", "account")
        if items:
            item = rng.choice(items)
            meta = item["metadata"]
            where = f"/namespaces/{meta['namespace']}" if info.namespaced else ""
            add(f"{base}{where}/{info.plural}/{meta['name']}")
            labels = meta.get("labels") or {}
            if labels:
                key, value = rng.choice(sorted(labels.items()))
                selector = f"{key}={value}"
                encoded = urllib.parse.quote(selector, safe="")
                add(f"{base}/{info.plural}?labelSelector={rng.choice([selector, encoded])}")
            add(f"{base}/{info.plural}?fieldSelector=metadata.name%3D{meta['name']}")
        add(f"{base}/{info.plural}/no-such-{info.singular}")
        add(f"{base}/{info.plural}?labelSelector=app%3Dnobody")
    for target in [
        "/version", "/healthz", "/readyz", "/api", "/apis", "/api/v1", "/apis/apps",
        "/apis/apps/v1", "/apis/nope", "/apis/nope/v1/things", "/api/v1/foos", "/foo",
        "/api/v1/namespaces/default/pods?labelSelector=a%20b%20c",
        "/api/v1/pods?fieldSelector=spec.nope%3Dx", "/api/v1/namespaces/default/pods/x/nope",
        f"/api/v1/namespaces/{NS}/pods?limit=1&labelSelector=",
    ]:  # fmt: skip
        for who in WHO:
            add(target, who)
    writes = [
        Call("admin", "POST", "/api/v1/namespaces/default/configmaps", json.dumps(CONFIGMAP)),
        Call("admin", "POST", "/api/v1/namespaces/default/configmaps", json.dumps(CONFIGMAP)),
        Call("admin", "POST", "/api/v1/namespaces/default/configmaps", "{}"),
        Call("admin", "POST", "/api/v1/namespaces/default/configmaps", "a=b", FORM),
        Call("account", "POST", f"/api/v1/namespaces/{NS}/configmaps", json.dumps(CONFIGMAP)),
        Call("anonymous", "DELETE", "/api/v1/namespaces/default/configmaps/from-curl"),
        Call("admin", "GET", "/api/v1/namespaces/default/configmaps?labelSelector=made-by%3Dcurl"),
        Call("admin", "DELETE", "/api/v1/namespaces/default/configmaps/from-curl?dryRun=All"),
        Call("admin", "DELETE", "/api/v1/namespaces/default/configmaps/from-curl"),
        Call("admin", "DELETE", "/api/v1/namespaces/default/configmaps/from-curl"),
        Call("admin", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", json.dumps(ROLE)),
        Call("account", "GET", f"/api/v1/namespaces/{NS}"),
        Call("admin", "POST", f"{RBAC}/namespaces/{NS}/roles", json.dumps(NS_READER)),
        Call(
            "admin", "POST", f"{RBAC}/namespaces/{NS}/rolebindings", json.dumps(NS_READER_BINDING)
        ),
    ]
    after = [
        Call("account", "GET", f"/api/v1/namespaces/{NS}/pods"),
        Call("account", "GET", f"/api/v1/namespaces/{NS}/configmaps"),
        Call("account", "GET", f"/apis/apps/v1/namespaces/{NS}/deployments/model-gateway"),
        Call("account", "GET", f"/api/v1/namespaces/{NS}/secrets"),
        Call("account", "GET", "/api/v1/namespaces/default/pods"),
        Call("account", "GET", f"/api/v1/namespaces/{NS}"),
        Call("account", "GET", "/api/v1/namespaces/default"),
    ]
    return reads + writes + after


def test_the_lab_curl_answers_as_the_real_curl_against_the_api_server(sides: Sides) -> None:
    generated = calls(sides.lab, random.Random(SEED))
    disagreed: list[str] = []
    codes: dict[int, int] = {}
    for call in generated:
        theirs, mine = real(sides, call), ours(sides, call)
        codes[theirs[0]] = codes.get(theirs[0], 0) + 1
        if theirs != mine:
            disagreed.append(f"{call}: real {theirs[0]} {theirs[1][:300]!r} lab {mine[0]} "
                             f"{mine[1][:300]!r}")  # fmt: skip
    assert not disagreed, f"{len(disagreed)} of {len(generated)} differ:\n" + "\n".join(
        disagreed[:5]
    )
    # The set reaches every answer worth comparing.
    assert {200, 201, 403, 404, 409, 415, 422} <= set(codes), codes
    assert len(generated) >= 200
    # The Role in NS lets the account read NS itself (RequestInfo's namespace), and only it.
    itself, other = (
        Call("account", "GET", f"/api/v1/namespaces/{NS}"),
        Call("account", "GET", "/api/v1/namespaces/default"),
    )
    assert (ours(sides, itself)[0], ours(sides, other)[0]) == (200, 403)
