"""kubectl exec POD -- COMMAND: pods/exec; the lab has no interactive shells."""

from __future__ import annotations

from simulators.cluster.api import ApiError
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON, KubectlError, error_text, namespace, usage
from simulators.lab.kubectl.logs import default_container, pods_of
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("container", long="container", short="c", takes_value=True),
    Flag("stdin", long="stdin", short="i"),
    Flag("tty", long="tty", short="t"),
    Flag("quiet", long="quiet", short="q"),
]

SHELLS = {"bash", "sh", "/bin/bash", "/bin/sh", "zsh", "/bin/zsh"}


def run(ctx: Context, parsed: Parsed) -> Output:
    cluster = ctx.api
    ns = namespace(parsed)
    if not parsed.positionals:
        raise KubectlError(
            "error: expected 'exec (POD | TYPE/NAME) [-c CONTAINER] [flags] -- COMMAND [args...]'"
            ".\nPOD or TYPE/NAME is a required argument for the exec command\n" + usage("exec")
        )
    if parsed.after_dashdash is None:
        if len(parsed.positionals) > 1:
            raise KubectlError(
                "error: exec [POD] [COMMAND] is not supported anymore. "
                "Use exec [POD] -- [COMMAND] instead\n" + usage("exec")
            )
        raise KubectlError("error: you must specify at least one command for the container")
    command = parsed.after_dashdash
    if not command:
        raise KubectlError("error: you must specify at least one command for the container")
    try:
        pods, _ = pods_of(cluster, parsed.positionals[0], ns)
        pod = pods[0]
        asked = parsed.value("container")
        every = [c.get("name", "") for c in (pod.get("spec") or {}).get("containers") or []]
        if asked and asked not in every:
            raise KubectlError(
                f"error: container {asked} is not valid for pod {pod['metadata']['name']} "
                f"out of: {', '.join(every)}"
            )
        container, note = default_container(pod, asked)
        if command[0] in SHELLS and len(command) == 1:
            # An interactive shell would need a terminal the lab does not have.
            text = (
                "Unable to use a TTY - input is not a terminal or the right kind of file\n"
                if parsed.has("tty")
                else ""
            )
            return Output(
                f"{text}error: interactive shells are not available in this lab terminal; "
                "run one command after --, e.g. -- nvidia-smi -L",
                1,
            )
        output = cluster.exec(pod["metadata"]["name"], ns, list(command), container=container)
    except ApiError as exc:
        message = error_text(exc)
        if exc.reason == "InternalError":
            return Output(f"error: {exc.message}", 126)
        if exc.reason == "BadRequest" and exc.message.startswith("unable to upgrade"):
            return Output(f"error: {exc.message}", 1)
        return Output(message, 1)
    body = output.rstrip("\n")
    code = 0
    last = body.rsplit("\n", 1)[-1]
    if last.startswith("command terminated with exit code "):
        code = int(last.rsplit(" ", 1)[-1])
    lines = [p for p in [note if note and not parsed.has("quiet") else "", body] if p]
    return Output("\n".join(lines), code)
