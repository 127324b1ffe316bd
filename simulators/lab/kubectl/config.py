"""kubectl config: the admin host's kubeconfig (simulators.lab.kubeconfig), read and written as
kubectl 1.36 reads and writes it, each subcommand's output, messages and exit status as the
real binary prints them (tests/oracle/test_kubeconfig_oracle.py compares them).

Which file each reads and how it writes it: config_file. set, unset, set-cluster and
set-credentials: config_set. Left out: get-clusters and get-users list their names sorted where
kubectl lists them in Go's random map order.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from simulators.lab import fs, kubeconfig
from simulators.lab.flags import Flag, FlagError, Parsed, parse
from simulators.lab.gotext import go_quote
from simulators.lab.kubeconfig import CLUSTER, CONTEXT, SERVER, USER, Config, KubeconfigError
from simulators.lab.kubectl import config_file as cf
from simulators.lab.kubectl import config_set, options
from simulators.lab.kubectl.common import KubectlError, see, usage
from simulators.lab.kubectl.help import page
from simulators.lab.kubectl.kyaml import to_kyaml
from simulators.lab.kubectl.printing import (
    PRINT_FLAGS,
    object_output,
    object_text,
    to_json,
    to_yaml,
)
from simulators.lab.kubectl.tabwriter import table
from simulators.lab.tool import Context, Output

__all__ = ["CLUSTER", "CONTEXT", "FLAGS", "SERVER", "SUBCOMMANDS", "USER", "run"]


def _bool(key: str) -> Flag:
    return Flag(key, long=key)


def _value(key: str, short: str = "") -> Flag:
    return Flag(key, long=key, short=short, takes_value=True)


_EMBED = _bool("embed-certs")
# Each subcommand's own flags (the global ones come on top); a tristate (`--embed-certs`,
# `--merge`) reads as a boolean does.
LOCAL: dict[str, list[Flag]] = {
    "current-context": [],
    "delete-cluster": [],
    "delete-context": [],
    "delete-user": [],
    "get-clusters": [],
    "get-contexts": [_value("output", "o"), _bool("no-headers")],
    "get-users": [],
    "rename-context": [],
    "set": [_bool("set-raw-bytes")],
    "set-cluster": [
        *map(_value, ("server", "tls-server-name", "certificate-authority", "proxy-url")),
        _bool("insecure-skip-tls-verify"),
        _EMBED,
    ],
    "set-context": [_value("cluster"), _value("user"), _value("namespace", "n"), _bool("current")],
    "set-credentials": [
        *map(_value, ("client-certificate", "client-key", "token", "username", "password")),
        *map(_value, ("auth-provider", "auth-provider-arg", "exec-command", "exec-api-version")),
        *map(_value, ("exec-arg", "exec-env", "exec-interactive-mode")),
        _bool("exec-provide-cluster-info"),
        _EMBED,
    ],
    "unset": [],
    "use-context": [],
    "view": [
        *PRINT_FLAGS,
        *map(_bool, ("minify", "raw", "flatten", "merge", "show-managed-fields")),
        _bool("allow-missing-template-keys"),
    ],
}
SUBCOMMANDS = sorted(LOCAL)
ALIASES = {"use": "use-context"}
_GLOBAL = {flag.long for flag in options.FLAGS}
FLAGS = [
    *options.FLAGS,
    *{f.long: f for flags in LOCAL.values() for f in flags if f.long not in _GLOBAL}.values(),
]

# What `config view` shows of the lab's starting file (its data omitted).
OMITTED = "DATA+OMITTED"
# A subcommand: the context, the flags as it reads them, its arguments.
Command = Callable[[Context, Parsed, list[str]], Output]


def run(ctx: Context, parsed: Parsed) -> Output:
    if not parsed.positionals:  # DefaultSubCommandRun: the help on stderr, exit 1
        return Output("", 1, stderr=page(["config"]) or "")
    sub = ALIASES.get(parsed.positionals[0], parsed.positionals[0])
    if sub not in LOCAL:
        return Output.error(
            f"error: unknown command {go_quote(' '.join(parsed.positionals))}\n{usage('config')}"
        )
    try:
        parsed = parse(parsed.words, [*options.FLAGS, *LOCAL[sub]])
    except FlagError as exc:
        return Output.error(f"error: {exc}\n{see('config ' + sub)}")
    args = parsed.positionals[1:]
    try:
        return _COMMANDS[sub](ctx, parsed, args)
    except config_set.Panic as exc:
        return Output.error(str(exc), code=2)


# ---------------------------------------------------------------------------- reading


def _current_context(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    current = cf.loaded(cf.chosen(ctx, parsed))["current-context"]
    if not current:
        raise KubectlError("error: current-context is not set")
    return Output(current)


def _get_contexts(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    output = parsed.value("output") or ""
    if output not in ("", "name"):
        raise KubectlError(
            f"error: --output {output} is not available in kubectl config get-contexts; "
            "resetting to default output format"
        )
    config = cf.loaded(cf.chosen(ctx, parsed))
    contexts = kubeconfig.named(config, "contexts")
    shown = sorted([name for name in args if name in contexts] if args else contexts)
    errors = [f"context {name} not found" for name in args if name not in contexts]
    if output == "name":
        lines = list(shown)
    else:
        header = ["CURRENT", "NAME", "CLUSTER", "AUTHINFO", "NAMESPACE"]
        rows = [] if parsed.has("no-headers") else [header]
        for name in shown:
            body = contexts[name]
            mark = "*" if name == config["current-context"] else ""
            rows.append([mark, name, body["cluster"], body["user"], body.get("namespace", "")])
        lines = table(rows).split("\n") if rows else []
    if len(errors) == 1:
        errors = [f"error: {errors[0]}"]
    return Output("\n".join(lines + errors), 1 if errors else 0)


def _names(section: str) -> Command:
    def names(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
        config = cf.loaded(cf.chosen(ctx, parsed))
        return Output("\n".join(["NAME", *sorted(kubeconfig.named(config, section))]))

    return names


def _view(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    if args:
        raise KubectlError(
            f"error: unexpected arguments: {cf.listed(args)}\n{usage('config view')}"
        )
    output = object_output(parsed) if parsed.value("output") or parsed.value("template") else ""
    file = cf.chosen(ctx, parsed)
    if "merge" in parsed.changed and not parsed.has("merge"):
        if not file.explicit:
            raise KubectlError("error: if merge==false a precise file must be specified")
        if file.text is None:  # LoadFromFile: the file must be there, its errors bare
            raise KubectlError(f"error: open {file.path}: no such file or directory")
        try:
            config = kubeconfig.load(file.text, file.path)
        except KubeconfigError as exc:
            raise KubectlError("error: " + str(exc).split('": ', 1)[1]) from None
    else:
        config = cf.loaded(file)
    if parsed.has("minify"):
        config = _minified(config, parsed.value("context") or config["current-context"])
    if parsed.has("flatten"):
        config = _flattened(ctx, config, file)
    elif not parsed.has("raw"):
        config = shortened(config)
    return _printed(kubeconfig.printable(config), output)


def _printed(doc: Config, output: str) -> Output:
    """PrintFlags' printer of a v1.Config: yaml by default, or any -o (-o name knows no name
    for a Config: `config/<unknown>`, as kubectl prints it)."""
    if output in ("", "yaml"):
        return Output.exactly(to_yaml(doc))
    if output == "name":
        return Output("config/<unknown>")
    if output == "json":
        return Output(to_json(doc, sort_keys=False))
    if output == "kyaml":
        return Output.exactly(to_kyaml(doc, sort_keys=False))
    return Output.exactly(object_text(doc, "", output, ""))


def _minified(config: Config, current: str) -> Config:
    """clientcmdapi.MinifyConfig: the current context and only what it uses."""
    if not current:
        raise KubectlError("error: current-context must exist in order to minify")
    contexts = kubeconfig.named(config, "contexts")
    if current not in contexts:
        raise KubectlError(f"error: cannot locate context {current}")
    context = contexts[current]
    kept: Config = {**config, "current-context": current}
    kept["contexts"] = [{"name": current, "context": context}]
    for section, field, word in (("clusters", "cluster", "cluster"), ("users", "user", "user")):
        entries, used = kubeconfig.named(config, section), context[field]
        if used and used not in entries:
            raise KubectlError(f"error: cannot locate {word} {used}")
        kept[section] = [{"name": used, field: entries[used]}] if used else []
    return kept


def shortened(config: Config) -> Config:
    """clientcmdapi.ShortenConfig: data omitted, a token and a password redacted."""
    redacted = {"client-certificate-data": OMITTED, "client-key-data": OMITTED}
    redacted |= {"token": "REDACTED", "password": "REDACTED", "certificate-authority-data": OMITTED}
    out = dict(config)
    for section in ("clusters", "users"):
        inner = kubeconfig.SECTIONS[section]
        out[section] = [
            {"name": e["name"], inner: {k: redacted.get(k, v) for k, v in e[inner].items()}}
            for e in config[section]
        ]
    return out


def _flattened(ctx: Context, config: Config, file: cf.KubeconfigFile) -> Config:
    """clientcmdapi.FlattenConfig: each file a stanza names read into its data (the path
    relative to the kubeconfig's folder), users first."""
    base = posixpath.dirname(cf.absolute(file.path, fs.cwd(ctx)))
    pairs = {
        "users": (
            ("client-certificate", "client-certificate-data"),
            ("client-key", "client-key-data"),
        ),
        "clusters": (("certificate-authority", "certificate-authority-data"),),
    }
    out = dict(config)
    for section, fields in pairs.items():
        inner, entries = kubeconfig.SECTIONS[section], []
        for entry in config[section]:
            body = dict(entry[inner])
            for path_field, data_field in fields:
                if not body.get(path_field):
                    continue
                if body.get(data_field):
                    raise KubectlError("error: cannot have values for both path and contents")
                path = cf.absolute(body.pop(path_field), base)
                if cf.is_folder(ctx, path):
                    raise KubectlError(f"error: read {path}: is a directory")
                text = cf.read(ctx, path)
                if text is None:
                    raise KubectlError(f"error: open {path}: no such file or directory")
                body[data_field] = kubeconfig.b64(text)
            entries.append({"name": entry["name"], inner: body})
        out[section] = entries
    return kubeconfig.normalized(out)


# ---------------------------------------------------------------------------- contexts


def _use_context(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    if len(args) != 1:
        return cf.help_error("use-context", f"Unexpected args: {cf.listed(args)}")
    file = cf.chosen(ctx, parsed)
    config = cf.loaded(file)
    if not args[0]:
        raise KubectlError("error: empty context names are not allowed")
    if args[0] not in kubeconfig.named(config, "contexts"):
        raise KubectlError(f"error: no context exists with the name: {go_quote(args[0])}")
    cf.written(ctx, file, config, {**config, "current-context": args[0]})
    return Output(f"Switched to context {go_quote(args[0])}.")


def _set_context(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    if len(args) > 1:
        return cf.help_error("set-context", f"Unexpected args: {cf.listed(args)}")
    name, current = (args[0] if args else ""), parsed.has("current")
    if not name and not current:
        raise KubectlError("error: you must specify a non-empty context name or --current")
    if name and current:
        raise KubectlError("error: you cannot specify both a context name and --current")
    file = cf.chosen(ctx, parsed)
    config = cf.loaded(file)
    if current:
        name = config["current-context"]
        if not name:
            raise KubectlError("error: no current context is set")
    contexts = kubeconfig.named(config, "contexts")
    exists = name in contexts
    body = dict(contexts.get(name, {}))
    for field in ("cluster", "user", "namespace"):
        if parsed.value(field) is not None:
            body[field] = parsed.value(field)
    cf.written(
        ctx, file, config, kubeconfig.with_named(config, "contexts", {**contexts, name: body})
    )
    return Output(f"Context {go_quote(name)} {'modified' if exists else 'created'}.")


def _rename_context(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    if len(args) != 2:
        return cf.help_error("rename-context", f"Unexpected args: {cf.listed(args)}")
    old, new = args
    if not new:
        raise KubectlError("error: You must specify a new non-empty context name")
    file = cf.chosen(ctx, parsed)
    config = cf.loaded(file)
    contexts = kubeconfig.named(config, "contexts")
    if old not in contexts:
        raise KubectlError(
            f"error: cannot rename the context {go_quote(old)}, it's not in {file.path}"
        )
    if new in contexts:
        raise KubectlError(
            f"error: cannot rename the context {go_quote(old)}, the context {go_quote(new)} "
            f"already exists in {file.path}"
        )
    contexts[new] = contexts.pop(old)
    after = kubeconfig.with_named(config, "contexts", contexts)
    if after["current-context"] == old:
        after["current-context"] = new
    cf.written(ctx, file, config, after)
    return Output(f"Context {go_quote(old)} renamed to {go_quote(new)}.")


def _delete(section: str) -> Command:
    """delete-context, delete-cluster, delete-user: the file read first, then the name."""
    word = kubeconfig.SECTIONS[section]

    def delete(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
        file = cf.chosen(ctx, parsed)
        config = cf.loaded(file)
        if len(args) != 1:
            if section == "users":
                raise KubectlError(
                    f"error: user to delete is required\n{usage('config delete-user')}"
                )
            return Output(page(["config", f"delete-{word}"]) or "")
        entries = kubeconfig.named(config, section)
        name = args[0]
        if name not in entries:
            raise KubectlError(f"error: cannot delete {word} {name}, not in {file.path}")
        del entries[name]
        warning = ""
        if section == "contexts" and config["current-context"] == name:
            warning = (
                'warning: this removed your active context, use "kubectl config use-context" '
                "to select a different one"
            )
        cf.written(ctx, file, config, kubeconfig.with_named(config, section, entries))
        return Output(f"deleted {word} {name} from {file.path}", stderr=warning)

    return delete


_COMMANDS: dict[str, Command] = {
    "current-context": _current_context,
    "delete-cluster": _delete("clusters"),
    "delete-context": _delete("contexts"),
    "delete-user": _delete("users"),
    "get-clusters": _names("clusters"),
    "get-contexts": _get_contexts,
    "get-users": _names("users"),
    "rename-context": _rename_context,
    **config_set.COMMANDS,
    "set-context": _set_context,
    "use-context": _use_context,
    "view": _view,
}

CONFIG = kubeconfig.printable(shortened(kubeconfig.load(kubeconfig.starting_text())))
