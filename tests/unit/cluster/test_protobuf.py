"""Protobuf request bodies (what kubectl's typed clients send) decode to the JSON objects."""

from __future__ import annotations

import random

import pytest

from simulators.cluster.api import ApiError
from simulators.cluster.protobuf import decode

# kubectl 1.36's `create namespace foo`, as `-v=8` shows the request body.
NAMESPACE = bytes.fromhex(
    "6b3873000a0f0a027631120"
    "94e616d657370616365121b0a130a03666f6f12001a0022002a003200380042001200"
    "1a020a001a002200"
)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number: int, value: bytes | int) -> bytes:
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    type_meta = field(1, api_version.encode()) + field(2, kind.encode())
    return b"k8s\x00" + field(1, type_meta) + field(2, raw)


def test_kubectls_namespace_body_decodes_to_the_namespace_it_creates() -> None:
    assert decode(NAMESPACE) == {
        "kind": "Namespace",
        "apiVersion": "v1",
        "metadata": {"name": "foo"},
        "spec": {},
        "status": {},
    }


def test_secret_data_becomes_base64_and_labels_a_map() -> None:
    meta = field(1, b"pull") + field(11, field(1, b"app") + field(2, b"x"))
    data = field(2, field(1, b".dockerconfigjson") + field(2, b'{"auths":{}}'))
    body = decode(envelope("v1", "Secret", field(1, meta) + data + field(3, b"kubernetes.io/x")))
    assert body["metadata"] == {"name": "pull", "labels": {"app": "x"}}
    assert body["data"] == {".dockerconfigjson": "eyJhdXRocyI6e319"}
    assert body["type"] == "kubernetes.io/x"


def test_zero_is_kept_for_pointer_fields_and_dropped_for_omitempty_values() -> None:
    # DeploymentSpec: replicas (*int32, 1) = 0 is kept; minReadySeconds (int32, 5) = 0 is not.
    container = field(1, b"web") + field(2, b"nginx")
    volume = field(1, b"scratch") + field(2, field(2, b""))  # volumeSource{emptyDir{}}
    pod_spec = field(1, volume) + field(2, container)
    template = field(1, b"") + field(2, pod_spec)
    spec = field(1, 0) + field(3, template) + field(5, 0)
    body = decode(envelope("apps/v1", "Deployment", field(1, field(1, b"d")) + field(2, spec)))
    assert body["spec"]["replicas"] == 0
    assert "minReadySeconds" not in body["spec"]
    pod = body["spec"]["template"]["spec"]
    assert pod["containers"] == [{"name": "web", "image": "nginx"}]
    assert pod["volumes"] == [{"name": "scratch", "emptyDir": {}}]


def test_int_or_string_and_quantities_take_their_json_forms() -> None:
    # PodDisruptionBudgetSpec.minAvailable (IntOrString, 1): type 1 = string "50%".
    spec = field(1, field(1, 1) + field(3, b"50%"))
    body = decode(envelope("policy/v1", "PodDisruptionBudget", field(2, spec)))
    assert body["spec"]["minAvailable"] == "50%"
    hard = field(1, field(1, b"pods") + field(2, field(1, b"10")))
    quota = decode(envelope("v1", "ResourceQuota", field(2, hard)))
    assert quota["spec"]["hard"] == {"pods": "10"}


def test_a_kind_without_a_table_is_unsupported_media_type() -> None:
    with pytest.raises(ApiError) as caught:
        decode(envelope("example.com/v1", "Widget", b""))
    assert caught.value.code == 415


def test_a_truncated_body_is_a_bad_request() -> None:
    with pytest.raises(ApiError) as caught:
        decode(NAMESPACE[:20])
    assert caught.value.code == 400


def test_random_bodies_are_bad_requests_never_crashes() -> None:
    rng = random.Random(26)
    kinds = [("v1", "Pod"), ("apps/v1", "Deployment"), ("v1", "Secret"), ("batch/v1", "CronJob")]
    for _ in range(3000):
        api_version, kind = rng.choice(kinds)
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80)))
        try:
            decode(envelope(api_version, kind, raw))
        except ApiError as error:
            assert error.code == 400, error.message


def test_a_huge_varint_where_a_string_belongs_is_a_bad_request() -> None:
    # ObjectMeta.name (field 1) sent as a varint of 2**62: no 4 EiB string is made.
    meta = _varint(1 << 3) + _varint(1 << 62)
    with pytest.raises(ApiError) as caught:
        decode(envelope("v1", "Namespace", field(1, meta)))
    assert caught.value.code == 400
