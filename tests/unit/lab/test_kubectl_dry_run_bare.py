"""`--dry-run` as kubectl 1.36 reads it, and delete's own flags in its Complete and Validate.

A bare `--dry-run` (pflag's NoOptDefVal, "unchanged") and a boolean are deprecated client or
no dry runs: kubectl logs a klog warning on stderr first (`W1205 ... helpers.go:719] ...`), and
a redirect gets only the object. Checked line by line against the real kubectl
(tests/oracle/generate.py draws these forms too).
"""

from __future__ import annotations

import re

import pytest
import yaml

from simulators.lab import LabSession
from simulators.lab.flags import Flag, parse
from tests.unit.lab.kubectl_cluster import Lab

KLOG = re.compile(r"^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ helpers\.go:(\d+)\] (.*)$")


def klog_lines(text: str) -> list[tuple[str, str]]:
    return [m.groups() for line in text.splitlines() if (m := KLOG.match(line))]  # type: ignore[misc]


def test_a_bare_dry_run_is_a_client_dry_run_with_klogs_deprecation_warning_on_stderr() -> None:
    lab = Lab()
    result = lab.run("kubectl create namespace team-a --dry-run")
    assert result.code == 0
    assert result.text == "namespace/team-a created (dry run)"
    assert klog_lines(result.stderr) == [
        ("719", "--dry-run is deprecated and can be replaced with --dry-run=client.")
    ]
    assert "team-a" not in lab.out("kubectl get namespaces")


def test_a_bare_dry_run_never_takes_the_next_word_as_its_value() -> None:
    lab = Lab()
    result = lab.run("kubectl create --dry-run namespace team-b")
    assert (result.code, result.text) == (0, "namespace/team-b created (dry run)")


@pytest.mark.parametrize(
    ("value", "created", "line", "advice"),
    [("true", False, "733", "client"), ("T", False, "733", "client"), ("0", True, "736", "none")],
)
def test_a_boolean_dry_run_is_client_or_none_with_its_own_warning(
    value: str, created: bool, line: str, advice: str
) -> None:
    lab = Lab()
    result = lab.run(f"kubectl create namespace team-c --dry-run={value}")
    assert result.code == 0
    assert klog_lines(result.stderr) == [
        (
            line,
            f"--dry-run={value} is deprecated (boolean value) and can be replaced with "
            f"--dry-run={advice}.",
        )
    ]
    assert ("team-c" in lab.out("kubectl get namespaces")) is created


def test_another_word_is_refused_in_kubectls_words_and_nothing_is_created() -> None:
    lab = Lab()
    result = lab.run("kubectl create namespace team-d --dry-run=maybe")
    assert result.code == 1
    assert result.text == (
        'error: Invalid dry-run value (maybe). Must be "none", "server", or "client".'
    )


def test_the_set_subcommands_warn_too() -> None:
    lab = Lab()
    lab.run("kubectl create deployment web --image=nginx:1.27")
    result = lab.run("kubectl set image deployment/web nginx=nginx:1.28 --dry-run")
    assert result.text == "deployment.apps/web image updated (dry run)"
    assert len(klog_lines(result.stderr)) == 1


def test_a_redirect_gets_the_object_and_the_terminal_the_warning() -> None:
    session = LabSession.new("mig-single", seed=0)
    shown = session.run("kubectl run smoke --image=nginx --dry-run -o yaml > pod.yaml").output
    assert [message for _, message in klog_lines(shown)] == [
        "--dry-run is deprecated and can be replaced with --dry-run=client."
    ]
    assert shown.count("\n") == 0
    pod = yaml.safe_load(session.run("cat pod.yaml").output)
    assert (pod["kind"], pod["metadata"]["name"]) == ("Pod", "smoke")
    assert "NotFound" in session.run("kubectl get pod smoke").output


def test_the_parser_gives_a_bare_flag_its_default_and_a_written_value_wins() -> None:
    flags = [Flag("dry-run", long="dry-run", takes_value=True, no_opt="unchanged")]
    assert parse(["--dry-run", "x"], flags).values == {"dry-run": ["unchanged"]}
    assert parse(["--dry-run", "x"], flags).positionals == ["x"]
    assert parse(["--dry-run=server"], flags).values == {"dry-run": ["server"]}


# ------------------------------------------------------------------ delete's own flags


def test_a_grace_period_of_zero_without_force_is_one_second_not_a_forced_deletion() -> None:
    lab = Lab()
    lab.run("kubectl run web --image=nginx")
    result = lab.run("kubectl delete pod web --grace-period=0")
    assert (result.code, result.text) == (0, 'pod "web" deleted from default namespace')


@pytest.mark.parametrize(
    ("flags", "error"),
    [
        ("--force --grace-period=5", "--force and --grace-period greater than 0 cannot be "),
        ("--now --grace-period=3", "--now and --grace-period cannot be specified together"),
        ("-o yaml", "unexpected -o output mode: yaml. We only support '-o name'"),
        ("--cascade=maybe", 'invalid cascade value (maybe). Must be "background", "foreground"'),
    ],
)
def test_delete_refuses_what_its_complete_and_validate_refuse(flags: str, error: str) -> None:
    lab = Lab()
    lab.run("kubectl run web --image=nginx")
    result = lab.run(f"kubectl delete pod web {flags}")
    assert result.code == 1
    assert result.text.startswith(f"error: {error}")
    assert "web" in lab.out("kubectl get pods")


def test_delete_all_with_a_selector_is_the_resource_builders_error() -> None:
    result = Lab().run("kubectl delete pods --all -l app=web")
    assert result.text == "error: setting 'all' parameter but found a non empty selector. "


def test_a_boolean_cascade_warns_first_and_a_bare_one_is_background() -> None:
    lab = Lab()
    lab.run("kubectl run web --image=nginx")
    lab.run("kubectl run db --image=postgres")
    warned = lab.run("kubectl delete pod web --cascade=false")
    assert warned.stderr == (
        "warning: --cascade=false is deprecated (boolean value) and can be replaced with "
        "--cascade=orphan."
    )
    assert warned.text == 'pod "web" deleted from default namespace'
    bare = lab.run("kubectl delete pod db --cascade")
    assert (bare.stderr, bare.text) == ("", 'pod "db" deleted from default namespace')
