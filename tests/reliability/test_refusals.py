"""Issue 33, finding 9 (the lab's and the API server's parts): refusals made clean.

Each input used to end in `lab: internal error`, a 500, a 200 or a broken answer; each is now
one line in the lab, or a Status with kube-apiserver's code and message.
"""

from __future__ import annotations

import http.client
import json
import time
from typing import Any

import pytest

from simulators.lab import LabSession, budget
from tests.reliability.test_documents import port, send

pytestmark = [pytest.mark.reliability]
__all__ = ["port"]  # the API server fixture, shared with test_documents

TICKET = "mig-single"


def strict_json(raw: bytes) -> Any:
    """JSON as Go reads it: NaN and Infinity are not JSON."""

    def refuse(name: str) -> Any:
        raise ValueError(f"invalid character {name[0]!r}")

    return json.loads(raw, parse_constant=refuse)


def a_pod(lab: LabSession) -> str:
    return str(lab.world.api.list("pods", "kube-system")["items"][0]["metadata"]["name"])


def test_a_grace_period_past_int64_is_kubectls_flag_error() -> None:
    lab = LabSession.new(TICKET, seed=1)
    digits = "9" * 27
    result = lab.run(f"kubectl delete pod {a_pod(lab)} -n kube-system --grace-period={digits}")
    assert result.output == (
        f'error: invalid argument "{digits}" for "--grace-period" flag: strconv.ParseInt: '
        f'parsing "{digits}": value out of range'
    )


def test_the_largest_grace_period_deletes_the_pod_gracefully() -> None:
    lab = LabSession.new(TICKET, seed=1)
    pod = a_pod(lab)
    line = f"kubectl delete pod {pod} -n kube-system --grace-period={2**63 - 1} --wait=false"
    result = lab.run(line)
    assert result.output == f'pod "{pod}" deleted from kube-system namespace'
    later = lab.run("kubectl get pods -n kube-system")
    assert later.exit_code == 0 and "internal error" not in later.output


def test_three_hundred_recursive_columns_stop_at_the_budget() -> None:
    lab = LabSession.new(TICKET, seed=1)
    columns = ",".join(f"C{i}:.." for i in range(300))
    meter = budget.Meter(budget.Limits())
    started = time.thread_time()
    with budget.metered(meter):
        result = lab.run(f"kubectl get pods -A -o custom-columns={columns}")
    spent = time.thread_time() - started
    assert result.output.splitlines()[-1] == (
        "bash: command stopped: it used more than 250 ms of CPU time"
    )
    assert spent < 0.5, f"{spent:.2f} s of CPU"


NODE = "/api/v1/nodes/gpu-node1"


def test_a_json_patch_removing_the_whole_document_is_a_422(port: int) -> None:
    body = b'[{"op": "remove", "path": ""}]'
    code, status, _ = send(port, "PATCH", NODE, body, "application/json-patch+json")
    assert (code, status["reason"], status["message"]) == (
        422,
        "Invalid",
        "the server rejected our request due to an error in our request: remove operation "
        'does not apply: doc is missing path: "": missing value',
    )


def test_a_config_map_holding_nan_never_breaks_a_later_answer(port: int) -> None:
    body = b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "nan"},'
    for value in (b"NaN", b"Infinity", b"-Infinity"):
        code, _, _ = send(
            port,
            "POST",
            "/api/v1/namespaces/default/configmaps",
            body + b'"data": {"a": "1"}, "extra": ' + value + b"}",
            "application/json",
        )
        assert code < 500
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", "/api/v1/namespaces/default/configmaps")
        answer = connection.getresponse().read()
        connection.close()
        strict_json(answer)
        send(port, "DELETE", "/api/v1/namespaces/default/configmaps/nan", b"", "application/json")


def test_a_yaml_nan_is_refused_in_jsons_words(port: int) -> None:
    code, status, _ = send(
        port, "PATCH", NODE, b"{metadata: {labels: {a: .nan}}}", "application/merge-patch+json"
    )
    assert (code, status["message"]) == (400, "json: unsupported value: NaN")


@pytest.mark.parametrize(
    ("version", "problem"),
    [("abc", "invalid syntax"), ("1" + "0" * 30, "value out of range")],
    ids=["abc", "ten-to-the-thirty"],
)
def test_a_watch_from_a_malformed_resource_version_is_a_422(
    port: int, version: str, problem: str
) -> None:
    path = f"/api/v1/namespaces/default/pods?watch=true&resourceVersion={version}"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path)
    response = connection.getresponse()
    status = json.loads(response.read())
    connection.close()
    assert (response.status, status["reason"], status["message"]) == (
        422,
        "Invalid",
        f'pods "" is invalid: resourceVersion: Invalid value: "{version}": '
        f'strconv.ParseUint: parsing "{version}": {problem}',
    )
