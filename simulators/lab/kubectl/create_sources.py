"""The data sources of `kubectl create configmap` and `create secret generic|docker-registry`:
--from-file, --from-literal and --from-env-file (upstream's create_configmap.go,
create_secret.go, util.ParseFileSource and cmdutil.AddFromEnvFile).

Files are read from the lab's home folder (simulators.lab.files), never the host. The home
folder itself (`.`, `~`, /home/admin) is the one directory there is: a source naming it adds one
key per file, in name order. Every mistake is kubectl's own one-line error: a path that is not
there (`error reading PATH: no such file or directory`), a malformed source, a key the API would
refuse, a key given twice, a bad line in an env file. `--append-hash`'s hashes are kubectl's
(hash.ConfigMapHash and hash.SecretHash).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re

from simulators.cluster.api import Obj
from simulators.lab import files, fs
from simulators.lab.flags import Parsed
from simulators.lab.gotext import go_quote
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.create_names import string_slice
from simulators.lab.tool import Context

_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+", re.ASCII)
_ENV_NAME = re.compile(r"[-._a-zA-Z][-._a-zA-Z0-9]*", re.ASCII)
CONFIG_KEY_ERROR = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
    "'[-._a-zA-Z0-9]+')"
)
ENV_NAME_ERROR = (
    "a valid environment variable name must consist of alphabetic characters, digits, '_', "
    "'-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or "
    "'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"
)
# hash.encodeHash's substitutions: no vowels, no digits that look like letters.
_HASH_LETTERS = str.maketrans({"0": "g", "1": "h", "3": "k", "a": "m", "e": "t"})


def _chdir_errors(key: str) -> list[str]:
    if key in (".", ".."):
        return [f"must not be '{key}'"]
    if key.startswith(".."):
        return ["must not start with '..'"]
    return []


def config_key_errors(key: str) -> list[str]:
    """validation.IsConfigMapKey: what is wrong with a ConfigMap's or Secret's key."""
    errors = []
    if len(key) > 253:
        errors.append("must be no more than 253 characters")
    if not _CONFIG_KEY.fullmatch(key):
        errors.append(CONFIG_KEY_ERROR)
    return errors + _chdir_errors(key)


def env_name_errors(key: str) -> list[str]:
    """validation.IsEnvVarName: what is wrong with an env file's key."""
    errors = [] if _ENV_NAME.fullmatch(key) else [ENV_NAME_ERROR]
    return errors + _chdir_errors(key)


def go_base(path: str) -> str:
    """Go's path.Base: the last element, trailing slashes dropped ("." for "", "/" for "/")."""
    if not path:
        return "."
    stripped = path.rstrip("/")
    return stripped.rsplit("/", 1)[-1] if stripped else "/"


def parse_file_source(source: str) -> tuple[str, str]:
    """util.ParseFileSource: (key, path) from `path` or `key=path`."""
    count = source.count("=")
    if count == 0:
        return go_base(source), source
    if count == 1 and source.startswith("="):
        raise KubectlError(f"error: key name for file path {source[1:]} missing")
    if count == 1 and source.endswith("="):
        raise KubectlError(f"error: file path for key name {source[:-1]} missing")
    if count > 1:
        raise KubectlError("error: key names or file paths cannot contain '='")
    key, _, path = source.partition("=")
    return key, path


def parse_literal_source(source: str) -> tuple[str, str]:
    """util.ParseLiteralSource: (key, value) from `key=value` (the value may hold `=`)."""
    key, sep, value = source.partition("=")
    if not sep or not key:
        raise KubectlError(f"error: invalid literal source {source}, expected key=value")
    return key, value


def is_folder(ctx: Context, path: str) -> bool:
    """Whether `path` names a folder of the host."""
    return fs.locate(ctx, path).folder


def read_file(ctx: Context, path: str) -> str:
    """The file's text, or os.Stat's error as kubectl words it."""
    text = files.read(ctx, path)
    if text is None:
        raise KubectlError(f"error: error reading {path}: no such file or directory")
    return text


def folder_files(ctx: Context, path: str) -> list[tuple[str, str]]:
    """(name, text) of every regular file in the folder, in os.ReadDir's name order (a folder
    in it, such as the home folder's `.kube`, is skipped as kubectl skips it)."""
    state = ctx.world.state
    where = fs.locate(ctx, path).path
    found, _ = fs.children(state, where)
    paths = [f"{where.rstrip('/')}/{name}" for name in found]
    return [(p.rsplit("/", 1)[1], fs.text(state, p)) for p in paths if fs.is_file(state, p)]


def env_pairs(ctx: Context, path: str, directory_error: str) -> list[tuple[str, str]]:
    """cmdutil.AddFromEnvFile: the KEY=value pairs of an env file, in order. Blank lines and
    `#` comments are skipped, leading whitespace goes, a value is kept as written, and a line
    without `=` takes its value from the environment."""
    if is_folder(ctx, path):
        raise KubectlError(f"error: {directory_error}")
    text = read_file(ctx, path)
    pairs: list[tuple[str, str]] = []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines):
        line = line.removesuffix("\r")
        if number == 0:
            line = line.removeprefix("\ufeff")
        line = line.lstrip(" \t\n\v\f\r\x85\xa0")
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        errors = env_name_errors(key)
        if errors:
            raise KubectlError(
                f"error: {go_quote(key)} is not a valid key name: {';'.join(errors)}"
            )
        pairs.append((key, value if sep else ctx.env.get(key, "")))
    return pairs


def file_pairs(ctx: Context, sources: list[str]) -> list[tuple[str, str]]:
    """(key, text) for each --from-file source, a folder giving one per file in it."""
    pairs: list[tuple[str, str]] = []
    for source in sources:
        key, path = parse_file_source(source)
        if is_folder(ctx, path):
            if "=" in source:
                raise KubectlError("error: cannot give a key name for a directory path")
            pairs.extend(folder_files(ctx, path))
            continue
        pairs.append((key, read_file(ctx, path)))
    return pairs


def go_json(value: object, sort_keys: bool = True) -> str:
    """encoding/json's Marshal: compact, UTF-8, <, >, & and the line separators escaped; a
    map's keys sorted (a struct's, sort_keys=False, in the order given)."""
    text = json.dumps(value, separators=(",", ":"), sort_keys=sort_keys, ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _encode_hash(encoded: str) -> str:
    return hashlib.sha256(encoded.encode()).hexdigest()[:10].translate(_HASH_LETTERS)


def configmap_hash(obj: Obj) -> str:
    """hash.ConfigMapHash: of the ConfigMap's kind, name and data."""
    return _encode_hash(
        go_json(
            {"data": obj.get("data") or {}, "kind": "ConfigMap", "name": obj["metadata"]["name"]}
        )
    )


def secret_hash(obj: Obj) -> str:
    """hash.SecretHash: of the Secret's kind, type, name and data."""
    encoded = {
        "data": obj.get("data") or {},
        "kind": "Secret",
        "name": obj["metadata"]["name"],
        "type": obj.get("type", ""),
    }
    return _encode_hash(go_json(encoded))


def _check_combination(parsed: Parsed) -> None:
    files = string_slice(parsed, "from-file")
    if string_slice(parsed, "from-env-file") and (files or parsed.all("from-literal")):
        raise KubectlError("error: from-env-file cannot be combined with from-file or from-literal")


def configmap_data(ctx: Context, parsed: Parsed, name: str) -> dict[str, str]:
    """The ConfigMap's data from its sources, in kubectl's order: files, literals, env files."""
    _check_combination(parsed)
    data: dict[str, str] = {}

    def add(key: str, value: str) -> None:
        errors = config_key_errors(key)
        if errors:
            raise KubectlError(
                f"error: {go_quote(key)} is not a valid key name for a ConfigMap: "
                f"{','.join(errors)}"
            )
        if key in data:
            raise KubectlError(
                f"error: cannot add key {go_quote(key)}, another key by that name already "
                f"exists in Data for ConfigMap {go_quote(name)}"
            )
        data[key] = value

    for key, text in file_pairs(ctx, string_slice(parsed, "from-file")):
        add(key, text)
    for literal in parsed.all("from-literal"):
        add(*parse_literal_source(literal))
    for path in string_slice(parsed, "from-env-file"):
        for key, value in env_pairs(ctx, path, "env config file cannot be a directory"):
            add(key, value)
    return data


class SecretData:
    """A Secret's data as create secret fills it: base64 values, each key checked once."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}

    def add(self, key: str, value: str) -> None:
        errors = config_key_errors(key)
        if errors:
            raise KubectlError(
                f"error: {go_quote(key)} is not valid key name for a Secret {';'.join(errors)}"
            )
        if key in self.data:
            raise KubectlError(
                f"error: cannot add key {key}, another key by that name already exists"
            )
        self.data[key] = base64.b64encode(value.encode()).decode()

    def add_files(self, ctx: Context, sources: list[str]) -> None:
        for key, text in file_pairs(ctx, sources):
            self.add(key, text)


def secret_data(ctx: Context, parsed: Parsed) -> dict[str, str]:
    """A generic Secret's data, in kubectl's order: literals, files, env files."""
    _check_combination(parsed)
    secret = SecretData()
    for literal in parsed.all("from-literal"):
        secret.add(*parse_literal_source(literal))
    secret.add_files(ctx, string_slice(parsed, "from-file"))
    for path in string_slice(parsed, "from-env-file"):
        for key, value in env_pairs(ctx, path, "env secret file cannot be a directory"):
            secret.add(key, value)
    return secret.data
