"""What the `kubectl set` subcommands share (k8s.io/kubectl/pkg/cmd/set/helper.go and the
resource builder they call): their flags, the objects their arguments name, a pod template's
spec, container wildcards, the change each one sends, and kubectl's way of printing errors.

Every subcommand works as upstream's: it reads all the objects first (any error there is the
whole answer), works out each object's change (an error is kept for the end), then sends the
changes one by one, printing each object the server answers (the object itself under
`--dry-run=client` or `--local`), and prints the errors last.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo
from simulators.lab import files, gotemplate
from simulators.lab.flags import Flag, Parsed, parse_bool
from simulators.lab.jsonpath_parser import JsonPathError
from simulators.lab.jsonpath_parser import parse as parse_jsonpath
from simulators.lab.kubectl.apply import documents, mapping, target_namespace
from simulators.lab.kubectl.common import (
    COMMON,
    DRY_RUN,
    KubectlError,
    dry_run,
    dry_run_writer,
    dry_suffix,
    error_text,
    kind_name,
    list_error,
    namespace,
    resolve,
)
from simulators.lab.kubectl.printing import PRINT_FLAGS, object_output, object_text
from simulators.lab.kubectl.set_typed import TEMPLATED, typed
from simulators.lab.tool import Context, Output

ALL = Flag("all", long="all")
LOCAL = Flag("local", long="local")
SELECTOR = Flag("selector", long="selector", short="l", takes_value=True)
CONTAINERS = Flag("containers", long="containers", short="c", takes_value=True)
FILENAME = Flag("filename", long="filename", short="f", takes_value=True)
RECURSIVE = Flag("recursive", long="recursive", short="R")
# Flags every `set` subcommand has (kustomize is not served: no `-k`).
BASE_FLAGS = [
    *COMMON,
    DRY_RUN,
    FILENAME,
    RECURSIVE,
    ALL,
    LOCAL,
    Flag("field-manager", long="field-manager", takes_value=True),
    *PRINT_FLAGS,
    Flag("allow-missing-template-keys", long="allow-missing-template-keys"),
    Flag("show-managed-fields", long="show-managed-fields"),
]

MISSING_RESOURCE = (
    "error: You must provide one or more resources by argument or filename.\n"
    "Example resource specifications include:\n   '-f rsrc.yaml'\n"
    "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"
)
LOCAL_RESOURCE = (
    "error: you must specify resources by --filename when --local is set.\n"
    "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'"
)
LOCAL_SERVER = "error: cannot specify --local and --dry-run=server - did you mean --dry-run=client?"
ALL_AND_SELECTOR = "error: cannot set --all and --selector at the same time"
_COMBINED = (
    "error: there is no need to specify a resource type as a separate argument when passing "
    "arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of "
    "'kubectl get resource resource/<resource_name>'"
)


def bool_flag(words: list[str], long: str, default: bool) -> bool:
    """A boolean flag's value as pflag reads it from the subcommand's own words (the shared
    parser cannot tell `--flag=false` from no flag, which matters where the default is true)."""
    value = default
    for word in words:
        if word == "--":
            break
        if word == f"--{long}":
            value = True
        elif word.startswith(f"--{long}="):
            value = parse_bool(word.partition("=")[2]) is True
    return value


@dataclass
class Item:
    """One object a command works on (a resource.Info): its kind, where it lives, the object
    as read (from the server, or from a file under --local)."""

    info: ResourceInfo
    obj: Obj
    scope: str | None
    local: bool = False

    @property
    def name(self) -> str:
        return str((self.obj.get("metadata") or {}).get("name", ""))

    @property
    def object_name(self) -> str:
        """info.ObjectName(), as the per-object errors name it: `deployments/coredns` for an
        object read from the server; for a file's under --local (no REST mapping) the kind in
        lower case, with its group and (kubectl's slip) a newline: `deployment.apps/web\n`."""
        if not self.local:
            return f"{self.info.plural}/{self.name}"
        if not self.info.group:
            return f"{self.kind.lower()}/{self.name}"
        return f"{self.kind.lower()}.{self.info.group}/{self.name}\n"

    @property
    def label(self) -> str:
        """What the printer names it: `deployment.apps/coredns`."""
        return f"{kind_name(self.info)}/{self.name}"

    @property
    def kind(self) -> str:
        return str(self.obj.get("kind") or self.info.kind)


@dataclass
class Failure:
    """One error of an aggregate: `status` for the API server's (printed as is), else the
    error's own text (kubectl adds `error: ` when it stands alone)."""

    message: str
    status: bool = False


def failure_text(failures: list[Failure]) -> str:
    """cmdutil.CheckErr over an aggregate, newline included: one error alone (`error: `
    added unless there), several one a line as they are (so one ending in a newline is
    followed by an empty line)."""
    if not failures:
        return ""
    if len(failures) == 1:
        only = failures[0]
        message = only.message
        if not only.status and not message.startswith("error: "):
            message = f"error: {message}"
        return message if message.endswith("\n") else message + "\n"
    return "".join(f"{f.message}\n" for f in failures)


def answer(texts: list[str], failures: list[Failure]) -> Output:
    """The command's output: what it printed as it went, then its errors."""
    body = "".join(texts) + failure_text(failures)
    return Output(body.removesuffix("\n"), 1 if failures else 0)


def printer(parsed: Parsed) -> str:
    """The -o the command prints with, checked as PrintFlags.ToPrinter checks it when the
    command starts: a format it does not know, or a template that does not parse, is the
    whole answer before anything is read or changed."""
    output = object_output(parsed)
    kind, _, template = output.partition("=")
    if kind in ("jsonpath", "jsonpath-as-json"):
        try:
            parse_jsonpath(template)
        except JsonPathError as exc:
            raise KubectlError(f"error: error parsing jsonpath {template}, {exc}") from None
    elif kind in ("go-template", "template"):
        try:
            gotemplate.evaluate(template, {})
        except gotemplate.TemplateError as exc:
            if str(exc).startswith("error parsing template"):
                raise KubectlError(f"error: {exc}") from None
    return output


# ------------------------------------------------------------------------- the builder


def find(
    ctx: Context,
    parsed: Parsed,
    args: list[str],
    *,
    all_flag: bool = False,
    selector: str = "",
    local: bool = False,
) -> list[Item]:
    """The objects named by `-f` files and by `args` (ResourceTypeOrNameArgs: `TYPE NAME...`,
    `TYPE/NAME...`, or `TYPE` with `--all` or a `-l` selector), as the resource builder
    finds them with ContinueOnError: every error of the lookup together as the only answer
    (KubectlError). Under --local the args are not read and the files' objects are the
    objects (no server)."""
    cluster = ctx.api
    ns = namespace(parsed)
    names = [n for value in parsed.all("filename") for n in value.split(",") if n]
    if local:
        args = []
    if names:
        return _from_files(ctx, parsed, names, args, ns, local)
    if not args:
        raise KubectlError(MISSING_RESOURCE)
    failures: list[Failure] = []
    items: list[Item] = []
    kinds = _split_types(args[0])
    if len(args) >= 2 and len(kinds) > 1:
        # normalizeMultipleResourcesArgs: `deploy,ds a b` is deploy/a deploy/b ds/a ds/b
        args = [f"{kind}/{name}" for kind in kinds for name in args[1:]]
    if any("/" in a for a in args):
        if not all("/" in a for a in args):
            raise KubectlError(_COMBINED)
        tuples = [_split_tuple(a) for a in args]
        if selector:
            raise KubectlError(
                "error: selectors and the all flag cannot be used when passing resource/name "
                "arguments"
            )
        resolved = [(resolve(cluster, kind), name) for kind, name in tuples]
        for info, name in resolved:
            _get(cluster, info, name, ns, items, failures)
    else:
        given = args[1:]
        everything = len(args) == 1 and not selector and all_flag
        if selector or everything:
            if given:
                raise KubectlError("error: name cannot be provided when a selector is specified")
            for info in _resolve_all(cluster, kinds):
                scope = ns if info.namespaced else None
                try:
                    listed = cluster.list(info.key, scope, label_selector=selector)
                except ApiError as exc:
                    raise KubectlError(list_error(info, exc, label=selector)) from None
                if info.custom:
                    failures.append(Failure(_unregistered(info, "List")))
                    continue
                items += [Item(info, obj, scope) for obj in listed.get("items", [])]
        elif given:
            if "all" in kinds:  # a category names several kinds
                raise KubectlError("error: you must specify only one resource")
            for name in given:
                _get(cluster, resolve(cluster, kinds[0]), name, ns, items, failures)
        else:
            _resolve_all(cluster, kinds)
            raise KubectlError("error: resource(s) were provided, but no name was specified")
    if failures:
        raise KubectlError(failure_text(failures).removesuffix("\n"))
    return items


def _split_tuple(arg: str) -> tuple[str, str]:
    parts = arg.split("/")
    if len(parts) != 2:
        raise KubectlError(
            "error: arguments in resource/name form may not have more than one slash"
        )
    kind, name = parts
    if not kind or not name or len(_split_types(kind)) != 1:
        raise KubectlError(
            "error: arguments in resource/name form must have a single resource and name"
        )
    return kind, name


def _split_types(word: str) -> list[str]:
    """SplitResourceArgument: the comma-separated types, each once (an empty one too, which
    no server has)."""
    out: list[str] = []
    for part in word.split(","):
        if part not in out:
            out.append(part)
    return out


def _resolve_all(cluster: ClusterAPI, kinds: list[str]) -> list[ResourceInfo]:
    infos: list[ResourceInfo] = []
    for kind in kinds:
        found = (
            [i for i in cluster.resources() if "all" in i.categories]
            if kind == "all"
            else [resolve(cluster, kind)]
        )
        infos += [i for i in found if i not in infos]
    return infos


def _get(
    cluster: ClusterAPI,
    info: ResourceInfo,
    name: str,
    ns: str,
    items: list[Item],
    failures: list[Failure],
) -> None:
    scope = ns if info.namespaced else None
    try:
        obj = cluster.get(info.key, name, scope)
    except ApiError as exc:
        failures.append(Failure(error_text(exc), status=True))
        return
    if info.custom:
        failures.append(Failure(_unregistered(info)))
        return
    items.append(Item(info, obj, scope))


def _unregistered(info: ResourceInfo, suffix: str = "") -> str:
    """What kubectl's typed decoder says of a custom resource (its scheme knows none)."""
    return (
        f'no kind "{info.kind}{suffix}" is registered for version "{info.api_version}" in '
        'scheme "pkg/scheme/scheme.go:28"'
    )


def _from_files(
    ctx: Context, parsed: Parsed, names: list[str], args: list[str], ns: str, local: bool
) -> list[Item]:
    sources: list[tuple[str, str]] = []
    for name in names:
        text = ctx.stdin if name == "-" else files.read(ctx, name)
        if text is None:
            raise KubectlError(f'error: the path "{name}" does not exist')
        sources.append(("STDIN" if name == "-" else name, text))
    if args:
        if any("/" in a for a in args):
            message = "resource/name arguments cannot be provided when a path is specified"
        else:
            message = (
                "when paths, URLs, or stdin is provided as input, you may not specify resource "
                "arguments as well"
            )
        raise KubectlError(f"error: {message}")
    cluster = ctx.api
    items: list[Item] = []
    failures: list[Failure] = []
    for source, text in sources:
        for doc in documents(text, source):
            info = mapping(cluster, doc, source)
            scope = target_namespace(info, doc, parsed)
            if local:
                items.append(Item(info, copy.deepcopy(doc), scope, local=True))
                continue
            doc_name = str((doc.get("metadata") or {}).get("name", ""))
            _get(cluster, info, doc_name, scope or ns, items, failures)
    if failures:
        raise KubectlError(failure_text(failures).removesuffix("\n"))
    return items


# ------------------------------------------------------------------------- pod templates

# Groups whose objects kubectl's scheme does not know: they decode as unstructured.
_UNTYPED_GROUPS = {"apiextensions.k8s.io", "apiregistration.k8s.io", "metrics.k8s.io"}


def go_type(info: ResourceInfo) -> str:
    """The `%T` of the object kubectl decoded: `*v1.ConfigMap`, `*unstructured.Unstructured`."""
    if info.custom or info.group in _UNTYPED_GROUPS:
        return "*unstructured.Unstructured"
    return f"*{info.version}.{info.kind}"


def edited_pod_spec(item: Item) -> tuple[Obj, dict[str, Any]] | Change:
    """A copy of the item's object to change and the pod spec inside it (pod_spec); or, for a
    kind with none, the Change that records kubectl's error for it."""
    after = copy.deepcopy(item.obj)
    try:
        return after, pod_spec(item, after)
    except ValueError as exc:
        return Change(item, None, str(exc))


def pod_spec(item: Item, obj: Obj) -> dict[str, Any]:
    """polymorphichelpers.UpdatePodSpecForObject: the pod spec of `obj` (a pod's own, else
    its template's; made where the object has none yet), or kubectl's error for a kind that
    has none (ValueError with the message)."""
    kind = (item.info.group, item.info.kind)

    def inner(parent: dict[str, Any], *path: str) -> dict[str, Any]:
        for key in path:
            child = parent.get(key)
            if not isinstance(child, dict):
                child = parent[key] = {}
            parent = child
        return parent

    if kind == ("", "Pod"):
        return inner(obj, "spec")
    if kind in TEMPLATED:
        return inner(obj, "spec", "template", "spec")
    if kind == ("batch", "CronJob"):
        return inner(obj, "spec", "jobTemplate", "spec", "template", "spec")
    raise ValueError(
        f"the object is not a pod or does not have a pod template: {go_type(item.info)}"
    )


def select_string(s: str, spec: str) -> bool:
    """helper.go's selectString: `spec` with a non-greedy `*` wildcard (bugs and all)."""
    if spec == "*":
        return True
    if "*" not in spec:
        return s == spec
    pos = 0
    parts = spec.split("*")
    for i, part in enumerate(parts):
        if not part:
            continue
        found = s[pos:].find(part)
        if (
            found < pos
            or (i == 0 and pos != 0)
            or (i == len(parts) - 1 and len(s) != len(part) + found)
        ):
            return False
        pos = found
    return True


def select_containers(spec: dict[str, Any], selector: str) -> list[dict[str, Any]]:
    """The containers whose names match, then the init containers that do (as set env and set
    resources take them)."""
    return [
        c
        for key in ("containers", "initContainers")
        for c in spec.get(key) or []
        if isinstance(c, dict) and select_string(str(c.get("name", "")), selector)
    ]


# ------------------------------------------------------------------------- sending changes


def merge_patch(before: Any, after: Any) -> Any:
    """The JSON merge patch that turns `before` into `after` ({} for no change): what kubectl's
    two-way strategic patch comes to on objects whose lists are replaced whole."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return after
    out: dict[str, Any] = {}
    for key, value in after.items():
        if key not in before:
            out[key] = value
        elif before[key] != value:
            out[key] = merge_patch(before[key], value)
    for key in before:
        if key not in after:
            out[key] = None
    return out


@dataclass
class Change:
    """One object's outcome of the mutation: the object as changed, or the error (kubectl's
    patch.Err). An object whose change is no change is left out by `send` (kubectl sends no
    empty patch) unless the command sends it anyway."""

    item: Item
    after: Obj | None = None
    error: str = ""


def send(
    ctx: Context,
    changes: list[Change],
    *,
    dry: str,
    local: bool,
    output: str,
    operation: str,
    patch_failure: str | None,
    always: bool = False,
    texts: list[str],
    failures: list[Failure],
) -> None:
    """The loop over the patches: an object's error as `error: KIND/NAME ERR`, an unchanged
    object skipped (unless `always`: set serviceaccount sends even an empty patch), the object
    printed as changed under --local or a client dry run, else the patch sent (a refusal as
    `patch_failure` and the server's message, or as kubectl prints the server's error where
    it is None) and the server's answer printed."""
    cluster = ctx.api
    for change in changes:
        item = change.item
        if change.error:
            failures.append(Failure(f"error: {item.object_name} {change.error}\n"))
            continue
        after = change.after
        assert after is not None
        patch = merge_patch(item.obj, after)
        if not patch and not always:
            continue
        writer = None if local else dry_run_writer(cluster, dry)
        if writer is None:
            shown = typed(item.info, after)
            texts.append(object_text(shown, item.label, output, operation + dry_suffix(dry)))
            continue
        try:
            sent = writer.patch(item.info.key, item.name, patch, item.scope, patch_type="merge")
        except ApiError as exc:
            if patch_failure is None:
                failures.append(Failure(error_text(exc), status=True))
            else:
                failures.append(Failure(f"{patch_failure}{exc.message}"))
            continue
        texts.append(object_text(sent, item.label, output, operation + dry_suffix(dry)))


def send_all(
    ctx: Context,
    changes: list[Change],
    failures: list[Failure],
    *,
    dry: str,
    local: bool,
    output: str,
    operation: str,
    patch_failure: str | None,
    always: bool = False,
) -> Output:
    """`send` over every change, then the command's output (`answer`)."""
    texts: list[str] = []
    send(
        ctx,
        changes,
        dry=dry,
        local=local,
        output=output,
        operation=operation,
        patch_failure=patch_failure,
        always=always,
        texts=texts,
        failures=failures,
    )
    return answer(texts, failures)


def complete(ctx: Context, parsed: Parsed) -> tuple[str, str, bool, list[Item]]:
    """Complete and Validate of a subcommand whose arguments are all objects (set resources,
    set subject), in kubectl's order: the dry-run strategy, the printer, --local (no names
    beside it), the objects, --local with a server dry run, --all with a selector. Returns
    (dry, output, local, items)."""
    dry = dry_run(parsed)
    output = printer(parsed)
    local = parsed.has("local")
    selector = parsed.value("selector") or ""
    if local and parsed.positionals:
        raise KubectlError(LOCAL_RESOURCE)
    items = find(
        ctx, parsed, parsed.positionals, all_flag=parsed.has("all"), selector=selector, local=local
    )
    if local and dry == "server":
        raise KubectlError(LOCAL_SERVER)
    if parsed.has("all") and selector:
        raise KubectlError(ALL_AND_SELECTOR)
    return dry, output, local, items
