"""kubectl auth can-i and auth whoami. The lab's user is cluster-admin (kubeadm's
`kubeadm:cluster-admins` group), so every question is answered yes, as the apiserver does."""

from __future__ import annotations

from simulators.cluster.api import ApiError
from simulators.cluster.request import ADMIN_USER
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON, KubectlError, usage
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("all-namespaces", long="all-namespaces", short="A"),
    Flag("quiet", long="quiet", short="q"),
    Flag("subresource", long="subresource", takes_value=True),
    Flag("output", long="output", short="o", takes_value=True),
]

HELP = """Inspect authorization.

Available Commands:
  can-i         Check whether an action is allowed
  reconcile     Reconciles rules for RBAC role, role binding, cluster role, and cluster role \
binding objects
  whoami        Experimental: Check self subject attributes

Usage:
  kubectl auth [flags] [options]

Use "kubectl auth <command> --help" for more information about a given command.
Use "kubectl options" for a list of global command-line options (applies to all commands)."""


def run(ctx: Context, parsed: Parsed) -> Output:
    if not parsed.positionals:
        return Output(HELP, 1)
    action, args = parsed.positionals[0], parsed.positionals[1:]
    if action == "whoami":
        groups = " ".join(ADMIN_USER["groups"])
        return Output(
            f"ATTRIBUTE   VALUE\nUsername    {ADMIN_USER['username']}\nGroups      [{groups}]"
        )
    if action == "can-i":
        return _can_i(ctx, parsed, args)
    raise KubectlError(f'error: unknown command "{action}" for "kubectl auth"')


def _can_i(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    if len(args) not in (2, 3):
        raise KubectlError(
            "error: you must specify two arguments: verb resource or verb resource/resourceName."
            f"\n{usage('auth can-i')}."
        )
    resource = args[1]
    warning = ""
    if not resource.startswith("/") and resource != "*":
        word = resource.split("/", 1)[0]
        try:
            ctx.api.resolve(word)
        except ApiError:
            warning = f"Warning: the server doesn't have a resource type '{word}'\n\n"
    if parsed.has("quiet"):
        return Output("")
    return Output(f"{warning}yes")
