"""kubectl set selector (-f FILENAME | TYPE NAME) EXPRESSIONS [--resource-version=version], as
k8s.io/kubectl/pkg/cmd/set/set_selector.go: a Service's selector replaced by the expression's
`key=value` pairs (set-based expressions are refused), the patch sent even when it changes
nothing."""

from __future__ import annotations

import copy

from simulators.cluster.api import ApiError
from simulators.cluster.selectors import parse_label_selector
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import KubectlError, dry_run
from simulators.lab.kubectl.set_common import (
    BASE_FLAGS,
    LOCAL_RESOURCE,
    Change,
    Failure,
    answer,
    find,
    printer,
    send,
)
from simulators.lab.tool import Context, Output

FLAGS = [*BASE_FLAGS, Flag("resource-version", long="resource-version", takes_value=True)]

_OPERATORS = {"in": "In", "notin": "NotIn", "exists": "Exists", "!": "DoesNotExist"}


def parse_selector(text: str) -> tuple[dict[str, str], list[str]]:
    """metav1.ParseToLabelSelector: the `key=value` pairs, and each set-based requirement as
    Go's %v prints a LabelSelectorRequirement; KubectlError for what it refuses."""
    try:
        requirements = parse_label_selector(text)
    except ApiError as exc:
        raise KubectlError(
            f'error: couldn\'t parse the selector string "{text}": {exc.message}'
        ) from None
    labels: dict[str, str] = {}
    expressions: list[str] = []
    for req in requirements:
        if req.op == "=":
            labels[req.key] = req.values[0]
        elif req.op == "!=":
            raise KubectlError('error: "!=" is not a valid label selector operator')
        else:
            values = " ".join(sorted(set(req.values)))
            expressions.append(f"{{{req.key} {_OPERATORS[req.op]} [{values}]}}")
    return labels, expressions


def run(ctx: Context, parsed: Parsed, words: list[str]) -> Output:
    """`kubectl set selector`: the last argument is the selector, the rest the objects."""
    del words
    dry = dry_run(parsed)
    local = parsed.has("local")
    args = parsed.positionals
    resources = args[:-1]
    labels, expressions = parse_selector(args[-1]) if args else ({}, [])
    if local and resources:
        raise KubectlError(LOCAL_RESOURCE)
    output = printer(parsed)
    if not args:
        raise KubectlError("error: one selector is required")
    items = find(ctx, parsed, resources, all_flag=parsed.has("all"), local=local)
    version = parsed.value("resource-version") or ""
    texts: list[str] = []
    failures: list[Failure] = []
    for item in items:
        if (item.info.group, item.info.kind) != ("", "Service"):
            failures.append(Failure("setting a selector is only supported for Services"))
            continue
        if expressions:
            failures.append(
                Failure(f"match expression [{' '.join(expressions)}] not supported on this object")
            )
            continue
        after = copy.deepcopy(item.obj)
        if version:
            after.setdefault("metadata", {})["resourceVersion"] = version
        spec = after.setdefault("spec", {})
        if labels:
            spec["selector"] = dict(labels)
        else:
            spec.pop("selector", None)
        send(
            ctx,
            [Change(item, after)],
            dry=dry,
            local=local,
            output=output,
            operation="selector updated",
            patch_failure=None,
            always=True,
            texts=texts,
            failures=failures,
        )
    return answer(texts, failures)
