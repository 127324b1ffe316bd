"""helm upgrade -i (install or upgrade a release) and helm list."""

from __future__ import annotations

from simulators.lab.flags import Flag, FlagError, parse
from simulators.lab.render import plain_table
from simulators.lab.state import HelmRelease, sim_datetime
from simulators.lab.tool import Context, Output

UPGRADE_FLAGS = [
    Flag("install", long="install", short="i"),
    Flag("namespace", long="namespace", short="n", takes_value=True),
    Flag("create-namespace", long="create-namespace"),
    Flag("set", long="set", takes_value=True),
    Flag("values", long="values", short="f", takes_value=True),
    Flag("version", long="version", takes_value=True),
    Flag("wait", long="wait"),
    Flag("timeout", long="timeout", takes_value=True),
    Flag("help", long="help", short="h"),
]
LIST_FLAGS = [
    Flag("namespace", long="namespace", short="n", takes_value=True),
    Flag("all-namespaces", long="all-namespaces", short="A"),
]
CHARTS = {
    "runai/runai-cluster": "runai-cluster-2.17.42",
    "nvidia/gpu-operator": "gpu-operator-v24.9.2",
}
SUBCOMMANDS = ("list", "upgrade", "repo", "version")


def run(ctx: Context, args: list[str]) -> Output:
    if not args or args[0] in ("-h", "--help", "help"):
        return Output(
            "The Kubernetes package manager\n\nUsage:\n  helm [command]\n\n"
            "Available Commands (in this lab):\n  list, upgrade, repo add|update, version"
        )
    sub = args[0]
    try:
        if sub == "version":
            return Output('version.BuildInfo{Version:"v3.16.3", GoVersion:"go1.22.7"}')
        if sub == "repo":
            return _repo(args[1:])
        if sub in ("list", "ls"):
            return _list(ctx, args[1:])
        if sub == "upgrade":
            return _upgrade(ctx, args[1:])
        if sub == "install":
            return Output.error(
                "Error: INSTALLATION FAILED: cannot re-use a name that is still in use"
                if len(args) > 1 and any(r.name == args[1] for r in ctx.world.state.helm)
                else "Error: this lab supports installs through 'helm upgrade -i'"
            )
    except FlagError as exc:
        return Output.error(f"Error: {exc}")
    return Output.error(
        f'Error: unknown command "{sub}" for "helm"\nRun \'helm --help\' for usage.'
    )


def _repo(args: list[str]) -> Output:
    if args[:1] == ["add"] and len(args) >= 3:
        return Output(f'"{args[1]}" has been added to your repositories')
    if args[:1] == ["update"]:
        return Output(
            "Hang tight while we grab the latest from your chart repositories...\n"
            '...Successfully got an update from the "runai" chart repository\n'
            "Update Complete. ⎈Happy Helming!⎈"
        )
    return Output.error("Error: usage: helm repo add NAME URL | helm repo update")


def _list(ctx: Context, args: list[str]) -> Output:
    parsed = parse(args, LIST_FLAGS)
    namespace = parsed.value("namespace") or "default"
    releases = [
        r for r in ctx.world.state.helm if parsed.has("all-namespaces") or r.namespace == namespace
    ]
    header = "NAME\tNAMESPACE\tREVISION\tUPDATED\tSTATUS\tCHART\tAPP VERSION"
    lines = [header.replace("\t", "\t")]
    for r in releases:
        updated = sim_datetime(r.deployed).strftime("%Y-%m-%d %H:%M:%S.000000 +0000 UTC")
        version = r.chart.rsplit("-", 1)[-1]
        lines.append(
            f"{r.name}\t{r.namespace}\t{r.revision}\t{updated}\tdeployed\t{r.chart}\t{version}"
        )
    return Output(plain_table([line.split("\t") for line in lines]))


def _upgrade(ctx: Context, args: list[str]) -> Output:
    parsed = parse(args, UPGRADE_FLAGS)
    if len(parsed.positionals) != 2:
        return Output.error(
            'Error: "helm upgrade" requires 2 arguments\n\nUsage:  helm upgrade [RELEASE] [CHART] '
            "[flags]"
        )
    name, chart = parsed.positionals
    namespace = parsed.value("namespace") or "default"
    for value in parsed.all("set"):
        if "=" not in value:
            return Output.error(f'Error: failed parsing --set data: key "{value}" has no value')
    if chart not in CHARTS:
        return Output.error(
            f"Error: repo {chart.split('/')[0]} not found"
            if "/" in chart
            else f'Error: path "{chart}" not found'
        )
    state = ctx.world.state
    if namespace not in ctx.world.backend.list_namespaces() and not parsed.has("create-namespace"):
        return Output.error(f'Error: create: failed to create: namespaces "{namespace}" not found')
    ctx.world.backend.ensure_namespace(namespace)
    release = next((r for r in state.helm if r.name == name and r.namespace == namespace), None)
    values = dict(v.split("=", 1) for v in parsed.all("set"))
    now = ctx.world.now
    if release is None:
        if not parsed.has("install"):
            return Output.error(f'Error: UPGRADE FAILED: "{name}" has no deployed releases')
        release = HelmRelease(name, namespace, CHARTS[chart], 1, now, values)
        state.helm.append(release)
        first = f'Release "{name}" does not exist. Installing it now.'
    else:
        release.revision += 1
        release.deployed = now
        release.values.update(values)
        first = f'Release "{name}" has been upgraded. Happy Helming!'
    deployed = sim_datetime(now).strftime("%a %b %d %H:%M:%S %Y")
    return Output(
        "\n".join(
            [
                first,
                f"NAME: {name}",
                f"LAST DEPLOYED: {deployed}",
                f"NAMESPACE: {namespace}",
                "STATUS: deployed",
                f"REVISION: {release.revision}",
                "TEST SUITE: None",
                "NOTES:",
                "Run:ai cluster components are being installed. Check them with:"
                if "runai" in chart
                else "GPU Operator deployed.",
                f"  kubectl get pods -n {namespace}",
            ]
        )
    )
