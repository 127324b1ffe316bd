"""kubectl create's generators fed from files and flags, as `kubectl create ... --help` shows
them: configmaps and secrets from the home folder's files, ingresses, a Job from a CronJob,
priority classes, quotas, headless services, and the errors kubectl 1.36 prints for mistakes."""

from __future__ import annotations

import base64

import pytest

from tests.unit.lab.kubectl_cluster import Lab, build


@pytest.fixture
def lab() -> Lab:
    return build()


def test_a_file_that_is_not_there_is_kubectls_error_reading_it(lab: Lab) -> None:
    result = lab.run("kubectl create configmap my-config --from-file=path/to/bar")
    assert (result.text, result.code) == (
        "error: error reading path/to/bar: no such file or directory",
        1,
    )


def test_a_file_becomes_a_key_named_after_it(lab: Lab) -> None:
    lab.files["bar"] = "A=1\n"
    cm = lab.yaml("kubectl create configmap my-config --from-file=bar -o yaml")
    assert cm["data"] == {"bar": "A=1\n"}
    assert cm["metadata"]["namespace"] == "default"


def test_keys_can_be_given_for_each_file(lab: Lab) -> None:
    lab.files["file1.txt"] = "one"
    lab.files["file2.txt"] = "two"
    cm = lab.yaml(
        "kubectl create configmap my-config --from-file=key1=file1.txt "
        "--from-file=key2=file2.txt --dry-run=client -o yaml",
    )
    assert cm["data"] == {"key1": "one", "key2": "two"}
    assert "creationTimestamp" not in cm["metadata"]


def test_the_home_folder_gives_one_key_per_file(lab: Lab) -> None:
    lab.files["b.txt"] = "bee"
    lab.files["a.txt"] = "ay"
    cm = lab.yaml("kubectl create configmap all --from-file=. --dry-run=client -o yaml")
    assert cm["data"] == {"a.txt": "ay", "b.txt": "bee"}


def test_a_key_name_for_the_home_folder_is_refused(lab: Lab) -> None:
    result = lab.run("kubectl create configmap all --from-file=k=.")
    assert result.text == "error: cannot give a key name for a directory path"


def test_an_env_file_skips_comments_and_blank_lines_and_keeps_values_as_written(
    lab: Lab,
) -> None:
    lab.files["bar.env"] = "# comment\n\nA=1\n  B=two words  \nC=\nD=x=y\n"
    cm = lab.yaml("kubectl create configmap my-config --from-env-file=bar.env -o yaml")
    assert cm["data"] == {"A": "1", "B": "two words  ", "C": "", "D": "x=y"}


def test_an_env_file_line_with_a_bad_name_is_refused_with_the_name_quoted(lab: Lab) -> None:
    lab.files["bad.env"] = "1A=x\n"
    result = lab.run("kubectl create configmap x --from-env-file=bad.env")
    assert result.code == 1
    assert result.text.startswith(
        'error: "1A" is not a valid key name: a valid environment variable name must consist '
        "of alphabetic characters"
    )


def test_a_missing_env_file_is_kubectls_error_reading_it(lab: Lab) -> None:
    result = lab.run("kubectl create configmap my-config --from-env-file=path/to/bar.env")
    assert result.text == "error: error reading path/to/bar.env: no such file or directory"


def test_an_env_file_cannot_be_combined_with_files_or_literals(lab: Lab) -> None:
    lab.files["a.env"] = "A=1\n"
    result = lab.run("kubectl create configmap x --from-env-file=a.env --from-literal=b=2")
    assert result.text == "error: from-env-file cannot be combined with from-file or from-literal"


def test_a_key_given_twice_is_refused_before_anything_is_created(lab: Lab) -> None:
    result = lab.run("kubectl create configmap x --from-literal=a=1 --from-literal=a=2")
    assert result.text == (
        'error: cannot add key "a", another key by that name already exists in Data for '
        'ConfigMap "x"'
    )
    assert lab.run("kubectl get configmap x").code == 1


def test_a_key_with_a_slash_is_not_a_valid_configmap_key(lab: Lab) -> None:
    result = lab.run("kubectl create configmap x --from-literal=a/b=1")
    assert result.text.startswith(
        'error: "a/b" is not a valid key name for a ConfigMap: a valid config key must consist'
    )


def test_append_hash_names_the_configmap_after_its_content(lab: Lab) -> None:
    # The hashes kubectl 1.36 prints for these configmaps.
    empty = lab.run("kubectl create cm x --append-hash --dry-run=client -o name")
    assert empty.text == "configmap/x-62ctbmbfd2"
    one = lab.run("kubectl create cm x --from-literal=a=1 --append-hash --dry-run=client -o name")
    assert one.text == "configmap/x-m8mt92gg65"


def test_a_generic_secret_takes_files_under_their_own_keys_and_literals(lab: Lab) -> None:
    lab.files["id_rsa"] = "PRIV\nKEY"
    lab.files["id_rsa.pub"] = "ssh-rsa AAA"
    secret = lab.yaml(
        "kubectl create secret generic my-secret --from-file=ssh-privatekey=id_rsa "
        "--from-file=ssh-publickey=id_rsa.pub --from-literal=passphrase=topsecret -o yaml",
    )
    decoded = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert decoded == {
        "passphrase": "topsecret",
        "ssh-privatekey": "PRIV\nKEY",
        "ssh-publickey": "ssh-rsa AAA",
    }


def test_two_env_files_with_the_same_key_are_refused_for_a_secret(lab: Lab) -> None:
    lab.files["a.env"] = "A=1\n"
    lab.files["b.env"] = "B=2\nA=3\n"
    result = lab.run("kubectl create secret generic s --from-env-file=a.env --from-env-file=b.env")
    assert result.text == "error: cannot add key A, another key by that name already exists"


def test_a_docker_registry_secret_from_a_config_file_is_keyed_dockerconfigjson(lab: Lab) -> None:
    lab.files["config.json"] = '{"auths":{}}'
    secret = lab.yaml(
        "kubectl create secret docker-registry my-secret --from-file=config.json "
        "--dry-run=client -o yaml",
    )
    assert secret["type"] == "kubernetes.io/dockerconfigjson"
    assert secret["data"] == {".dockerconfigjson": base64.b64encode(b'{"auths":{}}').decode()}


def test_a_missing_docker_config_file_is_kubectls_error_reading_it(lab: Lab) -> None:
    result = lab.run(
        "kubectl create secret docker-registry my-secret --from-file=path/to/.docker/config.json"
    )
    assert result.text == (
        "error: error reading path/to/.docker/config.json: no such file or directory"
    )


def test_an_annotated_ingress_carries_its_annotations_and_class(lab: Lab) -> None:
    ing = lab.yaml(
        'kubectl create ingress annotated --class=default --rule="foo.com/bar=svc:port" '
        "--annotation ingress.annotation1=foo --annotation ingress.annotation2=bla -o yaml",
    )
    assert ing["metadata"]["annotations"] == {
        "ingress.annotation1": "foo",
        "ingress.annotation2": "bla",
    }
    assert ing["spec"]["ingressClassName"] == "default"
    path = ing["spec"]["rules"][0]["http"]["paths"][0]
    assert path == {
        "backend": {"service": {"name": "svc", "port": {"name": "port"}}},
        "path": "/bar",
        "pathType": "Exact",
    }


def test_an_ingress_with_a_default_backend_and_tls_rule(lab: Lab) -> None:
    ing = lab.yaml(
        "kubectl create ingress ingdefault --class=default --default-backend=defaultsvc:http "
        '--rule="foo.com/*=svc:8080,tls=secret1" --dry-run=client -o yaml',
    )
    spec = ing["spec"]
    assert spec["defaultBackend"] == {"service": {"name": "defaultsvc", "port": {"name": "http"}}}
    assert spec["tls"] == [{"hosts": ["foo.com"], "secretName": "secret1"}]
    assert spec["rules"][0]["http"]["paths"][0]["pathType"] == "Prefix"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "kubectl create ingress x",
            "error: not enough information provided: every ingress has to either specify a "
            "default-backend (which catches all traffic) or a list of rules (which catch "
            "specific paths)",
        ),
        (
            "kubectl create ingress x --rule=foo",
            "error: rule foo is invalid and should be in format "
            "host/path=svcname:svcport[,tls[=secret]]",
        ),
        (
            "kubectl create ingress x --rule=/p=s:1 --annotation=noeq",
            "error: annotation noeq is invalid and should be in format key=[value]",
        ),
        (
            "kubectl create ingress x --default-backend=svc",
            "error: default-backend should be in format servicename:serviceport",
        ),
    ],
)
def test_an_ingress_mistake_is_kubectls_one_line_error(lab: Lab, line: str, message: str) -> None:
    assert (lab.run(line).text, lab.run(line).code) == (message, 1)


def test_a_job_from_a_missing_cronjob_is_the_servers_not_found(lab: Lab) -> None:
    result = lab.run("kubectl create job test-job --from=cronjob/a-cronjob")
    assert (result.text, result.code) == (
        'Error from server (NotFound): cronjobs.batch "a-cronjob" not found',
        1,
    )


def test_a_job_from_a_cronjob_is_owned_by_it_and_runs_its_template(lab: Lab) -> None:
    created = lab.run(
        'kubectl create cronjob hello --image=busybox:1.28 --schedule="*/1 * * * *" -- echo hi'
    )
    assert created.text == "cronjob.batch/hello created"
    cron_uid = lab.yaml("kubectl get cronjob hello -o yaml")["metadata"]["uid"]
    job = lab.yaml("kubectl create job test-job --from=cronjob/hello -o yaml")
    meta = job["metadata"]
    assert meta["annotations"] == {"cronjob.kubernetes.io/instantiate": "manual"}
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "batch/v1",
            "controller": True,
            "kind": "CronJob",
            "name": "hello",
            "uid": cron_uid,
        }
    ]
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert (container["image"], container["command"]) == ("busybox:1.28", ["echo", "hi"])
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure"


def test_a_job_from_a_cronjob_under_a_client_dry_run_creates_nothing(lab: Lab) -> None:
    lab.run('kubectl create cronjob hello --image=busybox --schedule="* * * * *"')
    result = lab.run("kubectl create job once --from=cj/hello --dry-run=client")
    assert result.text == "job.batch/once created (dry run)"
    assert lab.run("kubectl get job once").code == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("kubectl create job j", "error: either --image or --from must be specified"),
        (
            "kubectl create job j --from=cronjob/a --image=x",
            "error: either --image or --from must be specified",
        ),
        (
            "kubectl create job j --from=cronjob/a -- echo",
            "error: cannot specify --from and command",
        ),
        (
            "kubectl create job j --from=cronjob",
            "error: resource(s) were provided, but no name was specified",
        ),
        (
            "kubectl create job j --from=nope/x",
            'error: the server doesn\'t have a resource type "nope"',
        ),
        ("kubectl create job j --from=deploy/web", "error: unknown object type *v1.Deployment"),
    ],
)
def test_a_job_from_mistake_is_kubectls_error(lab: Lab, line: str, message: str) -> None:
    result = lab.run(line)
    assert (result.text, result.code) == (message, 1)


def test_a_priority_class_keeps_its_description_and_preemption_policy(lab: Lab) -> None:
    pc = lab.yaml(
        'kubectl create priorityclass high-priority --value=1000 --description="high priority" '
        '--preemption-policy="Never" -o yaml',
    )
    assert (pc["value"], pc["description"], pc["preemptionPolicy"]) == (
        1000,
        "high priority",
        "Never",
    )


def test_a_priority_value_beyond_int32_is_pflags_error(lab: Lab) -> None:
    result = lab.run("kubectl create priorityclass p --value=99999999999")
    assert result.text == (
        'error: invalid argument "99999999999" for "--value" flag: strconv.ParseInt: parsing '
        '"99999999999": value out of range\n'
        "See 'kubectl create priorityclass --help' for usage."
    )


def test_a_best_effort_quota_has_its_scope_and_canonical_quantities(lab: Lab) -> None:
    quota = lab.yaml(
        "kubectl create quota best-effort --hard=pods=100,cpu=1000m,memory=1024Mi "
        "--scopes=BestEffort --dry-run=client -o yaml",
    )
    assert quota["spec"] == {
        "hard": {"cpu": "1", "memory": "1Gi", "pods": "100"},
        "scopes": ["BestEffort"],
    }


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("kubectl create quota q --scopes=BestEffort,,x", 'error: invalid resource quota scope ""'),
        (
            "kubectl create quota q --hard=cpu",
            "error: Invalid argument syntax cpu, expected <resource>=<value>",
        ),
        (
            "kubectl create quota q --hard=cpu=abc",
            "error: quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
    ],
)
def test_a_quota_mistake_is_kubectls_error(lab: Lab, line: str, message: str) -> None:
    result = lab.run(line)
    assert (result.text, result.code) == (message, 1)


def test_a_headless_service_needs_no_port(lab: Lab) -> None:
    svc = lab.yaml(
        'kubectl create service clusterip my-cs --clusterip="None" --dry-run=client -o yaml'
    )
    assert svc["spec"] == {"clusterIP": "None", "selector": {"app": "my-cs"}, "type": "ClusterIP"}


def test_a_clusterip_service_without_ports_is_refused(lab: Lab) -> None:
    result = lab.run("kubectl create service clusterip my-cs")
    assert result.text == "error: at least one tcp port specifier must be provided"


def test_a_service_port_is_named_after_its_spec(lab: Lab) -> None:
    svc = lab.yaml(
        "kubectl create service clusterip my-cs --tcp=80,443:https --dry-run=client -o yaml"
    )
    assert [(p["name"], p["targetPort"]) for p in svc["spec"]["ports"]] == [
        ("80", 80),
        ("443-https", "https"),
    ]


def test_another_subcommands_flag_is_pflags_unknown_flag(lab: Lab) -> None:
    result = lab.run("kubectl create service nodeport my-cs --clusterip=None")
    assert result.text == (
        "error: unknown flag: --clusterip\nSee 'kubectl create service nodeport --help' for usage."
    )


def test_an_existing_clusterrolebinding_is_wrapped_in_kubectls_words(lab: Lab) -> None:
    line = "kubectl create clusterrolebinding crb --clusterrole=cluster-admin --user=user1"
    assert lab.run(line).code == 0
    again = lab.run(
        "kubectl create clusterrolebinding crb --clusterrole=cluster-admin --user=user1 "
        "--user=user2 --group=group1"
    )
    assert (again.text, again.code) == (
        "error: failed to create clusterrolebinding: clusterrolebindings.rbac.authorization.k8s.io"
        ' "crb" already exists',
        1,
    )


def test_an_existing_namespace_is_the_servers_error_as_it_stands(lab: Lab) -> None:
    result = lab.run("kubectl create namespace default")
    assert result.text == 'Error from server (AlreadyExists): namespaces "default" already exists'


def test_create_edit_reads_the_file_first_so_a_missing_one_is_kubectls_error(lab: Lab) -> None:
    result = lab.run("kubectl create -f registry.yaml --edit -o json")
    assert (result.text, result.code) == ('error: the path "registry.yaml" does not exist', 1)


def test_create_edit_of_a_good_file_is_refused_in_one_line(lab: Lab) -> None:
    lab.files["cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r\n"
    result = lab.run("kubectl create -f cm.yaml --edit")
    assert result.code == 1
    assert "\n" not in result.text
    assert "--edit" in result.text
    assert lab.run("kubectl get configmap r").code == 1


def test_words_that_name_no_subcommand_are_unexpected_args(lab: Lab) -> None:
    result = lab.run("kubectl create foo -f cm.yaml")
    assert result.text == (
        "error: Unexpected args: [foo]\nSee 'kubectl create -h' for help and examples"
    )


def test_save_config_records_what_kubectl_sent_as_the_last_applied_configuration(
    lab: Lab,
) -> None:
    cm = lab.yaml("kubectl create cm x --from-literal=a=b --save-config -o yaml")
    assert cm["metadata"]["annotations"] == {
        "kubectl.kubernetes.io/last-applied-configuration": (
            '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"},"data":{"a":"b"}}\n'
        )
    }


def test_a_flag_every_subcommand_takes_is_accepted_and_changes_nothing_shown(lab: Lab) -> None:
    result = lab.run("kubectl create cm x --from-literal=a=b --field-manager=me -o name")
    assert (result.text, result.code) == ("configmap/x", 0)
