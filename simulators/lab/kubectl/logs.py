"""kubectl logs: pods/log for a pod, or for the first pod of a workload (`deploy/x`, `ds/x`)."""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.selectors import selector_from_match_labels
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    KubectlError,
    error_text,
    namespace,
    resolve,
    see,
    usage,
)
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("container", long="container", short="c", takes_value=True),
    Flag("follow", long="follow", short="f"),
    Flag("previous", long="previous", short="p"),
    Flag("tail", long="tail", takes_value=True),
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("all-containers", long="all-containers"),
    Flag("timestamps", long="timestamps"),
    Flag("prefix", long="prefix"),
    Flag("since", long="since", takes_value=True),
]


def _rank(pod: Obj) -> tuple[int, str]:
    running = (pod.get("status") or {}).get("phase") == "Running"
    return (0 if running else 1, str(pod["metadata"].get("creationTimestamp", "")))


def pods_of(cluster: ClusterAPI, word: str, ns: str) -> tuple[list[Obj], str]:
    """The pods a `TYPE/NAME` (or a pod name) stands for, and kubectl's note when it chose one."""
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
    """kubectl picks a container client-side and says so when the pod has several."""
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


def run(ctx: Context, parsed: Parsed) -> Output:
    cluster = ctx.api
    ns = namespace(parsed)
    tail_text = parsed.value("tail")
    tail: int | None = None
    if tail_text is not None:
        try:
            tail = int(tail_text)
        except ValueError:
            raise KubectlError(
                f'error: invalid argument "{tail_text}" for "--tail" flag: strconv.ParseInt: '
                f'parsing "{tail_text}": invalid syntax\n{see("logs")}'
            ) from None
    selector = parsed.value("selector")
    notes: list[str] = []
    try:
        if selector:
            pods = list(cluster.list("pods", ns, label_selector=selector).get("items", []))
            if not pods:
                return Output(f"No resources found in {ns} namespace.")
            if tail is None:
                tail = 10
        else:
            if not parsed.positionals:
                raise KubectlError(
                    "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\n"
                    "POD or TYPE/NAME is a required argument for the logs command\n" + usage("logs")
                )
            if len(parsed.positionals) > 2:
                raise KubectlError(
                    "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\n"
                    "POD or TYPE/NAME is a required argument for the logs command\n" + usage("logs")
                )
            pods, note = pods_of(cluster, parsed.positionals[0], ns)
            if note:
                notes.append(note)
        chunks: list[str] = []
        asked = parsed.value("container") or (
            parsed.positionals[1] if len(parsed.positionals) == 2 and not selector else None
        )
        for pod in pods:
            names = [c.get("name", "") for c in (pod.get("spec") or {}).get("containers") or []]
            containers: list[str | None]
            if parsed.has("all-containers"):
                containers = list(names)
            else:
                chosen, note = default_container(pod, asked)
                if note:
                    notes.append(note)
                containers = [chosen]
            for container in containers:
                text = cluster.logs(
                    pod["metadata"]["name"],
                    ns,
                    container=container,
                    tail=tail,
                    previous=parsed.has("previous"),
                )
                if parsed.has("prefix"):
                    label = f"[pod/{pod['metadata']['name']}/{container or names[0]}] "
                    text = "".join(label + line + "\n" for line in text.splitlines())
                chunks.append(text)
    except ApiError as exc:
        return Output("\n".join([*notes, error_text(exc)]), 1)
    body = "".join(chunks).rstrip("\n")
    return Output("\n".join([p for p in [*notes, body] if p]))
