"""kubectl config: the lab's one context (`kubernetes-admin@dgx-cluster`); no secrets shown."""

from __future__ import annotations

from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON, KubectlError
from simulators.lab.kubectl.kyaml import to_kyaml
from simulators.lab.kubectl.printing import (
    PRINT_FLAGS,
    object_output,
    object_text,
    to_json,
    to_yaml,
)
from simulators.lab.kubectl.tabwriter import table
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    *PRINT_FLAGS,
    Flag("minify", long="minify"),
    Flag("raw", long="raw"),
    Flag("flatten", long="flatten"),
    Flag("no-headers", long="no-headers"),
]

CLUSTER = "dgx-cluster"
USER = "kubernetes-admin"
CONTEXT = f"{USER}@{CLUSTER}"
SERVER = "https://10.0.0.10:6443"

# The lab's kubeconfig as kubectl config view reads it (clientcmd's v1.Config, its fields in
# the struct's order for -o json); the key and certificates are never shown: kubectl's
# ShortenConfig prints DATA+OMITTED for them, and the lab has none to show with --raw.
OMITTED = "DATA+OMITTED"
CONFIG = {
    "kind": "Config",
    "apiVersion": "v1",
    "clusters": [
        {"name": CLUSTER, "cluster": {"server": SERVER, "certificate-authority-data": OMITTED}}
    ],
    "users": [
        {"name": USER, "user": {"client-certificate-data": OMITTED, "client-key-data": OMITTED}}
    ],
    "contexts": [{"name": CONTEXT, "context": {"cluster": CLUSTER, "user": USER}}],
    "current-context": CONTEXT,
}


def view(parsed: Parsed) -> Output:
    """kubectl config view: yaml by default, or any -o its PrintFlags take (-o name knows no
    name for a Config: `config/<unknown>`, as kubectl prints it)."""
    output = object_output(parsed) if parsed.value("output") or parsed.value("template") else ""
    if output in ("", "yaml"):
        return Output(to_yaml(CONFIG).rstrip("\n"))
    if output == "name":
        return Output("config/<unknown>")
    if output == "json":
        return Output(to_json(CONFIG, sort_keys=False))
    if output == "kyaml":
        return Output(to_kyaml(CONFIG, sort_keys=False).rstrip("\n"))
    return Output(object_text(CONFIG, "", output, "").removesuffix("\n"))


def run(ctx: Context, parsed: Parsed) -> Output:
    if not parsed.positionals:
        raise KubectlError(
            'Modify kubeconfig files using subcommands like "kubectl config set '
            'current-context my-context".\n\nAvailable Commands:\n  current-context   Display '
            "the current-context\n  get-contexts      Describe one or many contexts\n  view     "
            "         Display merged kubeconfig settings or a specified kubeconfig file"
        )
    action, rest = parsed.positionals[0], parsed.positionals[1:]
    if action == "current-context":
        return Output(CONTEXT)
    if action == "get-contexts":
        if rest and rest[0] != CONTEXT:
            return Output.error(f"error: context {rest[0]} not found")
        if parsed.value("output") == "name":
            return Output(CONTEXT)
        rows = (
            []
            if parsed.has("no-headers")
            else [["CURRENT", "NAME", "CLUSTER", "AUTHINFO", "NAMESPACE"]]
        )
        rows.append(["*", CONTEXT, CLUSTER, USER, ""])
        return Output(table(rows))
    if action == "get-clusters":
        return Output(f"NAME\n{CLUSTER}")
    if action == "get-users":
        return Output(f"NAME\n{USER}")
    if action == "view":
        return view(parsed)
    if action in ("use-context", "use"):
        if rest[:1] == [CONTEXT]:
            return Output(f'Switched to context "{CONTEXT}".')
        return Output.error(f'error: no context exists with the name: "{rest[0] if rest else ""}"')
    if action == "set-context":
        return Output.error("error: the lab's kubeconfig is read-only")
    raise KubectlError(f'error: unknown command "{action}" for "kubectl config"')
