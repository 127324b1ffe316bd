"""kubectl config: the lab's one context (`kubernetes-admin@dgx-cluster`); no secrets shown."""

from __future__ import annotations

from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON, KubectlError
from simulators.lab.kubectl.tabwriter import table
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("output", long="output", short="o", takes_value=True),
    Flag("minify", long="minify"),
    Flag("raw", long="raw"),
    Flag("flatten", long="flatten"),
    Flag("no-headers", long="no-headers"),
]

CLUSTER = "dgx-cluster"
USER = "kubernetes-admin"
CONTEXT = f"{USER}@{CLUSTER}"
SERVER = "https://10.0.0.10:6443"

VIEW = f"""apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: DATA+OMITTED
    server: {SERVER}
  name: {CLUSTER}
contexts:
- context:
    cluster: {CLUSTER}
    user: {USER}
  name: {CONTEXT}
current-context: {CONTEXT}
kind: Config
preferences: {{}}
users:
- name: {USER}
  user:
    client-certificate-data: DATA+OMITTED
    client-key-data: DATA+OMITTED"""


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
        return Output(VIEW)
    if action in ("use-context", "use"):
        if rest[:1] == [CONTEXT]:
            return Output(f'Switched to context "{CONTEXT}".')
        return Output.error(f'error: no context exists with the name: "{rest[0] if rest else ""}"')
    if action == "set-context":
        return Output.error("error: the lab's kubeconfig is read-only")
    raise KubectlError(f'error: unknown command "{action}" for "kubectl config"')
