from __future__ import annotations

import pytest

from simulators.cluster import ApiError
from simulators.cluster.fields import check_fields, unknown_fields
from simulators.cluster.registry import REGISTRY


def test_a_correct_pod_has_no_unknown_fields() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"a": "b"}},
        "spec": {
            "containers": [
                {"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 1}}}
            ],
            "affinity": {"anything": {"goes": "here"}},
        },
    }
    assert unknown_fields("pods", pod) == []


def test_typos_are_found_where_they_are() -> None:
    deploy = {
        "metadata": {"name": "d", "lables": {}},
        "spec": {
            "replicas": 1,
            "template": {"spec": {"containers": [{"name": "c", "imagee": "x"}]}},
        },
    }
    assert unknown_fields("deployments.apps", deploy) == [
        "metadata.lables",
        "spec.template.spec.containers[0].imagee",
    ]


def test_strategic_merge_directives_are_not_fields() -> None:
    patch = {"spec": {"$setElementOrder/containers": [{"name": "c"}], "containers": []}}
    assert unknown_fields("pods", patch) == []


def test_custom_resources_are_not_checked() -> None:
    assert unknown_fields("queues.scheduling.run.ai", {"spec": {"whatever": 1}}) == []


def test_the_error_is_the_api_servers_strict_decoding_error() -> None:
    with pytest.raises(ApiError) as info:
        check_fields(REGISTRY.by_key("pods"), {"spec": {"contianers": []}})
    assert info.value.code == 400
    assert info.value.message == (
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
        'unknown field "spec.contianers"'
    )
