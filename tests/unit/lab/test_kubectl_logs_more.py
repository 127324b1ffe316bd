"""kubectl logs as kubectl 1.36 prints it: every flag of `kubectl logs --help`, which pod and
container it reads, and each refusal word for word (checked against the real kubectl on the
lab's apiserver)."""

from __future__ import annotations

from typing import Any

import pytest

from simulators.lab import LabSession, streams
from simulators.lab.kubectl import logs_options
from tests.unit.lab.kubectl_cluster import Lab

LINES = ["step 100 | loss 2.913", "step 200 | loss 2.871", "step 300 | loss 2.842"]


def pod(name: str, containers: list[str], **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {"app": "web"}}
    meta.update(extra.pop("metadata", {}))
    spec: dict[str, Any] = {
        "nodeName": "gpu-node1",
        "containers": [{"name": c, "image": "nginx"} for c in containers],
    }
    spec.update(extra.pop("spec", {}))
    return {"metadata": meta, "spec": spec, **extra}


def running(lab: Lab, body: dict[str, Any], ready_since: str = "") -> None:
    made = lab.api.create("pods", body, "default")
    status: dict[str, Any] = {"phase": "Running"}
    if ready_since:
        status["conditions"] = [
            {"type": "Ready", "status": "True", "lastTransitionTime": ready_since}
        ]
    lab.api.update("pods", {**made, "status": status}, "default", subresource="status")


@pytest.fixture
def lab() -> Lab:
    lab = Lab()
    lab.api.create("nodes", {"metadata": {"name": "gpu-node1"}})
    running(lab, pod("nginx", ["nginx"]))
    lab.api.append_log("default", "nginx", "nginx", LINES)
    web = pod(
        "web-1",
        ["nginx", "ruby"],
        metadata={"annotations": {"kubectl.kubernetes.io/default-container": "ruby"}},
        spec={"initContainers": [{"name": "init", "image": "busybox"}]},
    )
    running(lab, web)
    lab.api.append_log("default", "web-1", "init", ["migrated"])
    lab.api.append_log("default", "web-1", "nginx", ["GET / 200"])
    lab.api.append_log("default", "web-1", "ruby", ["booting"])
    lab.api.restart_log("default", "web-1", "ruby")
    lab.api.append_log("default", "web-1", "ruby", ["booted again"])
    running(lab, pod("two", ["a", "b"], metadata={"labels": {"app": "two"}}))
    lab.api.append_log("default", "two", "a", ["from a"])
    lab.api.append_log("default", "two", "b", ["from b"])
    lab.api.create(
        "deployments.apps",
        {
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {}},
        },
        "default",
    )
    return lab


# ------------------------------------------------------------------ what is missing


def test_a_missing_pod_is_named_with_its_namespace(lab: Lab) -> None:
    out = lab.run("kubectl logs nope")
    assert (out.code, out.text) == (
        1,
        'error: error from server (NotFound): pods "nope" not found in namespace "default"',
    )


def test_a_missing_deployment_or_job_is_named_with_its_group(lab: Lab) -> None:
    assert lab.out("kubectl logs deployment/nginx") == (
        'error: error from server (NotFound): deployments.apps "nginx" not found in namespace '
        '"default"'
    )
    assert lab.out("kubectl logs job/hello -p -c x") == (
        'error: error from server (NotFound): jobs.batch "hello" not found in namespace "default"'
    )


def test_a_missing_namespace_is_what_kubectl_reports_missing(lab: Lab) -> None:
    assert lab.out("kubectl logs nginx -n nope") == (
        'error: error from server (NotFound): namespaces "nope" not found in namespace "nope"'
    )
    # A cluster-scoped kind is looked for outside any namespace.
    assert lab.out("kubectl logs node/x -n nope") == (
        'error: error from server (NotFound): nodes "x" not found in namespace "nope"'
    )


def test_a_missing_container_lists_every_container_with_init_ones_marked(lab: Lab) -> None:
    assert lab.out("kubectl logs web-1 -c nope") == (
        "error: container nope is not valid for pod web-1 out of: nginx, ruby, init (init)"
    )


def test_a_container_that_never_restarted_has_no_previous_log(lab: Lab) -> None:
    out = lab.run("kubectl logs -p nginx")
    assert out.code == 1
    assert out.text == (
        'Error from server (BadRequest): previous terminated container "nginx" in pod '
        '"nginx" not found'
    )


def test_a_selector_matching_nothing_says_so_and_succeeds(lab: Lab) -> None:
    out = lab.run("kubectl logs -l app=none")
    assert (out.code, out.text) == (0, "No resources found in default namespace.")


def test_kinds_without_pods_are_refused_with_their_go_type(lab: Lab) -> None:
    assert lab.out("kubectl logs node/gpu-node1") == (
        "error: cannot get the logs from *v1.Node: selector for *v1.Node not implemented"
    )


def test_a_workload_without_pods_times_out(lab: Lab) -> None:
    lab.api.create(
        "deployments.apps",
        {
            "metadata": {"name": "empty", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "none"}}, "template": {}},
        },
        "default",
    )
    assert lab.out("kubectl logs deploy/empty") == "error: timed out waiting for the condition"


# ------------------------------------------------------------------ which container


def test_the_default_container_annotation_picks_the_container_silently(lab: Lab) -> None:
    assert lab.out("kubectl logs web-1") == "booted again"


def test_a_pod_with_several_containers_says_which_one_it_read(lab: Lab) -> None:
    assert lab.out("kubectl logs two") == 'Defaulted container "a" out of: a, b\nfrom a'


def test_previous_reads_the_log_before_the_last_restart(lab: Lab) -> None:
    assert lab.out("kubectl logs -p -c ruby web-1") == "booting"


def test_all_containers_reads_init_containers_first(lab: Lab) -> None:
    assert (
        lab.out("kubectl logs web-1 --all-containers=true") == "migrated\nGET / 200\nbooted again"
    )


def test_prefix_names_the_pod_and_container_of_each_line(lab: Lab) -> None:
    assert lab.out("kubectl logs two --all-containers --prefix") == (
        "[pod/two/a] from a\n[pod/two/b] from b"
    )


def test_a_deployment_reads_one_pod_and_says_how_many_it_found(lab: Lab) -> None:
    out = lab.out("kubectl logs deployment/web -c nginx")
    assert out.startswith("Found 2 pods, using pod/")


def test_a_deployment_prefers_the_pod_ready_the_longest(lab: Lab) -> None:
    running(lab, pod("old", ["c"], metadata={"labels": {"app": "db"}}), "2024-01-01T00:00:00Z")
    running(lab, pod("new", ["c"], metadata={"labels": {"app": "db"}}), "2024-06-01T00:00:00Z")
    lab.api.append_log("default", "old", "c", ["old pod"])
    lab.api.create(
        "deployments.apps",
        {
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "db"}}, "template": {}},
        },
        "default",
    )
    assert lab.out("kubectl logs deploy/db") == "Found 2 pods, using pod/old\nold pod"


def test_all_pods_prefixes_every_pod_and_names_none(lab: Lab) -> None:
    text = lab.out("kubectl logs deployment/web --all-pods=true -c nginx --ignore-errors")
    assert "[pod/nginx/nginx] step 300 | loss 2.842" in text
    assert "Found" not in text


def test_a_selector_reads_the_last_ten_lines_of_each_pod(lab: Lab) -> None:
    lab.api.append_log("default", "nginx", "nginx", [f"line {i}" for i in range(20)])
    text = lab.out("kubectl logs -l app=web -c nginx --max-log-requests=10 --ignore-errors")
    assert text.split("\n")[:10] == [f"line {i}" for i in range(10, 20)]


# ------------------------------------------------------------------ reading the flags


def test_tail_limit_bytes_and_the_time_flags_shape_the_text(lab: Lab) -> None:
    assert lab.out("kubectl logs --tail=1 nginx") == LINES[-1]
    assert lab.out("kubectl logs --tail=0x2 nginx") == "\n".join(LINES[1:])
    # The lab's log store keeps no times: every line is newer than an hour, none has a stamp.
    assert lab.out("kubectl logs --since=1h nginx") == "\n".join(LINES)
    assert lab.out("kubectl logs nginx --since-time=2024-08-30T06:00:00Z --timestamps=true") == (
        "\n".join(LINES)
    )
    cut = lab.run("kubectl logs nginx --limit-bytes=25")
    assert (cut.text, cut.newline) == ("step 100 | loss 2.913\nste", False)


def test_the_flags_kubectl_only_passes_on_are_accepted(lab: Lab) -> None:
    for flag in ("--pod-running-timeout=20s", "--insecure-skip-tls-verify-backend", "--prefix"):
        assert lab.run(f"kubectl logs nginx {flag}").code == 0


@pytest.mark.parametrize(
    ("flags", "error"),
    [
        (
            "--since=1",
            'invalid argument "1" for "--since" flag: time: missing unit in duration "1"',
        ),
        (
            "--since=1x",
            'invalid argument "1x" for "--since" flag: time: unknown unit "x" in duration "1x"',
        ),
        (
            "--tail=ten",
            'invalid argument "ten" for "--tail" flag: '
            'strconv.ParseInt: parsing "ten": invalid syntax',
        ),
        (
            "--limit-bytes=1_",
            'invalid argument "1_" for "--limit-bytes" flag: '
            'strconv.ParseInt: parsing "1_": invalid syntax',
        ),
        (
            "--max-log-requests=99999999999999999999",
            'invalid argument "99999999999999999999" for "--max-log-requests" flag: '
            'strconv.ParseInt: parsing "99999999999999999999": value out of range',
        ),
        (
            "--pod-running-timeout=soon",
            'invalid argument "soon" for "--pod-running-timeout" flag: '
            'time: invalid duration "soon"',
        ),
    ],
)
def test_unreadable_values_get_pflags_words_and_the_help_hint(
    lab: Lab, flags: str, error: str
) -> None:
    out = lab.run(f"kubectl logs nginx {flags}")
    assert (out.code, out.text) == (1, f"error: {error}\nSee 'kubectl logs --help' for usage.")


@pytest.mark.parametrize(
    ("flags", "error"),
    [
        ("--since=-1h", "--since must be greater than 0"),
        ("--tail=-2", "--tail must be greater than or equal to -1"),
        ("--limit-bytes=-1", "--limit-bytes must be greater than 0"),
        ("--pod-running-timeout=0s", "--pod-running-timeout must be higher than zero"),
        (
            "--since=1h --since-time=2024-08-30T06:00:00Z",
            "at most one of `sinceTime` or `sinceSeconds` may be specified",
        ),
        (
            "-c nginx --all-containers",
            "--all-containers=true should not be specified with container name nginx",
        ),
        ("nginx -c nginx", "only one of -c or an inline [CONTAINER] arg is allowed"),
        (
            "--since-time=yesterday",
            'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": '
            'cannot parse "yesterday" as "2006"',
        ),
        (
            "--since-time=2024-08-30",
            'parsing time "2024-08-30" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"',
        ),
        (
            "--since-time=2024-02-30T06:00:00Z",
            'parsing time "2024-02-30T06:00:00Z": day out of range',
        ),
        (
            "--since-time=2024-08-30T06:00:00Z+",
            'parsing time "2024-08-30T06:00:00Z+": extra text: "+"',
        ),
    ],
)
def test_values_kubectl_refuses_get_its_one_line(lab: Lab, flags: str, error: str) -> None:
    out = lab.run(f"kubectl logs nginx {flags}")
    assert (out.code, out.text) == (1, f"error: {error}")


def test_usage_errors_name_the_shape_of_the_command(lab: Lab) -> None:
    assert lab.out("kubectl logs").startswith("error: expected 'logs [-f] [-p] (POD | TYPE/NAME)")
    assert lab.out("kubectl logs -l app=web nginx") == (
        "error: only a selector (-l) or a POD name is allowed\n"
        "See 'kubectl logs -h' for help and examples"
    )
    assert lab.out("kubectl logs deploy/a/b") == (
        "error: arguments in resource/name form may not have more than one slash"
    )


def test_ignore_errors_prints_each_error_and_goes_on(lab: Lab) -> None:
    out = lab.run("kubectl logs -l app=web -p --ignore-errors -c nginx")
    assert out.code == 0
    assert out.text.startswith(
        'error: previous terminated container "nginx" in pod "nginx" not found\n'
    )


def test_the_checks_come_after_the_server_found_the_object(lab: Lab) -> None:
    # Validate runs after the builder: a missing pod is reported before a bad --tail.
    assert lab.out("kubectl logs nope --tail=-5").startswith("error: error from server (NotFound)")
    assert lab.out("kubectl logs -l app=none --tail=-5") == (
        "No resources found in default namespace.\n"
        "error: --tail must be greater than or equal to -1"
    )


def test_following_more_logs_than_allowed_is_refused(lab: Lab) -> None:
    # nginx's one container and web-1's three.
    out = lab.run("kubectl logs -f -l app=web --all-containers --max-log-requests=2")
    assert out.code == 1
    assert out.text == (
        "error: you are attempting to follow 4 log streams, but maximum allowed concurrency "
        "is 2, use --max-log-requests to increase the limit"
    )


# --------------------------------------------------------- Go's parsers, on their own


def test_go_integers_take_base_prefixes_and_underscores() -> None:
    assert [logs_options.parse_int(t) for t in ("0x10", "0o17", "010", "0b11", "1_000", "-5")] == [
        16,
        15,
        8,
        3,
        1000,
        -5,
    ]


def test_go_durations_add_their_parts_in_nanoseconds() -> None:
    assert logs_options.parse_duration("1h30m") == 5400 * logs_options.SECOND
    assert logs_options.parse_duration("1.5s") == 1_500_000_000
    assert logs_options.parse_duration("-0") == 0


# ------------------------------------------------------------------ following


def test_follow_streams_the_new_lines_of_a_pod() -> None:
    session = LabSession.new("mig-single", seed=0)
    opened = session.run("kubectl logs -f train-llm-7-xk2bl --tail=1 --prefix")
    assert opened.stream is not None and opened.stream.kind == streams.APPEND
    assert opened.stream.probe == "kubectl logs train-llm-7-xk2bl --tail=1 --prefix"
    assert opened.output.startswith("[pod/train-llm-7-xk2bl/train] step")


def test_follow_of_a_refused_command_opens_no_stream() -> None:
    session = LabSession.new("mig-single", seed=0)
    opened = session.run("kubectl logs -f nope")
    assert opened.stream is None
    assert opened.output == (
        'error: error from server (NotFound): pods "nope" not found in namespace "default"'
    )


def test_follow_of_a_container_still_waiting_prints_its_reason_then_gives_up() -> None:
    session = LabSession.new("image-pull", seed=0)
    opened = session.run("kubectl logs -f -n runai-team-nlp ft-llama-0-0")
    assert opened.stream is None
    lines = opened.output.split("\n")
    assert lines[0].startswith('container "ft-llama" in pod "ft-llama-0-0" is waiting to start:')
    assert lines[1:] == ["error: context deadline exceeded"]


def test_follow_ends_at_once_for_a_previous_log_or_when_every_log_was_skipped() -> None:
    session = LabSession.new("driver-stack", seed=0)
    crashed = "kubectl logs -n gpu-operator nvidia-driver-daemonset-22zrs"
    previous = session.run(f"{crashed} -f -p --tail=1")
    assert previous.output == "Could not unload NVIDIA driver kernel modules, driver is in use"
    assert previous.stream is None
    waiting = LabSession.new("image-pull", seed=0)
    skipped = waiting.run("kubectl logs -f -n runai-team-nlp ft-llama-0-0 --ignore-errors")
    assert skipped.output.startswith('error: container "ft-llama" in pod "ft-llama-0-0" is')
    assert skipped.stream is None


def test_a_service_reads_the_pods_its_selector_map_names(lab: Lab) -> None:
    lab.api.create(
        "services",
        {
            "metadata": {"name": "two", "namespace": "default"},
            "spec": {"selector": {"app": "two"}, "ports": [{"port": 80}]},
        },
        "default",
    )
    assert lab.out("kubectl logs svc/two -c b") == "from b"
