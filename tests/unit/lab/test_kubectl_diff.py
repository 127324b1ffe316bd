"""kubectl diff and apply's three-way patch, as a learner meets them at the lab's prompt.

The generated oracle (tests/oracle/test_apply_diff_oracle.py) compares both with the real
kubectl; these are the cases a learner reads about first."""

from __future__ import annotations

from simulators.lab.session import LabSession

CONFIGMAP = """cat > cm.yaml <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: lab-cm
  labels:
    team: a
data:
  a: "1"
  b: "2"
EOF"""


def lab() -> LabSession:
    session = LabSession.new("mig-single", seed=0)
    session.run(CONFIGMAP)
    return session


def test_a_new_object_diffs_against_nothing_and_says_1() -> None:
    session = lab()
    out = session.run("kubectl diff -f cm.yaml; echo status $?").output
    lines = out.splitlines()
    assert lines[0].startswith("diff -u -N /tmp/LIVE-")
    assert "/v1.ConfigMap.default.lab-cm /tmp/MERGED-" in lines[0]
    assert lines[3] == "@@ -0,0 +1,12 @@"
    assert "+  name: lab-cm" in lines and "+  uid: " in out
    assert "resourceVersion" not in out  # a dry run create stores no version
    assert lines[-1] == "status 1"
    assert "lab-cm" not in session.run("kubectl get cm").output


def test_an_applied_file_diffs_to_nothing_and_says_0() -> None:
    session = lab()
    session.run("kubectl apply -f cm.yaml")
    assert session.run("kubectl diff -f cm.yaml; echo status $?").output == "status 0"


def test_a_removed_key_and_label_show_as_removed_and_apply_removes_them() -> None:
    session = lab()
    session.run("kubectl apply -f cm.yaml")
    session.run("sed -i -e '/b: \"2\"/d' -e '/labels:/d' -e '/team: a/d' cm.yaml")
    out = session.run("kubectl diff -f cm.yaml").output
    assert '-  b: "2"' in out.splitlines() and "-    team: a" in out.splitlines()
    # The version a dry run answers with is the stored one.
    assert not [line for line in out.splitlines() if line[:1] in "+-" and "resourceVersion" in line]
    session.run("kubectl apply -f cm.yaml")
    shown = session.run("kubectl get cm lab-cm -o jsonpath='{.data} {.metadata.labels}'")
    assert shown.output == '{"a":"1"} '


def test_a_label_another_client_added_survives_apply() -> None:
    session = lab()
    session.run("kubectl apply -f cm.yaml")
    session.run("kubectl label cm lab-cm owner=ops")
    assert session.run("kubectl diff -f cm.yaml; echo $?").output == "0"
    session.run("kubectl apply -f cm.yaml")
    labels = session.run("kubectl get cm lab-cm -o jsonpath='{.metadata.labels.owner}'")
    assert labels.output == "ops"


def test_a_secrets_values_are_masked_unless_asked() -> None:
    session = lab()
    session.run("kubectl create secret generic s --from-literal=pw=old")
    session.run(
        "kubectl create secret generic s --from-literal=pw=new --dry-run=client -o yaml > s.yaml"
    )
    out = session.run("kubectl diff -f s.yaml").output.splitlines()
    assert "-  pw: '*** (before)'" in out and "+  pw: '*** (after)'" in out
    shown = session.run("kubectl diff -f s.yaml --show-secrets").output.splitlines()
    assert "-  pw: b2xk" in shown and "+  pw: bmV3" in shown


def test_mistakes_end_with_status_2_and_one_line() -> None:
    session = lab()
    for line, said in (
        ("kubectl diff", "error: must specify one of -f and -k"),
        ("kubectl diff -f nope.yaml", 'error: the path "nope.yaml" does not exist'),
        ("kubectl diff --force-conflicts -f cm.yaml", "error: --force-conflicts only works"),
        ("kubectl diff -f cm.yaml --prune", "error: --prune is not available"),
    ):
        out = session.run(f"{line}; echo status $?").output.splitlines()
        assert out[0].startswith(said) and out[-1] == "status 2", (line, out)


def test_the_terminal_completes_diff_and_its_files() -> None:
    session = lab()
    assert "diff" in session.complete("kubectl di")
    assert session.complete("kubectl diff -f c") == ["cm.yaml"]


def test_a_flag_set_to_false_is_as_if_it_were_not_given() -> None:
    session = lab()
    session.run("kubectl create secret generic s --from-literal=pw=old")
    session.run(
        "kubectl create secret generic s --from-literal=pw=new --dry-run=client -o yaml > s.yaml"
    )
    masked = session.run("kubectl diff -f s.yaml --show-secrets=false --prune=false").output
    assert "+  pw: '*** (after)'" in masked.splitlines()
