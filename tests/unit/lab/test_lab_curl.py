"""curl on the admin host against the cluster's API (simulators/lab/curl.py): a service
account's token, the anonymous user, curl's own flags and failures. The real curl against the
API server, request for request, is tests/unit/lab/test_curl_oracle.py."""

from __future__ import annotations

import base64
import json

import pytest

from simulators.lab import LabSession, kubeconfig

API = "https://10.0.0.10:6443"
NS = "runai-team-ml"
TOKEN = f"TOKEN=$(kubectl create token ci-deployer -n {NS})"
BEARER = '-H "Authorization: Bearer $TOKEN"'
ADMIN = "--cert admin.crt --key admin.key"
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "from-curl"},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
}


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("ci-service-account", 7)


def admin_files(lab: LabSession) -> None:
    """The admin's client certificate and key, and the cluster's CA, decoded out of the
    kubeconfig (as `kubectl config view --raw -o jsonpath=... | base64 -d > FILE` writes
    them)."""
    config = kubeconfig.load(lab.world.state.files[kubeconfig.NAME])
    user = kubeconfig.named(config, "users")[kubeconfig.USER]
    cluster = kubeconfig.named(config, "clusters")[kubeconfig.CLUSTER]
    for data, name in (
        (user["client-certificate-data"], "admin.crt"),
        (user["client-key-data"], "admin.key"),
        (cluster["certificate-authority-data"], "ca.crt"),
    ):
        lab.world.state.files[name] = base64.b64decode(data).decode()


def status(text: str) -> dict[str, object]:
    found = json.loads(text)
    assert isinstance(found, dict)
    return found


def test_a_learner_lists_pods_with_a_service_account_token_and_sees_the_json(
    lab: LabSession,
) -> None:
    lab.run("kubectl create clusterrole ci-deploy --verb=get,list,watch,patch --resource=pods")
    lab.run(TOKEN)
    result = lab.run(f"curl -sk {BEARER} {API}/api/v1/namespaces/{NS}/pods")
    assert result.exit_code == 0
    listed = status(result.output)
    assert listed["kind"] == "PodList" and listed["apiVersion"] == "v1"
    names = [p["metadata"]["name"] for p in listed["items"]]  # type: ignore[attr-defined]
    kubectl = lab.run(f"kubectl get pods -n {NS} -o name").output.split()
    assert names == [n.removeprefix("pod/") for n in kubectl] and names
    # Go's indented JSON, as kube-apiserver answers curl's User-Agent: no newline at the end.
    assert result.output.startswith('{\n  "kind": "PodList",\n  "apiVersion": "v1",')
    # Outside its namespace the same token is forbidden.
    other = status(lab.run(f"curl -sk {BEARER} {API}/api/v1/namespaces/default/pods").output)
    assert other["code"] == 403


def test_without_a_token_the_request_is_system_anonymous_and_forbidden(lab: LabSession) -> None:
    result = lab.run(f"curl -k {API}/api/v1/namespaces/default/pods")
    assert result.exit_code == 0  # an HTTP error is no curl error without -f
    assert result.output == (
        "{\n"
        '  "kind": "Status",\n'
        '  "apiVersion": "v1",\n'
        '  "metadata": {},\n'
        '  "status": "Failure",\n'
        '  "message": "pods is forbidden: User \\"system:anonymous\\" cannot list resource '
        '\\"pods\\" in API group \\"\\" in the namespace \\"default\\"",\n'
        '  "reason": "Forbidden",\n'
        '  "details": {\n'
        '    "kind": "pods"\n'
        "  },\n"
        '  "code": 403\n'
        "}"
    )
    # An empty $TOKEN is no token at all; a path outside the API is a path's 403.
    assert status(lab.run(f'curl -sk -H "Authorization: Bearer " {API}/api').output)["message"] == (
        'forbidden: User "system:anonymous" cannot get path "/api"'
    )
    # kubeadm's system:public-info-viewer lets anyone read the version and health.
    assert lab.run(f"curl -sk {API}/healthz").output == "ok"
    assert status(lab.run(f"curl -sk {API}/version").output)["gitVersion"] == "v1.31.4"


def test_a_token_the_server_does_not_know_is_401_unauthorized(lab: LabSession) -> None:
    result = lab.run(f'curl -sk -H "Authorization: Bearer not-a-token" {API}/api/v1/pods')
    assert status(result.output) == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Unauthorized",
        "reason": "Unauthorized",
        "code": 401,
    }
    # A token of an account since deleted is as unknown.
    lab.run(TOKEN)
    lab.run(f"kubectl delete sa ci-deployer -n {NS}")
    assert status(lab.run(f"curl -sk {BEARER} {API}/api").output)["code"] == 401


def test_without_k_the_clusters_certificate_fails_verification_with_exit_60(
    lab: LabSession,
) -> None:
    result = lab.run(f"curl {API}/version")
    assert result.exit_code == 60
    assert result.output == (
        "curl: (60) SSL certificate problem: unable to get local issuer certificate\n"
        "More details here: https://curl.se/docs/sslcerts.html\n\n"
        "curl failed to verify the legitimacy of the server and therefore could not\n"
        "establish a secure connection to it. To learn more about this situation and\n"
        "how to fix it, please visit the web page mentioned above."
    )
    assert lab.run(f"curl -s {API}/version").output == ""
    # The cluster's CA from the kubeconfig verifies it; another file does not.
    admin_files(lab)
    assert status(lab.run(f"curl -s --cacert ca.crt {API}/version").output)["minor"] == "31"
    assert lab.run(f"curl -s --cacert admin.crt {API}/version; echo $?").output == "60"
    assert lab.run(f"curl --cacert nope.crt {API}/version").output == (
        "curl: (77) error setting certificate file: nope.crt"
    )


def test_i_shows_the_http2_status_line_and_kube_apiservers_headers(lab: LabSession) -> None:
    lab.run("curl -sk -i https://10.0.0.10:6443/api > reply.txt")
    text = lab.world.state.files["reply.txt"]
    head, _, body = text.partition("\r\n\r\n")
    lines = head.split("\r\n")
    assert lines[0] == "HTTP/2 403 "
    assert [line.split(": ")[0] for line in lines[1:]] == [
        "audit-id",
        "cache-control",
        "content-type",
        "x-content-type-options",
        "x-kubernetes-pf-flowschema-uid",
        "x-kubernetes-pf-prioritylevel-uid",
        "content-length",
        "date",
    ]
    assert f"content-length: {len(body)}" in lines
    assert status(body)["reason"] == "Forbidden"
    # --http1.1: Go's HTTP/1.1 form.
    first = lab.run("curl -sk -i --http1.1 https://10.0.0.10:6443/healthz").output
    assert first.split("\n")[0] == "HTTP/1.1 200 OK\r"


def test_a_post_of_a_pod_file_creates_a_pod_the_lab_kubectl_then_shows(lab: LabSession) -> None:
    lab.world.state.files["pod.json"] = json.dumps(POD, indent=2) + "\n"
    admin_files(lab)
    url = f"{API}/api/v1/namespaces/default/pods"
    # curl -d's form encoding is not a body kube-apiserver decodes.
    refused = status(lab.run(f"curl -s --cacert ca.crt {ADMIN} -X POST -d @pod.json {url}").output)
    assert (refused["code"], refused["reason"]) == (415, "UnsupportedMediaType")
    line = (
        f"curl -s --cacert ca.crt {ADMIN} -X POST -H 'Content-Type: application/json' "
        f"-d @pod.json -w '\\n%{{http_code}}' {url}"
    )
    body, _, code = lab.run(line).output.rpartition("\n")
    assert code == "201"
    assert status(body)["metadata"]["uid"]  # type: ignore[index]
    assert lab.run(
        "kubectl get pod from-curl -o jsonpath='{.spec.containers[0].image}'"
    ).output == ("nginx:1.27")
    deleted = lab.run(
        f"curl -s --cacert ca.crt {ADMIN} -X DELETE {url}/from-curl -w '%{{http_code}}'"
    )
    assert deleted.output.endswith("200")
    assert lab.run("kubectl get pod from-curl").output.startswith("Error from server (NotFound)")


def test_w_http_code_prints_the_status_alone(lab: LabSession) -> None:
    assert lab.run(f"curl -sk -o /dev/null -w '%{{http_code}}' {API}/api/v1/pods").output == "403"
    assert lab.run(f"curl -sk -o /dev/null -w '%{{http_code}}\\n' {API}/livez").output == "200"
    # No connection: 000.
    assert lab.run("curl -s -w '%{http_code}' https://10.0.0.10:443/").output == "000"
    assert lab.run(f"curl -sk -o /dev/null -w '%{{nope}}' {API}/livez").output == (
        "curl: unknown --write-out variable: 'nope'"
    )


def test_f_fails_on_an_http_error_with_exit_22(lab: LabSession) -> None:
    result = lab.run(f"curl -k -f {API}/api/v1/pods")
    assert (result.exit_code, result.output) == (
        22,
        "curl: (22) The requested URL returned error: 403",
    )
    assert lab.run(f"curl -skf {API}/api/v1/pods; echo $?").output == "22"
    assert lab.run(f"curl -sSkf {API}/api/v1/pods").output == (
        "curl: (22) The requested URL returned error: 403"
    )


def test_hosts_other_than_the_api_server_do_not_answer(lab: LabSession) -> None:
    assert lab.run("curl http://example.com; echo $?").output == (
        "curl: (6) Could not resolve host: example.com\n6"
    )
    assert lab.run("curl https://kubernetes.default.svc/api; echo $?").output == (
        "curl: (6) Could not resolve host: kubernetes.default.svc\n6"
    )
    assert lab.run("curl -k https://10.0.0.10/api; echo $?").output == (
        "curl: (7) Failed to connect to 10.0.0.10 port 443 after 0 ms: Connection refused\n7"
    )
    assert lab.run("curl localhost:8080; echo $?").output == (
        "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Connection refused\n7"
    )
    assert lab.run("curl -s 8.8.8.8; echo $?").output == "7"
    # Plain HTTP to the TLS port: Go's answer.
    assert lab.run("curl http://10.0.0.10:6443/api").output == (
        "Client sent an HTTP request to an HTTPS server."
    )


def test_the_admins_client_certificate_from_the_kubeconfig_is_the_admin(lab: LabSession) -> None:
    admin_files(lab)
    secrets = status(lab.run(f"curl -sk {ADMIN} {API}/api/v1/namespaces/{NS}/secrets").output)
    assert secrets["kind"] == "SecretList"
    # Its certificate without its key is refused by curl itself.
    assert lab.run(f"curl -sSk --cert admin.crt {API}/api").output == (
        "curl: (58) unable to set private key file: 'admin.crt' type PEM"
    )
    # The admin may impersonate; the account may not.
    who = status(
        lab.run(
            f"curl -sk {ADMIN} -H 'Impersonate-User: system:serviceaccount:{NS}:ci-deployer' "
            f"{API}/api/v1/namespaces/{NS}/secrets"
        ).output
    )
    assert who["code"] == 403
    lab.run(TOKEN)
    refused = status(lab.run(f"curl -sk {BEARER} -H 'Impersonate-User: bob' {API}/api").output)
    assert refused["message"] == (
        'users "bob" is forbidden: User "system:serviceaccount:runai-team-ml:ci-deployer" '
        'cannot impersonate resource "users" in API group "" at the cluster scope'
    )


def test_a_watch_prints_the_events_so_far_and_max_time_ends_it(lab: LabSession) -> None:
    admin_files(lab)
    url = f"'{API}/api/v1/namespaces/{NS}/serviceaccounts?watch=true'"
    cut = lab.run(f"curl -sk {ADMIN} -m 5 {url}")
    assert cut.exit_code == 28
    events = [json.loads(line) for line in cut.output.splitlines()]
    assert {e["type"] for e in events} == {"ADDED"}
    assert "ci-deployer" in [e["object"]["metadata"]["name"] for e in events]
    assert lab.run(f"curl -k {ADMIN} -m 5 {url} > /dev/null").output.startswith(
        "curl: (28) Operation timed out after 5001 milliseconds with "
    )
    # The server's own timeout ends it cleanly; without either, the lab says it stopped.
    ended = f"'{API}/api/v1/namespaces/{NS}/serviceaccounts?watch=1&timeoutSeconds=3'"
    assert lab.run(f"curl -sk {ADMIN} {ended} > /dev/null; echo $?").output == "0"
    stopped = lab.run(f"curl -sk {ADMIN} {url} > /dev/null")
    assert stopped.exit_code == 130 and stopped.output.startswith("lab: curl stops here")


def test_o_writes_the_body_to_a_file_with_the_progress_meter(lab: LabSession) -> None:
    result = lab.run(f"curl -k -o version.json {API}/version")
    assert result.output.splitlines()[0] == (
        "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current"
    )
    assert status(lab.world.state.files["version.json"])["major"] == "1"
    assert lab.run(f"curl -sk -o /root/x {API}/version; echo $?").output == "23"


def test_v_shows_the_connection_the_request_and_the_response_headers(lab: LabSession) -> None:
    lines = lab.run(f"curl -vsk {API}/livez 2>&1 >/dev/null").output.splitlines()
    assert lines[0] == "*   Trying 10.0.0.10:6443..."
    assert "> GET /livez HTTP/2" in lines and "> user-agent: curl/7.81.0" in lines
    assert "< HTTP/2 200 " in lines
    assert lines[-1] == "* Connection #0 to host 10.0.0.10 left intact"


def test_its_command_line_is_read_as_curl_reads_it(lab: LabSession) -> None:
    assert (
        lab.run("curl").output == "curl: try 'curl --help' or 'curl --manual' for more information"
    )
    assert lab.run("curl --max-time=5 x; echo $?").output == (
        "curl: option --max-time=5: is unknown\n"
        "curl: try 'curl --help' or 'curl --manual' for more information\n2"
    )
    assert lab.run("curl -k -H").output == (
        "curl: option -H: requires parameter\n"
        "curl: try 'curl --help' or 'curl --manual' for more information"
    )
    assert lab.run("curl -s").output.startswith("curl: no URL specified!")
    assert lab.run("curl -V").output.startswith("curl 7.81.0 (x86_64-pc-linux-gnu)")
    assert lab.run("curl -g 'http://x/{a'; echo $?").output.endswith("6")
    assert lab.run("curl 'http://x/{a'").output == (
        "curl: (3) unmatched brace in URL position 10:\nhttp://x/{a\n         ^"
    )
    assert lab.run("which curl").output == "/usr/bin/curl"
    # Bundled short options, a value joined to its letter.
    assert lab.run(f"curl -skXGET {API}/healthz").output == "ok"
