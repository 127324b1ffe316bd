"""kubectl for the lab: one module per verb, each a client of the cluster API only.

Tables come from the API server's printers (`simulators.cluster.printers`), formatted as
kubectl's HumanReadablePrinter does; describers are client-side as in kubectl.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

import yaml

from simulators.cluster.api import ApiError
from simulators.controllers.runtime import klog
from simulators.engine.mig import NAMED_LAYOUTS
from simulators.lab import files
from simulators.lab.flags import Flag, FlagError, Parsed, parse
from simulators.lab.kubeconfig import KubeconfigError
from simulators.lab.kubectl import (
    api_resources,
    apply,
    apply_last_applied,
    auth,
    cluster_info,
    completion,
    config,
    connection,
    cordon,
    delete,
    describe,
    diff,
    drain,
    edit,
    events,
    exec,
    explain,
    expose,
    get,
    label,
    logs,
    options,
    patch,
    rollout,
    scale,
    set_image,
    streaming,
    taint,
    top,
    version,
    wait,
)
from simulators.lab.kubectl import run as run_verb
from simulators.lab.kubectl.common import (
    KubectlError,
    builder_gets,
    check_verbosity,
    error_text,
    process_id,
    see,
)
from simulators.lab.kubectl.find import minus_first, strip_flags
from simulators.lab.kubectl.help import command_path, global_page, unknown_topic
from simulators.lab.kubectl.help import page as help_page
from simulators.lab.kubectl.unserved import refusal
from simulators.lab.tool import Context, Output, streams


@dataclass(frozen=True)
class Verb:
    flags: list[Flag]
    run: Callable[[Context, Parsed], Output]
    interspersed: bool = True
    # What pflag's error is followed by: the verb's SetFlagErrorFunc, else see().
    hint: str | None = None


VERBS: dict[str, Verb] = {
    "annotate": Verb(label.FLAGS, label.run_annotate),
    "api-resources": Verb(api_resources.FLAGS, api_resources.run),
    "api-versions": Verb(api_resources.VERSIONS_FLAGS, api_resources.run_versions),
    "apply": Verb(apply_last_applied.FLAGS, apply_last_applied.run_apply),
    "auth": Verb(auth.FLAGS, auth.run),
    "cluster-info": Verb(cluster_info.FLAGS, cluster_info.run),
    "completion": Verb(completion.FLAGS, completion.run),
    "config": Verb(config.FLAGS, config.run),
    "cordon": Verb(cordon.FLAGS, cordon.run_cordon),
    "create": Verb(apply.CREATE_FLAGS, apply.run_create),
    "delete": Verb(delete.FLAGS, delete.run),
    "describe": Verb(describe.FLAGS, describe.run),
    "diff": Verb(diff.FLAGS, diff.run),
    "drain": Verb(drain.FLAGS, drain.run),
    "edit": Verb(edit.FLAGS, edit.run),
    "events": Verb(events.FLAGS, events.run),
    "exec": Verb(exec.FLAGS, exec.run),
    "explain": Verb(explain.FLAGS, explain.run),
    "expose": Verb(expose.FLAGS, expose.run),
    "get": Verb(get.FLAGS, streaming.get),
    "label": Verb(label.FLAGS, label.run_label),
    "logs": Verb(logs.FLAGS, streaming.logs),
    "options": Verb(options.FLAGS, options.run, hint=options.HINT),
    "patch": Verb(patch.FLAGS, patch.run),
    "replace": Verb(apply.REPLACE_FLAGS, apply.run_replace),
    "rollout": Verb(rollout.FLAGS, streaming.rollout),
    "run": Verb(run_verb.FLAGS, run_verb.run),
    "scale": Verb(scale.FLAGS, scale.run),
    "set": Verb(set_image.FLAGS, set_image.run, interspersed=False),
    "taint": Verb(taint.FLAGS, taint.run),
    "top": Verb(top.FLAGS, top.run),
    "uncordon": Verb(cordon.FLAGS, cordon.run_uncordon),
    "version": Verb(version.FLAGS, version.run),
    "wait": Verb(wait.FLAGS, functools.partial(streaming.wait, wait.run)),
}


def run(ctx: Context, args: list[str]) -> Output:
    """One kubectl line's words (after `kubectl`): the command found as cobra finds it (find)."""
    words = strip_flags(args, options.ROOT_FLAGS)
    if not words:
        return _root(args)
    sub = words[0]
    if sub not in COMMANDS and args[0].startswith("-") and _first_word(args) != "help":
        # Nothing found: kubectl looks for a plugin (cobra's help command is not added yet),
        # unless the line's first word that is not a flag is "help".
        return Output.error(f"Error: flags cannot be placed before plugin name: {args[0]}")
    tail = minus_first(args, sub, options.ROOT_FLAGS)
    if sub == "help":
        return _help(tail)
    if (refused := refusal(sub)) is not None:
        return refused
    verb = VERBS.get(sub)
    if verb is None:
        message = f'error: unknown command "{sub}" for "kubectl"'
        suggestions = suggest(sub)
        if suggestions:
            message += "\n\nDid you mean this?\n" + "\n".join(f"\t{s}" for s in suggestions)
        return Output.error(message)
    try:
        parsed = parse(tail, verb.flags, verb.interspersed)
        check_verbosity(parsed)
    except FlagError as exc:
        return Output.error(f"error: {exc}\n{verb.hint or see(' '.join(command_path(words)))}")
    if parsed.has("help"):
        found = help_page([sub, *parsed.positionals])
        return Output(found if found is not None else see(sub).replace("See", "Use"))
    try:
        if sub != "set":  # set's flags follow its subcommand: it connects once it read them
            # `create rolebinding --user` names a subject: its own flag hides kubectl's.
            own = sub == "create" and parsed.positionals[:1] in (
                ["rolebinding"],
                ["clusterrolebinding"],
            )
            connection.attach(ctx, sub, parsed, own_user=own)
        if sub not in _OWN_NOT_FOUND and (sub, *parsed.positionals[:1]) != ("create", "token"):
            ctx.acting = builder_gets(ctx.api)
        result = verb.run(ctx, parsed)
    except (KubeconfigError, KubectlError) as exc:
        result = Output.error(str(exc))
    except ApiError as exc:
        result = Output.error(error_text(exc))
    finally:
        ctx.acting = None
    return _logged_first(ctx, parsed, result)


# Verbs whose NotFound is not the resource builder's (delete deletes without a get; logs words
# its own; top reads metrics; auth asks the server's reviews, as the user it impersonates;
# `create token` too, which posts to the account's token subresource at once).
_OWN_NOT_FOUND = frozenset({"delete", "logs", "top", "auth"})


def _config_candidates(ctx: Context, positionals: list[str], current: str) -> list[str]:
    """`kubectl config <Tab>`: its subcommands, then the names each one takes first."""
    if not positionals:
        return _starting(sorted(config.SUBCOMMANDS), current)
    section = _CONFIG_NAMES.get(positionals[0]) if len(positionals) == 1 else None
    return _starting(connection.names(ctx, section), current) if section else []


# The kubeconfig's names a flag takes, by its section.
_NAME_FLAGS = {"--context": "contexts", "--cluster": "clusters", "--user": "users"}
_CONFIG_NAMES = {
    "use-context": "contexts",
    "use": "contexts",
    "delete-context": "contexts",
    "rename-context": "contexts",
    "get-contexts": "contexts",
    "set-context": "contexts",
    "delete-cluster": "clusters",
    "set-cluster": "clusters",
    "delete-user": "users",
    "set-credentials": "users",
}


def _help(args: list[str]) -> Output:
    """cobra's help command (`kubectl help create deploy`): its flags read, then the page of
    the command its words name, or "Unknown help topic" on stderr."""
    parsed = _global_flags(args, "kubectl help")
    if isinstance(parsed, Output):
        return parsed
    if not parsed.positionals:
        return Output(global_page("kubectl"))
    found = help_page(parsed.positionals)
    if found is None:
        return Output(text="", stderr=unknown_topic(parsed.positionals))
    return Output(found)


def _first_word(args: list[str]) -> str:
    return next((word for word in args if not word.startswith("-")), "")


def _root(args: list[str]) -> Output:
    """kubectl itself, no command named: its flags read, then its page."""
    parsed = _global_flags(args, "kubectl")
    return parsed if isinstance(parsed, Output) else Output(global_page("kubectl"))


def _global_flags(args: list[str], command: str) -> Parsed | Output:
    """The words read with kubectl's global flags alone, or the error pflag gives them."""
    try:
        parsed = parse(args, options.FLAGS)
        check_verbosity(parsed)
    except FlagError as exc:
        return Output.error(f"error: {exc}\nSee '{command} --help' for usage.")
    return parsed


def _logged_first(ctx: Context, parsed: Parsed, result: Output) -> Output:
    """What the command wrote to stderr as it read its flags (Parsed.warned), ahead of the rest
    of its stderr: kubectl writes those lines at once, before anything else; a klog warning
    with klog's header."""
    if not parsed.warned:
        return result
    pid = process_id(ctx)
    now = ctx.api.now()
    early = [
        klog(now, "W", where, line, pid=pid) if where else line for where, line in parsed.warned
    ]
    out, err = streams("kubectl", result)
    return replace(result, text=out, stderr="\n".join([*early, *([err] if err else [])]))


# kubectl's commands in the order it registers them (it turns cobra's sorting off), which is
# the order cobra suggests them in.
COMMANDS = [
    "create",
    "expose",
    "run",
    "set",
    "explain",
    "get",
    "edit",
    "delete",
    "rollout",
    "scale",
    "autoscale",
    "certificate",
    "cluster-info",
    "top",
    "cordon",
    "uncordon",
    "drain",
    "taint",
    "describe",
    "logs",
    "attach",
    "exec",
    "port-forward",
    "proxy",
    "cp",
    "auth",
    "debug",
    "events",
    "diff",
    "apply",
    "patch",
    "replace",
    "wait",
    "kustomize",
    "label",
    "annotate",
    "completion",
    "api-resources",
    "api-versions",
    "config",
    "kuberc",
    "plugin",
    "version",
    "options",
]


def suggest(word: str) -> list[str]:
    """cobra's SuggestionsFor: a Levenshtein distance of at most 2 (ignoring case), or a
    command the word begins."""
    lower = word.lower()
    return [c for c in COMMANDS if _distance(lower, c) <= 2 or c.startswith(lower)]


def _distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


# ------------------------------------------------------------------------- completion


def complete(ctx: Context, words: list[str], current: str) -> list[str]:
    """Candidates for `kubectl WORDS CURRENT`: verbs, flags, resource types, names."""
    if not words:
        return _starting(sorted(VERBS), current)
    sub = words[0]
    verb = VERBS.get(sub)
    if verb is None:
        return []
    if current.startswith("-"):
        options = [f"--{f.long}" for f in verb.flags if f.long] + [
            f"-{f.short}" for f in verb.flags if f.short
        ]
        return _starting(sorted(options), current)
    positionals = _positionals(words[1:], verb.flags)
    if words[-1] in _NAME_FLAGS:
        return _starting(connection.names(ctx, _NAME_FLAGS[words[-1]]), current)
    if sub == "config":
        return _config_candidates(ctx, positionals, current)
    cluster = ctx.api
    if words[-1] in ("-L", "--label-columns", "-l", "--selector"):
        return _label_candidates(ctx, current, with_values=words[-1] in ("-l", "--selector"))
    if words[-1] in ("-n", "--namespace"):
        return _starting(_names(ctx, "namespaces", None), current)
    if sub in ("cordon", "uncordon", "drain"):
        return _starting(_names(ctx, "nodes", None), current)
    if sub in ("logs", "exec"):
        if positionals:
            return []
        return _starting(_names(ctx, "pods", _ns(words)), current)
    if sub in ("get", "describe", "label", "annotate", "delete", "patch", "edit", "scale"):
        if not positionals:
            types = sorted({i.plural for i in cluster.resources()})
            return _starting(types, current)
        try:
            info = cluster.resolve(positionals[0])
        except ApiError:
            return []
        if sub == "label" and len(positionals) >= 2:
            return _label_candidates(ctx, current, with_values=True)
        if sub == "annotate" and len(positionals) >= 2:
            return []
        return _starting(_names(ctx, info.key, _ns(words) if info.namespaced else None), current)
    if sub == "rollout" and not positionals:
        return _starting(["history", "pause", "restart", "resume", "status", "undo"], current)
    if sub in ("apply", "create", "diff", "replace") and words[-1] in ("-f", "--filename"):
        return _starting(files.completed(ctx, current), current)
    return []


def _ns(words: list[str]) -> str:
    for i, w in enumerate(words):
        if w in ("-n", "--namespace") and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--namespace="):
            return w.partition("=")[2]
    return "default"


def _positionals(words: list[str], flags: list[Flag]) -> list[str]:
    valued = {f"--{f.long}" for f in flags if f.takes_value and f.long} | {
        f"-{f.short}" for f in flags if f.takes_value and f.short
    }
    out: list[str] = []
    skip = False
    for w in words:
        if skip:
            skip = False
            continue
        if w in valued:
            skip = True
            continue
        if w.startswith("-"):
            continue
        out.append(w)
    return out


def _names(ctx: Context, resource: str, namespace: str | None) -> list[str]:
    try:
        items = ctx.api.list(resource, namespace).get("items", [])
    except ApiError:
        return []
    return sorted(str(i["metadata"]["name"]) for i in items)


MIG_CONFIG_LABEL = "nvidia.com/mig.config"


def _mig_layouts(ctx: Context) -> list[str]:
    """The layouts MIG Manager's config offers (the ConfigMap the ClusterPolicy names)."""
    cluster = ctx.api
    try:
        policies = cluster.list("clusterpolicies.nvidia.com").get("items", [])
        spec = (policies[0].get("spec") or {}) if policies else {}
        name = ((spec.get("migManager") or {}).get("config") or {}).get("name")
        config = cluster.get("configmaps", str(name or "default-mig-parted-config"), "gpu-operator")
        parsed = yaml.safe_load(str((config.get("data") or {}).get("config.yaml", ""))) or {}
        return sorted(str(k) for k in (parsed.get("mig-configs") or {}))
    except (ApiError, yaml.YAMLError, AttributeError):
        return sorted(NAMED_LAYOUTS)


def _label_candidates(ctx: Context, current: str, with_values: bool) -> list[str]:
    """Node label keys (and `key=value` pairs for label and -l), MIG layouts for mig.config."""
    try:
        nodes = ctx.api.list("nodes").get("items", [])
    except ApiError:
        return []
    labels = [n["metadata"].get("labels") or {} for n in nodes]
    prefix, _, word = current.rpartition(",")
    prefix = f"{prefix}," if prefix else ""
    if with_values and "=" in word:
        key = word.partition("=")[0]
        values = {str(lab[key]) for lab in labels if key in lab}
        if key == MIG_CONFIG_LABEL:
            values.update(_mig_layouts(ctx))
        return _starting(sorted(f"{prefix}{key}={v}" for v in values), current)
    keys = sorted({str(k) for lab in labels for k in lab})
    suffix = "=" if with_values else ""
    return _starting([f"{prefix}{k}{suffix}" for k in keys], current)


def _starting(options: list[str], current: str) -> list[str]:
    return [o for o in options if o.startswith(current)]


__all__ = ["VERBS", "complete", "describe", "run"]
