"""The `kubectl config` subcommands that set fields: set-cluster, set-credentials, and
`set PROPERTY VALUE` / `unset PROPERTY`, which follow kubectl's navigation steps and
modifyConfig over clientcmd's internal api.Config, whose JSON names these are (a user's
impersonation fields are `act-as...` there, `as...` in the file).

A name in a map may hold dots: its parts are joined up to the first one that names a field of
the map's values (`contexts.kubernetes-admin@dgx-cluster.namespace`). kubectl's messages that
print Go values print a pointer's address; the lab prints a made-up one.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

from simulators.lab import fs, kubeconfig
from simulators.lab.flags import Parsed
from simulators.lab.gotext import go_quote
from simulators.lab.kubeconfig import Config
from simulators.lab.kubeconfig_v1 import go_b64decode
from simulators.lab.kubectl import config_file as cf
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.set_image import pairs_and_removals
from simulators.lab.tool import Context, Output

_S, _B, _D, _OBJ, _PTR = "string", "bool", "[]uint8", "runtime.Object", "pointer"
_STRINGS = "[]string"
_EXTENSIONS = ("map", _OBJ)
# clientcmd's internal types: each field's JSON name and type (a map is ("map", value type)).
INTERNAL: dict[str, dict[str, Any]] = {
    "api.Config": {
        "kind": _S, "apiVersion": _S, "preferences": "api.Preferences",
        "clusters": ("map", "api.Cluster"), "users": ("map", "api.AuthInfo"),
        "contexts": ("map", "api.Context"), "current-context": _S, "extensions": _EXTENSIONS,
    },
    "api.Preferences": {"colors": _B, "extensions": _EXTENSIONS},
    "api.Cluster": {
        "server": _S, "tls-server-name": _S, "insecure-skip-tls-verify": _B,
        "certificate-authority": _S, "certificate-authority-data": _D, "proxy-url": _S,
        "disable-compression": _B, "extensions": _EXTENSIONS,
    },
    "api.AuthInfo": {
        "client-certificate": _S, "client-certificate-data": _D, "client-key": _S,
        "client-key-data": _D, "token": _S, "tokenFile": _S, "act-as": _S, "act-as-uid": _S,
        "act-as-groups": _STRINGS, "act-as-user-extra": ("map", _STRINGS), "username": _S,
        "password": _S, "auth-provider": _PTR, "exec": _PTR, "extensions": _EXTENSIONS,
    },
    "api.Context": {"cluster": _S, "user": _S, "namespace": _S, "extensions": _EXTENSIONS},
}  # fmt: skip
_V1_NAMES = {"act-as": "as", "act-as-uid": "as-uid", "act-as-groups": "as-groups"}
_V1_NAMES["act-as-user-extra"] = "as-user-extra"


class Panic(Exception):
    """kubectl panicked (exit 2): str() is the panic's first line."""


def steps(path: str) -> list[tuple[str, Any]]:
    """newNavigationSteps: the path's steps, each (name, type), or kubectl's error."""
    parts = path.split(".")
    found: list[tuple[str, Any]] = []
    kind: Any = "api.Config"
    index = 0
    while index < len(parts):
        if isinstance(kind, tuple):
            value = kind[1]
            if value == _OBJ:
                raise Panic("panic: reflect: Elem of invalid type runtime.Object")
            if value not in INTERNAL:
                raise KubectlError("error: string is not of type struct")
            rest = parts[index + 1 :]
            known = next((i for i, part in enumerate(rest) if part in INTERNAL[value]), None)
            taken = len(parts) - index if known is None else known + 1
            found.append((".".join(parts[index : index + taken]), value))
            index += taken
            kind = value
        elif isinstance(kind, str) and kind in INTERNAL:
            if parts[index] not in INTERNAL[kind]:
                # a step's reflect.Type prints as its address
                shown = " ".join(f"{{{step} {_address(i)}}}" for i, (step, _) in enumerate(found))
                raise KubectlError(f"error: unable to parse {path} after [{shown}] at {kind}")
            found.append((parts[index], INTERNAL[kind][parts[index]]))
            kind = INTERNAL[kind][parts[index]]
            index += 1
        else:
            raise KubectlError(f"error: unable to parse one or more field values of {path}")
    return found


def _internal(config: Config) -> dict[str, Any]:
    """The v1 config as clientcmd's api.Config (sections as maps, internal field names)."""
    out = copy.deepcopy(config)
    for section in kubeconfig.SECTIONS:
        out[section] = copy.deepcopy(kubeconfig.named(config, section))
    for user in out["users"].values():
        for inner, v1 in _V1_NAMES.items():
            if v1 in user:
                user[inner] = user.pop(v1)
    return out


def _v1(internal: dict[str, Any]) -> Config:
    config = dict(internal)
    for section in kubeconfig.SECTIONS:
        entries = internal.get(section) or {}
        for user in entries.values() if section == "users" else ():
            for inner, v1 in _V1_NAMES.items():
                if inner in user:
                    user[v1] = user.pop(inner)
        config = kubeconfig.with_named(config, section, entries)
    return kubeconfig.normalized(config)


def _address(index: int) -> str:
    return f"0xc{0x00001A000 + index * 0x50:09x}"


def _shown(value: Any) -> str:
    """fmt's %v of a map: its keys sorted, each value a pointer (or a list)."""
    pairs = []
    for index, key in enumerate(sorted(value or {})):
        inner = value[key]
        shown = "[" + " ".join(inner) + "]" if isinstance(inner, list) else _address(index)
        pairs.append(f"{key}:{shown}")
    return "map[" + " ".join(pairs) + "]"


def modify(config: Config, path: str, value: str, *, unset: bool, raw: bool = False) -> Config:
    """The config with the property set to `value` (or unset), as kubectl's modifyConfig."""
    navigation = steps(path)
    root = _internal(config)
    _modify(root, "api.Config", navigation, 0, value, unset, raw)
    return _v1(root)


def _modify(
    holder: dict[str, Any],
    kind: Any,
    navigation: list[tuple[str, Any]],
    at: int,
    value: str,
    unset: bool,
    raw: bool,
) -> None:
    """One step of modifyConfig: `holder` is the struct (or map) the step `at` names a field
    (or key) of; `kind` its type."""
    name = navigation[at][0] if at < len(navigation) else ""
    last = at + 1 >= len(navigation)
    if isinstance(kind, tuple):  # a map
        if at >= len(navigation) or (last and not unset):
            raise KubectlError(f"error: can't set a map to a value: {_shown(holder)}")
        if last:
            holder.pop(name, None)
            return
        if name not in holder:
            if unset:
                raise KubectlError(f"error: current map key `{name}` is invalid")
            holder[name] = {}
        _modify(holder[name], kind[1], navigation, at + 1, value, unset, raw)
        return
    if at >= len(navigation):  # `set preferences x`: no field is named ""
        colors = "true" if holder.get("colors") else "false"
        raise KubectlError(
            'error: unable to locate path config.navigationStep{stepValue:"", '
            f"stepType:reflect.Type(nil)}} under {{{colors} map[]}}"
        )
    field_kind = INTERNAL[kind][name]
    if isinstance(field_kind, tuple) and holder.get(name) is None:
        holder[name] = {}
        if last and unset:
            return
    if last and unset:
        holder.pop(name, None)
        return
    if isinstance(field_kind, tuple) or field_kind in INTERNAL:
        holder.setdefault(name, {})
        _modify(holder[name], field_kind, navigation, at + 1, value, unset, raw)
    elif field_kind == _S:
        holder[name] = value
    elif field_kind == _B:
        holder[name] = _bool(value)
    elif field_kind == _D:
        holder[name] = _data(value, raw)
    elif field_kind == _STRINGS:
        raise KubectlError("error: unrecognized slice type. string")
    else:
        raise Panic("panic: unrecognized type: <nil>")


def _bool(value: str) -> bool:
    """kubectl's toBool: strconv.ParseBool, an empty value false."""
    if value in ("1", "t", "T", "true", "TRUE", "True", ""):
        return value != ""
    if value in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise KubectlError(f'error: strconv.ParseBool: parsing "{value}": invalid syntax')


def _data(value: str, raw: bool) -> str:
    """A []byte property: base64 text to decode, or the text itself (--set-raw-bytes)."""
    if raw:
        return base64.b64encode(value.encode()).decode()
    decoded = go_b64decode(value)
    if isinstance(decoded, str):
        raise KubectlError(f"error: error decoding input value: {decoded}")
    return base64.b64encode(decoded).decode()


# ---------------------------------------------------------------------------- set-cluster


def set_cluster(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    if len(args) != 1:
        return cf.help_error("set-cluster", f"Unexpected args: {cf.listed(args)}")
    name, ca = args[0], parsed.value("certificate-authority")
    if not name:
        raise KubectlError("error: you must specify a non-empty cluster name")
    if parsed.has("insecure-skip-tls-verify") and ca:
        raise KubectlError(
            "error: you cannot specify a certificate authority and insecure mode at the same time"
        )
    embedded = _embedded(ctx, parsed, ("certificate-authority",), "a --certificate-authority")
    file = cf.chosen(ctx, parsed)
    config = cf.loaded(file)
    clusters = kubeconfig.named(config, "clusters")
    body = dict(clusters.get(name, {}))
    if parsed.value("server") is not None:
        body["server"], body["tls-server-name"] = parsed.value("server"), ""
    for field in ("tls-server-name", "proxy-url"):
        if parsed.value(field) is not None:
            body[field] = parsed.value(field)
    # kubectl 1.36 sets the flag's value whether given or not: any set-cluster without it
    # turns insecure mode off.
    body["insecure-skip-tls-verify"] = parsed.has("insecure-skip-tls-verify")
    if body["insecure-skip-tls-verify"]:
        body["certificate-authority"] = body["certificate-authority-data"] = ""
    if ca is not None:
        if parsed.has("embed-certs"):
            body["certificate-authority-data"] = embedded["certificate-authority"]
            body["insecure-skip-tls-verify"], body["certificate-authority"] = False, ""
        else:
            # filepath.Abs: an empty path is the shell's folder
            body["certificate-authority"] = cf.absolute(ca, fs.cwd(ctx))
            body["insecure-skip-tls-verify"], body["certificate-authority-data"] = False, ""
    clusters[name] = body
    cf.written(ctx, file, config, kubeconfig.with_named(config, "clusters", clusters))
    return Output(f"Cluster {go_quote(name)} set.")


def _embedded(ctx: Context, parsed: Parsed, fields: tuple[str, ...], what: str) -> dict[str, str]:
    """--embed-certs' files (their given paths from the shell's folder), read as base64 data;
    kubectl's stat error for one that is not there."""
    if not parsed.has("embed-certs"):
        return {}
    given = {field: parsed.value(field) or "" for field in fields}
    if not any(given.values()):
        raise KubectlError(f"error: you must specify {what} to embed")
    out = {}
    for field, path in given.items():
        # A folder is there to stat, and ReadFile's error on it is dropped: no data.
        found = cf.absolute(path, fs.cwd(ctx))
        text = "" if cf.is_folder(ctx, found) else cf.read(ctx, found) if path else None
        if path and text is None:
            raise KubectlError(
                f"error: could not stat {field} file {path}: stat {path}: no such file or directory"
            )
        out[field] = kubeconfig.b64(text or "")
    return out


def _csv(values: list[str]) -> list[str]:
    """A StringSlice flag's values: each one split at commas."""
    return [item for value in values for item in value.split(",")]


def set_credentials(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    if len(args) != 1:
        return cf.help_error("set-credentials", f"unexpected args: {cf.listed(args)}")
    try:
        provider_args = pairs_and_removals(
            _csv(parsed.all("auth-provider-arg")), "auth-provider-arg", support_remove=True
        )
        env = pairs_and_removals(parsed.all("exec-env"), "exec-env", support_remove=True)
    except ValueError as exc:
        return cf.help_error("set-credentials", str(exc))
    name = args[0]
    if not name:
        raise KubectlError("error: you must specify a non-empty user name")
    methods = ["--token"] if parsed.value("token") else []
    if parsed.value("username") or parsed.value("password"):
        methods.append("--username/--password")
    if len(methods) > 1:
        raise KubectlError(
            "error: you cannot specify more than one authentication method at the same time: "
            + ", ".join(methods)
        )
    embedded = _embedded(
        ctx, parsed, ("client-certificate", "client-key"), "a --client-certificate or --client-key"
    )
    mode = parsed.value("exec-interactive-mode")
    if mode and mode not in ("IfAvailable", "Never", "Always"):
        raise KubectlError(
            "error: invalid interactive mode type, can be only IfAvailable, Never, Always"
        )
    file = cf.chosen(ctx, parsed)
    config = cf.loaded(file)
    users = kubeconfig.named(config, "users")
    body = dict(users.get(name, {}))
    users[name] = _credentials(parsed, body, embedded, (provider_args, env), fs.cwd(ctx))
    cf.written(ctx, file, config, kubeconfig.with_named(config, "users", users))
    return Output(f"User {go_quote(name)} set.")


def _credentials(
    parsed: Parsed,
    body: dict[str, Any],
    embedded: dict[str, str],
    plugin: tuple[tuple[dict[str, str], list[str]], tuple[dict[str, str], list[str]]],
    working: str,
) -> dict[str, Any]:
    """createAuthInfoOptions.modifyAuthInfo: the flags given over the user's fields (paths
    from the `working` folder); `plugin` the auth provider's and exec's arguments."""
    provider_args, env = plugin
    for field in ("client-certificate", "client-key"):
        path = parsed.value(field)
        if path is None:
            continue
        if parsed.has("embed-certs"):
            body[f"{field}-data"], body[field] = embedded[field], ""
        else:
            body[field], body[f"{field}-data"] = cf.absolute(path, working), ""
    for field in ("token", "username", "password"):
        if parsed.value(field) is not None:
            body[field] = parsed.value(field)
    token = parsed.value("token") is not None and bool(body.get("token"))
    basic = any(parsed.value(f) is not None and body.get(f) for f in ("username", "password"))
    provider = parsed.value("auth-provider")
    if provider is not None and (body.get("auth-provider") or {}).get("name") != provider:
        body["auth-provider"] = {"name": provider}
    if body.get("auth-provider") is not None:
        settings = dict(body["auth-provider"].get("config") or {})
        for key in provider_args[1]:
            settings.pop(key, None)
        body["auth-provider"] = {**body["auth-provider"], "config": settings | provider_args[0]}
    _exec(parsed, body, env)
    if token or basic:
        if not token:
            body["token"] = ""
        if not basic:
            body["username"] = body["password"] = ""
    return body


def _exec(parsed: Parsed, body: dict[str, Any], env: tuple[dict[str, str], list[str]]) -> None:
    """The exec credential plugin's flags: a new command starts the plugin afresh (its args
    dropped); the others change a plugin that is there."""
    command = parsed.value("exec-command")
    if command is not None:
        plugin = body.get("exec")
        body["exec"] = {"command": command} if plugin is None else {**plugin, "command": command}
        body["exec"]["args"] = None
    plugin = body.get("exec")
    if plugin is None:
        return
    plugin = dict(plugin)
    if parsed.value("exec-api-version") is not None:
        plugin["apiVersion"] = parsed.value("exec-api-version")
    if parsed.all("exec-arg"):
        plugin["args"] = _csv(parsed.all("exec-arg"))
    if parsed.all("exec-env"):  # the named ones dropped, then each given one set or added
        variables = [dict(v) for v in plugin.get("env") or [] if v.get("name") not in env[1]]
        for key, value in env[0].items():
            found = next((v for v in variables if v.get("name") == key), None)
            if found is not None:
                found["value"] = value
            else:
                variables.append({"name": key, "value": value})
        plugin["env"] = variables
    if parsed.value("exec-interactive-mode"):
        plugin["interactiveMode"] = parsed.value("exec-interactive-mode")
    if "exec-provide-cluster-info" in parsed.changed:
        plugin["provideClusterInfo"] = parsed.has("exec-provide-cluster-info")
    body["exec"] = plugin


# ---------------------------------------------------------------------------- set, unset


def set_property(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    if len(args) != 2:
        return cf.help_error("set", f"Unexpected args: {cf.listed(args)}")
    prop, value = args
    if not value:
        raise KubectlError("error: you cannot use set to unset a property")
    if not prop:
        raise KubectlError("error: you must specify a property")
    file = cf.chosen(ctx, parsed)
    config = cf.loaded(file)
    raw = parsed.has("set-raw-bytes")
    after = modify(config, prop, value, unset=False, raw=raw)
    cf.written(ctx, file, config, after, relativize=False)
    return Output(f"Property {go_quote(prop)} set.")


def unset_property(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    if len(args) != 1:
        return cf.help_error("unset", f"Unexpected args: {cf.listed(args)}")
    if not args[0]:
        raise KubectlError("error: you must specify a property")
    file = cf.chosen(ctx, parsed)
    config = cf.loaded(file)
    after = modify(config, args[0], "", unset=True)
    cf.written(ctx, file, config, after, relativize=False)
    return Output(f"Property {go_quote(args[0])} unset.")


COMMANDS = {
    "set": set_property,
    "set-cluster": set_cluster,
    "set-credentials": set_credentials,
    "unset": unset_property,
}
