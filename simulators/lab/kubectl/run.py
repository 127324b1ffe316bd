"""kubectl run NAME --image=IMAGE [flags] [-- COMMAND [args...]]: a Pod (and with --expose a
ClusterIP Service), as kubectl 1.36's run.go builds them with its BasicPod and ServiceV2
generators, --overrides applied to the Pod, then created or printed under --dry-run.

Its checks come in kubectl's order: pflag's values and the required --image, then Complete
(--dry-run, -o, --cascade), then Run's usage errors, then the generators' own (--env,
--annotations, --labels, --port), then the override. An attached run (-i, --attach) needs a
process a terminal reaches inside the pod, which the lab's pods do not have: it is refused in
one line before anything is created, as is a pod with stdin that nothing would ever attach to
(the lab's API server refuses that pod too, simulators.cluster.unsupported).
"""

from __future__ import annotations

import re

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.unsupported import limit
from simulators.lab.flags import Flag, Parsed
from simulators.lab.gotext import go_quote
from simulators.lab.kubectl.common import (
    CASCADE,
    COMMON,
    DRY_RUN,
    KubectlError,
    cascade,
    dry_run,
    dry_run_writer,
    dry_suffix,
    error_text,
    namespace,
    see,
    usage,
)
from simulators.lab.kubectl.create import exists, save_config
from simulators.lab.kubectl.logs_options import parse_duration, parse_int
from simulators.lab.kubectl.printing import PRINT_FLAGS, object_output, object_text
from simulators.lab.kubectl.run_overrides import override
from simulators.lab.kubectl.set_image import parse_pairs
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    DRY_RUN,
    *PRINT_FLAGS,
    Flag("allow-missing-template-keys", long="allow-missing-template-keys"),
    Flag("show-managed-fields", long="show-managed-fields"),
    Flag("annotations", long="annotations", takes_value=True),
    Flag("attach", long="attach"),
    Flag("command", long="command"),
    Flag("detach-keys", long="detach-keys", takes_value=True),
    Flag("env", long="env", takes_value=True),
    Flag("expose", long="expose"),
    Flag("field-manager", long="field-manager", takes_value=True),
    Flag("image", long="image", takes_value=True),
    Flag("image-pull-policy", long="image-pull-policy", takes_value=True),
    Flag("labels", long="labels", short="l", takes_value=True),
    Flag("leave-stdin-open", long="leave-stdin-open"),
    Flag("override-type", long="override-type", takes_value=True),
    Flag("overrides", long="overrides", takes_value=True),
    Flag("pod-running-timeout", long="pod-running-timeout", takes_value=True),
    Flag("port", long="port", takes_value=True),
    Flag("privileged", long="privileged"),
    Flag("quiet", long="quiet", short="q"),
    Flag("restart", long="restart", takes_value=True),
    Flag("rm", long="rm"),
    Flag("save-config", long="save-config"),
    Flag("stdin", long="stdin", short="i"),
    Flag("tty", long="tty", short="t"),
    # The flags of the deletion --rm makes (DeleteFlags), and the hidden, deprecated --record.
    CASCADE,
    Flag("filename", long="filename", short="f", takes_value=True),
    Flag("force", long="force"),
    Flag("grace-period", long="grace-period", takes_value=True),
    Flag("kustomize", long="kustomize", short="k", takes_value=True),
    Flag("recursive", long="recursive", short="R"),
    Flag("timeout", long="timeout", takes_value=True),
    Flag("wait", long="wait"),
    Flag("record", long="record"),
]

# github.com/distribution/reference's ReferenceRegexp: [domain[:port]/]path[:tag][@digest].
_ALNUM = "[a-z0-9]+"
_PATH = rf"{_ALNUM}(?:(?:[._]|__|[-]+){_ALNUM})*"
_LABEL = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_LABEL}(?:\.{_LABEL})*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?"
_TAG = "[0-9A-Za-z_][0-9A-Za-z_.-]{0,127}"
_DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
REFERENCE = re.compile(rf"(?:{_HOST}/)?{_PATH}(?:/{_PATH})*(?::{_TAG})?(?:@{_DIGEST})?")
# validation.IsEnvVarName's pattern.
_ENV_NAME = re.compile(r"[-._a-zA-Z][-._a-zA-Z0-9]*")
_RESTART = ("Always", "OnFailure", "Never")
_PULL = ("Always", "IfNotPresent", "Never")
# The attached run the lab cannot serve without stdin (-i gets the API server's own line).
ATTACH_LIMIT = (
    "run --attach is not available in this lab: its pods have no terminal to attach to; "
    "run it without --attach and read its logs"
)


def run(ctx: Context, parsed: Parsed) -> Output:
    """`kubectl run NAME --image=IMAGE ...`."""
    _flag_values(parsed)
    if not parsed.has("image"):
        raise KubectlError('error: required flag(s) "image" not set')
    # Complete: the dry-run strategy, the printer, the deletion's cascade.
    dry = dry_run(parsed)
    output = object_output(parsed)
    cascade(parsed)
    return _run(ctx, parsed, dry, output)


def _words(parsed: Parsed) -> list[str]:
    """NAME and the container's arguments: kubectl 1.36 takes NAME as the first word before or
    after `--` (`kubectl run --image=nginx -- web sleep 1` runs a pod named web)."""
    return [*parsed.positionals, *(parsed.after_dashdash or [])]


def _run(ctx: Context, parsed: Parsed, dry: str, output: str) -> Output:
    names = _words(parsed)
    if not names:
        raise _usage("NAME is required for run")
    if _duration(parsed, "pod-running-timeout", "1m0s") <= 0:
        raise _usage("--pod-running-timeout must be higher than zero")
    image = parsed.value("image") or ""
    if not image:
        raise KubectlError("error: --image is required")
    if not REFERENCE.fullmatch(image):
        raise KubectlError(f"error: Invalid image name {go_quote(image)}: invalid reference format")
    stdin, tty = parsed.has("stdin"), parsed.has("tty")
    if tty and not stdin:
        raise _usage("-i/--stdin is required for containers with -t/--tty=true")
    port = parsed.value("port") or ""
    if parsed.has("expose") and not port:
        raise _usage("--port must be set when exposing a service")
    restart = parsed.value("restart", "Always") or ""
    if restart and restart not in _RESTART:
        raise _usage(f"invalid restart policy: {restart}")
    # -i attaches too, unless --attach was given false.
    attach = "attach" in parsed.bools or (stdin and "attach" not in parsed.changed)
    if parsed.has("rm") and not attach:
        raise _usage("--rm should only be used for attached containers")
    if attach and dry:
        raise _usage(
            "--dry-run=[server|client] can't be used with attached containers options "
            "(--attach, --stdin, or --tty)"
        )
    pull = parsed.value("image-pull-policy") or ""
    if pull and pull not in _PULL:
        raise _usage(f"invalid image pull policy: {pull}")
    name = names[0]
    if not name:
        raise KubectlError("error: Parameter: name is required")
    pod, labels = _pod(parsed, name, image, restart or "Always", pull)
    pod = override(ctx.api, parsed, pod)
    if attach or (_container(pod).get("stdinOnce") and dry != "client"):
        # Nothing in the lab's pods reads a stdin or answers an attach (see the docstring).
        raise KubectlError(f"error: {ATTACH_LIMIT if attach and not stdin else limit('run -i')}")
    sender = _Sender(ctx.api, parsed, dry)
    pod = sender.send("pods", pod)
    texts: list[str] = []
    errors: list[str] = []
    if parsed.has("expose"):
        service = _service(name, parsed.value("labels") or "", labels, port)
        try:
            # The service is printed as it is created, before the pod (generateService).
            texts.append(_printed(sender.send("services", service), "service", output, dry))
            if output == "yaml":
                texts.append("---\n")
        except KubectlError as exc:
            errors.append(str(exc))
    try:
        texts.append(_printed(pod, "pod", output, dry, again=len(texts) > 0))
    except KubectlError as exc:  # what was printed stays; the pod's error ends the command
        errors = [str(exc)]
    text = "".join(texts).removesuffix("\n")
    if errors:
        return Output("\n".join(t for t in [text, *errors] if t), 1)
    return Output(text)


def _usage(message: str) -> KubectlError:
    return KubectlError(f"error: {message}\n{usage('run')}")


def _flag_values(parsed: Parsed) -> None:
    """pflag's reading of the typed flags (an int, durations) and what it prints for a
    deprecated one (noted, Parsed.warn); its refusal of a value it cannot read."""
    for key, read in (
        ("grace-period", parse_int),
        ("timeout", parse_duration),
        ("pod-running-timeout", parse_duration),
    ):
        for text in parsed.all(key):
            try:
                read(text)
            except ValueError as exc:
                raise KubectlError(
                    f'error: invalid argument {go_quote(text)} for "--{key}" flag: {exc}\n'
                    + see("run")
                ) from None
    if "record" in parsed.bools:
        parsed.warn("Flag --record has been deprecated, --record will be removed in the future")


def _duration(parsed: Parsed, key: str, default: str) -> int:
    return parse_duration(parsed.value(key) or default)


# ----------------------------------------------------------------------------- generators


def _labels(text: str) -> dict[str, str]:
    """generate.ParseLabels: `k=v,k2=v2` (empty: none)."""
    if not text:
        return {}
    labels: dict[str, str] = {}
    for spec in text.split(","):
        parts = spec.split("=")
        if len(parts) != 2:
            raise KubectlError(f"error: unexpected label spec: {spec}")
        if not parts[0]:
            raise KubectlError("error: unexpected empty label key")
        labels[parts[0]] = parts[1]
    return labels


def _envs(values: list[str]) -> list[Obj]:
    envs: list[Obj] = []
    for env in values:
        key, equals, value = env.partition("=")
        if not equals or not key or not _env_name(key):
            raise KubectlError(f"error: invalid env: {env}")
        envs.append({"name": key, "value": value})
    return envs


def _env_name(key: str) -> bool:
    """validation.IsEnvVarName: its pattern, and not `.` or a name starting with `..`."""
    return bool(_ENV_NAME.fullmatch(key)) and key != "." and not key.startswith("..")


def _atoi(text: str) -> int:
    """strconv.Atoi, as an int32 takes it (Go's conversion wraps)."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise KubectlError(f"error: strconv.Atoi: parsing {go_quote(text)}: invalid syntax")
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise KubectlError(f"error: strconv.Atoi: parsing {go_quote(text)}: value out of range")
    return (value + 2**31) % 2**32 - 2**31


def _pod(
    parsed: Parsed, name: str, image: str, restart: str, pull: str
) -> tuple[Obj, dict[str, str]]:
    """BasicPod.Generate, in its order of checks (env, annotations, labels, port): the Pod and
    its labels (--labels, or `run: NAME`)."""
    args = _words(parsed)[1:]
    envs = _envs(parsed.all("env"))
    annotations = parse_pairs(parsed.all("annotations"), "annotations")
    labels = _labels(parsed.value("labels") or "") or {"run": name}
    stdin = parsed.has("stdin")
    container: Obj = {"name": name, "image": image}
    if args:
        container["command" if parsed.has("command") else "args"] = args
    if envs:
        container["env"] = envs
    if pull:
        container["imagePullPolicy"] = pull
    port = parsed.value("port") or ""
    if port:
        container["ports"] = [{"containerPort": _atoi(port)}]
    container["resources"] = {}
    if parsed.has("privileged"):
        container["securityContext"] = {"privileged": True}
    if stdin:
        container["stdin"] = True
        if not parsed.has("leave-stdin-open"):
            container["stdinOnce"] = True
    if parsed.has("tty"):
        container["tty"] = True
    meta: Obj = {"name": name, "labels": dict(labels)}
    if annotations:
        meta["annotations"] = annotations
    spec = {"containers": [container], "dnsPolicy": "ClusterFirst", "restartPolicy": restart}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {}}, labels


def _container(pod: Obj) -> Obj:
    containers = (pod.get("spec") or {}).get("containers")
    first = containers[0] if isinstance(containers, list) and containers else {}
    return first if isinstance(first, dict) else {}


def _service(name: str, given: str, labels: dict[str, str], port: str) -> Obj:
    """ServiceGeneratorV2 as run calls it: the pod's labels as the selector, --port as port
    and target port, TCP; the service's own labels only those --labels gave."""
    number = _atoi(port)
    meta: Obj = {"name": name}
    if given:
        meta["labels"] = _labels(given)
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta,
        "spec": {
            "ports": [{"port": number, "protocol": "TCP", "targetPort": number}],
            "selector": dict(labels),
        },
        "status": {"loadBalancer": {}},
    }


# -------------------------------------------------------------------------------- sending


class _Sender:
    """createGeneratedObject's send: a client dry run keeps the object (in the namespace -n
    named); otherwise --save-config's annotation, then the server's create (or its dry run)."""

    def __init__(self, cluster: ClusterAPI, parsed: Parsed, dry: str) -> None:
        self.cluster = cluster
        self.dry = dry
        self.explicit = parsed.value("namespace")
        self.ns = namespace(parsed)
        self.save = parsed.has("save-config")
        self.writer = dry_run_writer(cluster, dry)

    def send(self, resource: str, obj: Obj) -> Obj:
        if self.dry == "client":
            if self.explicit:
                obj["metadata"]["namespace"] = self.explicit
            return obj
        if self.save:
            save_config(obj)
        try:
            if self.writer is not None:
                return self.writer.create(resource, obj, self.ns)
            exists(self.cluster, resource, str(obj["metadata"].get("name", "")), self.ns)
        except ApiError as exc:
            raise KubectlError(error_text(exc)) from None
        return obj


def _printed(obj: Obj, kind: str, output: str, dry: str, again: bool = False) -> str:
    """One object through run's printer (one printer for both objects: the second yaml
    document starts with its own `---`)."""
    text = object_text(obj, f"{kind}/{obj['metadata'].get('name', '')}", output, "created")
    if not output:
        text = text.removesuffix("\n") + dry_suffix(dry) + "\n"
    if again and output == "yaml":
        text = "---\n" + text
    return text
