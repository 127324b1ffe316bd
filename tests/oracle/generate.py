"""The generated oracle: kubectl command lines composed from a grammar over a ticket's world.

`generate(seed, count)` draws `count` commands spread over the nine tickets. Every name a
command uses (namespaces, objects, label keys and values, containers, images) is read from the
objects the ticket's world actually holds (built from its seed, as the oracle builds it), so
the commands are the ones a learner could type there, right and wrong.

A `Case` says which verb and which output option it exercises (the benchmark's rows), and
whether it changes state: those run on a fresh copy of the world (tests/oracle/run.py).

`more` adds the productions that reach further: creates that reach the server (`create`, `run`
and `expose` without a client dry run, server dry runs), slices, filters and recursive descent in
jsonpath, deletes of any kind. Both the fixed-seed test and the benchmark draw the whole
grammar; `more=False` is the smaller one the fixed seed was first written against.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from simulators.lab.tickets import list_tickets
from simulators.lab.world import build_world


@dataclass(frozen=True)
class Case:
    ticket: str
    line: str
    verb: str
    output: str = ""  # the output option exercised ("" for the default)
    writes: bool = False


@dataclass(frozen=True)
class Obj:
    kind: str  # the ResourceInfo key: pods, deployments.apps
    name: str
    namespace: str | None
    labels: tuple[tuple[str, str], ...]
    raw: dict[str, Any]


@dataclass(frozen=True)
class Kind:
    key: str
    names: tuple[str, ...]  # every name kubectl accepts for it
    namespaced: bool
    kind: str


@dataclass
class Facts:
    """What one ticket's world holds, as the grammar needs it."""

    ticket: str
    kinds: dict[str, Kind]
    objects: dict[str, list[Obj]]
    namespaces: list[str]

    def of(self, key: str) -> list[Obj]:
        return self.objects.get(key, [])


@cache
def facts(ticket: str) -> Facts:
    api = build_world(ticket, 0).api
    kinds: dict[str, Kind] = {}
    objects: dict[str, list[Obj]] = {}
    for info in api.resources():
        if "list" not in info.verbs:
            continue
        names = [info.plural, info.singular, *info.short_names, info.kind]
        if info.group:
            names += [
                f"{info.plural}.{info.group}",
                f"{info.singular}.{info.group}",
                f"{info.plural}.{info.version}.{info.group}",
            ]
        kinds[info.key] = Kind(info.key, tuple(dict.fromkeys(names)), info.namespaced, info.kind)
        items = api.list(info.key).get("items", [])
        objects[info.key] = [
            Obj(
                info.key,
                str(o["metadata"]["name"]),
                o["metadata"].get("namespace"),
                tuple(sorted((o["metadata"].get("labels") or {}).items())),
                o,
            )
            for o in items
        ]
    namespaces = sorted(o.name for o in objects.get("namespaces", []))
    return Facts(ticket, kinds, objects, namespaces)


def tickets() -> list[str]:
    return [t.id for t in list_tickets()]


# ------------------------------------------------------------------------- pieces


class Draw:
    """One command's random choices over one ticket's facts."""

    def __init__(self, rng: random.Random, world: Facts) -> None:
        self.rng = rng
        self.world = world

    def pick(self, options: list[Any] | tuple[Any, ...]) -> Any:
        return self.rng.choice(list(options))

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def kind_with_objects(self, namespaced: bool | None = None) -> Kind:
        keys = [
            k
            for k, kind in self.world.kinds.items()
            if self.world.of(k)
            and (namespaced is None or kind.namespaced == namespaced)
            and k != "events"
        ]
        return self.world.kinds[self.pick(sorted(keys))]

    def name_of(self, kind: Kind) -> str:
        return str(self.pick(kind.names))

    def obj(self, key: str) -> Obj | None:
        objs = self.world.of(key)
        return self.pick(objs) if objs else None

    def ns_flag(self, obj: Obj | None) -> str:
        if obj is None or obj.namespace is None:
            return ""
        if obj.namespace == "default" and self.chance(0.5):
            return ""
        return self.pick(
            [f"-n {obj.namespace}", f"--namespace={obj.namespace}", f"-n={obj.namespace}"]
        )

    def scope(self, kind: Kind) -> tuple[str, list[Obj]]:
        """A namespace option for a list, and the objects the list would show."""
        objs = self.world.of(kind.key)
        if not kind.namespaced:
            return "", objs
        spaces = sorted({o.namespace or "" for o in objs}) or ["default"]
        r = self.rng.random()
        if r < 0.3:
            return self.pick(["-A", "--all-namespaces"]), objs
        if r < 0.4:
            return "", [o for o in objs if o.namespace == "default"]
        if r < 0.45:
            return "-n nothing-here", []
        ns = self.pick(spaces)
        return f"-n {ns}", [o for o in objs if o.namespace == ns]

    def selector(self, objs: list[Obj]) -> str:
        pairs = sorted({p for o in objs for p in o.labels})
        if not pairs:
            return "-l app=none"
        key, value = self.pick(pairs)
        values = sorted({v for o in objs for k, v in o.labels if k == key})
        other = self.pick(values)
        forms = [
            f"{key}={value}",
            f"{key}=={value}",
            f"{key}!={value}",
            f"'{key} in ({value},{other})'",
            f"'{key} notin ({value})'",
            f"'!{key}'",
            key,
        ]
        form = self.pick(forms)
        if self.chance(0.15) and len(pairs) > 1:
            k2, v2 = self.pick(pairs)
            form = f"{form.strip(chr(39))},{k2}={v2}"
            form = f"'{form}'"
        return f"{self.pick(['-l', '--selector'])} {form}"


# Output options for a list and for one object, by the name the benchmark reports.
LIST_JSONPATHS = [
    "{.items[*].metadata.name}",
    '{range .items[*]}{.metadata.name}{"\\t"}{.metadata.namespace}{"\\n"}{end}',
    "{.items[0].metadata.labels}",
    "{.items[*].metadata.labels}",
    "{.kind}",
    "{.items[0].metadata.name}",
    "{.items[-1].metadata.name}",
    "{.items[9].metadata.name}",
]
LIST_JSONPATHS_MORE = [
    "{.items[0:2].metadata.name}",
    "{.items[-1:].metadata.name}",
    "{.items[:1].metadata.name}",
    '{.items[*].status.conditions[?(@.type=="Ready")].status}',
    '{.items[?(@.metadata.namespace=="kube-system")].metadata.name}',
    "{.items[?(@.spec.replicas>1)].metadata.name}",
    "{.items[?(@.metadata.labels.app)].metadata.name}",
    "{.items[*].spec}",
    "{..image}",
    "{.items[*].metadata.labels.app\\.kubernetes\\.io/name}",
]
ONE_JSONPATHS = [
    "{.metadata.name}",
    "{.metadata.labels}",
    "{.metadata.namespace}",
    "{.kind}/{.metadata.name}",
    "{.spec.containers[0].image}",
    "{.spec.template.spec.containers[*].name}",
    "{.status.conditions[*].type}",
    "{.metadata.labels.app}",
]
ONE_JSONPATHS_MORE = [
    "{.spec}",
    "{.status}",
    "{.metadata..name}",
    '{.status.conditions[?(@.type=="Ready")].status}',
    '{.status.conditions[?(@.status!="True")].type}',
    "{.spec.containers[-1:].name}",
    "{.metadata.labels.kubernetes\\.io/hostname}",
    "{.metadata['labels']}",
]
GO_TEMPLATES_LIST = [
    '{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}',
    "{{len .items}}",
    '{{range .items}}{{printf "%s %s\\n" .metadata.name .kind}}{{end}}',
    "{{range $i, $p := .items}}{{$i}}:{{$p.metadata.name}} {{end}}",
    "{{(index .items 0).metadata.name}}",
]
GO_TEMPLATES_ONE = [
    "{{.metadata.name}}",
    '{{index .metadata.labels "app"}}',
    "{{if .metadata.labels}}labelled{{else}}bare{{end}}",
    '{{range $k, $v := .metadata.labels}}{{$k}}={{$v}}{{"\\n"}}{{end}}',
    "{{.metadata.name}}\\n",
]
COLUMNS = [
    "NAME:.metadata.name",
    "NAME:.metadata.name,NS:.metadata.namespace",
    "NAME:.metadata.name,LABELS:.metadata.labels",
    "N:.metadata.name,C:.spec.containers[*].name",
    'NAME:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status',
]
SORTS = [".metadata.name", ".metadata.namespace", ".metadata.creationTimestamp", ".kind"]


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def list_output(d: Draw, more: bool, empty: bool = False) -> tuple[str, str]:
    """(option text, option name) for a list (`empty`: it shows no object).

    A go-template's `index` into an empty list fails with text/template's error, which names
    the action's position and dumps the data as %+v: drawn for lists that have items only.
    (jsonpath's index errors, with their %#v dump, are drawn anywhere: the lab prints them.)
    """
    r = d.rng.random()
    if r < 0.2:
        return "", ""
    paths = LIST_JSONPATHS
    more_paths = LIST_JSONPATHS_MORE
    templates = [t for t in GO_TEMPLATES_LIST if not (empty and "index" in t)]
    options: list[tuple[str, str]] = [
        ("-o wide", "wide"),
        ("-o yaml", "yaml"),
        ("-o json", "json"),
        ("-o name", "name"),
        ("--no-headers", "no-headers"),
        ("--show-labels", "show-labels"),
        ("--show-kind", "show-kind"),
        ("-L " + d.pick(["app", "tier,app", "kubernetes.io/hostname"]), "label-columns"),
        ("--sort-by=" + d.pick(SORTS), "sort-by"),
        ("-o jsonpath=" + _quote(d.pick(paths)), "jsonpath"),
        ("-o custom-columns=" + _quote(d.pick(COLUMNS[:4])), "custom-columns"),
        ("-o jsonpath=" + _quote(d.pick(more_paths)), "jsonpath"),
        ("-o jsonpath-as-json=" + _quote(d.pick(paths)), "jsonpath-as-json"),
        ("-o go-template=" + _quote(d.pick(templates)), "go-template"),
        ("-o custom-columns=" + _quote(COLUMNS[4]), "custom-columns"),
        ("-o yml", "unknown-format"),
    ]
    return d.pick(options)


def _matches(selector: str, obj: Obj) -> bool:
    """Whether a drawn `-l` selector (one requirement or a comma-joined pair) keeps `obj`."""
    labels = dict(obj.labels)
    text = selector.split(" ", 1)[1].strip("'")
    requirements = re.split(r",(?![^(]*\))", text)
    for req in requirements:
        if " notin " in req:
            key, _, values = req.partition(" notin ")
            if labels.get(key) in values.strip("()").split(","):
                return False
        elif " in " in req:
            key, _, values = req.partition(" in ")
            if labels.get(key) not in values.strip("()").split(","):
                return False
        elif "!=" in req:
            key, _, value = req.partition("!=")
            if labels.get(key) == value:
                return False
        elif "=" in req:
            key, _, value = req.replace("==", "=").partition("=")
            if labels.get(key) != value:
                return False
        elif req.startswith("!"):
            if req[1:] in labels:
                return False
        elif req not in labels:
            return False
    return True


def one_output(d: Draw, more: bool, labelled: bool = True) -> tuple[str, str]:
    r = d.rng.random()
    if r < 0.2:
        return "", ""
    options: list[tuple[str, str]] = [
        ("-o wide", "wide"),
        ("-o yaml", "yaml"),
        ("-o json", "json"),
        ("-o name", "name"),
        ("--show-labels", "show-labels"),
        ("--no-headers", "no-headers"),
        ("-o jsonpath=" + _quote(d.pick(ONE_JSONPATHS)), "jsonpath"),
        ("-o custom-columns=NAME:.metadata.name,KIND:.kind", "custom-columns"),
        ("-o jsonpath=" + _quote(d.pick(ONE_JSONPATHS_MORE)), "jsonpath"),
        ("-o jsonpath-as-json=" + _quote(d.pick(ONE_JSONPATHS)), "jsonpath-as-json"),
        # `index` of a missing map fails with a dump of the object (Go's %#v): drawn for
        # objects with labels only.
        (
            "-o go-template="
            + _quote(d.pick([t for t in GO_TEMPLATES_ONE if labelled or "index" not in t])),
            "go-template",
        ),
        ("-o jason", "unknown-format"),
    ]
    return d.pick(options)


def _join(*words: str) -> str:
    return " ".join(w for w in words if w)


# ------------------------------------------------------------------------- families

Family = Callable[[Draw, bool], Case | None]


def get_list(d: Draw, more: bool) -> Case:
    kind = d.kind_with_objects()
    scope, objs = d.scope(kind)
    sel = ""
    if d.chance(0.3):
        sel = d.selector(objs or d.world.of(kind.key))
        objs = [o for o in objs if _matches(sel, o)]
    out, name = list_output(d, more, empty=not objs)
    return Case(d.world.ticket, _join("kubectl get", d.name_of(kind), scope, sel, out), "get", name)


def get_one(d: Draw, more: bool) -> Case:
    kind = d.kind_with_objects()
    obj = d.obj(kind.key)
    assert obj is not None
    out, name = one_output(d, more, labelled=bool(obj.labels))
    target = f"{d.name_of(kind)} {obj.name}"
    if d.chance(0.2):
        target = f"{d.pick(kind.names[:1] + kind.names[2:3])}/{obj.name}"
    return Case(d.world.ticket, _join("kubectl get", target, d.ns_flag(obj), out), "get", name)


def get_several(d: Draw, more: bool) -> Case:
    keys = [k for k in ("pods", "services", "deployments.apps", "daemonsets.apps", "configmaps")]
    chosen = d.rng.sample(keys, 2)
    names = ",".join(d.pick(d.world.kinds[k].names[:3]) for k in chosen)
    ns = d.pick(d.world.namespaces)
    out = d.pick(["", "-o name", "--no-headers", "--show-kind", "-o wide"])
    if d.chance(0.3):
        names = "all"
    return Case(d.world.ticket, _join("kubectl get", names, f"-n {ns}", out), "get", out)


def get_field_selector(d: Draw, more: bool) -> Case:
    node = d.obj("nodes")
    pod = d.obj("pods")
    assert node is not None and pod is not None
    phase = d.pick(["Running", "Pending", "Succeeded", "Failed"])
    sel = d.pick(
        [
            f"spec.nodeName={node.name}",
            f"status.phase={phase}",
            f"status.phase!={phase}",
            f"metadata.name={pod.name}",
            f"metadata.namespace={pod.namespace}",
            f"status.phase={phase},spec.nodeName={node.name}",
        ]
    )
    out = d.pick(["", "-o name", "-o wide"])
    line = _join("kubectl get pods -A", f"--field-selector {sel}", out)
    return Case(d.world.ticket, line, "get", out and out.split()[-1])


def describe(d: Draw, more: bool) -> Case:
    allowed = [
        "nodes",
        "pods",
        "deployments.apps",
        "daemonsets.apps",
        "replicasets.apps",
        "services",
        "namespaces",
        "configmaps",
        "serviceaccounts",
    ]
    allowed += ["statefulsets.apps", "jobs.batch", "secrets", "leases.coordination.k8s.io"]
    keys = [k for k in allowed if d.world.of(k)]
    kind = d.world.kinds[d.pick(keys)]
    obj = d.obj(kind.key)
    assert obj is not None
    if d.chance(0.15) and kind.namespaced:
        line = _join("kubectl describe", d.name_of(kind), d.ns_flag(obj), d.selector([obj]))
    else:
        line = _join("kubectl describe", d.name_of(kind), obj.name, d.ns_flag(obj))
    return Case(d.world.ticket, line, "describe")


def logs(d: Draw, more: bool) -> Case:
    pod = d.obj("pods")
    assert pod is not None
    containers = [c["name"] for c in pod.raw["spec"].get("containers", [])]
    opts = []
    if len(containers) > 1 or d.chance(0.2):
        opts.append(f"-c {d.pick(containers)}")
    if d.chance(0.5):
        opts.append(f"--tail {d.pick([1, 3, 10])}")
    return Case(d.world.ticket, _join("kubectl logs", pod.name, d.ns_flag(pod), *opts), "logs")


def info_verbs(d: Draw, more: bool) -> Case:
    lines = [
        ("kubectl api-resources", "api-resources"),
        ("kubectl api-resources --namespaced=false", "api-resources"),
        ("kubectl api-resources -o name", "api-resources"),
        ("kubectl api-resources --api-group=apps", "api-resources"),
        ("kubectl top nodes", "top"),
        ("kubectl top pods -A", "top"),
    ]
    # Not drawn: version, cluster-info and config, whose answers name the client's build and
    # the harness's kubeconfig (a local port), not the cluster.
    lines += [
        ("kubectl api-versions", "api-versions"),
        ("kubectl auth whoami", "auth"),
        ("kubectl auth can-i list pods", "auth"),
        ("kubectl auth can-i '*' '*'", "auth"),
        ("kubectl auth can-i delete nodes -A", "auth"),
        ("kubectl get --raw /version", "get"),
        ("kubectl get --raw /api/v1/namespaces/default", "get"),
        ("kubectl get --raw /healthz", "get"),
        (f"kubectl get --raw /api/v1/namespaces/{d.pick(d.world.namespaces)}/pods", "get"),
        ("kubectl get --raw /nope", "get"),
    ]
    pod = d.obj("pods")
    lines += [
        ("kubectl events -A", "events"),
        ("kubectl events -A --types=Warning", "events"),
        (f"kubectl events -n {d.pick(d.world.namespaces)}", "events"),
        *([(f"kubectl events -n {pod.namespace} --for=pod/{pod.name}", "events")] if pod else []),
    ]
    line, verb = d.pick(lines)
    return Case(d.world.ticket, line, verb)


def mistakes(d: Draw, more: bool) -> Case:
    kind = d.kind_with_objects()
    obj = d.obj(kind.key)
    assert obj is not None
    ns = d.ns_flag(obj)
    lines = [
        (f"kubectl gett {kind.names[0]}", "typo-verb"),
        (f"kubectl get {kind.names[0]}z", "typo-kind"),
        (f"kubectl get {kind.names[0]} {obj.name}-x {ns}", "missing-object"),
        (f"kubectl describe {kind.names[0]} {obj.name}-x {ns}", "missing-object"),
        (f"kubectl get {kind.names[0]} -o tabel", "unknown-format"),
        (f"kubectl get {kind.names[0]} --nmespace default", "typo-flag"),
        ("kubectl describe", "missing-argument"),
        ("kubectl label nodes", "missing-argument"),
        ("kubectl scale deployment", "missing-argument"),
        ("kubectl logs", "missing-argument"),
        ("kubectl delete", "missing-argument"),
    ]
    if kind.namespaced and obj.namespace not in (None, "default"):
        lines.append((f"kubectl get {kind.names[0]} {obj.name}", "wrong-namespace"))
    lines += [
        (f"kubectl get {kind.names[0]} {obj.name}-x {ns} --ignore-not-found", "missing-object"),
        (f"kubectl delete {kind.names[0]} {obj.name}-x {ns}", "missing-object"),
        (
            f"kubectl delete {kind.names[0]} {obj.name}-x {ns} --ignore-not-found",
            "missing-object",
        ),
        ("kubectl rollout pause", "missing-argument"),
        ("kubectl create deployment", "missing-argument"),
        ("kubectl run", "missing-argument"),
        ("kubectl expose", "missing-argument"),
        ("kubectl taint nodes", "missing-argument"),
        ("kubectl create role lab-role --verb=get", "missing-argument"),
        ("kubectl create clusterrole lab-cr --resource=pods", "missing-argument"),
        ("kubectl create token", "missing-argument"),
        ("kubectl create token default -n runai --duration=5m", "bad-value"),
        ("kubectl create token default -n runai --duration=10", "bad-value"),
        ("kubectl create secret tls lab-tls --cert=tls.crt", "missing-argument"),
        ("kubectl create secret tls lab-tls --cert=tls.key --key=tls.crt", "bad-value"),
        ("kubectl create role lab-role --verb=get --resource=podz", "typo-kind"),
    ]
    line, why = d.pick(lines)
    return Case(d.world.ticket, line, line.split()[1], why)


# Writes: each runs on a fresh copy of the world.


def label_annotate(d: Draw, more: bool) -> Case:
    kind = d.kind_with_objects()
    obj = d.obj(kind.key)
    assert obj is not None
    verb = d.pick(["label", "annotate"])
    existing = [k for k, _ in obj.labels] if verb == "label" else []
    change = d.pick(
        [
            "lab-test=yes",
            "lab-test=yes --overwrite",
            "tier=gold",
            *(
                [
                    f"{d.pick(existing)}=changed",
                    f"{d.pick(existing)}=changed --overwrite",
                    f"{d.pick(existing)}-",
                ]
                if existing
                else []
            ),
            "missing-",
        ]
    )
    target = d.pick([f"{d.name_of(kind)} {obj.name}", f"{kind.names[0]}/{obj.name}"])
    out = d.pick(["", "", "-o name", "--dry-run=client", "--dry-run=server -o yaml"])
    line = _join(f"kubectl {verb}", target, d.ns_flag(obj), change, out)
    return Case(d.world.ticket, line, verb, out, writes=True)


def node_ops(d: Draw, more: bool) -> Case:
    node = d.obj("nodes")
    assert node is not None
    lines = [
        (f"kubectl cordon {node.name}", "cordon"),
        (f"kubectl uncordon {node.name}", "uncordon"),
        (f"kubectl cordon {node.name} --dry-run=client", "cordon"),
        (f"kubectl drain {node.name} --ignore-daemonsets --dry-run=client", "drain"),
        (f"kubectl drain {node.name} --ignore-daemonsets --dry-run=server", "drain"),
        (f"kubectl taint nodes {node.name} gpu=true:NoSchedule", "taint"),
        (f"kubectl taint node {node.name} dedicated=infer:NoExecute", "taint"),
        (f"kubectl taint nodes {node.name} gpu-", "taint"),
    ]
    line, verb = d.pick(lines)
    return Case(d.world.ticket, line, verb, writes=True)


def deployment_ops(d: Draw, more: bool) -> Case:
    dep = d.obj("deployments.apps")
    assert dep is not None
    ns = d.ns_flag(dep)
    name = d.pick([f"deployment/{dep.name}", f"deploy/{dep.name}", f"deployment {dep.name}"])
    container = dep.raw["spec"]["template"]["spec"]["containers"][0]["name"]
    lines = [
        (f"kubectl scale {name} {ns} --replicas={d.pick([0, 1, 2, 3])}", "scale"),
        (f"kubectl rollout status {name} {ns}", "rollout"),
        (f"kubectl scale {name} {ns} --replicas=2 --dry-run=client", "scale"),
        (f"kubectl rollout history {name} {ns}", "rollout"),
        (f"kubectl rollout history {name} {ns} --revision={d.pick([1, 1, 2])}", "rollout"),
        (f"kubectl rollout history {name} {ns} {d.pick(['-o name', '-o yaml'])}", "rollout"),
        (f"kubectl rollout history deployments {ns} {d.pick(['', '--revision=1'])}", "rollout"),
        (f"kubectl rollout pause {name} {ns}", "rollout"),
        (f"kubectl rollout resume {name} {ns}", "rollout"),
        (f"kubectl rollout undo {name} {ns}", "rollout"),
        (f"kubectl set image {name} {ns} {container}=registry.local/img:v2", "set"),
        (f"kubectl wait --for=condition=Available {name} {ns} --timeout=1s", "wait"),
    ]
    if more:
        # expose creates with a POST: see create_ops.
        lines.append((f"kubectl expose {name} {ns} --port=80 --name=lab-svc", "expose"))
    line, verb = d.pick(lines)
    return Case(d.world.ticket, _join(*line.split(" ")), verb, writes=True)


def create_ops(d: Draw, more: bool) -> Case:
    ns = d.pick(d.world.namespaces)
    dry = d.pick(
        [
            "--dry-run=client -o yaml",
            "--dry-run=client",
            "--dry-run=client -o name",
            "--dry-run=client -o json",
        ]
    )
    if more and d.chance(0.5):
        # A create that reaches the server (the apiserver decodes kubectl's protobuf bodies).
        dry = d.pick(["", "--dry-run=server -o json", "--dry-run=server"])
    lines = [
        (f"kubectl create namespace scratch {dry}", "create"),
        (
            f"kubectl create configmap lab-cm -n {ns} --from-literal=a=1 --from-literal=b=2 {dry}",
            "create",
        ),
        (f"kubectl create namespace {ns} {dry}", "create"),
        (
            f"kubectl create secret generic lab-secret -n {ns} --from-literal=token=abc {dry}",
            "create",
        ),
        (
            f"kubectl create secret docker-registry regcred -n {ns} --docker-server=nvcr.io "
            f"--docker-username='$oauthtoken' --docker-password=abc {dry}",
            "create",
        ),
        (f"kubectl create deployment web -n {ns} --image=nginx {dry}", "create"),
        (f"kubectl create deployment web -n {ns} --image=nginx --replicas=2 {dry}", "create"),
        (f"kubectl create serviceaccount bot -n {ns} {dry}", "create"),
        (f"kubectl create service clusterip web -n {ns} --tcp=80:8080 {dry}", "create"),
        (f"kubectl create job once -n {ns} --image=busybox {dry}", "create"),
        (f"kubectl run nginx -n {ns} --image=nginx {dry}", "run"),
        (f"kubectl run nginx -n {ns} --image=nginx --labels=app=web {dry}", "run"),
    ]
    if dry.startswith("--dry-run=client"):
        # Kinds the apiserver does not serve yet: a client dry run never asks it.
        lines += [
            (
                f"kubectl create cronjob nightly -n {ns} --image=busybox "
                f"'--schedule=0 3 * * *' {dry} -- date",
                "create",
            ),
            (f"kubectl create rolebinding rb -n {ns} --role=view --user=alice {dry}", "create"),
            (
                f"kubectl create clusterrolebinding crb --clusterrole=view --group=ops {dry}",
                "create",
            ),
            (
                f"kubectl create pdb web -n {ns} --selector=app=web --min-available=1 {dry}",
                "create",
            ),
            (f"kubectl create ingress web -n {ns} --rule='lab.local/*=web:80' {dry}", "create"),
            (f"kubectl create quota q -n {ns} --hard=pods=4,nvidia.com/gpu=2 {dry}", "create"),
            (f"kubectl create priorityclass urgent --value=1000 {dry}", "create"),
            (
                f"kubectl create service externalname ext -n {ns} --external-name=a.b {dry}",
                "create",
            ),
        ]
    resource = d.pick(
        ["pods", "po", "deployments.apps", "deploy", "pods/log", "configmaps,secrets", "jobs.batch"]
    )
    verbs = d.pick(["get,list", "get --verb=watch", "'*'", "get,list,watch", "get,get"])
    lines += [
        (
            f"kubectl create role lab-role -n {ns} --verb={verbs} --resource={resource} {dry}",
            "create",
        ),
        (
            f"kubectl create role lab-role -n {ns} --verb=get --resource=pods --resource-name=a "
            f"--resource-name=b {dry}",
            "create",
        ),
        (f"kubectl create clusterrole lab-cr --verb={verbs} --resource={resource} {dry}", "create"),
        (
            "kubectl create clusterrole lab-cr --verb=get --non-resource-url=/healthz "
            f"--non-resource-url='/logs/*' {dry}",
            "create",
        ),
        (
            "kubectl create clusterrole lab-agg "
            f"--aggregation-rule=rbac.example.com/aggregate-to-lab=true {dry}",
            "create",
        ),
        (f"kubectl create secret tls lab-tls -n {ns} --cert=tls.crt --key=tls.key {dry}", "create"),
    ]
    if d.chance(0.1):
        # create token has no --dry-run: it stores nothing.
        sa = d.obj("serviceaccounts")
        assert sa is not None
        output = d.pick(["", "", "-o yaml", "-o json", "-o name"])
        more_flags = d.pick(["", "--duration=10m", "--duration=2h", "--audience=lab"])
        line = f"kubectl create token {sa.name} -n {sa.namespace} {more_flags} {output}"
        return Case(d.world.ticket, _join(*line.split(" ")), "create", output, writes=True)
    line, verb = d.pick(lines)
    return Case(d.world.ticket, _join(*line.split(" ")), verb, dry, writes=True)


def patch_delete(d: Draw, more: bool) -> Case:
    kind = d.kind_with_objects()
    obj = d.obj(kind.key)
    assert obj is not None
    ns = d.ns_flag(obj)
    target = f"{kind.names[0]} {obj.name}"
    lines = [
        (
            f"kubectl patch {target} {ns} --type merge "
            + """-p '{"metadata":{"labels":{"lab":"x"}}}'""",
            "patch",
        ),
        (
            f'kubectl patch {target} {ns} -p \'{{"metadata":{{"annotations":{{"lab":"x"}}}}}}\'',
            "patch",
        ),
        (
            f"kubectl patch {target} {ns} --type json "
            '-p \'[{"op":"add","path":"/metadata/labels/lab","value":"x"}]\'',
            "patch",
        ),
    ]
    if kind.key in ("pods", "configmaps", "services") or more:
        lines.append((f"kubectl delete {target} {ns}", "delete"))
    line, verb = d.pick(lines)
    return Case(d.world.ticket, _join(*line.split(" ")), verb, writes=True)


FAMILIES: dict[str, tuple[Family, float]] = {
    "get-list": (get_list, 6.0),
    "get-one": (get_one, 5.0),
    "get-several": (get_several, 1.0),
    "get-field-selector": (get_field_selector, 1.0),
    "describe": (describe, 3.0),
    "logs": (logs, 1.0),
    "info": (info_verbs, 1.0),
    "mistakes": (mistakes, 2.0),
    "label-annotate": (label_annotate, 1.5),
    "node-ops": (node_ops, 0.7),
    "deployment-ops": (deployment_ops, 1.0),
    "create": (create_ops, 1.0),
    "patch-delete": (patch_delete, 1.0),
}


def generate(seed: int, count: int, more: bool = True) -> list[Case]:
    """`count` cases from `seed`, round-robin over the nine tickets.

    `more` False keeps to the smaller grammar (see the module's docstring).
    """
    rng = random.Random(seed)
    names = tickets()
    families = list(FAMILIES.values())
    weights = [w for _, w in families]
    out: list[Case] = []
    while len(out) < count:
        world = facts(names[len(out) % len(names)])
        family = rng.choices(families, weights)[0][0]
        case = family(Draw(rng, world), more)
        if case is not None:
            out.append(case)
    return out
