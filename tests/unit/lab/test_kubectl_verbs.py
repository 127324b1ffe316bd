"""kubectl's verbs against the cluster API: what a learner reads after each command."""

from __future__ import annotations

import pytest

from tests.unit.lab.kubectl_cluster import Lab, build


@pytest.fixture
def lab() -> Lab:
    return build()


def test_get_nodes_prints_kubectls_table_with_three_space_columns(lab: Lab) -> None:
    lines = lab.out("kubectl get nodes").split("\n")
    assert lines[0] == "NAME        STATUS   ROLES    AGE   VERSION"
    assert lines[1].startswith("gpu-node1   Ready    <none>   ")


def test_label_columns_take_the_last_path_segment_and_keep_empty_cells(lab: Lab) -> None:
    lines = lab.out("kubectl get node gpu-node1 -L nvidia.com/mig.config,foo").split("\n")
    assert lines[0].endswith("MIG.CONFIG     FOO")
    # kubectl pads every cell but the last, so an empty last label leaves trailing spaces.
    assert lines[1].endswith("all-disabled   ")


def test_all_namespaces_adds_the_namespace_column(lab: Lab) -> None:
    text = lab.out("kubectl get pods -A")
    assert text.split("\n")[0].startswith("NAMESPACE      NAME")
    assert "gpu-operator   nvidia-device-plugin-daemonset-x7k2p" in text


def test_several_types_print_one_table_each_with_kind_prefixed_names(lab: Lab) -> None:
    text = lab.out("kubectl get deploy,ds -A")
    assert "deployment.apps/web" in text
    assert "daemonset.apps/nvidia-device-plugin-daemonset" in text
    assert "\n\nNAMESPACE" in text


def test_wide_output_shows_ip_and_node(lab: Lab) -> None:
    text = lab.out("kubectl get pods -o wide")
    assert "10.244.1.5   gpu-node1" in text


def test_custom_columns_print_none_for_missing_fields(lab: Lab) -> None:
    text = lab.out("kubectl get pods -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName")
    assert text.split("\n")[0] == "NAME                  NODE"
    assert "train                 <none>" in text


def test_custom_columns_without_a_colon_is_kubectls_error(lab: Lab) -> None:
    result = lab.run("kubectl get pods -o custom-columns=NAME")
    assert result.code == 1
    assert "expected <header>:<json-path-expr>" in result.text


def test_sort_by_a_missing_field_empties_a_table_and_fails_yaml_as_kubectl_does(lab: Lab) -> None:
    # kubectl 1.36's table sorter drops the rows; its generic printers report the field.
    assert lab.out("kubectl get pods --sort-by=.status.nothing") == (
        "No resources found in default namespace."
    )
    result = lab.run("kubectl get pods --sort-by=.status.nothing -o yaml")
    assert 'couldn\'t find any field with path "{.status.nothing}"' in result.text


def test_events_sorted_by_last_timestamp_answer_like_kubectl(lab: Lab) -> None:
    result = lab.run("kubectl get events -A --sort-by=.lastTimestamp")
    assert result.code == 0


def test_jsonpath_reads_the_api_object(lab: Lab) -> None:
    line = "kubectl get node gpu-node1 -o jsonpath='{.metadata.labels.nvidia\\.com/mig\\.config}'"
    text = lab.out(line)
    assert text == "all-disabled"


def test_yaml_of_one_object_is_the_object_with_quoted_timestamps(lab: Lab) -> None:
    text = lab.out("kubectl get node gpu-node1 -o yaml")
    assert text.startswith("apiVersion: v1\nkind: Node\n")
    assert 'creationTimestamp: "2026-11-10T' in text


def test_name_output_uses_kind_and_group(lab: Lab) -> None:
    assert lab.out("kubectl get deploy -o name") == "deployment.apps/web"


def test_an_unknown_type_is_the_servers_answer(lab: Lab) -> None:
    assert lab.out("kubectl get x") == 'error: the server doesn\'t have a resource type "x"'


def test_a_missing_object_is_not_found(lab: Lab) -> None:
    result = lab.run("kubectl get pod nope")
    assert (result.code, result.text) == (1, 'Error from server (NotFound): pods "nope" not found')


def test_an_empty_namespace_says_no_resources_found(lab: Lab) -> None:
    assert (
        lab.out("kubectl get pods -n kube-public") == "No resources found in kube-public namespace."
    )


def test_queues_and_podgroups_are_known_types(lab: Lab) -> None:
    assert lab.out("kubectl get queues") == "No resources found"
    assert lab.out("kubectl get podgroups -A") == "No resources found"


def test_describe_pending_pod_shows_args_and_no_container_state(lab: Lab) -> None:
    text = lab.out("kubectl describe pod train")
    assert "    Args:\n      python\n      train.py" in text
    assert "Command:" not in text
    assert "ContainerCreating" not in text
    assert "Node:             <none>" in text


def test_describe_matches_a_name_prefix(lab: Lab) -> None:
    text = lab.out("kubectl describe pod web")
    assert text.startswith("Name:             web-5d8f7c9b6-abcde")


def test_describe_node_lists_allocated_gpus(lab: Lab) -> None:
    text = lab.out("kubectl describe node gpu-node1")
    assert "Allocatable:\n  cpu:             224" in text
    assert "  nvidia.com/gpu     0         0" in text


def test_label_without_overwrite_keeps_the_old_value(lab: Lab) -> None:
    result = lab.run("kubectl label node gpu-node1 nvidia.com/mig.config=all-1g.10gb")
    assert result.text == (
        "error: 'nvidia.com/mig.config' already has a value (all-disabled), "
        "and --overwrite is false"
    )
    assert lab.api.get("nodes", "gpu-node1")["metadata"]["labels"]["nvidia.com/mig.config"] == (
        "all-disabled"
    )


def test_label_with_overwrite_changes_it_and_the_same_value_is_not_labeled(lab: Lab) -> None:
    assert lab.out(
        "kubectl label node gpu-node1 nvidia.com/mig.config=all-1g.10gb --overwrite"
    ) == ("node/gpu-node1 labeled")
    assert lab.out(
        "kubectl label node gpu-node1 nvidia.com/mig.config=all-1g.10gb --overwrite"
    ) == ("node/gpu-node1 not labeled")


def test_label_removal_and_a_missing_label(lab: Lab) -> None:
    assert (
        lab.out("kubectl label node gpu-node1 nvidia.com/mig.config-") == "node/gpu-node1 unlabeled"
    )
    assert lab.out("kubectl label node gpu-node1 nope-") == (
        'label "nope" not found.\nnode/gpu-node1 not labeled'
    )


def test_annotate_adds_an_annotation(lab: Lab) -> None:
    assert lab.out("kubectl annotate node gpu-node1 team=ml") == "node/gpu-node1 annotated"


def test_cordon_twice_says_already_cordoned_and_uncordon_reverts(lab: Lab) -> None:
    assert lab.out("kubectl cordon gpu-node1") == "node/gpu-node1 cordoned"
    assert lab.out("kubectl cordon gpu-node1") == "node/gpu-node1 already cordoned"
    assert lab.api.get("nodes", "gpu-node1")["spec"]["unschedulable"] is True
    assert lab.out("kubectl uncordon gpu-node1") == "node/gpu-node1 uncordoned"


def test_drain_refuses_daemonset_pods_without_the_flag(lab: Lab) -> None:
    result = lab.run("kubectl drain gpu-node1")
    assert result.code == 1
    assert "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)" in result.text
    assert "There are pending nodes to be drained:\n gpu-node1" in result.text


def test_drain_evicts_through_the_eviction_api_and_skips_daemonset_pods(lab: Lab) -> None:
    text = lab.out("kubectl drain gpu-node1 --ignore-daemonsets")
    assert text.split("\n") == [
        "node/gpu-node1 cordoned",
        "Warning: ignoring DaemonSet-managed Pods: "
        "gpu-operator/nvidia-device-plugin-daemonset-x7k2p",
        "evicting pod default/web-5d8f7c9b6-abcde",
        "pod/web-5d8f7c9b6-abcde evicted",
        "node/gpu-node1 drained",
    ]


def test_logs_of_a_deployment_read_its_pod(lab: Lab) -> None:
    assert lab.out("kubectl logs deploy/web") == "listening on :80"


def test_logs_of_a_pending_pod_say_it_is_waiting(lab: Lab) -> None:
    pod = lab.api.get("pods", "train", "default")
    waiting = {"waiting": {"reason": "ContainerCreating"}}
    status = {"phase": "Pending", "containerStatuses": [{"name": "train", "state": waiting}]}
    lab.api.update("pods", {**pod, "status": status}, "default", subresource="status")
    result = lab.run("kubectl logs train")
    assert result.code == 1
    assert result.text.startswith('Error from server (BadRequest): container "train" in pod')


def test_exec_into_a_pod_that_is_not_running_fails(lab: Lab) -> None:
    result = lab.run("kubectl exec train -- nvidia-smi -L")
    assert result.code == 1
    assert "container not found" in result.text


def test_exec_without_double_dash_is_kubectls_error(lab: Lab) -> None:
    assert "you must specify at least one command" in lab.out("kubectl exec train")


CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: b\n"


def test_apply_creates_then_leaves_unchanged_then_configures(lab: Lab) -> None:
    lab.files["cm.yaml"] = CONFIGMAP
    assert lab.out("kubectl apply -f cm.yaml") == "configmap/cfg created"
    assert lab.out("kubectl apply -f cm.yaml") == "configmap/cfg unchanged"
    lab.files["cm.yaml"] = CONFIGMAP.replace("a: b", "a: c")
    assert lab.out("kubectl apply -f cm.yaml") == "configmap/cfg configured"
    assert lab.api.get("configmaps", "cfg", "default")["data"] == {"a": "c"}


def test_create_twice_is_already_exists(lab: Lab) -> None:
    lab.files["cm.yaml"] = CONFIGMAP
    assert lab.out("kubectl create -f cm.yaml") == "configmap/cfg created"
    assert lab.out("kubectl create -f cm.yaml") == (
        'Error from server (AlreadyExists): error when creating "cm.yaml": configmaps "cfg" '
        "already exists"
    )


def test_replace_force_deletes_and_recreates(lab: Lab) -> None:
    lab.files["cm.yaml"] = CONFIGMAP
    lab.run("kubectl create -f cm.yaml")
    assert lab.out("kubectl replace --force -f cm.yaml") == (
        'configmap "cfg" deleted from default namespace\nconfigmap/cfg replaced'
    )


def test_a_missing_file_is_kubectls_path_error(lab: Lab) -> None:
    assert lab.out("kubectl apply -f nope.yaml") == 'error: the path "nope.yaml" does not exist'


def test_delete_names_the_namespace_as_kubectl_1_37_does(lab: Lab) -> None:
    assert lab.out("kubectl delete pod train") == 'pod "train" deleted from default namespace'


def test_patch_merge_changes_the_object(lab: Lab) -> None:
    text = lab.out(
        'kubectl patch node gpu-node1 --type merge -p \'{"metadata":{"labels":{"a":"b"}}}\''
    )
    assert text == "node/gpu-node1 patched"
    assert lab.api.get("nodes", "gpu-node1")["metadata"]["labels"]["a"] == "b"


def test_patch_json_and_a_bad_type(lab: Lab) -> None:
    ops = '[{"op":"add","path":"/metadata/labels/x","value":"y"}]'
    assert (
        lab.out(f"kubectl patch node gpu-node1 --type json -p '{ops}'") == "node/gpu-node1 patched"
    )
    assert "--type must be one of" in lab.out("kubectl patch node gpu-node1 --type xml -p '{}'")


def test_rollout_restart_stamps_the_pod_template(lab: Lab) -> None:
    line = "kubectl rollout restart ds/nvidia-device-plugin-daemonset -n gpu-operator"
    assert lab.out(line) == "daemonset.apps/nvidia-device-plugin-daemonset restarted"
    ds = lab.api.get("daemonsets.apps", "nvidia-device-plugin-daemonset", "gpu-operator")
    annotations = ds["spec"]["template"]["metadata"]["annotations"]
    assert "kubectl.kubernetes.io/restartedAt" in annotations


def test_rollout_status_waits_for_the_controller_to_observe_the_spec(lab: Lab) -> None:
    assert lab.out("kubectl rollout status deploy/web") == (
        "Waiting for deployment spec update to be observed..."
    )


def test_rollout_status_reports_a_finished_rollout(lab: Lab) -> None:
    deploy = lab.api.get("deployments.apps", "web", "default")
    status = {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "availableReplicas": 1}
    lab.api.update(
        "deployments.apps", {**deploy, "status": status}, "default", subresource="status"
    )
    assert (
        lab.out("kubectl rollout status deploy/web") == 'deployment "web" successfully rolled out'
    )


def test_scale_sets_replicas(lab: Lab) -> None:
    assert lab.out("kubectl scale deploy/web --replicas=2") == "deployment.apps/web scaled"
    assert lab.api.get("deployments.apps", "web", "default")["spec"]["replicas"] == 2


def test_top_answers_as_a_cluster_without_metrics_server(lab: Lab) -> None:
    result = lab.run("kubectl top nodes")
    assert (result.code, result.text) == (1, "error: Metrics API not available")


def test_api_resources_lists_core_first_then_groups(lab: Lab) -> None:
    lines = lab.out("kubectl api-resources").split("\n")
    assert lines[0].split() == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    names = [line.split()[0] for line in lines[1:]]
    assert names.index("pods") < names.index("deployments") < names.index("queues")


def test_config_current_context_and_view_hide_credentials(lab: Lab) -> None:
    assert lab.out("kubectl config current-context") == "kubernetes-admin@dgx-cluster"
    view = lab.out("kubectl config view")
    assert "DATA+OMITTED" in view and "BEGIN" not in view


def test_version_prints_client_and_server(lab: Lab) -> None:
    assert lab.out("kubectl version") == (
        "Client Version: v1.31.4\nKustomize Version: v5.4.2\nServer Version: v1.31.4"
    )


def test_an_unknown_flag_is_pflags_error(lab: Lab) -> None:
    assert lab.out("kubectl get pods --bogus") == (
        "error: unknown flag: --bogus\nSee 'kubectl get --help' for usage."
    )


def test_an_unknown_verb_is_cobras_error(lab: Lab) -> None:
    assert lab.out("kubectl frobnicate").startswith(
        'error: unknown command "frobnicate" for "kubectl"'
    )


def test_completion_offers_verbs_types_and_names(lab: Lab) -> None:
    from simulators.lab import kubectl

    assert "get" in kubectl.complete(lab.ctx, [], "g")
    assert "nodes" in kubectl.complete(lab.ctx, ["get"], "no")
    assert kubectl.complete(lab.ctx, ["cordon"], "gpu") == ["gpu-node1"]


def test_describe_deployment_shows_replicas_template_and_replica_sets(lab: Lab) -> None:
    text = lab.out("kubectl describe deploy web")
    assert "Replicas:               1 desired | 0 updated | 0 total | 0 available" in text
    assert (
        "Pod Template:\n  Labels:  app=web\n  Containers:\n   web:\n    Image:         nginx:1.27"
        in text
    )


def test_describe_daemonset_counts_its_pods(lab: Lab) -> None:
    text = lab.out("kubectl describe ds nvidia-device-plugin-daemonset -n gpu-operator")
    assert "Pods Status:  0 Running / 1 Waiting / 0 Succeeded / 0 Failed" in text


def test_describe_by_name_prefix_leaves_events_out_as_kubectl_does(lab: Lab) -> None:
    assert "Events:" not in lab.out("kubectl describe pod web")
    assert "Events:" in lab.out("kubectl describe pod web-5d8f7c9b6-abcde")


def test_cluster_info_lists_the_control_plane_and_cluster_services(lab: Lab) -> None:
    lab.api.create(
        "services",
        {
            "metadata": {
                "name": "kube-dns",
                "namespace": "kube-system",
                "labels": {
                    "kubernetes.io/cluster-service": "true",
                    "kubernetes.io/name": "CoreDNS",
                },
            },
            "spec": {"ports": [{"name": "dns", "port": 53, "protocol": "UDP"}]},
        },
        "kube-system",
    )
    assert lab.out("kubectl cluster-info").split("\n") == [
        "Kubernetes control plane is running at https://10.0.0.10:6443",
        "CoreDNS is running at https://10.0.0.10:6443/api/v1/namespaces/kube-system/services/"
        "kube-dns:dns/proxy",
        "",
        "To further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.",
    ]


def test_go_sort_orders_ties_as_gos_unstable_sort_does() -> None:
    from simulators.lab.kubectl import gosort

    # 20 items with 4 distinct keys: pdqsort (not insertion sort) with ties, Go's order.
    keys = [i % 4 for i in range(20)]
    items = list(range(20))

    def less(i: int, j: int) -> bool:
        return keys[items[i]] < keys[items[j]]

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]

    gosort.sort(len(items), less, swap)
    assert [keys[i] for i in items] == sorted(keys)
    # Not a stable sort's order: the oracle checks this order against the real kubectl.
    assert items != sorted(range(20), key=lambda i: keys[i])
