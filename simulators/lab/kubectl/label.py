"""kubectl label and kubectl annotate: a merge patch of metadata, with kubectl's checks."""

from __future__ import annotations

import copy
import re

from simulators.cluster.api import ApiError, Obj
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    DRY_RUN,
    KubectlError,
    dry_run,
    dry_suffix,
    error_text,
    kind_name,
    meta,
    namespace,
    targets,
)
from simulators.lab.kubectl.filenames import FILE_FLAGS, file_targets
from simulators.lab.kubectl.printing import PRINT_FLAGS, object_output, object_text, printed
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("overwrite", long="overwrite"),
    Flag("all", long="all"),
    Flag("all-namespaces", long="all-namespaces", short="A"),
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("field-selector", long="field-selector", takes_value=True),
    DRY_RUN,
    Flag("list", long="list"),
    *PRINT_FLAGS,
    *FILE_FLAGS,
    Flag("resource-version", long="resource-version", takes_value=True),
]

_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_VALUE_HELP = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def _parse(specs: list[str], annotate: bool) -> tuple[dict[str, str], list[str]]:
    what = "annotation" if annotate else "label"
    changes: dict[str, str] = {}
    remove: list[str] = []
    for spec in specs:
        if "=" in spec:
            if annotate:
                key, _, value = spec.partition("=")
            else:
                parts = spec.split("=")
                if len(parts) != 2:
                    raise KubectlError(f"error: invalid label spec: {spec}")
                key, value = parts
                if len(value) > 63:
                    raise KubectlError(
                        f'error: invalid label value: "{spec}": must be no more than 63 characters'
                    )
                if not _VALUE.match(value):
                    raise KubectlError(f'error: invalid label value: "{spec}": {_VALUE_HELP}')
            changes[key] = value
        elif spec.endswith("-"):
            remove.append(spec[:-1])
        else:
            raise KubectlError(f"error: unknown {what} spec: {spec}")
    if any(r in changes for r in remove):
        raise KubectlError(
            "error: can not both modify and remove "
            f"{'an annotation' if annotate else 'a label'} in the same command"
        )
    return changes, remove


def run_label(ctx: Context, parsed: Parsed) -> Output:
    return _run(ctx, parsed, annotate=False)


def run_annotate(ctx: Context, parsed: Parsed) -> Output:
    return _run(ctx, parsed, annotate=True)


def _run(ctx: Context, parsed: Parsed, annotate: bool) -> Output:
    cluster = ctx.api
    field = "annotations" if annotate else "labels"
    words = parsed.positionals
    # cmdutil.GetResourcesAndPairs: resources first, then every key=value or key- change.
    resources: list[str] = []
    specs: list[str] = []
    for word in words:
        change = ("=" in word and not word.startswith("=")) or (word.endswith("-") and word != "-")
        if change:
            specs.append(word)
        elif specs:
            raise KubectlError(
                f"error: all resources must be specified before {field[:-1]} changes: {word}"
            )
        else:
            resources.append(word)
    from_files = file_targets(ctx, parsed, field, resources)
    if not resources and from_files is None:
        raise KubectlError(
            "error: one or more resources must be specified as <resource> <name> or "
            "<resource>/<name>"
        )
    changes, remove = _parse(specs, annotate)
    if parsed.has("list") and parsed.value("output"):
        raise KubectlError("error: --list and --output may not be specified together")
    if not changes and not remove and not parsed.has("list"):
        raise KubectlError(
            f"error: at least one {'annotation' if annotate else 'label'} update is required"
        )
    groups = (
        targets(cluster, resources, verb=field, all_namespaces=parsed.has("all-namespaces"))
        if from_files is None
        else from_files
    )
    ns = namespace(parsed)
    selector = parsed.value("selector") or ""
    out: list[str] = []
    errors: list[str] = []
    dry = dry_run(parsed)
    texts: list[str] = []
    for group in groups:
        scope = group.scope(ns)
        objs: list[Obj] = []
        if group.names:
            for name in group.names:
                try:
                    objs.append(cluster.get(group.info.key, name, scope))
                except ApiError as exc:
                    errors.append(error_text(exc))
        elif parsed.has("all") or selector:
            objs = list(
                cluster.list(group.info.key, scope, label_selector=selector).get("items", [])
            )
        else:
            raise KubectlError("error: resource(s) were provided, but no name was specified")
        for obj in objs:
            m = meta(obj)
            name = str(m.get("name", ""))
            current = m.get(field) if isinstance(m.get(field), dict) else {}
            assert isinstance(current, dict)
            if parsed.has("list"):
                out += [f"{k}={v}" for k, v in current.items()]
                continue
            # kubectl says so on its way to the server, not under a client dry run.
            if not annotate and dry != "client":
                for key in remove:
                    if key not in current:
                        out.append(f'label "{key}" not found.')
            if not parsed.has("overwrite"):
                clashes = [
                    f"'{k}' already has a value ({current[k]}), and --overwrite is false"
                    for k, v in changes.items()
                    if k in current and current[k] != v
                ]
                if clashes:
                    if annotate:
                        errors.append(
                            "error: --overwrite is false but found the following declared "
                            "annotation(s): " + "; ".join(clashes)
                        )
                    else:
                        errors.append(
                            "error: " + clashes[0]
                            if len(clashes) == 1
                            else "[" + ", ".join(clashes) + "]"
                        )
                    continue
            added = {k for k, v in changes.items() if current.get(k) != v}
            removed = {k for k in remove if k in current}
            verb = "annotated" if annotate else "labeled"
            if added and removed:
                message = "modified"
            elif added:
                message = verb
            elif removed:
                message = "unlabeled" if not annotate else verb
            else:
                message = f"not {verb}" if not annotate else verb
            # kubectl prints the object it read with the change made to it (label.go), each
            # with a printer of its own: no List, no `---` between two.
            result = copy.deepcopy(obj)
            values = dict(current)
            values.update({k: changes[k] for k in added})
            for key in removed:
                values.pop(key, None)
            result["metadata"][field] = values
            if (added or removed) and not dry:
                patch: dict[str, object] = {k: changes[k] for k in added}
                patch.update({k: None for k in removed})
                try:
                    cluster.patch(
                        group.info.key,
                        name,
                        {"metadata": {field: patch}},
                        scope,
                        patch_type="merge",
                    )
                except ApiError as exc:
                    errors.append(error_text(exc))
                    continue
            if out:
                texts.append("\n".join(out) + "\n")
                out = []
            try:
                output = object_output(parsed)  # the printer is made once the object is changed
            except KubectlError as exc:
                errors.append(str(exc))
                break
            label = f"{kind_name(group.info)}/{name}"
            texts.append(object_text(result, label, output, message + dry_suffix(dry), typed=False))
    if out:
        texts.append("\n".join(out) + "\n")
    return Output(printed(texts, errors), 1 if errors else 0)
