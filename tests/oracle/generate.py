"""The generated oracle: kubectl command lines composed from a grammar over a ticket's world.

`generate(seed, count)` draws `count` commands spread over every ticket. Every name a
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
from collections.abc import Callable

from tests.oracle.pieces import (
    Case,
    Draw,
    Obj,
    facts,
    join_words,
    list_output,
    matches,
    one_output,
    tickets,
)

# ------------------------------------------------------------------------- families

Family = Callable[[Draw, bool], Case | None]


def get_list(d: Draw, more: bool) -> Case:
    kind = d.kind_with_objects()
    scope, objs = d.scope(kind)
    sel = ""
    if d.chance(0.3):
        sel = d.selector(objs or d.world.of(kind.key))
        objs = [o for o in objs if matches(sel, o)]
    out, name = list_output(d, more, empty=not objs)
    return Case(
        d.world.ticket, join_words("kubectl get", d.name_of(kind), scope, sel, out), "get", name
    )


def get_one(d: Draw, more: bool) -> Case:
    kind = d.kind_with_objects()
    obj = d.obj(kind.key)
    assert obj is not None
    out, name = one_output(d, more, labelled=bool(obj.labels))
    target = f"{d.name_of(kind)} {obj.name}"
    if d.chance(0.2):
        target = f"{d.pick(kind.names[:1] + kind.names[2:3])}/{obj.name}"
    return Case(d.world.ticket, join_words("kubectl get", target, d.ns_flag(obj), out), "get", name)


def get_several(d: Draw, more: bool) -> Case:
    keys = [k for k in ("pods", "services", "deployments.apps", "daemonsets.apps", "configmaps")]
    chosen = d.rng.sample(keys, 2)
    names = ",".join(d.pick(d.world.kinds[k].names[:3]) for k in chosen)
    ns = d.pick(d.world.namespaces)
    out = d.pick(["", "-o name", "--no-headers", "--show-kind", "-o wide"])
    if d.chance(0.3):
        names = "all"
    return Case(d.world.ticket, join_words("kubectl get", names, f"-n {ns}", out), "get", out)


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
    line = join_words("kubectl get pods -A", f"--field-selector {sel}", out)
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
        line = join_words("kubectl describe", d.name_of(kind), d.ns_flag(obj), d.selector([obj]))
    else:
        line = join_words("kubectl describe", d.name_of(kind), obj.name, d.ns_flag(obj))
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
    target = pod.name
    if more:
        # The further choices come from a generator of the case's own: the shared one draws
        # as it did before them, so the fixed seed's other commands stay the same.
        own = random.Random(f"{d.world.ticket} {pod.namespace}/{pod.name} {' '.join(opts)}")
        target, extra = logs_more(own, pod, containers, opts)
        opts += extra
    return Case(d.world.ticket, join_words("kubectl logs", target, d.ns_flag(pod), *opts), "logs")


# Flags of `kubectl logs --help` whose effect the lab's logs can show (its log store keeps
# no times, so --since, --since-time and --timestamps change nothing), and values kubectl
# refuses. Not drawn: -f (it streams), --limit-bytes below a log's size (the lab's apiserver
# ignores limitBytes, so the real kubectl does not cut), and whatever reads several logs of a
# named object in a Go map's random order (--all-pods, --all-containers of several).
LOGS_FLAGS = [
    "--prefix",
    "--timestamps",
    "--since=1h",
    "--since-time=2024-08-30T06:00:00Z",
    "-p",
    "--ignore-errors",
    "--insecure-skip-tls-verify-backend",
    "--pod-running-timeout=20s",
    "--limit-bytes=1048576",
    "--since=1",
    "--since=-1h",
    "--tail=-2",
    "--limit-bytes=-1",
    "--pod-running-timeout=0",
    "--since-time=2024-08-30",
    "--since-time=2024-02-30T06:00:00Z",
    "--since=1h --since-time=2024-08-30T06:00:00Z",
]
LOGS_OWNERS = {"ReplicaSet": "rs", "DaemonSet": "daemonset", "StatefulSet": "sts", "Job": "job"}


def logs_more(
    own: random.Random, pod: Obj, containers: list[str], opts: list[str]
) -> tuple[str, list[str]]:
    """What kubectl logs reads (the pod, its owner, a label of it) and a flag or two more."""
    target = pod.name
    owner = (pod.raw["metadata"].get("ownerReferences") or [{}])[0]
    r = own.random()
    if r < 0.2 and owner.get("kind") in LOGS_OWNERS:
        target = f"{LOGS_OWNERS[owner['kind']]}/{owner['name']}"
    elif r < 0.35 and pod.labels:
        key, value = own.choice(pod.labels)
        # The logs of several pods come in a random order (compared as sets); an error would
        # stop at a random one, so each is printed and passed over.
        more = ["--prefix", ""] + ([] if any("--tail" in o for o in opts) else ["--tail=2"])
        return f"-l {key}={value}", [own.choice(more), "--ignore-errors"]
    extra = [own.choice(LOGS_FLAGS)] if own.random() < 0.7 else []
    if len(containers) == 1 and own.random() < 0.15:
        extra.append("--all-containers")
    if own.random() < 0.1:
        extra.append(own.choice([containers[0], "nope"]))  # an inline [CONTAINER]
    return target, extra


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
        # tls.X509KeyPair: another key of the same type, then a key of another type.
        ("kubectl create secret tls lab-tls --cert=tls.crt --key=other.key", "bad-value"),
        ("kubectl create secret tls lab-tls --cert=tls.crt --key=rsa.key", "bad-value"),
        ("kubectl create role lab-role --verb=get --resource=podz", "typo-kind"),
    ]
    if more:
        # A namespace that is not there: the resource builder asks for it after a NotFound.
        verb = d.pick(["get", "describe", "edit", "label", "annotate", "rollout status"])
        change = " a=b" if verb in ("label", "annotate") else ""
        lines += [
            (f"kubectl {verb} {kind.names[0]} {obj.name} -n nothing-here{change}", "no-namespace"),
            (f"kubectl get {kind.names[0]} -o {d.pick(['yaml', 'name'])} --show-labels", "flags"),
            (f"kubectl get {kind.names[0]} --output-watch-events", "flags"),
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
    out = d.pick(
        [
            "",
            "",
            "-o name",
            "--dry-run=client",
            "--dry-run=server -o yaml",
            "--dry-run",
            "--dry-run=t",
        ]
    )
    line = join_words(f"kubectl {verb}", target, d.ns_flag(obj), change, out)
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
    # What restart, pause, resume and undo print the object they changed with (PrintFlags).
    out = d.pick(PRINTED_OUTPUTS)
    undo_dry = d.pick(["", "--dry-run=client", "--dry-run=server", "--dry-run"])
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
        (f"kubectl rollout restart {name} {ns} {out}", "rollout"),
        (f"kubectl rollout {d.pick(['pause', 'resume'])} {name} {ns} {out}", "rollout"),
        (f"kubectl rollout undo {name} {ns} {undo_dry} {out}", "rollout"),
        (f"kubectl set image {name} {ns} {container}=registry.local/img:v2", "set"),
        (f"kubectl wait --for=condition=Available {name} {ns} --timeout=1s", "wait"),
    ]
    if more:
        # expose creates with a POST: see create_ops.
        lines.append((f"kubectl expose {name} {ns} --port=80 --name=lab-svc {out}", "expose"))
    line, verb = d.pick(lines)
    if more and verb == "set":
        # set's other subcommands come from a generator of the case's own: the shared one
        # draws as it did before them, so the fixed seed's other commands stay the same.
        own = random.Random(f"{d.world.ticket} {line}")
        out = own.choice(["", "-o name", "-o yaml", "--dry-run=client", "--dry-run=server"])
        line = own.choice([line, *set_more_lines(name, ns, container, out)])
    if more and verb == "scale":
        # --all and -l, from a generator of the case's own (as set's above).
        own = random.Random(f"{d.world.ticket} {line}")
        size = own.choice([0, 1, 2])
        variants = [line, f"kubectl scale deployments --all {ns} --replicas={size}"]
        variants.append(f"kubectl scale deploy {ns} --replicas={size}")
        if dep.labels:
            key, value = own.choice(dep.labels)
            more_flags = own.choice(["", "--dry-run=server -o name", f"--current-replicas={size}"])
            variants.append(f"kubectl scale deploy -l {key}={value} {ns} --replicas=1 {more_flags}")
        line = own.choice(variants)
    shown = out if out and line.endswith(out) else ""
    return Case(d.world.ticket, join_words(*line.split(" ")), verb, shown, writes=True)


def set_more_lines(name: str, ns: str, container: str, out: str) -> list[str]:
    """kubectl set env, resources and serviceaccount on a Deployment, from their --help
    examples: changes, removals, listings, overwrite refusals and kubectl's errors."""
    return [
        f"kubectl set env {name} {ns} LAB_MODE=test {out}",
        f"kubectl set env {name} {ns} --list",
        f"kubectl set env {name} {ns} -c {container} LAB_A=1 LAB_B=x=y {out}",
        f"kubectl set env {name} {ns} LAB_GONE-",
        f"kubectl set env {name} {ns} -e LAB_A=1 LAB_A- {out}",
        f"kubectl set env {name} {ns} -c nope LAB_A=1",
        f"kubectl set env {name} {ns} 1LAB=x",
        f"kubectl set resources {name} {ns} -c {container} --limits=cpu=200m,memory=512Mi {out}",
        f"kubectl set resources {name} {ns} --requests=cpu=0.5,memory=1024Mi {out}",
        f"kubectl set resources {name} {ns} --limits=cpu=0,memory=0 --requests=cpu=0,memory=0",
        f"kubectl set resources {name} {ns} --limits=cpu=abc",
        f"kubectl set resources {name} {ns} -c nope --limits=cpu=1",
        f"kubectl set serviceaccount {name} {ns} lab-sa {out}",
    ]


def daemon_ops(d: Draw, more: bool) -> Case:
    """rollout over a DaemonSet or StatefulSet: their history is ControllerRevisions."""
    key = d.pick(["daemonsets.apps", "statefulsets.apps"])
    obj = d.obj(key)
    if obj is None:
        return deployment_ops(d, more)
    ns = d.ns_flag(obj)
    name = d.pick(
        [f"{key.split('.')[0][:-1]}/{obj.name}", f"{'ds' if 'daemon' in key else 'sts'}/{obj.name}"]
    )
    out = d.pick(PRINTED_OUTPUTS)
    lines = [
        f"kubectl rollout history {name} {ns}",
        f"kubectl rollout history {name} {ns} --revision={d.pick([1, 2])}",
        f"kubectl rollout history {name} {ns} {d.pick(['-o name', '-o yaml', '-o json'])}",
        f"kubectl rollout undo {name} {ns}",
        f"kubectl rollout undo {name} {ns} --to-revision={d.pick([1, 2])} {out}",
        f"kubectl rollout undo {name} {ns} --to-revision=1 --dry-run=client",
        f"kubectl rollout restart {name} {ns} {out}",
        f"kubectl rollout status {name} {ns}",
    ]
    line = d.pick(lines)
    shown = out if out and line.endswith(out) else ""
    return Case(d.world.ticket, join_words(*line.split(" ")), "rollout", shown, writes=True)


# -o options of the commands that print the object they sent or changed (PrintFlags: no table).
PRINTED_OUTPUTS = [
    "",
    "-o name",
    "-o yaml",
    "-o json",
    "-o jsonpath={.metadata.name}",
    "-o jsonpath-as-json={.spec.replicas}",
    "-o go-template={{.kind}}",
    "-o template={{.metadata.namespace}}",
    "-o jsonpath",
    "-o wide",
]


def create_ops(d: Draw, more: bool) -> Case:
    ns = d.pick(d.world.namespaces)
    dry = d.pick(
        [
            "--dry-run=client -o yaml",
            "--dry-run=client",
            "--dry-run=client -o name",
            "--dry-run=client -o json",
            "--dry-run=client -o jsonpath={.metadata.name}",
            "--dry-run=client -o go-template={{.kind}}",
            "--dry-run=client -o template={{.apiVersion}}",
            "--dry-run=client -o jsonpath-as-json={.metadata}",
            "--dry-run=client -o wide",
            "--dry-run=client -o jsonpath",
            "--dry-run -o yaml",
            "--dry-run=true -o name",
        ]
    )
    if more and d.chance(0.5):
        # A create that reaches the server (the apiserver decodes kubectl's protobuf bodies).
        dry = d.pick(
            ["", "--dry-run=server -o json", "--dry-run=server", "-o jsonpath={.metadata.name}"]
        )
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
        output = d.pick(["", "", "-o yaml", "-o json", "-o name", "-o jsonpath={.kind}"])
        more_flags = d.pick(["", "--duration=10m", "--duration=2h", "--audience=lab"])
        line = f"kubectl create token {sa.name} -n {sa.namespace} {more_flags} {output}"
        return Case(d.world.ticket, join_words(*line.split(" ")), "create", output, writes=True)
    line, verb = d.pick(lines)
    if more:
        # The generators' further flags (--from-file, --from=cronjob/..., ingress annotations,
        # quota scopes, a headless service) come from a generator of the case's own, so the
        # shared one draws as before and the fixed seed's other commands stay the same.
        own = random.Random(f"{d.world.ticket} {line}")
        if own.random() < 0.5:
            line = own.choice(create_more_lines(ns, dry))
    return Case(d.world.ticket, join_words(*line.split(" ")), verb, dry, writes=True)


def create_more_lines(ns: str, dry: str) -> list[str]:
    """The create generators' flags from their --help examples: files of the oracle's folder
    (tests/oracle/files) and missing ones, ingress rules, a Job from a CronJob the world lacks,
    priority classes, scoped quotas, a headless service and an existing ClusterRoleBinding."""
    return [
        f"kubectl create configmap lab-cm -n {ns} --from-file=tls.crt --from-file=k=tls.key {dry}",
        f"kubectl create configmap lab-cm -n {ns} --from-file=tls.crt,other.key --append-hash "
        f"{dry}",
        f"kubectl create configmap lab-cm -n {ns} --from-file=path/to/bar {dry}",
        f"kubectl create configmap lab-cm -n {ns} --from-env-file=path/to/bar.env {dry}",
        f"kubectl create configmap lab-cm -n {ns} --from-literal=a=1 --from-literal=a=2 {dry}",
        f"kubectl create configmap lab-cm -n {ns} --from-literal=a/b=1 {dry}",
        f"kubectl create secret generic lab-secret -n {ns} --from-file=ssh-privatekey=rsa.key "
        f"--from-literal=passphrase=topsecret {dry}",
        f"kubectl create secret generic lab-secret -n {ns} --from-file=rsa.key --append-hash {dry}",
        f"kubectl create secret docker-registry regcred -n {ns} "
        f"--from-file=path/to/.docker/config.json {dry}",
        f"kubectl create ingress annotated -n {ns} --class=default --rule=foo.com/bar=svc:port "
        f"--annotation=ingress.annotation1=foo --annotation=ingress.annotation2=bla {dry}",
        f"kubectl create ingress ingdefault -n {ns} --class=default "
        f"--default-backend=defaultsvc:http '--rule=foo.com/*=svc:8080,tls=secret1' {dry}",
        f"kubectl create ingress bad -n {ns} --rule=foo {dry}",
        f"kubectl create job test-job -n {ns} --from=cronjob/a-cronjob {dry}",
        f"kubectl create job test-job -n {ns} --from=cronjob {dry}",
        "kubectl create priorityclass high-priority --value=1000 --description=high "
        f"--preemption-policy=Never {dry}",
        f"kubectl create priorityclass p --value=99999999999 {dry}",
        f"kubectl create quota best-effort -n {ns} --hard=pods=100,cpu=1000m,memory=1024Mi "
        f"--scopes=BestEffort {dry}",
        f"kubectl create quota q -n {ns} --scopes=BestEffort,,x {dry}",
        f"kubectl create service clusterip my-cs -n {ns} --clusterip=None {dry}",
        f"kubectl create service nodeport my-ns -n {ns} --clusterip=None {dry}",
        "kubectl create clusterrolebinding cluster-admin --clusterrole=cluster-admin "
        f"--user=user1 --user=user2 --group=group1 {dry}",
    ]


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
    return Case(d.world.ticket, join_words(*line.split(" ")), verb, writes=True)


def run_ops(d: Draw, more: bool) -> Case:
    """kubectl run's own flags (run.go and its BasicPod generator): labels, annotations, env,
    ports and --expose, restart and pull policies, --privileged, a command and its args,
    --overrides of each type, --save-config; and its mistakes, each in kubectl's order. Attached
    runs (-i, --attach) are left out: the lab refuses them in its own words."""
    ns = d.pick(d.world.namespaces)
    dry = d.pick(
        [
            "--dry-run=client -o yaml",
            "--dry-run=client",
            "--dry-run=client -o json",
            "--dry-run=server -o yaml",
            "-o name",
            "",
        ]
    )
    smi = "--image=nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"
    lines = [
        f"kubectl run web -n {ns} --image=nginx:1.27 --port=8080 {dry}",
        f"kubectl run web -n {ns} --image=nginx -l app=web,tier=fe --annotations=team=ml "
        f"--annotations=owner=kadmin=x {dry}",
        f"kubectl run web -n {ns} --image=nginx --env=MODE=train --env=URL=http://a?b=c {dry}",
        f"kubectl run smoke -n {ns} {smi} --restart=Never {dry} -- nvidia-smi -L",
        f"kubectl run smoke -n {ns} --image=busybox --restart=OnFailure --command {dry} "
        "-- sleep 60",
        f"kubectl run smoke -n {ns} --image=busybox a b {dry} -- c d",
        f"kubectl run web -n {ns} --image=nginx --privileged --image-pull-policy=Always {dry}",
        f"kubectl run web -n {ns} --image=nginx --port=80 --expose {dry}",
        f"kubectl run web -n {ns} --image=nginx --port=80 --expose -l app=web {dry}",
        f"kubectl run web -n {ns} --image=nginx --save-config {dry}",
        f"kubectl run web -n {ns} --image=nginx "
        """--overrides='{"spec":{"nodeSelector":{"nvidia.com/gpu.present":"true"}}}' """
        f"{dry}",
        f"kubectl run web -n {ns} --image=nginx --override-type=strategic --overrides="
        """'{"spec":{"containers":[{"name":"web","resources":{"limits":{"cpu":0.5,"""
        """"nvidia.com/gpu":1}}}]}}' """
        f"{dry}",
        f"kubectl run web -n {ns} --image=nginx --override-type=json "
        """--overrides='[{"op":"add","path":"/spec/hostNetwork","value":true}]' """
        f"{dry}",
    ]
    mistakes = [
        f"kubectl run web -n {ns} --image=nginx --replicas=2",
        f"kubectl run web -n {ns} --image=busybox -t",
        f"kubectl run web -n {ns} --image=nginx --rm",
        f"kubectl run web -n {ns} --image=busybox -it --dry-run=client -o yaml",
        f"kubectl run web -n {ns} --image=nginx --restart=Sometimes",
        f"kubectl run web -n {ns} --image=nginx --image-pull-policy=Maybe",
        f"kubectl run web -n {ns} --image=nginx -l app",
        f"kubectl run web -n {ns} --image=nginx --env=1A=b",
        f"kubectl run web -n {ns} --image=nginx --annotations=a",
        f"kubectl run web -n {ns} --image=Nginx",
        f"kubectl run web -n {ns} --image=nginx --port=http",
        f"kubectl run web -n {ns} --image=nginx --expose",
        f"kubectl run web -n {ns} --image=nginx --pod-running-timeout=0s",
        f"kubectl run -n {ns} --image=nginx -- web",
        f"kubectl run web -n {ns} --image=nginx --overrides='{{\"spec\":'",
        f"kubectl run web -n {ns} --image=nginx --override-type=json "
        """--overrides='[{"op":"remove","path":"/spec/nope"}]'""",
    ]
    pod = d.obj("pods")
    if pod is not None and pod.namespace:
        mistakes.append(f"kubectl run {pod.name} -n {pod.namespace} --image=nginx")
    line = d.pick(lines) if d.chance(0.6) else d.pick(mistakes)
    shown = dry if dry and dry in line else ""
    return Case(d.world.ticket, join_words(*line.split(" ")), "run", shown, writes=True)


# --template beside -o, as PrintFlags reads the pair (printing.output_format).
TEMPLATE_PAIRS = [
    "--template={{.metadata.name}}",
    "-o jsonpath --template={.metadata.name}",
    "-o go-template --template={{.kind}}",
    "-o jsonpath={.kind} --template={.metadata.name}",
    "-o yaml --template={{.kind}}",
    "--template=",
]


def print_flags(d: Draw, more: bool) -> Case:
    """The commands that print what they changed, with every printer option (-o, --template)
    and dry run: patch, label, annotate, taint, scale (and its preconditions), set image; and
    get with --template and --subresource."""
    out = d.pick([*PRINTED_OUTPUTS, *TEMPLATE_PAIRS])
    dry = d.pick(["", "", "--dry-run=client", "--dry-run=server"])
    kind = d.kind_with_objects()
    obj = d.obj(kind.key)
    assert obj is not None
    target, ns = f"{kind.names[0]} {obj.name}", d.ns_flag(obj)
    node = d.obj("nodes")
    lines = [
        (f"kubectl label {target} {ns} lab-print=yes --overwrite {dry} {out}", "label"),
        (f"kubectl annotate {target} {ns} lab-print- {dry} {out}", "annotate"),
        (
            f"kubectl patch {target} {ns} --type merge "
            + """-p '{"metadata":{"labels":{"lab":"p"}}}' """
            + f"{dry} {out}",
            "patch",
        ),
        (f"kubectl patch {target} {ns} -p '{{}}' {dry} {out}", "patch"),
        (f"kubectl get {target} {ns} {out}", "get"),
    ]
    if node is not None:
        effect = d.pick(["NoSchedule", "PreferNoSchedule"])
        lines.append((f"kubectl taint node {node.name} lab=x:{effect} {dry} {out}", "taint"))
        lines.append((f"kubectl taint node {node.name} lab=x:{effect}- {dry} {out}", "taint"))
    for key in ("deployments.apps", "statefulsets.apps", "replicasets.apps"):
        work = d.obj(key)
        if work is None:
            continue
        wns, name = d.ns_flag(work), f"{key.split('.')[0]}/{work.name}"
        size = work.raw.get("spec", {}).get("replicas", 1)
        pre = d.pick(["", f"--current-replicas={size}", f"--current-replicas={size + 1}"])
        lines.append((f"kubectl scale {name} {wns} --replicas={size} {pre} {dry} {out}", "scale"))
        sub = d.pick(["status", "scale", "status", "foo"])
        lines.append((f"kubectl get {name} {wns} --subresource={sub} {out}", "get"))
        container = work.raw["spec"]["template"]["spec"]["containers"][0]
        image = d.pick([container["image"], "registry.local/img:v9"])
        line = f"kubectl set image {name} {wns} {container['name']}={image} {dry} {out}"
        lines.append((line, "set"))
    line, verb = d.pick(lines)
    return Case(d.world.ticket, join_words(*line.split(" ")), verb, out, writes=True)


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
    "daemon-ops": (daemon_ops, 0.5),
    "create": (create_ops, 1.0),
    "patch-delete": (patch_delete, 1.0),
    "print-flags": (print_flags, 1.5),
    "run": (run_ops, 1.0),
}


def generate(seed: int, count: int, more: bool = True) -> list[Case]:
    """`count` cases from `seed`, round-robin over every ticket.

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
