"""What kubectl's own --help examples found the lab answering otherwise (tests/oracle/
test_kubectl_examples_oracle.py checks them all against the real kubectl): objects named by a
file (`-f`) for get, describe, label, patch, scale and expose; impersonation in `auth`; `delete
--interactive`; `events -o`; `edit --save-config`; `-k` with no kustomization."""

from __future__ import annotations

import json

import pytest
import yaml

from simulators.lab import LabSession, editor

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train-llm-7-xk2bl\n  namespace: default\n"
MAPS = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns\n  namespace: kube-system\n"
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nope\n  namespace: kube-system\n"
)


@pytest.fixture
def lab() -> LabSession:
    session = LabSession.new("mig-single")
    session.run("cat > pod.yaml <<'EOF'\n" + POD + "EOF")
    session.run("cat > maps.yaml <<'EOF'\n" + MAPS + "EOF")
    return session


def out(lab: LabSession, line: str) -> str:
    return lab.run(line).output


def test_get_reads_the_objects_a_file_names_one_table_per_kind(lab: LabSession) -> None:
    assert out(lab, "kubectl get -f pod.yaml -o name") == "pod/train-llm-7-xk2bl"
    lines = out(lab, "kubectl get -f maps.yaml").split("\n")
    assert lines[0].split() == ["NAME", "DATA", "AGE"] and lines[1].startswith("coredns ")
    assert lines[2] == 'Error from server (NotFound): configmaps "nope" not found'
    # One file implies one item: a name that fails is all -o name prints.
    assert out(lab, "kubectl get -f maps.yaml -o name") == lines[2]
    assert out(lab, "kubectl get -f pod.yaml pods") == (
        "error: when paths, URLs, or stdin is provided as input, you may not specify resource "
        "arguments as well"
    )
    assert out(lab, "kubectl get -f gone.yaml") == 'error: the path "gone.yaml" does not exist'


def test_describe_label_patch_and_scale_act_on_a_files_objects(lab: LabSession) -> None:
    assert out(lab, "kubectl describe -f pod.yaml").startswith("Name:             train-llm-7-")
    assert out(lab, "kubectl label -f pod.yaml tier=gold") == "pod/train-llm-7-xk2bl labeled"
    assert out(lab, "kubectl get pod train-llm-7-xk2bl -o jsonpath={.metadata.labels.tier}") == (
        "gold"
    )
    patched = out(lab, """kubectl patch -f pod.yaml -p '{"metadata":{"labels":{"x":"y"}}}'""")
    assert patched == "pod/train-llm-7-xk2bl patched"
    lab.run(
        "printf 'apiVersion: apps/v1\\nkind: Deployment\\nmetadata:\\n  name: coredns\\n"
        "  namespace: kube-system\\n' > dep.yaml"
    )
    assert out(lab, "kubectl scale --replicas=3 -f dep.yaml") == "deployment.apps/coredns scaled"
    assert out(lab, "kubectl get deploy coredns -n kube-system -o jsonpath={.spec.replicas}") == (
        "3"
    )
    # Scaling goes through the scale subresource: a kind without one is not found.
    assert out(lab, "kubectl scale --replicas=3 -f pod.yaml") == (
        "Error from server (NotFound): the server could not find the requested resource"
    )


def test_expose_reads_the_object_as_the_file_has_it(lab: LabSession) -> None:
    lab.run(
        "printf 'apiVersion: apps/v1\\nkind: Deployment\\nmetadata:\\n  name: coredns\\n"
        "  namespace: kube-system\\n' > dep.yaml"
    )
    assert out(lab, "kubectl expose -f dep.yaml --port=80 -n kube-system") == (
        "error: couldn't retrieve selectors via --selector flag or introspection: invalid "
        "deployment: no selectors, therefore cannot be exposed"
    )


def test_can_i_answers_for_whom_as_impersonates(lab: LabSession) -> None:
    lab.run("kubectl create sa bot")
    lab.run("kubectl create role reader --verb=get,list --resource=pods")
    lab.run("kubectl create rolebinding bot-reader --role=reader --serviceaccount=default:bot")
    bot = "--as=system:serviceaccount:default:bot"
    assert out(lab, f"kubectl auth can-i list pods {bot}") == "yes"
    assert lab.run(f"kubectl auth can-i delete pods {bot}").exit_code == 1
    assert out(lab, f"kubectl auth can-i list pods {bot} -n kube-system") == "no"
    assert out(lab, "kubectl auth can-i get pods --as=jane") == "no"
    assert out(lab, "kubectl auth can-i get pods --as=jane --as-group=kubeadm:cluster-admins") == (
        "yes"
    )
    review = json.loads(out(lab, f"kubectl auth whoami {bot} -o json"))
    assert review["status"]["userInfo"] == {
        "username": "system:serviceaccount:default:bot",
        "groups": [
            "system:serviceaccounts",
            "system:serviceaccounts:default",
            "system:authenticated",
        ],
    }


def test_delete_interactive_asks_and_takes_its_answer_from_the_standard_input(
    lab: LabSession,
) -> None:
    question = (
        "You are about to delete the following 1 resource(s):\nconfigmap/coredns\n"
        "Do you want to continue? (y/N): "
    )
    assert out(lab, "kubectl delete cm coredns -n kube-system -i") == (
        question + "deletion is cancelled"
    )
    assert out(lab, "echo y | kubectl delete cm coredns -n kube-system -i") == (
        question + 'configmap "coredns" deleted from kube-system namespace'
    )


def test_events_print_their_list_in_any_output_format(lab: LabSession) -> None:
    listed = yaml.safe_load(out(lab, "kubectl events -o yaml"))
    assert listed["kind"] == "EventList" and listed["items"][0]["kind"] == "Event"
    assert out(lab, "kubectl events -o jsonpath={.items[0].reason}") == "Scheduled"


def test_edit_with_save_config_writes_the_last_applied_configuration(lab: LabSession) -> None:
    opened = lab.run("kubectl edit cm coredns -n kube-system --save-config")
    assert opened.editor is not None
    text = opened.editor.text.replace("cache 30", "cache 60")
    saved = lab.run(editor.save_line(opened.editor.token, text, None))
    assert saved.output == "configmap/coredns edited"
    applied = json.loads(
        out(
            lab,
            "kubectl get cm coredns -n kube-system -o jsonpath='{.metadata.annotations."
            "kubectl\\.kubernetes\\.io/last-applied-configuration}'",
        )
    )
    assert "cache 60" in applied["data"]["Corefile"]


def test_kustomize_finds_no_folder_in_the_home_folder(lab: LabSession) -> None:
    assert out(lab, "kubectl delete -k dir") == (
        "error: must build at directory: not a valid directory: evalsymlink failure on 'dir' : "
        "lstat /home/admin/dir: no such file or directory"
    )


def test_the_last_applied_configuration_is_viewed_set_and_edited(lab: LabSession) -> None:
    lab.run("kubectl create cm demo --from-literal=a=1")
    lab.run("kubectl get cm demo -o yaml > demo.yaml")
    assert out(lab, "kubectl apply set-last-applied -f demo.yaml") == (
        "error: no last-applied-configuration annotation found on resource: demo, to create the "
        "annotation, run the command with --create-annotation"
    )
    assert out(lab, "kubectl apply set-last-applied -f demo.yaml --create-annotation") == (
        "configmap/demo configured"
    )
    assert yaml.safe_load(out(lab, "kubectl apply view-last-applied cm demo"))["data"] == {"a": "1"}
    opened = lab.run("kubectl apply edit-last-applied cm demo")
    assert opened.editor is not None and 'a: "1"' in opened.editor.text
    text = opened.editor.text.replace('a: "1"', 'a: "9"')
    saved = lab.run(editor.save_line(opened.editor.token, text, None))
    assert saved.output == "configmap/demo edited"
    assert json.loads(out(lab, "kubectl apply view-last-applied cm demo -o json"))["data"] == {
        "a": "9"
    }
    assert out(lab, "kubectl get cm demo -o jsonpath={.data.a}") == "1"  # the object is as it was
    assert out(lab, "kubectl apply foo -f demo.yaml").startswith("error: Unexpected args: [foo]")
