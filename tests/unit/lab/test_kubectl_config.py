"""`kubectl config` on the admin host's own ~/.kube/config, typed at the lab's terminal: the
commands killer.sh and CKA regulars type, the file kubectl writes back, and its refusals.

Every expectation was read from the real kubectl 1.36 (tests/oracle/test_kubeconfig_oracle.py
compares seeded sequences of config commands with it, output, status and file bytes)."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession, kubeconfig
from simulators.lab.kubeconfig import CONTEXT, KubeconfigError, resolve

HEADER = "CURRENT   NAME                           CLUSTER       AUTHINFO           NAMESPACE"


@pytest.fixture
def lab() -> LabSession:
    session = LabSession.new("mig-single", seed=0)
    session.world.state.files.setdefault(kubeconfig.NAME, kubeconfig.starting_text())
    return session


def out(lab: LabSession, line: str) -> str:
    return lab.run(line).output


def kubeconfig_file(lab: LabSession) -> str | None:
    return lab.world.state.files.get(kubeconfig.NAME)


def test_set_context_current_namespace_is_what_get_contexts_and_view_minify_show(
    lab: LabSession,
) -> None:
    assert out(lab, "kubectl config set-context --current --namespace=dev") == (
        f'Context "{CONTEXT}" modified.'
    )
    assert out(lab, "kubectl config get-contexts") == (
        f"{HEADER}\n*         {CONTEXT}   dgx-cluster   kubernetes-admin   dev"
    )
    assert out(lab, "kubectl config view --minify -o jsonpath='{..namespace}'") == "dev"
    assert out(lab, "kubectl config set-context --current -n kube-system") == (
        f'Context "{CONTEXT}" modified.'
    )
    assert out(lab, "kubectl config view --minify -o jsonpath='{..namespace}'") == "kube-system"


def test_the_file_is_rewritten_as_kubectl_writes_it(lab: LabSession) -> None:
    lab.run("kubectl config set-context --current --namespace=dev")
    expected = kubeconfig.starting_text().replace(
        "    cluster: dgx-cluster\n", "    cluster: dgx-cluster\n    namespace: dev\n"
    )
    assert kubeconfig_file(lab) == expected
    assert out(lab, "cat ~/.kube/config") == expected.rstrip("\n")


def test_a_command_that_changes_nothing_leaves_a_hand_written_file_as_it_was(
    lab: LabSession,
) -> None:
    handmade = f"kind: Config\npreferences: {{}}\ncurrent-context: {CONTEXT}\ncontexts:\n"
    handmade += f"- name: {CONTEXT}\n  context: {{cluster: c, user: u}}\n"
    lab.world.state.files[kubeconfig.NAME] = handmade
    assert out(lab, f"kubectl config use-context {CONTEXT}") == f'Switched to context "{CONTEXT}".'
    assert kubeconfig_file(lab) == handmade
    lab.run("kubectl config set-context --current --namespace=dev")
    assert kubeconfig_file(lab) == (
        "apiVersion: v1\nclusters: null\ncontexts:\n- context:\n    cluster: c\n"
        f"    namespace: dev\n    user: u\n  name: {CONTEXT}\ncurrent-context: {CONTEXT}\n"
        "kind: Config\nusers: null\n"
    )


def test_use_context_switches_to_a_context_the_learner_created(lab: LabSession) -> None:
    assert out(
        lab, "kubectl config set-context dev --cluster=dgx-cluster --user=kubernetes-admin -n dev"
    ) == ('Context "dev" created.')
    assert out(lab, "kubectl config use dev") == 'Switched to context "dev".'
    assert out(lab, "kubectl config current-context") == "dev"
    assert out(lab, "kubectl config get-contexts -o name") == f"dev\n{CONTEXT}"
    assert out(lab, "kubectl config get-contexts --no-headers").split("\n")[0].split() == [
        "*", "dev", "dgx-cluster", "kubernetes-admin", "dev",
    ]  # fmt: skip
    assert out(lab, "kubectl config rename-context dev team") == (
        'Context "dev" renamed to "team".'
    )
    assert out(lab, "kubectl config current-context") == "team"


def test_names_the_file_lacks_are_refused_in_kubectls_words(lab: LabSession) -> None:
    result = lab.run("kubectl config use-context nosuch")
    assert (result.output, result.exit_code) == (
        'error: no context exists with the name: "nosuch"',
        1,
    )
    assert out(lab, "kubectl config delete-context nosuch") == (
        "error: cannot delete context nosuch, not in /home/admin/.kube/config"
    )
    assert out(lab, "kubectl config rename-context nosuch x") == (
        'error: cannot rename the context "nosuch", it\'s not in /home/admin/.kube/config'
    )
    assert out(lab, "kubectl config get-contexts nosuch; echo $?") == (
        "CURRENT   NAME   CLUSTER   AUTHINFO   NAMESPACE\nerror: context nosuch not found\n1"
    )
    assert out(lab, "kubectl config get-contexts -o wide") == (
        "error: --output wide is not available in kubectl config get-contexts; resetting to "
        "default output format"
    )


def test_deleting_the_current_context_warns_and_leaves_current_context_dangling(
    lab: LabSession,
) -> None:
    assert out(lab, f"kubectl config delete-context {CONTEXT}") == (
        'warning: this removed your active context, use "kubectl config use-context" to select '
        f"a different one\ndeleted context {CONTEXT} from /home/admin/.kube/config"
    )
    assert out(lab, "kubectl config current-context") == CONTEXT
    assert out(lab, "kubectl config view --minify") == f"error: cannot locate context {CONTEXT}"


def test_view_omits_data_and_secrets_unless_raw(lab: LabSession) -> None:
    lab.run("kubectl config set-credentials bob --token=s3cret")
    view = out(lab, "kubectl config view")
    assert "DATA+OMITTED" in view and "token: REDACTED" in view and "LS0t" not in view
    raw = out(lab, "kubectl config view --raw")
    assert raw + "\n" == kubeconfig_file(lab)
    assert out(lab, "kubectl config view -o jsonpath='{.users[*].name}'") == (
        "bob kubernetes-admin"
    )
    assert out(lab, "kubectl config view -o name") == "config/<unknown>"


def test_set_and_unset_follow_dotted_paths_through_names_with_dots(lab: LabSession) -> None:
    assert out(lab, f"kubectl config set contexts.{CONTEXT}.namespace prod") == (
        f'Property "contexts.{CONTEXT}.namespace" set.'
    )
    assert out(lab, "kubectl config view --minify -o jsonpath='{..namespace}'") == "prod"
    assert out(lab, f"kubectl config unset contexts.{CONTEXT}.namespace") == (
        f'Property "contexts.{CONTEXT}.namespace" unset.'
    )
    lab.run("kubectl config set contexts.team.a.namespace x")
    assert out(lab, "kubectl config get-contexts -o name") == f"{CONTEXT}\nteam.a"
    assert out(lab, "kubectl config set bogus x") == (
        "error: unable to parse bogus after [] at api.Config"
    )
    assert out(lab, "kubectl config unset contexts.nosuch.namespace") == (
        "error: current map key `nosuch` is invalid"
    )
    assert out(lab, "kubectl config set clusters.dgx-cluster.insecure-skip-tls-verify maybe") == (
        'error: strconv.ParseBool: parsing "maybe": invalid syntax'
    )


def test_set_cluster_and_set_credentials_read_the_files_they_embed(lab: LabSession) -> None:
    lab.run("printf 'PEM\\n' > ca.crt")
    assert out(lab, "kubectl config set-cluster staging --server=https://10.0.0.20:6443") == (
        'Cluster "staging" set.'
    )
    lab.run("kubectl config set-cluster staging --certificate-authority=ca.crt --embed-certs")
    assert out(
        lab,
        "kubectl config view --raw -o jsonpath="
        "'{.clusters[?(@.name==\"staging\")].cluster.certificate-authority-data}' | base64 -d",
    ) == ("PEM")
    assert out(lab, "kubectl config set-cluster staging --certificate-authority=ca.crt") == (
        'Cluster "staging" set.'
    )
    assert "certificate-authority: /home/admin/ca.crt" in out(lab, "kubectl config view")
    assert out(
        lab, "kubectl config set-cluster x --certificate-authority=no.crt --embed-certs"
    ) == (
        "error: could not stat certificate-authority file no.crt: stat no.crt: no such file or "
        "directory"
    )
    assert out(lab, "kubectl config set-credentials bob --token=t --username=u") == (
        "error: you cannot specify more than one authentication method at the same time: "
        "--token, --username/--password"
    )
    assert out(lab, "kubectl config get-clusters") == "NAME\ndgx-cluster\nstaging"


def test_a_missing_file_reads_empty_and_the_first_change_creates_it(lab: LabSession) -> None:
    del lab.world.state.files[kubeconfig.NAME]
    assert (
        out(lab, "kubectl config get-contexts") == "CURRENT   NAME   CLUSTER   AUTHINFO   NAMESPACE"
    )
    assert out(lab, "kubectl config current-context") == "error: current-context is not set"
    assert out(lab, "kubectl config view --minify") == (
        "error: current-context must exist in order to minify"
    )
    assert out(lab, "kubectl config set-context --current -n dev") == (
        "error: no current context is set"
    )
    assert kubeconfig_file(lab) is None
    assert out(lab, "kubectl config set-context dev -n dev") == 'Context "dev" created.'
    assert kubeconfig_file(lab) == (
        'apiVersion: v1\nclusters: null\ncontexts:\n- context:\n    cluster: ""\n'
        '    namespace: dev\n    user: ""\n  name: dev\ncurrent-context: ""\nkind: Config\n'
        "users: null\n"
    )


def test_kubeconfig_flag_and_variable_choose_the_file(lab: LabSession) -> None:
    assert out(lab, "kubectl config set-cluster other --kubeconfig alt.conf") == (
        'Cluster "other" set.'
    )
    assert out(lab, "kubectl config get-clusters --kubeconfig=alt.conf") == "NAME\nother"
    assert out(lab, "KUBECONFIG=alt.conf kubectl config delete-context x") == (
        "error: cannot delete context x, not in alt.conf"
    )
    assert out(lab, "export KUBECONFIG=nosuch:alt.conf; kubectl config get-clusters") == (
        "NAME\nother"
    )
    assert out(lab, "unset KUBECONFIG; kubectl config get-clusters") == "NAME\ndgx-cluster"


def test_a_broken_file_is_kubectls_loading_error(lab: LabSession) -> None:
    lab.run("echo 'clusters: 5' > ~/.kube/config")
    result = lab.run("kubectl config current-context")
    assert (result.output, result.exit_code) == (
        'error: error loading config file "/home/admin/.kube/config": json: cannot unmarshal '
        "number into Go struct field Config.clusters of type []v1.NamedCluster",
        1,
    )
    lab.run("echo 'foo: [' > ~/.kube/config")
    assert out(lab, "kubectl config view") == (
        'error: error loading config file "/home/admin/.kube/config": yaml: line 1: did not '
        "find expected node content"
    )


def test_usage_errors_print_the_subcommands_help_then_the_error(lab: LabSession) -> None:
    text = out(lab, "kubectl config set-context a b")
    assert text.startswith("Set a context entry in kubeconfig.")
    assert text.endswith("error: Unexpected args: [a b]")
    result = lab.run("kubectl config")
    assert result.exit_code == 1 and result.output.startswith("Modify kubeconfig files")
    assert out(lab, "kubectl config get-context") == (
        "error: unknown command \"get-context\"\nSee 'kubectl config -h' for help and examples"
    )
    assert out(lab, "kubectl config get-contexts --minify") == (
        "error: unknown flag: --minify\nSee 'kubectl config get-contexts --help' for usage."
    )
    assert out(lab, "kubectl config set-context") == (
        "error: you must specify a non-empty context name or --current"
    )


def test_every_malformed_exec_env_pair_is_named_as_parsepairs_names_them(lab: LabSession) -> None:
    text = out(lab, "kubectl config set-credentials x --exec-command=a --exec-env=bad "
                    "--exec-env==v --exec-env=k=v")  # fmt: skip
    assert text.endswith("error: invalid exec-env format: bad, =v")


def refusal(config: kubeconfig.Config, **flags: str) -> str:
    with pytest.raises(KubeconfigError) as refused:
        resolve(config, **flags)
    return str(refused.value)


def test_resolve_finds_what_a_command_connects_with_or_kubectls_refusal() -> None:
    config = kubeconfig.load(kubeconfig.starting_text())
    found = resolve(config)
    assert (found.context, found.cluster, found.user, found.namespace, found.server) == (
        CONTEXT, "dgx-cluster", "kubernetes-admin", "default", kubeconfig.SERVER,
    )  # fmt: skip
    assert refusal(config, context="nosuch") == (
        "Error in configuration: context was not found for specified context: nosuch"
    )
    assert refusal(config, cluster="nosuch") == 'error: no server found for cluster "nosuch"'
    assert refusal(config, user="nosuch") == 'error: auth info "nosuch" does not exist'
    assert refusal(config, context="nosuch", cluster="nosuch") == (
        "Error in configuration: \n* context was not found for specified context: nosuch\n"
        '* no server found for cluster "nosuch"'
    )
    assert refusal(kubeconfig.empty()) == kubeconfig.LOCALHOST
