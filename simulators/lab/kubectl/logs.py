"""kubectl logs as kubectl 1.36 runs it (pkg/cmd/logs/logs.go, polymorphichelpers'
logsforobject.go), against the lab's `pods/log`.

The order is kubectl's: the flags (logs_options.read), the positional words, Complete's own
checks, the resource builder (a pod, a `TYPE/NAME`, or the pods of a `-l` selector), Validate,
then one log request per pod and container, read one after another. What kubectl writes to
stderr on the way (which pod of a workload, which container of a pod) comes before the logs,
as a terminal shows the two streams. The lab's log store keeps no times, so `--since`,
`--since-time` and `--timestamps` are read and checked but show every line as it is, which is
what the real kubectl prints against the lab's own apiserver; `--limit-bytes` cuts each
request's text as the kubelet does.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo
from simulators.cluster.selectors import selector_from_match_labels
from simulators.lab.flags import Flag, Parsed
from simulators.lab.gotext import go_quote
from simulators.lab.kubectl import logs_options
from simulators.lab.kubectl.common import (
    COMMON,
    KubectlError,
    error_text,
    list_error,
    namespace,
    parse_ts,
    resolve,
    usage,
)
from simulators.lab.kubectl.logs_options import LogsOptions
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("all-pods", long="all-pods"),
    Flag("all-containers", long="all-containers"),
    Flag("follow", long="follow", short="f"),
    Flag("timestamps", long="timestamps"),
    Flag("limit-bytes", long="limit-bytes", takes_value=True),
    Flag("previous", long="previous", short="p"),
    Flag("tail", long="tail", takes_value=True),
    Flag("ignore-errors", long="ignore-errors"),
    Flag("since-time", long="since-time", takes_value=True),
    Flag("since", long="since", takes_value=True),
    Flag("container", long="container", short="c", takes_value=True),
    Flag("insecure-skip-tls-verify-backend", long="insecure-skip-tls-verify-backend"),
    Flag("pod-running-timeout", long="pod-running-timeout", takes_value=True),
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("max-log-requests", long="max-log-requests", takes_value=True),
    Flag("prefix", long="prefix"),
]

USAGE_ERROR = (
    "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\n"
    "POD or TYPE/NAME is a required argument for the logs command\n" + usage("logs")
)
# The resource builder's answer when it was given nothing to find (`kubectl logs ''`).
NO_RESOURCE = (
    "error: You must provide one or more resources by argument or filename.\n"
    "Example resource specifications include:\n"
    "   '-f rsrc.yaml'\n"
    "   '--filename=rsrc.json'\n"
    "   '<resource> <name>'\n"
    "   '<resource>'"
)
# The API groups of client-go's scheme: their objects have Go types (`*v1.Node`); kubectl
# cannot decode any other kind it finds.
TYPED_GROUPS = frozenset(
    {
        "",
        "admissionregistration.k8s.io",
        "apps",
        "authentication.k8s.io",
        "authorization.k8s.io",
        "autoscaling",
        "batch",
        "certificates.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "events.k8s.io",
        "extensions",
        "flowcontrol.apiserver.k8s.io",
        "networking.k8s.io",
        "node.k8s.io",
        "policy",
        "rbac.authorization.k8s.io",
        "resource.k8s.io",
        "scheduling.k8s.io",
        "storage.k8s.io",
    }
)
# The kinds polymorphichelpers.SelectorsForObject finds pods for, by group; the selector of
# a Service and a ReplicationController is a plain map of labels.
WORKLOADS = {
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("extensions", "Deployment"),
    ("extensions", "ReplicaSet"),
    ("extensions", "DaemonSet"),
    ("batch", "Job"),
    ("", "ReplicationController"),
    ("", "Service"),
}


@dataclass(frozen=True)
class Request:
    """One `pods/log` request: a container of a pod."""

    pod: str
    namespace: str
    container: str


def run(ctx: Context, parsed: Parsed) -> Output:
    """`kubectl logs`: what kubectl prints (stderr's notes, the logs, then any error line),
    exit status 1 when it stopped on an error."""
    return read(ctx, parsed)[0]


def read(ctx: Context, parsed: Parsed) -> tuple[Output, int]:
    """What `kubectl logs` prints, and how many logs it read (those `-f` goes on following;
    none when it failed, or when --ignore-errors skipped every one)."""
    shown: list[str] = []
    try:
        count = _logs(ctx.api, parsed, shown)
    except KubectlError as exc:
        return Output.exactly("".join(shown) + f"{exc}\n", 1), 0
    except ApiError as exc:
        return Output.exactly("".join(shown) + error_text(exc) + "\n", 1), 0
    return Output.exactly("".join(shown)), count


def _logs(cluster: ClusterAPI, parsed: Parsed, shown: list[str]) -> int:
    """Complete, Validate and RunLogs; what is printed goes to `shown`, as kubectl writes it.
    The number of logs read."""
    opts = logs_options.read(parsed)
    words = parsed.positionals
    if not words and not opts.selector:
        raise KubectlError(USAGE_ERROR)
    if len(words) == 1 and opts.selector:
        raise KubectlError("error: only a selector (-l) or a POD name is allowed\n" + usage("logs"))
    if len(words) > 2:
        raise KubectlError(USAGE_ERROR)
    if len(words) == 2:
        opts.container = words[1]
    if opts.all_pods:
        opts.prefix = True
    ns = namespace(parsed)
    logs_options.complete(opts)
    word = words[0] if words else ""
    if opts.selector:
        target: list[Obj] | tuple[ResourceInfo, Obj] = _selected(cluster, opts, word, ns, shown)
    else:
        target = _named(cluster, word, ns)
    logs_options.validate(opts, inline_container=len(words) == 2)
    if isinstance(target, list):
        requests = [r for pod in target for r in _for_pod(pod, opts, shown, opts.all_pods)]
    else:
        requests = _for_object(cluster, *target, opts, shown)
    if opts.follow and len(requests) > 1 and len(requests) > opts.max_requests:
        raise KubectlError(
            f"error: you are attempting to follow {len(requests)} log streams, but maximum "
            f"allowed concurrency is {opts.max_requests}, use --max-log-requests to increase "
            "the limit"
        )
    count = 0
    for request in requests:
        try:
            text = cluster.logs(
                request.pod,
                request.namespace,
                container=request.container,
                tail=opts.tail_lines(),
                previous=opts.previous,
            )
        except ApiError as exc:
            if opts.ignore_errors:
                # The error's own message, and on to the next request.
                shown.append(f"error: {exc.message}\n")
                continue
            if not opts.follow:
                raise
            # Following, kubectl prints the message and asks again each second until
            # --pod-running-timeout; the lab's world does not move while a command runs, so
            # the answer stays the same: once, then kubectl's last line.
            shown.append(f"{exc.message}\n")
            raise KubectlError("error: context deadline exceeded") from None
        if opts.limit_bytes > 0:
            text = limited(text, opts.limit_bytes)
        if opts.prefix:
            text = prefixed(text, f"[pod/{request.pod}/{request.container}] ")
        shown.append(text)
        count += 1
    return count


# ----------------------------------------------------------------- the resource builder


def _selected(
    cluster: ClusterAPI, opts: LogsOptions, word: str, ns: str, shown: list[str]
) -> list[Obj]:
    """The pods `-l` selects (kubectl ignores an empty POD word beside it); kubectl says so
    on stderr when there are none, and goes on."""
    if word:
        _split_word(word)
        raise KubectlError(
            "error: selectors and the all flag cannot be used when passing resource/name arguments"
        )
    pods = resolve(cluster, "pods")
    try:
        listed = cluster.list("pods", ns, label_selector=opts.selector)
    except ApiError as exc:
        raise KubectlError(list_error(pods, exc, label=opts.selector)) from None
    items = [item for item in listed.get("items", []) if isinstance(item, dict)]
    if not items:
        shown.append(f"No resources found in {ns} namespace.\n")
    return items


def _split_word(word: str) -> tuple[str, str]:
    """The builder's reading of `TYPE/NAME` (a plain name is a pod's)."""
    if "/" not in word:
        return "pods", word
    parts = word.split("/")
    if len(parts) != 2:
        raise KubectlError(
            "error: arguments in resource/name form may not have more than one slash"
        )
    kind, name = parts
    if not kind or not name or len(dict.fromkeys(kind.split(","))) != 1:
        raise KubectlError(
            "error: arguments in resource/name form must have a single resource and name"
        )
    return kind, name


def _named(cluster: ClusterAPI, word: str, ns: str) -> tuple[ResourceInfo, Obj]:
    """The object a POD or TYPE/NAME word names; a NotFound as Complete rewords it."""
    if not word:
        raise KubectlError(NO_RESOURCE)
    kind, name = _split_word(word)
    info = resolve(cluster, kind)
    try:
        found = cluster.get(info.key, name, ns if info.namespaced else None)
    except ApiError as exc:
        if exc.code != 404:
            raise
        message = exc.message
        if info.namespaced and ns != "default":
            # The builder asks whether the namespace itself is there, and says so if not.
            try:
                cluster.get("namespaces", ns)
            except ApiError as missing:
                if missing.code == 404:
                    message = missing.message
        raise KubectlError(
            f"error: error from server (NotFound): {message} in namespace {go_quote(ns)}"
        ) from None
    if not _typed(info):
        # kubectl decodes what the builder found with its own scheme, which has no custom kinds.
        raise KubectlError(
            f'error: no kind "{info.kind}" is registered for version "{info.api_version}" in '
            'scheme "pkg/scheme/scheme.go:28"'
        )
    return info, found


# --------------------------------------------------------- which pods, which containers


def _for_object(
    cluster: ClusterAPI, info: ResourceInfo, obj: Obj, opts: LogsOptions, shown: list[str]
) -> list[Request]:
    """logsForObjectWithClient: a pod's requests, or those of the pod(s) a workload picks."""
    if info.group == "" and info.kind == "Pod":
        return _for_pod(obj, opts, shown, opts.all_pods)
    match = _matcher(info, obj)
    ns = str(obj["metadata"].get("namespace") or "")
    listed = cluster.list("pods", ns).get("items", [])
    pods = by_logging([p for p in listed if isinstance(p, dict) and match(p)])
    if not pods:
        # kubectl watches for a pod until --pod-running-timeout; the lab's world does not
        # move while a command runs, so none comes.
        raise KubectlError("error: timed out waiting for the condition")
    if len(pods) > 1 and not opts.all_pods:
        shown.append(f"Found {len(pods)} pods, using pod/{pods[0]['metadata']['name']}\n")
    chosen = pods if opts.all_pods else pods[:1]
    return [r for pod in chosen for r in _for_pod(pod, opts, shown, opts.all_pods)]


def _matcher(info: ResourceInfo, obj: Obj) -> Callable[[Obj], bool]:
    """SelectorsForObject: the pods of a workload or Service; its refusal of any other kind."""
    go_type = f"*{info.version}.{info.kind}"
    if (info.group, info.kind) not in WORKLOADS:
        raise KubectlError(
            f"error: cannot get the logs from {go_type}: selector for {go_type} not implemented"
        )
    selector = (obj.get("spec") or {}).get("selector")
    if info.kind in ("Service", "ReplicationController"):
        if info.kind == "Service" and (not isinstance(selector, dict) or not selector):
            name = obj["metadata"].get("name", "")
            raise KubectlError(
                f"error: cannot get the logs from {go_type}: invalid service '{name}': "
                "Service is defined without a selector"
            )
        return selector_from_match_labels({"matchLabels": selector or {}})
    return selector_from_match_labels(selector if isinstance(selector, dict) else None)


def _typed(info: ResourceInfo) -> bool:
    """Whether kubectl's scheme knows the kind (a Go type, not a custom resource)."""
    return not info.custom and info.group in TYPED_GROUPS


def _for_pod(pod: Obj, opts: LogsOptions, shown: list[str], all_pods: bool) -> list[Request]:
    """A pod's requests: every container (init, regular, ephemeral) with --all-containers;
    else the one asked for, the default-container annotation's, or the first (kubectl says
    which it took when the pod has others, unless --all-pods)."""
    meta = pod["metadata"]
    name, ns = str(meta.get("name", "")), str(meta.get("namespace") or "")
    spec = pod.get("spec") or {}
    regular = _names(spec, "containers")
    init = _names(spec, "initContainers")
    ephemeral = _names(spec, "ephemeralContainers")
    if opts.all_containers:
        return [Request(name, ns, c) for c in [*init, *regular, *ephemeral]]
    every = ", ".join(
        [*regular, *(f"{c} (ephem)" for c in ephemeral), *(f"{c} (init)" for c in init)]
    )
    container = opts.container
    default = (meta.get("annotations") or {}).get("kubectl.kubernetes.io/default-container")
    if not container and default:
        if default in [*regular, *init, *ephemeral]:
            container = str(default)
        else:
            shown.append(
                f"Default container name {go_quote(str(default))} not found in pod {name}\n"
            )
    if not container:
        if not regular:
            raise KubectlError(f"error: pod {ns}/{name} does not have any containers")
        container = regular[0]
        if (len(regular) > 1 or init or ephemeral) and not all_pods:
            shown.append(f'Defaulted container "{container}" out of: {every}\n')
    if container not in [*regular, *init, *ephemeral]:
        raise KubectlError(
            f"error: container {container} is not valid for pod {name} out of: {every}"
        )
    return [Request(name, ns, container)]


def _names(spec: Obj, field: str) -> list[str]:
    """The names of a pod spec's `field` list of containers."""
    return [str(c.get("name", "")) for c in spec.get(field) or [] if isinstance(c, dict)]


# ------------------------------------------------------------------ podutils.ByLogging


def by_logging(pods: list[Obj]) -> list[Obj]:
    """The pods in the order kubectl picks one to read (podutils.ByLogging): scheduled
    first, then Running (then Unknown, then Pending), ready, ready the longest, restarted the
    most, created the earliest."""
    return sorted(pods, key=functools.cmp_to_key(_compare))


def _compare(a: Obj, b: Obj) -> int:
    """ByLogging as a three-way comparison (equal pods keep their listed order)."""
    if _less(a, b):
        return -1
    return 1 if _less(b, a) else 0


def _less(a: Obj, b: Obj) -> bool:
    """ByLogging.Less: whether kubectl would rather read `a` than `b`."""
    node_a, node_b = _spec(a).get("nodeName") or "", _spec(b).get("nodeName") or ""
    if node_a != node_b and (not node_a or not node_b):
        return bool(node_a)
    rank = {"Running": 0, "Unknown": 1, "Pending": 2}
    phase_a, phase_b = (
        rank.get(_status(a).get("phase", ""), 0),
        rank.get(_status(b).get("phase", ""), 0),
    )
    if phase_a != phase_b:
        return phase_a < phase_b
    (ready_a, since_a), (ready_b, since_b) = _ready(a), _ready(b)
    if ready_a != ready_b:
        return ready_a
    if ready_a and ready_b and since_a != since_b:
        return _after_or_zero(since_b, since_a)
    restarts_a, restarts_b = _restarts(a), _restarts(b)
    if restarts_a != restarts_b:
        return restarts_a > restarts_b
    created_a = parse_ts(a["metadata"].get("creationTimestamp"))
    created_b = parse_ts(b["metadata"].get("creationTimestamp"))
    if created_a != created_b:
        return _after_or_zero(created_b, created_a)
    return False


def _spec(pod: Obj) -> Obj:
    """A pod's spec ({} when it has none)."""
    return pod.get("spec") or {}


def _status(pod: Obj) -> Obj:
    """A pod's status ({} when it has none)."""
    return pod.get("status") or {}


def _ready(pod: Obj) -> tuple[bool, datetime | None]:
    """Whether the pod is ready, and since when (None: no time)."""
    for condition in _status(pod).get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("status") == "True":
            return True, parse_ts(condition.get("lastTransitionTime"))
    return False, None


def _after_or_zero(first: datetime | None, second: datetime | None) -> bool:
    """podutils.afterOrZero: whether `first` is after `second`, a missing time the latest."""
    if first is None or second is None:
        return first is None
    return first > second


def _restarts(pod: Obj) -> tuple[int, int]:
    """The most restarts of a regular container, then of a sidecar (an init container that
    restarts always)."""
    status = _status(pod)
    regular = max(
        (int(s.get("restartCount") or 0) for s in status.get("containerStatuses") or []), default=0
    )
    sidecars = {
        c.get("name")
        for c in _spec(pod).get("initContainers") or []
        if c.get("restartPolicy") == "Always"
    }
    sidecar = max(
        (
            int(s.get("restartCount") or 0)
            for s in status.get("initContainerStatuses") or []
            if s.get("name") in sidecars
        ),
        default=0,
    )
    return regular, sidecar


# ------------------------------------------------------------------------ the text


def limited(text: str, limit: int) -> str:
    """The first `limit` bytes of a log, as the kubelet cuts it for --limit-bytes (a
    character cut in two shows as U+FFFD)."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="replace")


_LINES = re.compile(r"[^\n]*\n|[^\n]+$")


def prefixed(text: str, prefix: str) -> str:
    """Each line of a log (the last one too, if cut short) after `prefix`."""
    return "".join(prefix + line for line in _LINES.findall(text))


# ------------------------------------------------------------- kubectl exec's pod choice


def _rank(pod: Obj) -> tuple[int, str]:
    """kubectl exec's rough order: running pods first, then the oldest."""
    running = (pod.get("status") or {}).get("phase") == "Running"
    return (0 if running else 1, str(pod["metadata"].get("creationTimestamp", "")))


def pods_of(cluster: ClusterAPI, word: str, ns: str) -> tuple[list[Obj], str]:
    """For kubectl exec: the pod a `TYPE/NAME` (or a pod name) stands for, and kubectl's
    note when it chose one of several (running first, then the oldest)."""
    kind, sep, name = word.partition("/")
    if not sep:
        return [cluster.get("pods", word, ns)], ""
    info = resolve(cluster, kind)
    if info.key == "pods":
        return [cluster.get("pods", name, ns)], ""
    owner = cluster.get(info.key, name, ns if info.namespaced else None)
    selector = (owner.get("spec") or {}).get("selector")
    if not isinstance(selector, dict):
        raise KubectlError(f"error: cannot get the logs from {info.kind.lower()}.{info.group}")
    candidates = [
        p
        for p in cluster.list("pods", ns).get("items", [])
        if selector_from_match_labels(selector)(p)
    ]
    if not candidates:
        raise KubectlError("error: timed out waiting for the condition")
    candidates.sort(key=_rank)
    note = ""
    if len(candidates) > 1:
        note = f"Found {len(candidates)} pods, using pod/{candidates[0]['metadata']['name']}"
    return candidates[:1], note


def default_container(pod: Obj, asked: str | None) -> tuple[str | None, str]:
    """For kubectl exec: the container asked for, the default-container annotation's, or
    the first, with kubectl's note when the pod has several."""
    if asked:
        return asked, ""
    names = [c.get("name", "") for c in (pod.get("spec") or {}).get("containers") or []]
    annotations = pod["metadata"].get("annotations") or {}
    chosen = annotations.get("kubectl.kubernetes.io/default-container")
    if chosen in names:
        return str(chosen), ""
    if len(names) > 1:
        return names[0], f'Defaulted container "{names[0]}" out of: {", ".join(names)}'
    return None, ""
