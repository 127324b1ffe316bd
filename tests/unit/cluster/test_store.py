from __future__ import annotations

import json
from typing import Any

import pytest

from simulators.cluster import ApiError, MockCluster, record_event


def pod(name: str = "p", ns: str = "default", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
        "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}], **spec},
    }
    return body


@pytest.fixture
def api() -> MockCluster:
    return MockCluster(seed=3)


def error_of(call: Any, *args: Any, **kwargs: Any) -> ApiError:
    with pytest.raises(ApiError) as info:
        call(*args, **kwargs)
    return info.value


def test_a_new_cluster_has_the_system_namespaces_each_with_a_default_service_account(
    api: MockCluster,
) -> None:
    names = [n["metadata"]["name"] for n in api.list("namespaces")["items"]]
    assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]
    sa = api.get("serviceaccounts", "default", "kube-system")
    assert sa["metadata"]["namespace"] == "kube-system"


def test_create_sets_uid_resource_version_timestamp_and_defaults(api: MockCluster) -> None:
    created = api.create("pods", pod())
    meta = created["metadata"]
    assert meta["uid"] and meta["resourceVersion"].isdigit()
    assert meta["creationTimestamp"] == "2026-11-10T09:40:00Z"
    assert created["spec"]["schedulerName"] == "default-scheduler"
    assert created["spec"]["serviceAccountName"] == "default"
    assert created["status"] == {"phase": "Pending", "qosClass": "BestEffort"}


def test_generate_name_gets_a_five_character_suffix(api: MockCluster) -> None:
    body = pod()
    body["metadata"] = {"generateName": "train-", "namespace": "default"}
    first = api.create("pods", body)["metadata"]["name"]
    second = api.create("pods", body)["metadata"]["name"]
    assert first.startswith("train-") and len(first) == len("train-") + 5
    assert first != second


def test_it_refuses_a_duplicate_name(api: MockCluster) -> None:
    api.create("pods", pod())
    error = error_of(api.create, "pods", pod())
    assert (error.code, error.reason, error.message) == (
        409,
        "AlreadyExists",
        'pods "p" already exists',
    )


def test_it_refuses_an_unknown_namespace(api: MockCluster) -> None:
    error = error_of(api.create, "pods", pod(ns="nope"))
    assert (error.code, error.message) == (404, 'namespaces "nope" not found')


def test_it_refuses_a_name_that_is_not_a_dns_subdomain(api: MockCluster) -> None:
    error = error_of(api.create, "configmaps", {"metadata": {"name": "Bad_Name"}})
    assert error.code == 422
    assert error.message.startswith(
        'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": '
        "a lowercase RFC 1123 subdomain"
    )


def test_it_refuses_an_invalid_label_value(api: MockCluster) -> None:
    error = error_of(
        api.create, "configmaps", {"metadata": {"name": "c", "labels": {"a": "has space"}}}
    )
    assert 'metadata.labels: Invalid value: "has space"' in error.message


def test_it_refuses_a_quantity_that_does_not_parse(api: MockCluster) -> None:
    body = pod()
    body["spec"]["containers"][0]["resources"] = {"limits": {"memory": "lots"}}
    error = error_of(api.create, "pods", body)
    assert error.code == 400
    assert "quantities must match the regular expression" in error.message


def test_a_fractional_gpu_request_is_invalid(api: MockCluster) -> None:
    body = pod()
    body["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "500m"}}
    error = error_of(api.create, "pods", body)
    assert 'Invalid value: "500m": must be an integer' in error.message


def test_get_of_a_missing_object_is_not_found_with_kubectls_wording(api: MockCluster) -> None:
    error = error_of(api.get, "deployments.apps", "web", "default")
    assert (error.code, error.message) == (404, 'deployments.apps "web" not found')


def test_resolve_knows_short_names_and_refuses_unknown_words(api: MockCluster) -> None:
    assert api.resolve("po").key == "pods"
    assert api.resolve("deploy").key == "deployments.apps"
    assert api.resolve("ds").key == "daemonsets.apps"
    assert api.resolve("queue").key == "queues.scheduling.run.ai"
    assert api.resolve("pg").kind == "PodGroup"
    assert api.resolve("clusterpolicies").api_version == "nvidia.com/v1"
    error = error_of(api.resolve, "widgets")
    assert error.message == 'the server doesn\'t have a resource type "widgets"'


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("tier=gpu", ["a", "b"]),
        ("tier==gpu", ["a", "b"]),
        ("tier!=gpu", ["c", "d"]),
        ("tier in (gpu,cpu)", ["a", "b", "c"]),
        ("tier notin (gpu)", ["c", "d"]),
        ("zone", ["a"]),
        ("!zone", ["b", "c", "d"]),
        ("tier=gpu,!zone", ["b"]),
    ],
)
def test_label_selectors_follow_kubernetes_grammar(
    api: MockCluster, selector: str, expected: list[str]
) -> None:
    labels = {
        "a": {"tier": "gpu", "zone": "1"},
        "b": {"tier": "gpu"},
        "c": {"tier": "cpu"},
        "d": {},
    }
    for name, lab in labels.items():
        api.create("configmaps", {"metadata": {"name": name, "labels": lab}})
    listed = api.list("configmaps", "default", label_selector=selector)["items"]
    assert [
        c["metadata"]["name"] for c in listed if c["metadata"]["name"] != "kube-root-ca.crt"
    ] == (expected)


def test_a_malformed_label_selector_is_a_bad_request(api: MockCluster) -> None:
    error = error_of(api.list, "pods", label_selector="a b")
    assert error.code == 400


def test_field_selectors_select_pods_by_node_and_phase(api: MockCluster) -> None:
    api.create("pods", pod("a"))
    api.create("pods", pod("b"))
    api.bind("a", "default", "gpu-node1")
    on_node = api.list("pods", field_selector="spec.nodeName=gpu-node1")["items"]
    assert [p["metadata"]["name"] for p in on_node] == ["a"]
    pending = api.list("pods", field_selector="status.phase=Pending,metadata.name!=a")["items"]
    assert [p["metadata"]["name"] for p in pending] == ["b"]
    error = error_of(api.list, "pods", field_selector="spec.bogus=1")
    assert (error.code, error.message) == (400, "field label not supported: spec.bogus")


def test_field_selectors_select_events_by_involved_object(api: MockCluster) -> None:
    first = api.create("pods", pod("a"))
    second = api.create("pods", pod("b"))
    record_event(api, first, "Normal", "Scheduled", "one", "default-scheduler")
    record_event(api, second, "Normal", "Scheduled", "two", "default-scheduler")
    found = api.list("events", "default", field_selector="involvedObject.name=b")["items"]
    assert [e["message"] for e in found] == ["two"]


def test_list_across_namespaces_is_ordered_by_namespace_then_name(api: MockCluster) -> None:
    api.create("namespaces", {"metadata": {"name": "team"}})
    api.create("pods", pod("z"))
    api.create("pods", pod("a", ns="team"))
    api.create("pods", pod("b"))
    listed = api.list("pods")
    assert listed["kind"] == "PodList"
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in listed["items"]] == [
        ("default", "b"),
        ("default", "z"),
        ("team", "a"),
    ]


def deployment(name: str = "web") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }


def test_generation_moves_on_spec_changes_only(api: MockCluster) -> None:
    created = api.create("deployments.apps", deployment())
    assert created["metadata"]["generation"] == 1
    labelled = api.patch("deployments.apps", "web", {"metadata": {"labels": {"a": "b"}}})
    assert labelled["metadata"]["generation"] == 1
    scaled = api.patch("deployments.apps", "web", {"spec": {"replicas": 3}})
    assert scaled["metadata"]["generation"] == 2


def test_create_leaves_status_to_the_status_subresource(api: MockCluster) -> None:
    body = pod()
    body["status"] = {"phase": "Running"}
    assert api.create("pods", body)["status"]["phase"] == "Pending"
    node = {"metadata": {"name": "n"}, "status": {"capacity": {"cpu": "4"}}}
    assert api.create("nodes", node)["status"] == {"capacity": {"cpu": "4"}}


def test_status_changes_only_through_the_status_subresource(api: MockCluster) -> None:
    api.create("deployments.apps", deployment())
    ignored = api.patch("deployments.apps", "web", {"status": {"replicas": 5}})
    assert ignored["status"] == {}
    applied = api.patch(
        "deployments.apps", "web", {"status": {"replicas": 5}}, subresource="status"
    )
    assert applied["status"] == {"replicas": 5}
    unchanged_spec = api.patch(
        "deployments.apps", "web", {"spec": {"replicas": 9}}, subresource="status"
    )
    assert unchanged_spec["spec"]["replicas"] == 1


def test_an_update_with_a_stale_resource_version_conflicts(api: MockCluster) -> None:
    first = api.create("configmaps", {"metadata": {"name": "c"}, "data": {"a": "1"}})
    api.patch("configmaps", "c", {"data": {"a": "2"}})
    first["data"]["a"] = "3"
    error = error_of(api.update, "configmaps", first)
    assert error.code == 409
    assert error.message == (
        'Operation cannot be fulfilled on configmaps "c": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )


def test_an_update_without_changes_keeps_the_resource_version(api: MockCluster) -> None:
    created = api.create("configmaps", {"metadata": {"name": "c"}, "data": {"a": "1"}})
    again = api.update("configmaps", created)
    assert again["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


def test_merge_json_and_strategic_patches(api: MockCluster) -> None:
    body = pod()
    body["spec"]["containers"].append({"name": "side", "image": "busybox:1"})
    api.create("pods", body)
    merged = api.patch("pods", "p", {"metadata": {"labels": {"x": "1", "app": None}}})
    assert merged["metadata"]["labels"] == {"x": "1"}
    strategic = api.patch(
        "pods",
        "p",
        {"spec": {"containers": [{"name": "side", "image": "busybox:2"}]}},
        patch_type="strategic",
    )
    assert [c["image"] for c in strategic["spec"]["containers"]] == ["busybox:1.36", "busybox:2"]
    replaced = api.patch(
        "pods",
        "p",
        [{"op": "replace", "path": "/spec/containers/0/image", "value": "busybox:3"}],
        patch_type="json",
    )
    assert replaced["spec"]["containers"][0]["image"] == "busybox:3"
    error = error_of(
        api.patch,
        "pods",
        "p",
        [{"op": "remove", "path": "/metadata/labels/nope"}],
        patch_type="json",
    )
    assert error.code == 422


def test_a_merge_patch_that_only_changes_an_image_is_allowed(api: MockCluster) -> None:
    api.create("pods", pod())
    patch = {"spec": {"containers": [{"name": "main", "image": "busybox:2"}]}}
    merged = api.patch("pods", "p", patch)
    assert merged["spec"]["containers"][0]["image"] == "busybox:2"


def test_a_pods_resources_cannot_change_in_place(api: MockCluster) -> None:
    api.create("pods", pod())
    error = error_of(
        api.patch,
        "pods",
        "p",
        {"spec": {"containers": [{"name": "main", "resources": {"limits": {"cpu": "2"}}}]}},
        patch_type="strategic",
    )
    assert error.code == 422
    assert error.message.startswith(
        'Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than '
        "`spec.containers[*].image`"
    )


def test_a_pod_may_gain_a_toleration_but_not_lose_one(api: MockCluster) -> None:
    api.create("pods", pod())
    tolerations = api.get("pods", "p")["spec"]["tolerations"]
    extra = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    added = api.patch("pods", "p", {"spec": {"tolerations": [*tolerations, extra]}})
    assert extra in added["spec"]["tolerations"]
    error = error_of(api.patch, "pods", "p", {"spec": {"tolerations": [extra]}})
    assert error.code == 422


def test_strategic_patch_of_a_custom_resource_is_unsupported(api: MockCluster) -> None:
    api.create("queues.scheduling.run.ai", {"metadata": {"name": "team-a"}, "spec": {}})
    error = error_of(
        api.patch, "queues.scheduling.run.ai", "team-a", {"spec": {}}, patch_type="strategic"
    )
    assert error.code == 415


def test_binding_an_already_bound_pod_conflicts(api: MockCluster) -> None:
    api.create("pods", pod())
    api.bind("p", "default", "gpu-node1")
    bound = api.get("pods", "p")
    assert bound["spec"]["nodeName"] == "gpu-node1"
    assert bound["status"]["conditions"][0]["type"] == "PodScheduled"
    error = error_of(api.bind, "p", "default", "gpu-node2")
    assert error.code == 409
    assert 'pod p is already assigned to node "gpu-node1"' in error.message


def test_eviction_respects_a_disruption_budget(api: MockCluster) -> None:
    body = pod()
    api.create("pods", body)
    api.bind("p", "default", "gpu-node1")
    api.patch(
        "pods",
        "p",
        {"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}},
        subresource="status",
    )
    api.create(
        "poddisruptionbudgets.policy",
        {
            "metadata": {"name": "keep"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "p"}}},
        },
    )
    error = error_of(api.evict, "p", "default")
    assert (error.code, error.reason) == (429, "TooManyRequests")
    assert error.message == "Cannot evict pod as it would violate the pod's disruption budget."
    api.delete("poddisruptionbudgets.policy", "keep")
    api.evict("p", "default")
    assert api.get("pods", "p")["metadata"]["deletionTimestamp"]


def test_logs_come_from_what_the_kubelet_appended(api: MockCluster) -> None:
    api.create("pods", pod())
    api.append_log("default", "p", "main", ["one", "two", "three"])
    assert api.logs("p", "default") == "one\ntwo\nthree\n"
    assert api.logs("p", "default", tail=1) == "three\n"
    api.restart_log("default", "p", "main")
    api.append_log("default", "p", "main", ["again"])
    assert api.logs("p", "default", previous=True) == "one\ntwo\nthree\n"
    assert api.logs("p", "default") == "again\n"


def test_logs_of_a_two_container_pod_need_a_container_name(api: MockCluster) -> None:
    body = pod()
    body["spec"]["containers"].append({"name": "side", "image": "busybox:1"})
    api.create("pods", body)
    error = error_of(api.logs, "p", "default")
    assert error.message == (
        "a container name must be specified for pod p, choose one of: [main side]"
    )
    assert error_of(api.logs, "p", "default", container="x").message == (
        "container x is not valid for pod p"
    )


def test_logs_of_a_container_that_has_not_started_say_it_is_waiting(api: MockCluster) -> None:
    api.create("pods", pod())
    api.bind("p", "default", "gpu-node1")
    error = error_of(api.logs, "p", "default")
    assert error.message == 'container "main" in pod "p" is waiting to start: ContainerCreating'


def test_exec_goes_to_a_registered_handler(api: MockCluster) -> None:
    api.create("pods", pod())
    api.patch("pods", "p", {"status": {"phase": "Running"}}, subresource="status")

    def answer(
        cluster: MockCluster, obj: dict[str, Any], container: str, argv: list[str]
    ) -> str | None:
        return (
            f"{obj['metadata']['name']}/{container}: {' '.join(argv)}\n"
            if argv[0] == "hi"
            else None
        )

    api.add_exec_handler(answer)
    assert api.exec("p", "default", ["hi", "there"]) == "p/main: hi there\n"
    error = error_of(api.exec, "p", "default", ["vim"])
    assert error.code == 500 and 'exec: "vim": executable file not found in $PATH' in error.message
    api.add_exec_handler(answer)  # adding it twice keeps one
    assert api.exec("p", "default", ["hi"]) == "p/main: hi\n"
    # A handler answers in the cluster it was added to, not in every cluster of the process.
    other = MockCluster()
    other.create("pods", pod())
    other.patch("pods", "p", {"status": {"phase": "Running"}}, subresource="status")
    assert error_of(other.exec, "p", "default", ["hi"]).code == 500


def test_watch_returns_the_changes_after_a_resource_version(api: MockCluster) -> None:
    start = api.resource_version
    api.create("pods", pod())
    api.patch("pods", "p", {"metadata": {"labels": {"x": "1"}}})
    api.delete("pods", "p")
    events = api.watch("pods", "default", resource_version=start)
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    selected = api.watch("pods", "default", resource_version=start, label_selector="x=1")
    assert [e.type for e in selected] == ["ADDED", "DELETED"]
    assert [e.type for e in api.watch("namespaces", resource_version="0")] == ["ADDED"] * 4


def test_a_watch_from_too_long_ago_is_gone(api: MockCluster) -> None:
    for index in range(2100):
        api.create("configmaps", {"metadata": {"name": f"c{index}"}})
    error = error_of(api.watch, "configmaps", resource_version="5")
    assert error.code == 410
    assert error.message.startswith("too old resource version: 5")


def test_events_repeat_by_count_like_the_event_recorder(api: MockCluster) -> None:
    node = api.create("nodes", {"metadata": {"name": "gpu-node1"}})
    first = record_event(api, node, "Normal", "NodeNotSchedulable", "cordoned", "kubelet")
    assert first["metadata"]["namespace"] == "default"
    assert first["count"] == 1
    api.clock.advance(3)
    again = record_event(api, node, "Normal", "NodeNotSchedulable", "cordoned", "kubelet")
    assert again["metadata"]["name"] == first["metadata"]["name"]
    assert again["count"] == 2
    assert again["firstTimestamp"] == "2026-11-10T09:40:00Z"
    assert again["lastTimestamp"] == "2026-11-10T09:40:30Z"
    other = record_event(api, node, "Normal", "NodeSchedulable", "uncordoned", "kubelet")
    assert other["metadata"]["name"] != first["metadata"]["name"]


def test_the_state_round_trips_through_json_exactly(api: MockCluster) -> None:
    api.create("pods", pod())
    api.append_log("default", "p", "main", ["hello"])
    api.clock.advance()
    saved = json.loads(json.dumps(api.to_json()))
    restored = MockCluster.from_json(saved)
    assert restored.to_json() == saved
    assert restored.logs("p", "default") == "hello\n"
    assert restored.now() == api.now()
    created = restored.create("pods", pod("q"))
    assert int(created["metadata"]["resourceVersion"]) > int(api.resource_version)


def test_loading_an_unknown_saved_format_is_a_clear_error() -> None:
    error = error_of(MockCluster.from_json, {"format": 0})
    assert error.message == "saved cluster state has an unknown format"


def test_returned_objects_are_copies(api: MockCluster) -> None:
    got = api.create("pods", pod())
    got["metadata"]["labels"]["app"] = "changed"
    assert api.get("pods", "p")["metadata"]["labels"]["app"] == "p"


def test_api_error_becomes_a_status_object() -> None:
    status = ApiError(404, "NotFound", 'pods "x" not found', {"name": "x"}).status()
    assert status == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'pods "x" not found',
        "reason": "NotFound",
        "code": 404,
        "details": {"name": "x"},
    }


def test_select_returns_what_list_returns_without_copies(api: MockCluster) -> None:
    api.create("pods", pod("a"))
    api.create("pods", pod("b"))
    selected = api.select("pods", "default", label_selector="app=b")
    assert [p["metadata"]["name"] for p in selected] == ["b"]
    assert selected == api.list("pods", "default", label_selector="app=b")["items"]


def test_a_selected_watch_sees_objects_enter_and_leave_the_selection(api: MockCluster) -> None:
    start = api.resource_version
    api.create("pods", pod("a"))
    api.patch("pods", "a", {"metadata": {"labels": {"gpu": "yes"}}})
    api.patch("pods", "a", {"metadata": {"annotations": {"x": "1"}}})
    api.patch("pods", "a", {"metadata": {"labels": {"gpu": None}}})
    api.create("pods", pod("b"))
    events = api.watch("pods", "default", resource_version=start, label_selector="gpu=yes")
    assert [(e.type, e.object["metadata"]["name"]) for e in events] == [
        ("ADDED", "a"),
        ("MODIFIED", "a"),
        ("DELETED", "a"),
    ]
