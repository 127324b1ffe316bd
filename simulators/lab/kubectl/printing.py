"""kubectl's printers over what the API returns: server-side Tables, custom-columns,
yaml, json, name, jsonpath, and --sort-by."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from simulators.cluster.api import Obj, ResourceInfo
from simulators.lab import budget, gotemplate, jsonpath
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl import gosort
from simulators.lab.kubectl.common import KubectlError, format_labels, kind_name, labels_of, meta
from simulators.lab.kubectl.go_order import struct_order
from simulators.lab.kubectl.kyaml import to_kyaml
from simulators.lab.kubectl.tabwriter import table as tab_table

OUTPUT_ERROR = (
    'error: unable to match a printer suitable for the output format "{0}", allowed formats '
    "are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,"
    "jsonpath-as-json,jsonpath-file,kyaml,name,template,templatefile,wide,yaml"
)
# The formats of a command that prints the object it sent (create, run, expose, create token):
# no table, so no wide or custom columns.
CREATE_OUTPUT_ERROR = (
    'error: unable to match a printer suitable for the output format "{0}", allowed formats '
    "are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,"
    "template,templatefile,yaml"
)


@dataclass
class TableOptions:
    wide: bool = False
    no_headers: bool = False
    with_namespace: bool = False
    with_kind: ResourceInfo | None = None
    label_columns: list[str] = field(default_factory=list)
    show_labels: bool = False


def table_rows(table: Obj, opts: TableOptions, header: bool = True) -> list[list[str]]:
    """A server Table decorated as kubectl's decorateTable/printTable does, as cell rows."""
    columns = [
        (i, c)
        for i, c in enumerate(table.get("columnDefinitions", []))
        if opts.wide or not c.get("priority", 0)
    ]
    name_index = next(
        (i for i, c in enumerate(table.get("columnDefinitions", [])) if c.get("format") == "name"),
        -1,
    )
    rows: list[list[str]] = []
    if header and not opts.no_headers:
        head = [str(c.get("name", "")).upper() for _, c in columns]
        if opts.with_namespace:
            head.insert(0, "NAMESPACE")
        head += [key.split("/")[-1].upper() for key in opts.label_columns]
        if opts.show_labels:
            head.append("LABELS")
        rows.append(head)
    for row in table.get("rows", []):
        cells = row.get("cells", [])
        obj = row.get("object") or {}
        out: list[str] = []
        for i, _ in columns:
            value = cells[i] if i < len(cells) else None
            text = cell_text(value)
            if opts.with_kind is not None and i == name_index:
                text = f"{kind_name(opts.with_kind)}/{text}"
            out.append(text)
        if opts.with_namespace:
            out.insert(0, str(meta(obj).get("namespace", "")))
        labels = labels_of(obj)
        out += [labels.get(key, "") for key in opts.label_columns]
        if opts.show_labels:
            out.append(format_labels(labels))
        rows.append(out)
    return rows


def cell_text(value: Any) -> str:
    """fmt.Sprint of a Table cell; line breaks cut as printTable cuts them."""
    text = go_sprint(value) if value is not None else ""
    for i, ch in enumerate(text):
        if ch in "\n\r\f":
            return text[:i] + "..."
    return text


def go_sprint(value: Any) -> str:
    """fmt.Sprint of a value decoded from JSON (as Go's unstructured objects hold them)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        if value == int(value) and abs(value) < 1e21:
            return str(int(value)) if abs(value) < 1e21 else repr(value)
        return repr(value)
    if isinstance(value, dict):
        inner = " ".join(f"{k}:{go_sprint(v)}" for k, v in sorted(value.items()))
        return f"map[{inner}]"
    if isinstance(value, list):
        return "[" + " ".join(go_sprint(v) for v in value) + "]"
    return str(value)


def render(rows: list[list[str]]) -> str:
    return tab_table(rows) if rows else ""


# ------------------------------------------------------------------------- custom-columns


def relaxed(path: str) -> str:
    """RelaxedJSONPathExpression: `.a.b`, `a.b` and `{.a.b}` all mean `.a.b`."""
    p = path.strip()
    if p.startswith("{") and p.endswith("}"):
        p = p[1:-1]
    if not p.startswith(".") and not p.startswith("$"):
        p = "." + p
    return p


def parse_custom_columns(spec: str) -> list[tuple[str, str]]:
    if not spec:
        raise KubectlError("error: custom-columns format specified but no custom columns given")
    columns = []
    for part in spec.split(","):
        header, sep, path = part.partition(":")
        if not sep:
            raise KubectlError(
                f"error: unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>"
            )
        columns.append((header, relaxed(path)))
    return columns


def custom_columns(objs: list[Obj], spec: str, no_headers: bool) -> str:
    return render(custom_column_rows(objs, spec, header=not no_headers))


def custom_column_rows(objs: list[Obj], spec: str, header: bool) -> list[list[str]]:
    """-o custom-columns' rows for `objs`, its header first when `header`."""
    columns = parse_custom_columns(spec)
    rows: list[list[str]] = []
    if header:
        rows.append([h for h, _ in columns])
    for obj in objs:
        row = []
        for _, path in columns:
            try:
                values = jsonpath.find(path, obj)
            except jsonpath.JsonPathError as exc:
                raise KubectlError(f"error: {exc}") from None
            row.append(",".join(go_sprint(v) for v in values) if values else "<none>")
            # A `..` column walks the whole object: hundreds of them stop with the budget.
            budget.check_time()
        rows.append(row)
    return rows


# ------------------------------------------------------------------------- sort-by


def sort_objects(objs: list[Obj], spec: str) -> list[Obj]:
    """--sort-by as kubectl's TableSorter: Go's unstable sort.Sort on the field's first value."""
    path = relaxed(spec)
    if len(objs) <= 1:
        # kubectl leaves a table of one row unsorted, so a wrong field goes unnoticed there.
        return objs
    try:
        found = [jsonpath.find(path, o) for o in objs]
    except jsonpath.JsonPathError as exc:
        raise KubectlError(f"error: {exc}") from None
    if not any(found):
        raise KubectlError(
            f'error: couldn\'t find any field with path "{{{path}}}" in the list of objects'
        )
    items = list(zip(objs, found, strict=True))

    def less(i: int, j: int) -> bool:
        a, b = items[i][1], items[j][1]
        if not a:
            return True
        if not b:
            return False
        return _go_less(a[0], b[0])

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]

    gosort.sort(len(items), less, swap)
    return [obj for obj, _ in items]


def _go_less(a: Any, b: Any) -> bool:
    """isLess for values decoded from JSON: numbers by value, strings byte-wise."""
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) < bool(b)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a < b
    if isinstance(a, str) and isinstance(b, str):
        return a.encode() < b.encode()
    if isinstance(a, list) and isinstance(b, list):
        return all(_go_less(x, y) for x, y in zip(a, b, strict=False))
    return json.dumps(a, sort_keys=True) < json.dumps(b, sort_keys=True)


# ------------------------------------------------------------------------- yaml, json, name


# libyaml's emitter when PyYAML has it (tenfold faster); the representers stay ours.
_BaseDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _GoYamlDumper(_BaseDumper):  # type: ignore[valid-type,misc]
    """sigs.k8s.io/yaml's look: sorted keys, unindented lists, double-quoted ambiguous strings."""

    represented = 0

    def represent_data(self, data: Any) -> yaml.Node:
        # All the pods as YAML is a long stretch of representing with no other budget check:
        # check every few hundred nodes, so a long dump gives way (budget.Pace) and stops on time.
        self.represented += 1
        if not self.represented % 256:
            budget.check_time()
        node: yaml.Node = super().represent_data(data)
        return node


def _str_representer(dumper: yaml.BaseDumper, data: str) -> yaml.ScalarNode:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    node = dumper.represent_scalar("tag:yaml.org,2002:str", data)
    # PyYAML quotes ambiguous strings with single quotes; Go's yaml writes double quotes.
    if data == "" or _needs_quotes(data):
        node.style = '"'
    return node


_PLAIN_UNSAFE = re.compile(r"^[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|\.\d+)$")
_BOOLISH = {
    "y",
    "Y",
    "yes",
    "Yes",
    "YES",
    "n",
    "N",
    "no",
    "No",
    "NO",
    "true",
    "True",
    "TRUE",
    "false",
    "False",
    "FALSE",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "null",
    "Null",
    "NULL",
    "~",
}


def _needs_quotes(data: str) -> bool:
    if data in _BOOLISH or _PLAIN_UNSAFE.match(data):
        return True
    return bool(re.match(r"^\d{4}-\d\d?-\d\d?([Tt ]|$)", data))


_GoYamlDumper.add_representer(str, _str_representer)


def go_numbers(value: Any) -> Any:
    """Whole floats as Go prints a float64 (8, not 8.0)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {k: go_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [go_numbers(v) for v in value]
    return value


def to_yaml(doc: Any) -> str:
    return str(
        yaml.dump(
            go_numbers(doc),
            Dumper=_GoYamlDumper,
            sort_keys=True,
            default_flow_style=False,
            # go-yaml is a port of libyaml: both fold long scalars at 80 columns.
            width=80,
        )
    )


def to_json(doc: Any, sort_keys: bool = True, *, compact: bool = False) -> str:
    """json.MarshalIndent: sorted keys (a map's; `sort_keys` False keeps a typed object's field
    order), 4 spaces, and Go's HTML-safe escapes; `compact`: json.Marshal's, on one line."""
    indent, separators = (None, (",", ":")) if compact else (4, None)
    text = json.dumps(
        go_numbers(doc),
        indent=indent,
        separators=separators,
        sort_keys=sort_keys,
        ensure_ascii=False,
    )
    for char, escape in _GO_JSON_ESCAPES:
        text = text.replace(char, escape)
    return text


_GO_JSON_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def list_doc(items: list[Obj]) -> Obj:
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def check_template(output: str) -> None:
    """A template format's template parsed, as kubectl parses it making its printer: a bad
    one is refused before anything is read or printed (the error evaluate_template gives)."""
    kind, _, template = output.partition("=")
    try:
        if kind == "go-template":
            gotemplate.check(template)
        elif kind in ("jsonpath", "jsonpath-as-json"):
            jsonpath.check(template)
    except (gotemplate.TemplateError, jsonpath.JsonPathError) as exc:
        raise KubectlError(f"error: {exc}") from None


def evaluate_template(kind: str, template: str, data: Any) -> str:
    """-o jsonpath=, jsonpath-as-json= or go-template= over one object or a List."""
    if not template:
        raise KubectlError("error: template format specified but no template given")
    if kind == "go-template":
        try:
            return gotemplate.evaluate(template, go_numbers(data))
        except gotemplate.TemplateError as exc:
            raise KubectlError(f"error: {exc}") from None
    try:
        return jsonpath.evaluate(template, data, as_json=kind == "jsonpath-as-json")
    except jsonpath.ExecutionError as exc:
        raise KubectlError(
            f"error: error executing jsonpath {jsonpath.go_quote(template)}: Error executing "
            f"template: {exc}. Printing more information for debugging the template:\n"
            f"\ttemplate was:\n\t\t{template}\n\tobject given to jsonpath engine was:\n"
            f"\t\t{jsonpath.go_sharp_v(data)}"
        ) from None
    except jsonpath.JsonPathError as exc:
        raise KubectlError(f"error: {exc}") from None


# -o formats of PrintFlags (a command that prints the objects it sent or changed: create, run,
# expose, rollout restart|pause|resume|undo) that take a template after `=`.
_TEMPLATE_FORMATS = ("jsonpath", "jsonpath-as-json", "go-template", "template")

# kubectl's PrintFlags, the same two flags on every command that prints objects.
OUTPUT = Flag("output", long="output", short="o", takes_value=True)
TEMPLATE = Flag("template", long="template", takes_value=True)
PRINT_FLAGS = [OUTPUT, TEMPLATE]
# The formats --template gives its template to (the file forms take it as a file's name).
_TEMPLATED_BY_FLAG = (*_TEMPLATE_FORMATS, "custom-columns")


# JSONYamlPrintFlags and NamePrintFlags lower-case the format (cli-runtime's ToPrinter).
_CASELESS = ("json", "yaml", "kyaml", "name")


def output_format(parsed: Parsed, error: str = OUTPUT_ERROR) -> str:
    """-o as kubectl's PrintFlags.ToPrinter reads it beside --template: --template alone is
    `-o go-template`; a bare template format (`-o jsonpath`) takes it as its template; one that
    has its own (`-o jsonpath=...`) matches no printer (`error`, the command's list of formats);
    any other format ignores it, as an empty --template is ignored. The json, yaml, kyaml and
    name printers' flags read their format in lower case (`-o YAML` is yaml; `-o WIDE` is no
    format)."""
    output = parsed.value("output")
    if output is not None and output.lower() in _CASELESS:
        output = output.lower()
    template = parsed.value("template") or ""
    if not template:
        return output or ""
    if output is None:
        return f"go-template={template}"
    kind, equals, _ = output.partition("=")
    if kind in _TEMPLATED_BY_FLAG:
        if equals:
            raise KubectlError(error.format(output))
        return f"{output}={template}"
    return output


def printed(texts: list[str], errors: list[str] | None = None) -> str:
    """What a command that prints objects shows: each object's text as object_text gave it
    (a template's without a newline of its own), then its errors (stderr), one a line."""
    return ("".join(texts) + "\n".join(errors or [])).removesuffix("\n")


def object_output(parsed: Parsed) -> str:
    """The -o of a command that prints the objects it sent or changed, checked as its
    PrintFlags check it (check_object_output)."""
    output = output_format(parsed, CREATE_OUTPUT_ERROR)
    check_object_output(output)
    return output


def check_object_output(output: str) -> None:
    """Refuse what PrintFlags.ToPrinter refuses: an unknown format, or a template format with
    no template (kubectl's own two lines)."""
    kind, equals, template = output.partition("=")
    if output in ("", *_CASELESS) or (equals and kind in _TEMPLATE_FORMATS):
        if equals and not template:
            raise KubectlError("error: template format specified but no template given")
        return
    if output in _TEMPLATE_FORMATS:
        raise KubectlError("error: template format specified but no template given")
    raise KubectlError(CREATE_OUTPUT_ERROR.format(output))


def object_text(obj: Obj, label: str, output: str, operation: str, *, typed: bool = True) -> str:
    """One object as PrintFlags' printer writes it to stdout, newlines included: `label
    operation` (no -o), `label` (-o name), yaml, json, kyaml, or a template's text as it stands.
    Commands make a printer per object, so a yaml stream has no `---` between objects (a
    kyaml document always starts with its own).
    `output` has passed check_object_output. A typed object's json keeps its Go struct's field
    order; an unstructured one's (what patch, label, scale and taint read) is sorted."""
    kind, _, template = output.partition("=")
    if output == "":
        return f"{label} {operation}\n"
    if output == "name":
        return f"{label}\n"
    if output == "yaml":
        return to_yaml(struct_order(obj) if typed else obj)
    if output == "json":
        return to_json(struct_order(obj), sort_keys=False) + "\n" if typed else to_json(obj) + "\n"
    if output == "kyaml":
        return to_kyaml(struct_order(obj), sort_keys=False) if typed else to_kyaml(obj)
    return evaluate_template("go-template" if kind == "template" else kind, template, obj)
