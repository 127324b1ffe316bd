"""kubectl auth reconcile -f FILE: RBAC roles and bindings made to hold at least what the files
say, as kubectl 1.36 does it (pkg/cmd/auth/reconcile.go over component-helpers'
auth/rbac/reconciliation).

A Role or ClusterRole missing from the cluster is created (with its namespace, if need be); an
existing one gains the rules it does not cover (RBAC's Covers, rule by broken-down rule), or,
with --remove-extra-permissions, becomes the file's rules when they differ. A binding gains its
missing subjects (--remove-extra-subjects: becomes the file's); one whose roleRef changed is
deleted and created again. Labels and annotations merge, the cluster's values winning. An object
annotated `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone, and said so.

Each object prints through the -o printer (`KIND/NAME reconciled`), then what reconciliation
did (kubectl's stderr), tab-indented. The files are read as kubectl's local builder reads them:
into Go's typed structs (unknown fields dropped, a wrong type is Go's json error), a namespace
only where the file gives one, other built-in kinds skipped, unknown kinds an error. Objects
are sent as kubectl sends them, in protobuf (an empty list is no field). Errors are printed
after every object, as kubectl's ContinueOnError visitor gathers them; a binding that fails
is the nil dereference kubectl panics with (its first two lines, not its goroutine trace).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl import filenames
from simulators.lab.kubectl.apply import documents, read_sources
from simulators.lab.kubectl.common import DRY_RUN, KubectlError, dry_run, error_text, kind_name
from simulators.lab.kubectl.printing import PRINT_FLAGS, object_output, object_text, printed
from simulators.lab.tool import Context, Output

FLAGS = [
    Flag("filename", long="filename", short="f", takes_value=True),
    Flag("recursive", long="recursive", short="R"),
    Flag("kustomize", long="kustomize", short="k", takes_value=True),
    DRY_RUN,
    Flag("remove-extra-permissions", long="remove-extra-permissions"),
    Flag("remove-extra-subjects", long="remove-extra-subjects"),
    Flag("show-managed-fields", long="show-managed-fields"),
    Flag("allow-missing-template-keys", long="allow-missing-template-keys"),
    *PRINT_FLAGS,
]

RBAC = "rbac.authorization.k8s.io"
ROLES = ("Role", "ClusterRole")
BINDINGS = ("RoleBinding", "ClusterRoleBinding")
AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"
EMPTY_NAME = "resource name may not be empty"
PANIC = (
    "panic: runtime error: invalid memory address or nil pointer dereference\n"
    "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1bd69c7]"
)
_SEPARATOR = re.compile(r"^---[ \t]*(#.*)?$", re.MULTILINE)  # yaml.YAMLReader's

# The Go structs a file decodes into, `field: type`: `[]T` a slice, `map` a map[string]string,
# `any` a field kept unchecked, a key of _STRUCTS a struct, else a string type (as Go names
# it). `!`: a field Go writes even when empty (no omitempty); `*`: one it keeps whenever the
# JSON has it, even empty (a pointer; labels and annotations, whose merge tells {} from none).
_META = (
    "name:string generateName:string namespace:string selfLink:string uid:string "
    "resourceVersion:string labels:*map annotations:*map finalizers:[]string generation:any "
    "creationTimestamp:any deletionTimestamp:any deletionGracePeriodSeconds:any "
    "ownerReferences:any managedFields:any"
)
_STRUCTS: dict[str, dict[str, str]] = {
    name: {k: v for k, _, v in (pair.partition(":") for pair in fields.split())}
    for name, fields in {
        "Role": "metadata:!ObjectMeta rules:![]PolicyRule",
        "ClusterRole": "metadata:!ObjectMeta rules:![]PolicyRule aggregationRule:*AggregationRule",
        "RoleBinding": "metadata:!ObjectMeta subjects:[]Subject roleRef:!RoleRef",
        "ClusterRoleBinding": "metadata:!ObjectMeta subjects:[]Subject roleRef:!RoleRef",
        "ObjectMeta": _META,
        "PolicyRule": "verbs:![]string apiGroups:[]string resources:[]string "
        "resourceNames:[]string nonResourceURLs:[]string",
        "AggregationRule": "clusterRoleSelectors:[]LabelSelector",
        "LabelSelector": "matchLabels:map matchExpressions:[]LabelSelectorRequirement",
        "LabelSelectorRequirement": "key:!string values:[]string "
        "operator:!v1.LabelSelectorOperator",
        "Subject": "kind:!string apiGroup:string name:!string namespace:string",
        "RoleRef": "apiGroup:!string kind:!string name:!string",
    }.items()
}


class DecodeError(Exception):
    """encoding/json's UnmarshalTypeError: `json: cannot unmarshal ...`."""


class Panic(Exception):
    """kubectl's nil dereference: a binding whose reconciliation failed."""


class ClientError(Exception):
    """An error client-go makes itself, before any request (a name a path cannot hold)."""


def _go_type(kind: str) -> str:
    """A _STRUCTS type as Go's json errors name it: []string, v1.PolicyRule."""
    if kind.startswith("[]"):
        return "[]" + _go_type(kind[2:])
    if kind == "map":
        return "map[string]string"
    return f"v1.{kind}" if kind in _STRUCTS else kind


def _decode(value: Any, kind: str, owner: str, path: str) -> Any:
    """`value` as Go's json.Unmarshal fills a field of type `kind` (of struct `owner`, at JSON
    `path`), as json.Marshal writes it back: unknown fields dropped, fields in _STRUCTS' way."""
    if kind == "any":
        return value
    if value is None:  # null leaves Go's zero value
        if kind not in _STRUCTS:
            return None if kind.startswith("[]") or kind == "map" else ""
        value = {}
    if kind.startswith("[]"):
        if not isinstance(value, list):
            raise _refused(value, kind, owner, path)
        return [_decode(item, kind[2:], owner, path) for item in value]
    if kind not in _STRUCTS and kind != "map":
        if not isinstance(value, str):
            raise _refused(value, kind, owner, path)
        return value
    if not isinstance(value, dict):
        raise _refused(value, kind, owner, path)
    if kind == "map":
        for key in sorted(value):
            if value[key] is not None and not isinstance(value[key], str):
                raise _refused(value[key], "string", owner, path)
        return {k: v or "" for k, v in value.items()}
    out: dict[str, Any] = {}
    for name, spec in sorted(_STRUCTS[kind].items()):  # JSON's keys come sorted
        item = _decode(value.get(name), spec.lstrip("!*"), kind, f"{path}.{name}".lstrip("."))
        kept = spec[0] == "!" or (spec[0] == "*" and value.get(name) is not None)
        if kept or item not in (None, "", [], {}, 0):
            out[name] = item
    return out


def _refused(value: Any, kind: str, owner: str, path: str) -> DecodeError:
    """Go's UnmarshalTypeError for `value` (as JSON types it) in a field of type `kind`."""
    found = "bool" if isinstance(value, bool) else "number" if isinstance(value, int | float) \
        else "array" if isinstance(value, list) else "object" if isinstance(value, dict) \
        else "string"  # fmt: skip
    return DecodeError(
        f"json: cannot unmarshal {found} into Go struct field {owner}.{path} of type "
        f"{_go_type(kind)}"
    )


def typed(doc: Obj, kind: str) -> Obj:
    """An RBAC object as the typed struct kubectl decodes it into (apiVersion and kind set,
    as its printer's type setter sets them)."""
    return {"apiVersion": f"{RBAC}/v1", "kind": kind, **_decode(doc, kind, kind, "")}


def _wire(value: Any) -> Any:
    """A typed object as kubectl sends it, in protobuf: an empty list or map is no field at
    all (an empty aggregationRule is still one: a pointer to an empty struct)."""
    if isinstance(value, list):
        return [_wire(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for name, item in value.items():
        item = _wire(item)
        if item is not None and item != [] and (item != {} or name == "aggregationRule"):
            out[name] = item
    return out


def _go_list(values: list[str] | None) -> str:
    """fmt's %v of a []string."""
    return "[" + " ".join(values or []) + "]"


def rule_text(rule: dict[str, Any]) -> str:
    """fmt's %+v of a PolicyRule."""
    names = ("Verbs", "APIGroups", "Resources", "ResourceNames", "NonResourceURLs")
    keys = ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")
    parts = (f"{n}:{_go_list(rule.get(k))}" for n, k in zip(names, keys, strict=True))
    return "{" + " ".join(parts) + "}"


def subject_text(s: dict[str, str]) -> str:
    """fmt's %+v of a Subject."""
    return (
        f"{{Kind:{s.get('kind', '')} APIGroup:{s.get('apiGroup', '')} Name:{s.get('name', '')} "
        f"Namespace:{s.get('namespace', '')}}}"
    )


# ------------------------------------------------------------------------- RBAC's Covers


def breakdown(rule: dict[str, Any]) -> list[dict[str, Any]]:
    """validation.BreakdownRule: one rule per group, resource, verb (and name), then one per
    non-resource URL and verb."""
    out: list[dict[str, Any]] = []
    verbs = rule.get("verbs") or []
    for group in rule.get("apiGroups") or []:
        for resource in rule.get("resources") or []:
            for verb in verbs:
                sub = {"verbs": [verb], "apiGroups": [group], "resources": [resource]}
                names = rule.get("resourceNames") or []
                out += [{**sub, "resourceNames": [n]} for n in names] if names else [sub]
    for url in rule.get("nonResourceURLs") or []:
        out += [{"verbs": [verb], "nonResourceURLs": [url]} for verb in verbs]
    return out


def _resources_cover(owner: list[str], wanted: list[str]) -> bool:
    """resourceCoversAll: `*`, the resource itself, or `*/SUBRESOURCE`."""
    if "*" in owner:
        return True
    return all(p in owner or ("/" in p and "*/" + p.split("/", 1)[1] in owner) for p in wanted)


def _rule_covers(owner: dict[str, Any], sub: dict[str, Any]) -> bool:
    """validation.ruleCovers: `owner` allows all `sub` (a broken-down rule) does."""

    def get(rule: dict[str, Any], key: str) -> list[str]:
        return list(rule.get(key) or [])

    def all_of(key: str, star: bool = True) -> bool:
        have = get(owner, key)
        return (star and "*" in have) or all(w in have for w in get(sub, key))

    owned = get(owner, "nonResourceURLs")  # nonResourceURLsCoversAll: the URL, or `PREFIX*`
    urls = all(
        any(o == p or (o.endswith("*") and p.startswith(o.rstrip("*"))) for o in owned)
        for p in get(sub, "nonResourceURLs")
    )
    names = not get(owner, "resourceNames") or (
        bool(get(sub, "resourceNames")) and all_of("resourceNames", star=False)
    )
    resources = _resources_cover(get(owner, "resources"), get(sub, "resources"))
    return all_of("verbs") and all_of("apiGroups") and resources and names and urls


def uncovered(owner: list[dict[str, Any]], servant: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """validation.Covers' second answer: `servant`'s broken-down rules no `owner` rule covers."""
    subs = [sub for rule in servant for sub in breakdown(rule)]
    return [sub for sub in subs if not any(_rule_covers(o, sub) for o in owner)]


def _selectors_uncovered(owner: Obj | None, servant: Obj | None) -> list[Any]:
    """aggregationRuleCovers' second answer: `servant`'s selectors `owner` does not have (all
    of them when `owner` has no aggregation rule)."""
    have = None if owner is None else owner.get("clusterRoleSelectors") or []
    wanted = (servant or {}).get("clusterRoleSelectors") or []
    return [s for s in wanted if have is None or s not in have]


def _only_new(items: list[Any], others: list[Any]) -> list[Any]:
    """diffSubjectLists' one side: `items` not in `others`, each once."""
    out: list[Any] = []
    for item in items:
        if item not in others and item not in out:
            out.append(item)
    return out


# ------------------------------------------------------------------------- the command


def _dry_run(parsed: Parsed) -> bool:
    """getClientSideDryRun: client (bare, or a true boolean) is a dry run; server is refused."""
    try:
        mode = dry_run(parsed)
    except KubectlError as exc:
        raise KubectlError(
            f"error: error accessing --dry-run flag for command reconcile: "
            f"{str(exc).removeprefix('error: ')}"
        ) from None
    if mode == "server":
        raise KubectlError("error: --dry-run=server for command reconcile is not supported yet")
    return mode == "client"


def _kustomize_error(ctx: Context, directory: str) -> str:
    return "error: " + filenames.kustomize_error(ctx, directory)


def _check_template(output: str) -> None:
    """A template Go cannot parse is refused before anything is reconciled (ToPrinter parses
    it); one that fails on an object is not (kubectl ignores what printing an object says)."""
    if "=" not in output:
        return
    try:
        object_text({"kind": "Role", "metadata": {}}, "", output, "")
    except KubectlError as exc:
        message = str(exc)
        if message.startswith("error: error parsing template") or (
            output.startswith("jsonpath") and not message.startswith("error: error executing")
        ):
            raise


def run(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    """`kubectl auth reconcile`: its checks in kubectl's order (files named, no arguments,
    --dry-run, -k, the files exist, -o), then each file's objects in turn."""
    kustomize = parsed.value("kustomize") or ""
    if not parsed.all("filename") and not kustomize:
        raise KubectlError("error: must specify one of -f and -k")
    if args:
        raise KubectlError("error: no arguments are allowed")
    dry = _dry_run(parsed)
    if kustomize:
        if parsed.all("filename"):
            raise KubectlError("error: only one of -f or -k can be specified")
        raise KubectlError(_kustomize_error(ctx, kustomize))
    sources = read_sources(ctx, parsed, "reconcile")
    output = object_output(parsed)
    _check_template(output)
    return Reconciler(ctx.api, parsed, dry, output).run(sources)


@dataclass
class Result:
    """What reconciling one object found (ReconcileClusterRole[Binding]Result): the object to
    print, the operation (create, update, recreate, none) and what changed."""

    obj: Obj
    operation: str
    protected: bool = False
    missing_rules: list[dict[str, Any]] = field(default_factory=list)
    extra_rules: list[dict[str, Any]] = field(default_factory=list)
    missing_subjects: list[dict[str, str]] = field(default_factory=list)
    extra_subjects: list[dict[str, str]] = field(default_factory=list)


def _segment_errors(name: str) -> list[str]:
    """apimachinery's IsValidPathSegmentName."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in name]


class Reconciler:
    """One `auth reconcile` run: the printer's output so far and the errors kept for the end."""

    def __init__(self, cluster: ClusterAPI, parsed: Parsed, dry: bool, output: str) -> None:
        self.cluster = cluster
        self.parsed = parsed
        self.dry = dry
        self.output = output
        self.texts: list[str] = []
        self.errors: list[ApiError | str] = []  # in order, as the objects are visited
        self.late: list[str] = []  # the files' own errors, which kubectl lists last
        self.printed = 0
        self.show_managed = parsed.has("show-managed-fields")

    def run(self, sources: list[tuple[str, str]]) -> Output:
        """Every file's objects, then the errors: one as cmdutil.CheckErr words it, several
        one a line (an API error as `Error from server (Reason): message`)."""
        try:
            for source, text in sources:
                self._file(source, text)
        except Panic:
            return Output(printed([*self.texts, PANIC]), 2)
        errors = [*self.errors, *self.late]
        if len(errors) == 1:
            only = errors[0]
            if isinstance(only, ApiError):
                return Output(printed(self.texts, [error_text(only)]), 1)
            return Output(printed(self.texts, [f"error: {only.removeprefix('error: ')}"]), 1)
        lines = [
            (f"Error from server ({e.reason}): {e.message}" if e.reason else
             f"Error from server: {e.message}") if isinstance(e, ApiError) else e
            for e in errors
        ]  # fmt: skip
        return Output(printed(self.texts, lines), 1 if lines else 0)

    def _file(self, source: str, text: str) -> None:
        """Each document in turn; one YAML cannot read ends its file."""
        for chunk in _SEPARATOR.split(text)[::2]:
            try:
                docs = documents((chunk or "").removeprefix("\n"), source)
            except KubectlError as exc:
                self.late.append(str(exc).removeprefix("error: "))
                return
            for doc in docs:
                self._document(doc, source)

    def _document(self, doc: Obj, source: str) -> None:
        """One object: decoded (errors kept for the end), its namespace checked against -n,
        then reconciled if it is RBAC's."""
        kind, version = doc.get("kind"), str(doc.get("apiVersion") or "")
        if not kind or not version:
            text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            self.late.append(
                f"unable to decode \"{source}\": Object '{'apiVersion' if kind else 'Kind'}' is "
                f"missing in '{text}'"
            )
            return
        group, _, ver = version.rpartition("/")
        rbac = group == RBAC and kind in (*ROLES, *BINDINGS)
        if not (rbac and ver in ("v1", "v1alpha1", "v1beta1")) and not self._builtin(group, kind):
            self.late.append(
                f'unable to decode "{source}": no kind "{kind}" is registered for version '
                f'"{version}" in scheme "pkg/scheme/scheme.go:28"'
            )
            return
        try:
            expected = typed(doc, str(kind)) if rbac and ver == "v1" else None
        except DecodeError as exc:
            self.late.append(f'unable to decode "{source}": {exc}')
            return
        meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else None
        own, given = str((meta or {}).get("namespace") or ""), self.parsed.value("namespace")
        if given and own and own != given:
            self.errors.append(
                f'the namespace from the provided object "{own}" does not match the namespace '
                f"\"{given}\". You must pass '--namespace={own}' to perform this operation."
            )
        elif rbac and ver != "v1":
            self.errors.append(f"only {RBAC}/v1 is supported: not *{ver}.{kind}")
        elif expected is not None:  # other kinds are skipped
            info = next(i for i in self.cluster.resources() if i.kind == kind and i.group == RBAC)
            try:
                self._show(info, self._reconcile(info, expected))
            except ApiError as exc:
                self.errors.append(exc)
            except ClientError as exc:
                self.errors.append(str(exc))

    def _builtin(self, group: str, kind: Any) -> bool:
        """A kind kubectl's scheme knows (a built-in one)."""
        if kind == "List" and group == "":
            return True
        return any(i.group == group and i.kind == kind and not i.custom
                   for i in self.cluster.resources())  # fmt: skip

    # ------------------------------------------------------------------ the cluster

    def _get(self, info: ResourceInfo, name: str, ns: str) -> Obj | None:
        """The object as it is (typed), or None when there is none; a name client-go cannot
        put in a path is its error, before any request."""
        if info.namespaced and _segment_errors(ns):
            raise ClientError(f'invalid namespace "{ns}": {_go_list(_segment_errors(ns))}')
        if not name:
            raise ClientError(EMPTY_NAME)
        if _segment_errors(name):
            raise ClientError(f'invalid resource name "{name}": {_go_list(_segment_errors(name))}')
        if info.namespaced and not ns:
            return None  # GET .../roles/NAME, outside any namespace: NotFound
        try:
            found = self.cluster.get(info.key, name, ns if info.namespaced else None)
        except ApiError as exc:
            if exc.reason == "NotFound":
                return None
            raise
        return typed(found, info.kind)

    def _write(self, info: ResourceInfo, result: Result, ns: str) -> None:
        """Carry out `result` (unless a dry run or the object opted out): a create first makes
        the namespace (tryEnsureNamespace), a recreate first deletes the old binding."""
        if result.protected or self.dry or result.operation == "none":
            return
        where = ns if info.namespaced else None
        name = result.obj["metadata"].get("name", "")
        if result.operation == "recreate":
            try:
                self.cluster.delete(info.key, name, where)
            except ApiError as exc:
                if exc.reason != "NotFound":
                    raise
        if result.operation == "update":
            result.obj = typed(self.cluster.update(info.key, _wire(result.obj), where), info.kind)
            return
        if info.namespaced:
            self._ensure_namespace(ns)
        result.obj = typed(self.cluster.create(info.key, _wire(result.obj), where), info.kind)

    def _ensure_namespace(self, ns: str) -> None:
        """tryEnsureNamespace: the namespace made if there is none (Forbidden let be)."""
        if not ns:
            raise ClientError(EMPTY_NAME)
        try:
            self.cluster.get("namespaces", ns)
            return
        except ApiError as exc:
            if exc.reason not in ("NotFound", "Forbidden"):
                raise
        try:
            namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
            self.cluster.create("namespaces", namespace)
        except ApiError as exc:
            if exc.reason not in ("AlreadyExists", "Forbidden"):
                raise

    # ------------------------------------------------------------------ reconciliation

    def _reconcile(self, info: ResourceInfo, expected: Obj) -> Result:
        """ReconcileRoleOptions.Run or ReconcileRoleBindingOptions.Run. A binding's failure is
        kubectl's panic (it reads the binding's result without looking at the error)."""
        meta = expected["metadata"]
        try:
            existing = self._get(info, meta.get("name", ""), meta.get("namespace", ""))
            if existing is None:
                rules, subjects = expected.get("rules") or [], expected.get("subjects") or []
                result = Result(expected, "create", False, list(rules), [], list(subjects))
            elif info.kind in ROLES:
                result = self._role_changes(existing, expected)
            elif expected["roleRef"] != existing["roleRef"]:
                result = Result(expected, "recreate", self._protected(existing))
            else:
                result = self._binding_changes(existing, expected)
            self._write(info, result, meta.get("namespace", ""))
        except (ApiError, ClientError):
            if info.kind in ROLES:
                raise
            raise Panic from None
        return result

    def _role_changes(self, existing: Obj, expected: Obj) -> Result:
        """computeReconciledRole: missing rules added (or, removing extra permissions, the
        file's rules when any differ); a ClusterRole's aggregation selectors alike."""
        result = Result(copy.deepcopy(existing), "none", self._protected(existing))
        self._merge_meta(result, existing, expected)
        remove = self.parsed.has("remove-extra-permissions")
        want, have = expected["rules"] or [], existing["rules"] or []
        want_agg, have_agg = expected.get("aggregationRule"), existing.get("aggregationRule")
        if want_agg is None or have_agg is None:
            result.extra_rules = uncovered(want, have)
        result.missing_rules = uncovered(have, want)
        if not remove and result.missing_rules:
            result.obj["rules"] = [*have, *result.missing_rules]
            result.operation = "update"
        elif remove and (result.missing_rules or result.extra_rules):
            result.obj["rules"] = expected["rules"]
            result.operation = "update"
        extra = _selectors_uncovered(want_agg, have_agg)
        missing = _selectors_uncovered(have_agg, want_agg)
        if want_agg is None and have_agg is not None:
            result.obj.pop("aggregationRule", None)
            result.operation = "update"
        elif not remove and missing:
            rule = result.obj.setdefault("aggregationRule", {})
            rule["clusterRoleSelectors"] = [*(rule.get("clusterRoleSelectors") or []), *missing]
            result.operation = "update"
        elif remove and (missing or extra):
            result.obj["aggregationRule"] = want_agg
            result.operation = "update"
        return result

    def _binding_changes(self, existing: Obj, expected: Obj) -> Result:
        """computeReconciledRoleBinding (the same roleRef): missing subjects added (or,
        removing extra subjects, the file's subjects when any differ)."""
        result = Result(copy.deepcopy(existing), "none", self._protected(existing))
        self._merge_meta(result, existing, expected)
        want, have = expected.get("subjects") or [], existing.get("subjects") or []
        result.missing_subjects = _only_new(want, have)
        result.extra_subjects = _only_new(have, want)
        remove = self.parsed.has("remove-extra-subjects")
        if not remove and result.missing_subjects:
            result.obj["subjects"] = [*have, *result.missing_subjects]
            result.operation = "update"
        elif remove and (result.missing_subjects or result.extra_subjects):
            result.obj["subjects"] = expected.get("subjects")
            result.operation = "update"
        return result

    @staticmethod
    def _protected(existing: Obj) -> bool:
        return (existing["metadata"].get("annotations") or {}).get(AUTOUPDATE) == "false"

    @staticmethod
    def _merge_meta(result: Result, existing: Obj, expected: Obj) -> None:
        """The file's annotations and labels merged in, the cluster's values winning (no map
        when neither has one); any change is an update."""
        for key in ("annotations", "labels"):
            mine, theirs = expected["metadata"].get(key), existing["metadata"].get(key)
            merged = None if mine is None and theirs is None else {**(mine or {}), **(theirs or {})}
            result.obj["metadata"].pop(key, None)
            if merged is not None:
                result.obj["metadata"][key] = merged
            if merged != theirs:
                result.operation = "update"

    # ------------------------------------------------------------------ printing

    def _show(self, info: ResourceInfo, result: Result) -> None:
        """printResults: the object through the printer (one YAML printer for all: `---`
        between objects), then what reconciliation did."""
        obj = copy.deepcopy(result.obj)  # as Go prints it: ObjectMeta's empty maps left out
        for key in ("labels", "annotations", "managedFields"):
            if not obj["metadata"].get(key) or (key == "managedFields" and not self.show_managed):
                obj["metadata"].pop(key, None)
        label = f"{kind_name(info)}/{obj['metadata'].get('name', '')}"
        operation = "reconciled (dry run)" if self.dry else "reconciled"
        try:
            text = object_text(obj, label, self.output, operation)
        except KubectlError:
            text = ""  # kubectl does not look at what PrintObj returns
        self.texts.append(("---\n" if self.output == "yaml" and self.printed else "") + text)
        self.printed += 1
        if result.operation == "none":
            return
        caveat = f", but object opted out ({AUTOUPDATE}: false)" if result.protected else ""
        lines = [f"\treconciliation required {result.operation}{caveat}"]
        sections = [
            ("missing subjects added", result.missing_subjects, subject_text, True),
            ("extra subjects removed", result.extra_subjects, subject_text,
             self.parsed.has("remove-extra-subjects")),
            ("missing rules added", result.missing_rules, rule_text, True),
            ("extra rules removed", result.extra_rules, rule_text,
             self.parsed.has("remove-extra-permissions")),
        ]  # fmt: skip
        for title, items, show, wanted in sections:
            if wanted and items:
                lines += [f"\t{title}:", *(f"\t\t{show(item)}" for item in items)]
        self.texts.append("\n".join(lines) + "\n")
