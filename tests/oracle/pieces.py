"""The generated oracle's pieces: what a ticket's world holds (`facts`), the random draws over
it (`Draw`) and the output options a command can end with; tests/oracle/generate.py composes
them into whole command lines."""

from __future__ import annotations

import random
import re
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


def matches(selector: str, obj: Obj) -> bool:
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


def join_words(*words: str) -> str:
    return " ".join(w for w in words if w)
