"""helm upgrade -i (install or upgrade a release) and helm list, as a client of the cluster API.

Helm 3 keeps each release revision in a Secret of type `helm.sh/release.v1` named
`sh.helm.release.v1.<release>.v<revision>` in the release's namespace, labelled
`owner=helm`, `name`, `status` and `version`; the lab does the same, so `kubectl get secrets`
shows them and `helm list` reads them back.
"""

from __future__ import annotations

import base64
import contextlib
import json
from datetime import timedelta
from typing import Any

from simulators.cluster.api import ApiError, Obj
from simulators.cluster.clock import format_time
from simulators.lab.flags import Flag, FlagError, Parsed, parse
from simulators.lab.kubectl.common import parse_ts
from simulators.lab.kubectl.connection import context_namespace
from simulators.lab.render import plain_table
from simulators.lab.tool import Context, Output
from simulators.lab.world_cluster import RUNAI_VERSION

RELEASE_TYPE = "helm.sh/release.v1"

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
    "runai/runai-cluster": f"runai-cluster-{RUNAI_VERSION}",
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
                if len(args) > 1 and any(r["name"] == args[1] for r in _releases(ctx, None))
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


def _releases(ctx: Context, namespace: str | None) -> list[dict[str, Any]]:
    """The latest deployed revision of every release, read from its Secrets."""
    try:
        secrets = ctx.api.list("secrets", namespace, label_selector="owner=helm").get("items", [])
    except ApiError:
        return []
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    # Releases installed before the session (the world's seed) may live only on kadmin's side.
    for seeded in getattr(ctx.world.state, "helm", None) or []:
        if namespace is None or seeded.namespace == namespace:
            moment = ctx.api.now() + timedelta(seconds=seeded.deployed - ctx.world.now)
            latest[(seeded.namespace, seeded.name)] = {
                "name": seeded.name,
                "namespace": seeded.namespace,
                "chart": seeded.chart,
                "version": seeded.revision,
                "deployed": format_time(moment),
                "values": dict(seeded.values),
            }
    for secret in secrets:
        if secret.get("type") != RELEASE_TYPE:
            continue
        try:
            release = json.loads(base64.b64decode(secret.get("data", {}).get("release", "")))
        except ValueError:
            continue
        key = (str(release.get("namespace")), str(release.get("name")))
        if key not in latest or release.get("version", 0) > latest[key].get("version", 0):
            latest[key] = release
    return sorted(latest.values(), key=lambda r: (r["namespace"], r["name"]))


def _namespace(ctx: Context, parsed: Parsed) -> str:
    """-n, else the kubeconfig context's namespace (helm reads it as kubectl does)."""
    return parsed.value("namespace") or context_namespace(ctx) or "default"


def _list(ctx: Context, args: list[str]) -> Output:
    parsed = parse(args, LIST_FLAGS)
    namespace = None if parsed.has("all-namespaces") else _namespace(ctx, parsed)
    rows = [["NAME", "NAMESPACE", "REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION"]]
    for r in _releases(ctx, namespace):
        moment = parse_ts(str(r.get("deployed", "")))
        updated = moment.strftime("%Y-%m-%d %H:%M:%S.000000 +0000 UTC") if moment else ""
        chart = str(r.get("chart", ""))
        version = chart.rsplit("-", 1)[-1]
        rows.append(
            [r["name"], r["namespace"], str(r["version"]), updated, "deployed", chart, version]
        )
    return Output(plain_table(rows))


def _secret(release: dict[str, Any]) -> Obj:
    name, revision = release["name"], release["version"]
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": f"sh.helm.release.v1.{name}.v{revision}",
            "namespace": release["namespace"],
            "labels": {
                "name": name,
                "owner": "helm",
                "status": "deployed",
                "version": str(revision),
            },
        },
        "type": RELEASE_TYPE,
        "data": {"release": base64.b64encode(json.dumps(release).encode()).decode()},
    }


def _upgrade(ctx: Context, args: list[str]) -> Output:
    parsed = parse(args, UPGRADE_FLAGS)
    if len(parsed.positionals) != 2:
        return Output.error(
            'Error: "helm upgrade" requires 2 arguments\n\nUsage:  helm upgrade [RELEASE] [CHART] '
            "[flags]"
        )
    name, chart = parsed.positionals
    namespace = _namespace(ctx, parsed)
    for value in parsed.all("set"):
        if "=" not in value:
            return Output.error(f'Error: failed parsing --set data: key "{value}" has no value')
    if chart not in CHARTS:
        return Output.error(
            f"Error: repo {chart.split('/')[0]} not found"
            if "/" in chart
            else f'Error: path "{chart}" not found'
        )
    api = ctx.api
    try:
        api.get("namespaces", namespace)
    except ApiError:
        if not parsed.has("create-namespace"):
            return Output.error(
                f'Error: create: failed to create: namespaces "{namespace}" not found'
            )
        api.create(
            "namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        )
    current = next((r for r in _releases(ctx, namespace) if r["name"] == name), None)
    values = dict(v.split("=", 1) for v in parsed.all("set"))
    now = api.now()
    if current is None:
        if not parsed.has("install"):
            return Output.error(f'Error: UPGRADE FAILED: "{name}" has no deployed releases')
        release = {
            "name": name,
            "namespace": namespace,
            "chart": CHARTS[chart],
            "version": 1,
            "deployed": format_time(now),
            "values": values,
        }
        first = f'Release "{name}" does not exist. Installing it now.'
    else:
        release = {
            **current,
            "version": int(current["version"]) + 1,
            "deployed": format_time(now),
            "values": {**current.get("values", {}), **values},
        }
        first = f'Release "{name}" has been upgraded. Happy Helming!'
        with contextlib.suppress(ApiError):
            api.patch(
                "secrets",
                f"sh.helm.release.v1.{name}.v{current['version']}",
                {"metadata": {"labels": {"status": "superseded"}}},
                namespace,
            )
    api.create("secrets", _secret(release), namespace)
    deployed = now.strftime("%a %b %d %H:%M:%S %Y")
    return Output(
        "\n".join(
            [
                first,
                f"NAME: {name}",
                f"LAST DEPLOYED: {deployed}",
                f"NAMESPACE: {namespace}",
                "STATUS: deployed",
                f"REVISION: {release['version']}",
                "TEST SUITE: None",
                "NOTES:",
                "Run:ai cluster components are being installed. Check them with:"
                if "runai" in chart
                else "GPU Operator deployed.",
                f"  kubectl get pods -n {namespace}",
            ]
        )
    )
