"""Generated `kubectl apply` and `kubectl diff` sessions: manifests made from a ticket's objects.

A manifest is an object of the ticket's world as a learner would save it (`kubectl get -o
yaml` less what the server owns: status, uid, resourceVersion, ...), then changed as a learner
changes one: a label set, added or removed, a data key changed, added or removed, replicas,
an image, an env var or a container added or removed, a new name (a new object), a
namespace that does not exist. A case writes one or two manifests into the home folder (the
lab's) and the working folder (the real kubectl's), then runs a short session over them
(`diff`, `apply`, `diff` again, `get -o yaml`), each line on both sides.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any

import yaml

from tests.oracle.pieces import Facts, facts, tickets

KINDS = ("configmaps", "deployments.apps", "services", "daemonsets.apps", "serviceaccounts")
SERVER_OWNED = (
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "managedFields",
    "ownerReferences",
    "deletionTimestamp",
    "finalizers",
)


@dataclass(frozen=True)
class Session:
    ticket: str
    files: tuple[tuple[str, str], ...]
    lines: tuple[str, ...]


def manifest(raw: dict[str, Any]) -> dict[str, Any]:
    """The object as a learner keeps it in a file."""
    doc = {k: copy.deepcopy(v) for k, v in raw.items() if k != "status"}
    meta = doc.get("metadata") or {}
    for field in SERVER_OWNED:
        meta.pop(field, None)
    notes = meta.get("annotations") or {}
    notes.pop("kubectl.kubernetes.io/last-applied-configuration", None)
    notes.pop("deployment.kubernetes.io/revision", None)
    if not notes:
        meta.pop("annotations", None)
    return doc


def _containers(doc: dict[str, Any]) -> list[dict[str, Any]] | None:
    spec = (doc.get("spec") or {}).get("template", {}).get("spec") or {}
    containers = spec.get("containers")
    return containers if isinstance(containers, list) and containers else None


def changed(rng: random.Random, doc: dict[str, Any], removing: bool = False) -> dict[str, Any]:
    """One or two of a learner's edits (`removing`: only those that take something away, where
    the object has something to take)."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.choice((1, 1, 2))):
        edits = ["label", "label", "unlabel", "annotate"]
        if doc.get("kind") == "ConfigMap":
            edits += ["data", "data", "undata"]
        if doc.get("kind") == "Deployment":
            edits += ["replicas", "replicas"]
        if _containers(doc):
            edits += ["image", "image", "env", "unenv", "container", "uncontainer"]
        if removing:
            edits = [e for e in edits if e.startswith("un")]
        edit = rng.choice(edits)
        meta = doc.setdefault("metadata", {})
        labels = meta.get("labels") or {}
        containers = _containers(doc) or []
        if edit == "label":
            key = rng.choice([*labels, "lab", "tier"]) if labels else "lab"
            meta.setdefault("labels", {})[key] = rng.choice(["x", "blue", "v2"])
        elif edit == "unlabel" and labels:
            labels.pop(rng.choice(sorted(labels)))
            if not labels:
                meta.pop("labels")
        elif edit == "annotate":
            meta.setdefault("annotations", {})["lab/note"] = rng.choice(["checked", "a b"])
        elif edit == "data":
            data = doc.setdefault("data", {})
            key = rng.choice([*data, "extra"]) if data else "extra"
            data[key] = rng.choice(["1", "on", "two words", "multi\nline\n"])
        elif edit == "undata" and doc.get("data"):
            doc["data"].pop(rng.choice(sorted(doc["data"])))
        elif edit == "replicas":
            doc.setdefault("spec", {})["replicas"] = rng.choice([0, 1, 3])
        elif edit == "image" and containers:
            rng.choice(containers)["image"] = rng.choice(["nginx:1.27", "busybox:1.36"])
        elif edit == "env" and containers:
            env = rng.choice(containers).setdefault("env", [])
            env.append({"name": f"LAB_{len(env)}", "value": rng.choice(["1", "yes-no"])})
        elif edit == "unenv":
            with_env = [c for c in containers if c.get("env")]
            if with_env:
                env = rng.choice(with_env)["env"]
                env.pop(rng.randrange(len(env)))
        elif edit == "container" and containers:
            containers.append({"name": "sidecar", "image": "busybox:1.36"})
        elif edit == "uncontainer" and len(containers) > 1:
            containers.pop(rng.randrange(len(containers)))
    return doc


def text(doc: dict[str, Any]) -> str:
    return str(yaml.safe_dump(doc, sort_keys=False, default_flow_style=False))


def session(rng: random.Random, world: Facts) -> Session | None:
    kinds = [k for k in KINDS if world.of(k)]
    if not kinds:
        return None
    obj = rng.choice(world.of(rng.choice(kinds)))
    base = manifest(obj.raw)
    edited = changed(rng, base)
    target = f"{obj.kind.split('.')[0]} {obj.name}" + (
        f" -n {obj.namespace}" if obj.namespace else ""
    )
    shape = rng.choice(
        ["diff", "diff", "apply", "apply-diff", "apply-diff", "new", "lost-namespace", "several"]
    )
    lines: tuple[str, ...]
    if shape == "diff":
        return Session(world.ticket, (("m.yaml", text(edited)),), ("kubectl diff -f m.yaml",))
    if shape == "apply":
        lines = ("kubectl apply -f m.yaml", f"kubectl get {target} -o yaml")
        return Session(world.ticket, (("m.yaml", text(edited)),), lines)
    if shape == "apply-diff":
        later = changed(rng, edited, removing=rng.random() < 0.7)
        lines = (
            "kubectl apply -f base.yaml",
            "kubectl diff -f m.yaml",
            "kubectl apply -f m.yaml",
            "kubectl diff -f m.yaml",
            f"kubectl get {target} -o yaml",
        )
        files = (("base.yaml", text(edited)), ("m.yaml", text(later)))
        return Session(world.ticket, files, lines)
    if shape == "new":
        edited["metadata"]["name"] = f"{obj.name}-copy"
        lines = ("kubectl diff -f m.yaml", "kubectl apply -f m.yaml", "kubectl diff -f m.yaml")
        return Session(world.ticket, (("m.yaml", text(edited)),), lines)
    if shape == "lost-namespace" and obj.namespace:
        edited["metadata"]["namespace"] = "nowhere"
        return Session(world.ticket, (("m.yaml", text(edited)),), ("kubectl diff -f m.yaml",))
    other = rng.choice(world.of(rng.choice(kinds)))
    both = text(edited) + "---\n" + text(changed(rng, manifest(other.raw)))
    flags = rng.choice(["", " -l lab=x", " -l app", " --show-managed-fields"])
    return Session(world.ticket, (("m.yaml", both),), (f"kubectl diff -f m.yaml{flags}",))


def generate(seed: int, count: int) -> list[Session]:
    """`count` sessions from `seed`, round-robin over every ticket."""
    rng = random.Random(seed)
    names = tickets()
    out: list[Session] = []
    while len(out) < count:
        drawn = session(rng, facts(names[len(out) % len(names)]))
        if drawn is not None:
            out.append(drawn)
    return out
