"""Admission: what the API server refuses (422 Invalid with its causes, 400 for a quantity it
cannot decode, pod immutability) and what it fills in on create."""

from __future__ import annotations

from typing import Any

import pytest

from simulators.cluster.admission import (
    apply_defaults,
    check_pod_update,
    check_quantities,
    validate,
)
from simulators.cluster.api import ApiError, Obj
from simulators.cluster.registry import REGISTRY
from simulators.cluster.store import MockCluster

PODS = REGISTRY.by_key("pods")


def pod(**spec: Any) -> Obj:
    container = {"name": "c", "image": "nginx:1.27", **spec.pop("container", {})}
    return {
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [container], **spec},
    }


def refused(check: Any, *args: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        check(*args)
    return caught.value


def test_a_name_that_is_not_an_rfc_1123_subdomain_is_invalid_with_the_regex_it_failed() -> None:
    bad = pod()
    bad["metadata"]["name"] = "Bad_Name"
    error = refused(validate, PODS, bad)
    assert error.code == 422 and error.reason == "Invalid"
    assert error.message.startswith(
        'Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase '
        "RFC 1123 subdomain must consist of lower case alphanumeric characters"
    )
    assert error.details["causes"][0]["field"] == "metadata.name"


def test_a_namespace_name_must_be_a_label_and_label_values_keep_to_their_syntax() -> None:
    namespaces = REGISTRY.by_key("namespaces")
    error = refused(validate, namespaces, {"metadata": {"name": "a.b"}})
    assert "a lowercase RFC 1123 label must consist of" in error.message
    labelled = pod()
    labelled["metadata"]["labels"] = {"ok": "fine", "bad": "-x-", "bad key": "v"}
    error = refused(validate, PODS, labelled)
    # Several causes: the message lists them in brackets, as the API server does.
    assert error.message.startswith('Pod "p" is invalid: [metadata.labels: Invalid value: "-x-"')
    assert [c["field"] for c in error.details["causes"]] == ["metadata.labels"] * 2


def test_a_pod_needs_containers_with_names_and_images() -> None:
    empty = {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}}
    assert refused(validate, PODS, empty).message == (
        'Pod "p" is invalid: spec.containers: Required value'
    )
    nameless = pod(container={"name": "", "image": ""})
    assert refused(validate, PODS, nameless).message == (
        'Pod "p" is invalid: [spec.containers[0].name: Required value, '
        "spec.containers[0].image: Required value]"
    )


def test_an_extended_resource_is_whole_and_its_request_equals_its_limit() -> None:
    half = pod(container={"resources": {"limits": {"nvidia.com/gpu": "0.5"}}})
    assert refused(validate, PODS, half).message == (
        'Pod "p" is invalid: spec.containers[0].resources.limits[nvidia.com/gpu]: '
        'Invalid value: "0.5": must be an integer'
    )
    no_limit = pod(container={"resources": {"requests": {"nvidia.com/gpu": "1"}}})
    assert "Limit must be set for non overcommitable resources" in (
        refused(validate, PODS, no_limit).message
    )
    unequal = pod(
        container={
            "resources": {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2"}}
        }
    )
    assert 'Invalid value: "1": must be equal to nvidia.com/gpu limit of 2' in (
        refused(validate, PODS, unequal).message
    )


def test_a_cluster_policys_mig_strategy_is_one_of_its_enum() -> None:
    policies = REGISTRY.by_key("clusterpolicies.nvidia.com")
    policy = {"metadata": {"name": "cluster-policy"}, "spec": {"mig": {"strategy": "mixd"}}}
    error = refused(validate, policies, policy)
    assert error.code == 422 and "spec.mig.strategy" in error.message and "mixd" in error.message


def test_a_quantity_that_cannot_be_decoded_is_a_bad_request() -> None:
    bad = pod(container={"resources": {"limits": {"cpu": "two"}}})
    error = refused(check_quantities, PODS, bad)
    assert error.code == 400
    assert error.message.startswith('Pod in version "v1" cannot be handled as a Pod: ')


def test_a_pod_update_may_change_images_and_add_tolerations_but_nothing_else() -> None:
    old = pod(tolerations=[{"key": "a"}])
    newer = pod(container={"image": "nginx:1.28"}, tolerations=[{"key": "a"}, {"key": "b"}])
    check_pod_update(PODS, old, newer)  # allowed
    moved = pod(nodeName="gpu-node1")
    error = refused(check_pod_update, PODS, old, moved)
    assert error.message.startswith(
        'Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than '
        "`spec.containers[*].image`"
    )
    dropped = pod(tolerations=[])
    assert refused(check_pod_update, PODS, old, dropped).code == 422


def test_a_new_pod_gets_the_api_servers_defaults_and_its_accounts_pull_secrets() -> None:
    api = MockCluster()
    api.patch("serviceaccounts", "default", {"imagePullSecrets": [{"name": "ngc"}]}, "default")
    new = pod(container={"image": "nvcr.io/nvidia/pytorch", "resources": {"limits": {"cpu": "1"}}})
    apply_defaults(PODS, new, api, creating=True)
    spec, container = new["spec"], new["spec"]["containers"][0]
    assert (spec["serviceAccountName"], spec["schedulerName"], spec["restartPolicy"]) == (
        "default",
        "default-scheduler",
        "Always",
    )
    assert spec["imagePullSecrets"] == [{"name": "ngc"}]
    assert container["imagePullPolicy"] == "Always"  # no tag: latest
    assert container["resources"]["requests"] == {"cpu": "1"}  # limits copied into requests
    assert [t["key"] for t in spec["tolerations"]] == [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    ]
    assert (new["status"]["phase"], new["status"]["qosClass"]) == ("Pending", "Burstable")


def test_workload_kinds_and_namespaces_get_their_defaults() -> None:
    api = MockCluster()
    deployment: Obj = {"metadata": {"name": "web"}, "spec": {"template": {"spec": {}}}}
    apply_defaults(REGISTRY.by_key("deployments.apps"), deployment, api, creating=True)
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"]["rollingUpdate"] == {
        "maxUnavailable": "25%",
        "maxSurge": "25%",
    }
    namespace: Obj = {"metadata": {"name": "team"}}
    apply_defaults(REGISTRY.by_key("namespaces"), namespace, api, creating=True)
    assert namespace["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team"}
    assert namespace["status"] == {"phase": "Active"}
