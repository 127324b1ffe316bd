"""Streams: what kubectl get -w, logs -f, rollout status and watch print as the world steps."""

from __future__ import annotations

import dataclasses
import io

import pytest

from simulators.lab import LabSession, streams
from simulators.lab.cli import main
from simulators.lab.results import CommandResult


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=1)


def step(lab: LabSession, opened: CommandResult) -> CommandResult:
    assert opened.stream is not None
    return lab.run(streams.step_line(opened.stream))


def drained(lab: LabSession) -> None:
    lab.run("kubectl cordon gpu-node2")
    lab.run("kubectl drain gpu-node2 --ignore-daemonsets")


class Watching:
    """A watch the terminal keeps going: each `steps` call prints what its steps print."""

    def __init__(self, lab: LabSession, opened: CommandResult) -> None:
        assert opened.stream is not None
        self.lab, self.request = lab, opened.stream
        self.stream = streams.Stream(opened.stream)
        self.ended = False

    def steps(self, count: int) -> list[str]:
        """What `count` steps print, fewer if the stream ends (`ended`)."""
        printed = []
        for _ in range(count):
            result = self.lab.run(streams.step_line(self.request))
            text, self.ended = self.stream.feed(result.output, result.exit_code)
            printed.append(text)
            self.request = result.stream or self.request
            if self.ended:
                break
        return printed


def watched(lab: LabSession, opened: CommandResult, steps: int) -> list[str]:
    """What the terminal prints for the first `steps` steps of the watch `opened` started."""
    return Watching(lab, opened).steps(steps)


def test_get_watch_prints_the_list_then_every_event_in_the_columns_it_widened(
    lab: LabSession,
) -> None:
    drained(lab)
    opened = lab.run("kubectl get nodes -L nvidia.com/mig.config.state -w")
    assert opened.stream is not None
    # The watch is the command itself, resumed after the list's resourceVersion.
    assert opened.stream.probe == "kubectl get nodes -L nvidia.com/mig.config.state -w"
    assert opened.output.split("\n")[0] == (
        "NAME        STATUS                     ROLES    AGE   VERSION   MIG.CONFIG.STATE"
    )
    # A command between two steps (another tab's) is an event like the cluster's own.
    lab.run("kubectl label node gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite")
    watch = Watching(lab, opened)
    printed = [line for line in "\n".join(watch.steps(4)).split("\n") if line]
    states = [line.split()[-1] for line in printed]
    assert states[0] == "success" and "pending" in states and states[-1] == "success"
    # Each event its own row, in the widths the list's columns took (the tab writer's).
    assert all(line.startswith("gpu-node2   Ready,SchedulingDisabled   <none>") for line in printed)
    # Nothing changed but the clock: no event, nothing printed.
    assert watch.steps(2) == ["", ""]


def test_each_step_moves_the_world_one_step_and_is_no_command(lab: LabSession) -> None:
    opened = lab.run("kubectl get nodes -w")
    before, entries = lab.step, len(lab.transcript)
    step(lab, opened)
    assert lab.step == before + 1
    assert len(lab.transcript) == entries and lab.history[-1] == "kubectl get nodes -w"


def test_the_transcript_keeps_the_snapshot_and_says_it_is_one(lab: LabSession) -> None:
    lab.run("kubectl get nodes -w")
    assert lab.transcript[-1].output.endswith("\n" + streams.NOT_STREAMED)


def test_output_watch_events_adds_kubectls_event_column_padded_to_modified(
    lab: LabSession,
) -> None:
    drained(lab)
    opened = lab.run("kubectl get nodes --output-watch-events -w")
    first = opened.output.split("\n")
    assert first[0].startswith("EVENT      NAME        STATUS")
    assert first[1].startswith("ADDED      gpu-node1   Ready")
    lab.run("kubectl uncordon gpu-node2")
    assert watched(lab, opened, 1)[0].startswith(
        "MODIFIED   gpu-node2   Ready                      <none>   31d   v1.31.4"
    )


def test_watch_only_prints_nothing_until_an_event_then_its_row_under_the_header(
    lab: LabSession,
) -> None:
    drained(lab)
    opened = lab.run("kubectl get nodes --watch-only")
    assert opened.output == ""
    assert watched(lab, opened, 1) == [""]
    lab.run("kubectl uncordon gpu-node2")
    # kubectl's printer writes the header with the first object it prints, one flush.
    first = watched(lab, opened, 1)[0].split("\n")
    assert first[:2] == [
        "NAME        STATUS   ROLES    AGE   VERSION",
        "gpu-node2   Ready    <none>   31d   v1.31.4",
    ]
    # Later events: their rows alone, each an event (the uncordon, then the taint's removal).
    assert first[2:] and "NAME" not in "".join(first[2:])


def test_watch_only_with_events_heads_the_first_event_with_the_event_column(
    lab: LabSession,
) -> None:
    drained(lab)
    opened = lab.run("kubectl get nodes --watch-only --output-watch-events")
    lab.run("kubectl uncordon gpu-node2")
    assert watched(lab, opened, 1)[0].split("\n")[:2] == [
        "EVENT      NAME        STATUS   ROLES    AGE   VERSION",
        "MODIFIED   gpu-node2   Ready    <none>   31d   v1.31.4",
    ]


def test_a_watch_prints_each_state_a_step_went_through(lab: LabSession) -> None:
    opened = lab.run("kubectl get pods -n kube-system -w")
    lab.run("kubectl delete pod -n kube-system -l k8s-app=kube-proxy --wait=false")
    rows = "\n".join(watched(lab, opened, 3)).split("\n")
    statuses = [row.split()[2] for row in rows if row.strip()]
    # The deletions and the DaemonSet's new pods, one row per event, Pending included.
    assert "Terminating" in statuses and "Pending" in statuses
    assert statuses[-1] == "Running"


def test_a_watch_of_two_named_objects_prints_them_then_kubectls_error(lab: LabSession) -> None:
    result = lab.run("kubectl get nodes gpu-node1 gpu-node2 -w -o name")
    assert result.output == (
        "node/gpu-node1\nnode/gpu-node2\n"
        "error: you may only watch a single resource or type of resource at a time"
    )
    assert result.stream is None and result.exit_code == 1


def test_a_watch_of_two_kinds_is_refused(lab: LabSession) -> None:
    result = lab.run("kubectl get pods,nodes -w")
    assert result.output == "error: you may only specify a single resource type"


def test_a_watch_that_the_store_no_longer_reaches_goes_on_from_now(lab: LabSession) -> None:
    opened = lab.run("kubectl get nodes -w")
    assert opened.stream is not None
    gone = dataclasses.replace(opened.stream, since="1")
    result = lab.run(streams.step_line(gone))
    assert result.exit_code == 0 and result.stream is not None
    assert int(result.stream.since) > 1


def test_a_stream_request_keeps_where_its_watch_resumes_through_its_frame() -> None:
    request = streams.StreamRequest(
        streams.ROWS, "kubectl get pods -w", since="42", printed=True, widths=(12, 9)
    )
    assert streams.StreamRequest.from_dict(request.to_dict()) == request
    assert streams.StreamRequest.from_dict({**request.to_dict(), "widths": ["x"]}) is None
    assert streams.StreamRequest.from_dict({**request.to_dict(), "widths": [1] * 10_000}) is None


def test_get_events_watch_prints_new_events_and_the_header_with_the_first(
    lab: LabSession,
) -> None:
    opened = lab.run("kubectl get events -n kube-public -w")
    # An empty list: kubectl's watch prints nothing (no "No resources found").
    assert opened.output == ""
    lab.run("kubectl run probe --image=busybox -n kube-public")
    header, *rows = "\n".join(watched(lab, opened, 2)).strip().split("\n")
    assert header.split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert rows and all(row.split()[1] in ("Normal", "Warning") for row in rows)
    assert not any("LAST SEEN" in row for row in rows)


def test_logs_follow_prints_only_the_new_lines() -> None:
    stream = streams.Stream(streams.StreamRequest(streams.APPEND, "kubectl logs x"))
    stream.first("a\nb")
    assert stream.feed("a\nb\nc\nd") == ("c\nd", False)
    # The head moved on (a tail of the log): what follows the last line printed.
    assert stream.feed("c\nd\ne") == ("e", False)
    assert stream.feed("c\nd\ne") == ("", False)


def test_logs_follow_streams_and_its_probe_drops_the_flag(lab: LabSession) -> None:
    pod = lab.run(
        "kubectl get pods -n gpu-operator -l app=nvidia-mig-manager -o name"
    ).output.split("\n")[0]
    opened = lab.run(f"kubectl logs -f -n gpu-operator {pod}")
    assert opened.stream is not None and opened.stream.kind == streams.APPEND
    assert opened.stream.probe == f"kubectl logs -n gpu-operator {pod}"


def test_rollout_status_until_done_and_not_when_done_or_told_not_to_watch(
    lab: LabSession,
) -> None:
    status = "kubectl rollout status deployment/gpu-operator -n gpu-operator"
    assert lab.run(status).stream is None  # rolled out already: kubectl returns at once
    lab.run("kubectl rollout restart deployment/gpu-operator -n gpu-operator")
    opened = lab.run(status)
    assert opened.stream is not None and opened.stream.kind == streams.UNTIL
    assert opened.output.startswith('Waiting for deployment "gpu-operator" rollout to finish')
    assert lab.run(status + " --watch=false").stream is None
    stream = streams.Stream(streams.StreamRequest(streams.UNTIL, "kubectl rollout status x"))
    stream.first(
        'Waiting for deployment "x" rollout to finish: 0 of 1 updated replicas are available...'
    )
    assert stream.feed('deployment "x" successfully rolled out') == (
        'deployment "x" successfully rolled out',
        True,
    )


def test_rollout_status_prints_a_status_for_every_event_of_its_object_until_done(
    lab: LabSession,
) -> None:
    lab.run("kubectl scale deploy/coredns -n kube-system --replicas=4")
    lab.run("kubectl set image deploy/coredns -n kube-system coredns=registry.k8s.io/x:v2")
    opened = lab.run("kubectl rollout status deploy/coredns -n kube-system")
    watch = Watching(lab, opened)
    printed = watch.steps(6)
    assert watch.ended
    lines = [line for text in [opened.output, *printed] for line in text.split("\n") if line]
    # As kubectl's UntilWithSync: each ADDED or MODIFIED event its line, the same one again
    # when an event changed nothing it shows; then the end, and nothing after it.
    assert len(lines) > len(set(lines))
    assert lines[-1] == 'deployment "coredns" successfully rolled out'


def test_kubectl_events_watch_streams_each_new_event_with_the_header_once(
    lab: LabSession,
) -> None:
    opened = lab.run("kubectl events -n kube-public -w")
    # A watch, not a list: no "No events found" for a namespace that has none yet.
    assert opened.output == "" and opened.stream is not None
    lab.run("kubectl run probe --image=busybox -n kube-public")
    printed = "\n".join(Watching(lab, opened).steps(2)).strip().split("\n")
    assert printed[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert [row.split()[2] for row in printed[1:]] == ["Scheduled", "Pulled", "Created", "Started"]


def test_a_stream_goes_on_as_its_own_pipeline_never_rerunning_the_lines_other_commands(
    lab: LabSession,
) -> None:
    generation = "kubectl get deploy coredns -n kube-system -o jsonpath={.metadata.generation}"
    lab.run("kubectl scale deploy/coredns -n kube-system --replicas=4")
    opened = lab.run(
        "kubectl rollout restart deploy/coredns -n kube-system && "
        "kubectl rollout status deploy/coredns -n kube-system"
    )
    assert opened.stream is not None
    assert opened.stream.probe == "kubectl rollout status deploy/coredns -n kube-system"
    restarted = lab.run(generation).output
    Watching(lab, opened).steps(3)
    assert lab.run(generation).output == restarted  # the restart ran once


def test_a_streams_words_expand_again_as_typed(lab: LabSession) -> None:
    opened = lab.run("NS=kube-system; kubectl get pods -n $NS -w | grep proxy")
    assert opened.stream is not None
    assert opened.stream.probe == "kubectl get pods -n $NS -w | grep proxy"
    lab.run("kubectl delete pod -n kube-system -l k8s-app=kube-proxy --wait=false")
    rows = Watching(lab, opened).steps(1)[0].split("\n")
    assert rows and all("kube-proxy-" in row and "Terminating" in row for row in rows[:3])


def test_watch_prints_procps_header_and_reruns_every_interval(lab: LabSession) -> None:
    opened = lab.run("watch kubectl get nodes")
    assert opened.stream is not None
    assert (opened.stream.kind, opened.stream.interval) == (streams.SCREEN, 2.0)
    lines = opened.output.split("\n")
    assert lines[0].startswith("Every 2.0s: kubectl get nodes  kadmin: ")
    assert lines[1] == "" and lines[2].startswith("NAME        STATUS")
    again = step(lab, opened).output
    assert again.startswith("Every 2.0s: kubectl get nodes  kadmin: ") and "gpu-node3" in again
    assert lab.run("watch -t -n 5 kubectl get nodes").output.startswith("NAME")


def test_watch_bounds_its_interval_and_rejects_bad_options(lab: LabSession) -> None:
    assert lab.run("watch -n 0.1 kubectl get nodes").stream.interval == 1.0  # type: ignore[union-attr]
    assert lab.run("watch -n abc ls").output == "watch: failed to parse argument: 'abc'"
    assert lab.run("watch").output.startswith("\nUsage:\n watch [options] command")
    assert lab.run("watch -z ls").output.startswith("watch: invalid option -- 'z'")


def test_watch_on_a_huge_output_stays_within_the_budget(lab: LabSession) -> None:
    lab.run("kubectl get pods -A -o yaml > big.yaml")
    opened = lab.run("watch cat big.yaml big.yaml big.yaml big.yaml big.yaml")
    result = step(lab, opened)
    assert len(result.output) < 2_000_000


def test_a_step_line_that_does_not_parse_only_moves_the_world(lab: LabSession) -> None:
    before = lab.step
    result = lab.run(streams.STEP_MARK + "{nope")
    assert result.output == "lab: the stream's step was not understood" and lab.step == before + 1


def test_the_stdin_lab_prints_one_snapshot_and_says_so() -> None:
    out = io.StringIO()
    main(["--ticket", "mig-single"], stdin=io.StringIO("kubectl get nodes -w\n"), stdout=out)
    assert out.getvalue().splitlines()[-1] == streams.NOT_STREAMED


TIMED_OUT = "error: timed out waiting for the condition on nodes/gpu-node2"


def test_a_wait_stream_is_silent_until_the_condition_holds_then_ends() -> None:
    stream = streams.Stream(streams.StreamRequest(streams.WAIT, "kubectl wait ...", timeout=30))
    assert stream.first(TIMED_OUT) == ""
    assert stream.feed(TIMED_OUT, 1) == ("", False)
    assert stream.expired() == TIMED_OUT  # at the timeout: kubectl's error
    assert stream.feed("node/gpu-node2 condition met", 0) == ("node/gpu-node2 condition met", True)


@pytest.mark.parametrize(
    ("timeout", "seconds"),
    [(None, 30.0), ("1m30s", 90.0), ("500ms", 0.5), ("0", None), ("0s", None), ("soon", None)],
)
def test_kubectl_wait_streams_until_its_timeout_unless_met_at_once(
    timeout: str | None, seconds: float | None
) -> None:
    from simulators.lab.flags import Flag, parse
    from simulators.lab.kubectl import streaming
    from simulators.lab.tool import Context, Output

    args = ["node/gpu-node2", "--for=condition=Ready"]
    if timeout is not None:
        args.append(f"--timeout={timeout}")
    parsed = parse(
        args,
        [
            Flag("for", long="for", takes_value=True),
            Flag("timeout", long="timeout", takes_value=True),
        ],
    )
    ctx = Context(world=None)  # type: ignore[arg-type]
    out = streaming.wait(lambda c, p: Output.error(TIMED_OUT), ctx, parsed)
    assert out.text == TIMED_OUT  # the form and the stdin lab: kubectl's answer now
    if seconds is None:
        assert ctx.stream is None
    else:
        assert ctx.stream is not None
        assert (ctx.stream.kind, ctx.stream.timeout) == (streams.WAIT, seconds)
    met = Context(world=None)  # type: ignore[arg-type]
    streaming.wait(lambda c, p: Output("node/gpu-node2 condition met"), met, parsed)
    assert met.stream is None


def test_a_stream_runs_at_most_ten_minutes_or_its_timeout() -> None:
    assert streams.StreamRequest(streams.ROWS, "x").seconds == streams.MAX_SECONDS
    assert streams.StreamRequest(streams.WAIT, "x", timeout=30).seconds == 30
    assert streams.StreamRequest(streams.WAIT, "x", timeout=10**9).seconds == streams.MAX_SECONDS
    request = streams.StreamRequest(streams.WAIT, "x", timeout=30)
    assert streams.parse_step(streams.step_line(request)) == request


def test_a_jsonpath_watch_leaves_its_line_open_and_what_its_own_step_changed_follows_on_it(
    lab: LabSession,
) -> None:
    opened = lab.run(
        "kubectl scale deploy coredns -n kube-system --replicas=3 >/dev/null;"
        " kubectl get deploy -n kube-system -w -o jsonpath='{.metadata.name} '"
    )
    # The list, then (no newline between) the events the command's own step made.
    assert opened.open_line and opened.output.startswith("coredns coredns ")
    assert "\n" not in opened.output
    table = lab.run("kubectl get deploy -n kube-system -w")
    assert not table.open_line
    assert not lab.run("printf 'x\\n'").open_line and lab.run("printf x").open_line
