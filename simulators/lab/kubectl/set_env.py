"""kubectl set env RESOURCE/NAME KEY_1=VAL_1 ... KEY_N=VAL_N (and KEY- to remove), as
k8s.io/kubectl/pkg/cmd/set/set_env.go: variables from the arguments, `-e`, the standard input
(`-e -`) or a config map's or secret's keys (`--from`, `--keys`, `--prefix`), set on the
containers `-c` matches; `--list` prints each container's variables instead (`--resolve`:
their values looked up)."""

from __future__ import annotations

import copy
import re
from typing import Any

from simulators.lab.flags import Flag, Parsed
from simulators.lab.gotext import go_quote
from simulators.lab.kubectl import set_env_list
from simulators.lab.kubectl.common import KubectlError, dry_run, namespace
from simulators.lab.kubectl.set_common import (
    ALL_AND_SELECTOR,
    BASE_FLAGS,
    CONTAINERS,
    LOCAL_SERVER,
    SELECTOR,
    Change,
    Failure,
    Item,
    answer,
    bool_flag,
    find,
    pod_spec,
    printer,
    select_containers,
    send,
)
from simulators.lab.tool import Context, Output

FLAGS = [
    *BASE_FLAGS,
    CONTAINERS,
    SELECTOR,
    Flag("from", long="from", takes_value=True),
    Flag("prefix", long="prefix", takes_value=True),
    Flag("env", long="env", short="e", takes_value=True),
    Flag("keys", long="keys", takes_value=True),
    Flag("list", long="list"),
    Flag("resolve", long="resolve"),
    Flag("overwrite", long="overwrite"),
]

_ENV_ARGUMENT = re.compile(r"^(.+)=(.*)$", re.DOTALL)
_ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
_ENV_NAME_HELP = (
    "a valid environment variable name must consist of alphabetic characters, digits, '_', "
    "'-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or "
    "'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"
)
_NOT_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_]")

EnvVar = dict[str, Any]


def split_resources(args: list[str]) -> tuple[list[str], list[str]]:
    """SplitEnvironmentFromResources: the resources first, then every `K=V` or `K-`; a
    resource after a change is kubectl's error."""
    resources: list[str] = []
    changes: list[str] = []
    for arg in args:
        if _ENV_ARGUMENT.match(arg) or arg.endswith("-"):
            changes.append(arg)
        elif changes:
            raise KubectlError(
                "error: all resources must be specified before environment changes: "
                + " ".join(args)
            )
        else:
            resources.append(arg)
    return resources, changes


def env_name_errors(name: str) -> list[str]:
    """validation.IsEnvVarName."""
    errors = [] if _ENV_NAME.match(name) else [_ENV_NAME_HELP]
    if name == ".":
        errors.append("must not be '.'")
    elif name == "..":
        errors.append("must not be '..'")
    elif name.startswith(".."):
        errors.append("must not start with '..'")
    return errors


def variable(name: str, value: str) -> EnvVar:
    """An EnvVar as kubectl encodes it (an empty value is left out)."""
    return {"name": name, "value": value} if value else {"name": name}


def parse_env(specs: list[str], stdin: str) -> tuple[list[EnvVar], list[str], bool]:
    """env.ParseEnv: the variables to set, the names to remove, whether `-` read the input."""
    env: list[EnvVar] = []
    remove: list[str] = []
    named: set[str] = set()
    used_stdin = False
    for spec in specs:
        if spec == "-":
            for line in stdin.split("\n"):
                line = line.partition("#")[0]
                if "=" in line:
                    key, _, value = line.partition("=")
                    env.append(variable(key, value))
            used_stdin = True
        elif "=" in spec:
            key, _, value = spec.partition("=")
            errors = env_name_errors(key)
            if errors:
                raise KubectlError(
                    f"error: {go_quote(key)} is not a valid key name: {';'.join(errors)}"
                )
            named.add(key)
            env.append(variable(key, value))
        elif spec.endswith("-"):
            remove.append(spec[:-1])
        else:
            raise KubectlError(f"error: unknown environment variable: {spec}")
    if any(name in named for name in remove):
        raise KubectlError(
            "error: can not both modify and remove the same environment variable in the same "
            "command"
        )
    return env, remove, used_stdin


def _first(env: list[EnvVar], name: str) -> EnvVar | None:
    return next((e for e in env if e.get("name") == name), None)


def update_env(existing: list[EnvVar], env: list[EnvVar], remove: list[str]) -> list[EnvVar]:
    """helper.go's updateEnv: an added variable replaces every one of its name (in the first's
    place), a removed one goes; other duplicates stay; removing wins over adding."""
    out: list[EnvVar] = []
    covered = set(remove)
    for e in existing:
        name = e.get("name")
        if name in covered:
            continue
        newer = _first(env, str(name))
        if newer is not None:
            covered.add(str(name))
            out.append(copy.deepcopy(newer))
            continue
        out.append(e)
    for e in env:
        if e["name"] in covered:
            continue
        covered.add(e["name"])
        out.append(copy.deepcopy(e))
    return out


def _from_sources(ctx: Context, parsed: Parsed, local: bool, texts: list[str]) -> list[EnvVar]:
    """--from: a variable for each key (or each of --keys) of the config maps and secrets
    named, referring to it; a key that is no variable name is made one (with a warning)."""
    source = parsed.value("from") or ""
    keys = [k for value in parsed.all("keys") for k in value.split(",")]
    items = find(
        ctx,
        parsed,
        [source],
        all_flag=parsed.has("all"),
        selector=parsed.value("selector") or "",
        local=local,
    )
    env: list[EnvVar] = []
    for item in items:
        if (item.info.group, item.info.kind) == ("", "Secret"):
            ref = "secretKeyRef"
        elif (item.info.group, item.info.kind) == ("", "ConfigMap"):
            ref = "configMapKeyRef"
        else:
            raise KubectlError("error: unsupported resource specified in --from")
        data = item.obj.get("data") or {}
        for key in sorted(data):
            if keys and key not in keys:
                continue
            name = _NOT_NAME_CHARS.sub("_", key).upper()
            if name != key:
                texts.append(f"Warning: key {key} transferred to {name}\n")
            selector = {"name": item.name, "key": key}
            env.append({"name": name, "valueFrom": {ref: selector}})
    return env


def run(ctx: Context, parsed: Parsed, words: list[str]) -> Output:
    """`kubectl set env`, checks in upstream's order (Complete, Validate, RunEnv)."""
    selector = parsed.value("selector") or ""
    if parsed.has("all") and selector:
        raise KubectlError(ALL_AND_SELECTOR)
    resources, env_args = split_resources(parsed.positionals)
    dry = dry_run(parsed)
    output = printer(parsed)
    local = parsed.has("local")
    listing = parsed.has("list")
    if local and dry == "server":
        raise KubectlError(LOCAL_SERVER)
    if not parsed.all("filename") and not resources:
        raise KubectlError(
            "error: one or more resources must be specified as <resource> <name> or "
            "<resource>/<name>"
        )
    if listing and parsed.value("output"):
        raise KubectlError("error: --list and --output may not be specified together")
    if parsed.all("keys") and not parsed.value("from"):
        raise KubectlError(
            "error: when specifying --keys, a configmap or secret must be provided with --from"
        )
    env, remove, _ = parse_env([*parsed.all("env"), *env_args], ctx.stdin)
    texts: list[str] = []
    try:
        if parsed.value("from"):
            env += _from_sources(ctx, parsed, local, texts)
        prefix = parsed.value("prefix") or ""
        for e in env:
            e["name"] = prefix + e["name"]
        items = find(
            ctx, parsed, resources, all_flag=parsed.has("all"), selector=selector, local=local
        )
    except KubectlError as exc:
        return Output("".join(texts) + str(exc), 1)
    overwrite = bool_flag(words, "overwrite", True)
    containers = parsed.value("containers") or "*"
    changes: list[Change] = []
    for item in items:
        after = copy.deepcopy(item.obj)
        try:
            error = _change(ctx, parsed, item, after, env, remove, containers, overwrite, texts)
        except ValueError as exc:
            error = str(exc)
        changes.append(Change(item, after, error))
    if listing:
        return Output("".join(texts).removesuffix("\n"))
    failures: list[Failure] = []
    sent = len(texts)
    for change in changes:
        send(
            ctx,
            [change],
            dry=dry,
            local=local,
            output=output,
            operation="env updated",
            patch_failure="failed to patch env update to pod template: ",
            texts=texts,
            failures=failures,
        )
        written = len(texts) > sent and not local and dry != "client"
        if written and not env and not env_args:
            # kubectl checks this only once a patch went through, and stops there.
            texts.pop()
            return answer(texts, [Failure("at least one environment variable must be provided")])
        sent = len(texts)
    return answer(texts, failures)


def _change(
    ctx: Context,
    parsed: Parsed,
    item: Item,
    obj: dict[str, Any],
    env: list[EnvVar],
    remove: list[str],
    selector: str,
    overwrite: bool,
    texts: list[str],
) -> str:
    """The mutation of one object: its matching containers' variables updated (and listed
    under --list); the error that stops it, or ""."""
    spec = pod_spec(item, obj)
    chosen = select_containers(spec, selector)
    if not chosen:
        texts.append(
            f"Warning: {item.kind}/{item.name} does not have any containers matching "
            f"{go_quote(selector)}\n"
        )
        return ""
    unresolved = False
    for container in chosen:
        existing = list(container.get("env") or [])
        if not overwrite:
            for e in env:
                current = _first(existing, e["name"])
                if current is not None and current.get("value", "") != e.get("value", ""):
                    return (
                        f"'{current.get('name')}' already has a value "
                        f"({current.get('value', '')}), and --overwrite is false"
                    )
        updated = update_env(existing, env, remove)
        if updated:
            container["env"] = updated
        elif container.get("env"):
            del container["env"]
        if parsed.has("list"):
            lines, failed = set_env_list.listing(
                ctx, item, obj, container, namespace(parsed), parsed.has("resolve")
            )
            texts.extend(lines)
            unresolved = unresolved or failed
    return "failed to retrieve valueFrom references" if unresolved else ""
