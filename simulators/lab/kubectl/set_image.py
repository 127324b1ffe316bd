"""kubectl set SUBCOMMAND: the dispatcher (each subcommand parses its own flags, as cobra gives
each its own flag set), and kubectl set image TYPE/NAME CONTAINER=IMAGE ... (`*=IMAGE` for
every container) as k8s.io/kubectl/pkg/cmd/set/set_image.go.

The `set` verb's FLAGS are every subcommand's (completion offers them). The verb parses its
words only up to the subcommand's name, and the words after it with that subcommand's own flags,
so a flag another subcommand has is kubectl's unknown-flag error. A flag written before the
subcommand counts as the subcommand's when it has a value; a bare boolean one there is
kubectl's unknown flag of `set` (cobra took the subcommand's name for its value).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from simulators.lab.flags import Flag, FlagError, Parsed, parse, parse_bool
from simulators.lab.gotext import go_quote
from simulators.lab.kubectl import (
    connection,
    set_env,
    set_resources,
    set_selector,
    set_serviceaccount,
    set_subject,
)
from simulators.lab.kubectl.common import COMMON, KubectlError, builder_gets, dry_run, see, usage
from simulators.lab.kubectl.help import page as help_page
from simulators.lab.kubectl.set_common import (
    BASE_FLAGS,
    LOCAL_RESOURCE,
    SELECTOR,
    Change,
    Failure,
    edited_pod_spec,
    find,
    printer,
    send_all,
)
from simulators.lab.tool import Context, Output

IMAGE_FLAGS = [*BASE_FLAGS, SELECTOR]

HELP = """Configure application resources.

 These commands help you make changes to existing application resources.

Available Commands:
  env              Update environment variables on a pod template
  image            Update the image of a pod template
  resources        Update resource requests/limits on objects with pod templates
  selector         Set the selector on a resource
  serviceaccount   Update the service account of a resource
  subject          Update the user, group, or service account in a role binding or cluster \
role binding

Usage:
  kubectl set SUBCOMMAND [options]

Use "kubectl set <command> --help" for more information about a given command.
Use "kubectl options" for a list of global command-line options (applies to all commands)."""


def resources_and_pairs(args: list[str], pair_type: str) -> tuple[list[str], list[str]]:
    """cmdutil.GetResourcesAndPairs: resources first, then every `K=V` or `K-`."""
    resources: list[str] = []
    pairs: list[str] = []
    for arg in args:
        change = ("=" in arg and not arg.startswith("=")) or (arg.endswith("-") and arg != "-")
        if change:
            pairs.append(arg)
        elif pairs:
            raise KubectlError(
                f"error: all resources must be specified before {pair_type} changes: {arg}"
            )
        else:
            resources.append(arg)
    return resources, pairs


def pairs_and_removals(
    pairs: list[str], pair_type: str, support_remove: bool
) -> tuple[dict[str, str], list[str]]:
    """cmdutil.ParsePairs: `K=V` each, and with `support_remove` `K-` to remove; a ValueError
    naming every other word (`invalid image format: a, b`)."""
    out: dict[str, str] = {}
    removed: list[str] = []
    invalid: list[str] = []
    for pair in pairs:
        if "=" in pair and not pair.startswith("="):
            key, _, value = pair.partition("=")
            out[key] = value
        elif support_remove and pair.endswith("-") and pair != "-":
            removed.append(pair[:-1])
        else:
            invalid.append(pair)
    if invalid:
        raise ValueError(f"invalid {pair_type} format: {', '.join(invalid)}")
    return out, removed


def parse_pairs(pairs: list[str], pair_type: str) -> dict[str, str]:
    """cmdutil.ParsePairs without removals, its error kubectl's line."""
    try:
        return pairs_and_removals(pairs, pair_type, support_remove=False)[0]
    except ValueError as exc:
        raise KubectlError(f"error: {exc}") from None


def run_image(ctx: Context, parsed: Parsed, words: list[str]) -> Output:
    """`kubectl set image`: Complete (printer, pairs, objects), Validate (its errors together),
    Run (a missing container is an error at the end; the other changes are still sent)."""
    del words
    dry = dry_run(parsed)
    output = printer(parsed)
    local = parsed.has("local")
    selector = parsed.value("selector") or ""
    resources, pairs = resources_and_pairs(parsed.positionals, "image")
    images = parse_pairs(pairs, "image")
    if local and resources:
        raise KubectlError(LOCAL_RESOURCE)
    items = find(ctx, parsed, resources, all_flag=parsed.has("all"), selector=selector, local=local)
    errors: list[str] = []
    if parsed.has("all") and selector:
        errors.append("cannot set --all and --selector at the same time")
    if not resources and not parsed.all("filename"):
        errors.append(
            "one or more resources must be specified as <resource> <name> or <resource>/<name>"
        )
    if not images:
        errors.append("at least one image update is required")
    elif len(images) > 1 and "*" in images:
        errors.append(
            "all containers are already specified by *, but saw more than one "
            "container_name=container_image pairs"
        )
    if local and dry == "server":
        errors.append(
            "cannot specify --local and --dry-run=server - did you mean --dry-run=client?"
        )
    if errors:
        raise KubectlError(f"error: {errors[0]}" if len(errors) == 1 else "\n".join(errors))
    failures: list[Failure] = []
    changes: list[Change] = []
    for item in items:
        edited = edited_pod_spec(item)
        if isinstance(edited, Change):
            changes.append(edited)
            continue
        after, spec = edited
        for name, image in images.items():
            found = False
            for key in ("initContainers", "containers"):
                for container in spec.get(key) or []:
                    if name in ("*", container.get("name")):
                        container["image"] = image
                        found = True
            if not found:
                failures.append(Failure(f"error: unable to find container named {go_quote(name)}"))
        changes.append(Change(item, after))
    return send_all(
        ctx,
        changes,
        failures,
        dry=dry,
        local=local,
        output=output,
        operation="image updated",
        patch_failure="failed to patch image update to pod template: ",
    )


@dataclass(frozen=True)
class Subcommand:
    flags: list[Flag]
    # (context, parsed words, the subcommand's own words as typed) -> output
    run: Callable[[Context, Parsed, list[str]], Output]


SUBCOMMANDS: dict[str, Subcommand] = {
    "env": Subcommand(set_env.FLAGS, set_env.run),
    "image": Subcommand(IMAGE_FLAGS, run_image),
    "resources": Subcommand(set_resources.FLAGS, set_resources.run),
    "selector": Subcommand(set_selector.FLAGS, set_selector.run),
    "serviceaccount": Subcommand(set_serviceaccount.FLAGS, set_serviceaccount.run),
    "subject": Subcommand(set_subject.FLAGS, set_subject.run),
}
ALIASES = {"sa": "serviceaccount"}

_GLOBAL = {f.key for f in COMMON}
_BY_KEY: dict[str, Flag] = {}
for _sub in SUBCOMMANDS.values():
    for _flag in _sub.flags:
        _BY_KEY.setdefault(_flag.key, _flag)


def _before_flags() -> list[Flag]:
    """The `set` verb's flags: the global ones, then every subcommand's, each spelling under a
    key of its own (`<key` long, `>key` short) and taking a value, as cobra's stripFlags reads
    a flag it does not know before the subcommand (`--all env` takes `env` for its value)."""
    out = list(COMMON)
    for key, flag in _BY_KEY.items():
        if key in _GLOBAL:
            continue
        if flag.long:
            out.append(Flag(f"<{key}", long=flag.long, takes_value=True))
        if flag.short:
            out.append(Flag(f">{key}", short=flag.short, takes_value=True))
    return out


# What the verb parses up to the subcommand's name (completion offers these names too).
FLAGS = _before_flags()


def _unknown(spelling: str, flag: Flag) -> str:
    if spelling == "<":
        return f"unknown flag: --{flag.long}"
    return f"unknown shorthand flag: '{flag.short}' in -{flag.short}"


def run(ctx: Context, parsed: Parsed) -> Output:
    """`kubectl set SUBCOMMAND ...`: the subcommand parses its own words, with the flags
    written before its name added first (those of another subcommand are kubectl's error)."""
    if not parsed.positionals:
        return Output(HELP, 1)
    action, words = parsed.positionals[0], parsed.positionals[1:]
    name = ALIASES.get(action, action)
    sub = SUBCOMMANDS.get(name)
    before = {k: v for k, v in parsed.values.items() if k[:1] in ("<", ">")}
    for key, values in before.items():
        flag = _BY_KEY[key[1:]]
        if sub is None or (not flag.takes_value and any(parse_bool(v) is None for v in values)):
            # the subcommand was not found: `set` itself refuses the flag
            return Output.error(f"error: {_unknown(key[0], flag)}\n{see('set')}")
    if sub is None:
        raise KubectlError(f'error: unknown command "{action}"\n{usage("set")}')
    try:
        inner = parse(words, sub.flags)
    except FlagError as exc:
        return Output.error(f"error: {exc}\n{see(f'set {name}')}")
    inner.warned = parsed.warned  # what the subcommand warns of is kubectl's (Parsed.warned)
    own = {f.key for f in sub.flags}
    for key, values in before.items():
        flag = _BY_KEY[key[1:]]
        if flag.key not in own:
            return Output.error(f"error: {_unknown(key[0], flag)}\n{see(f'set {name}')}")
        if flag.takes_value:
            inner.values[flag.key] = [*values, *inner.values.get(flag.key, [])]
        elif flag.key not in inner.bools and parse_bool(values[-1]) is True:
            inner.bools.add(flag.key)
    for key, values in parsed.values.items():
        if key[:1] not in ("<", ">"):
            inner.values[key] = [*values, *inner.values.get(key, [])]
    inner.bools |= parsed.bools
    if inner.after_dashdash:
        inner.positionals += inner.after_dashdash
    if inner.has("help"):
        found = help_page(["set", name, *inner.positionals])
        return Output(found or see(f"set {name}").replace("See", "Use"))
    connection.attach(ctx, "set", inner, own_user=name == "subject")
    ctx.acting = builder_gets(ctx.api)
    return sub.run(ctx, inner, words)
