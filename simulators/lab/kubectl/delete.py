"""kubectl delete: by type and name, TYPE/NAME, -l, --all or -f; kubectl 1.36's wording."""

from __future__ import annotations

from simulators.cluster.api import ApiError, ResourceInfo
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.apply import documents, mapping, read_sources, target_namespace
from simulators.lab.kubectl.common import (
    CASCADE,
    COMMON,
    DRY_RUN,
    KubectlError,
    cascade,
    dry_run,
    dry_run_writer,
    dry_suffix,
    error_text,
    kind_name,
    namespace,
    targets,
)
from simulators.lab.kubectl.filenames import KUSTOMIZE, kustomize_error
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("filename", long="filename", short="f", takes_value=True),
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("field-selector", long="field-selector", takes_value=True),
    Flag("grace-period", long="grace-period", takes_value=True),
    Flag("force", long="force"),
    Flag("now", long="now"),
    Flag("wait", long="wait"),
    Flag("all", long="all"),
    Flag("all-namespaces", long="all-namespaces", short="A"),
    Flag("ignore-not-found", long="ignore-not-found"),
    CASCADE,
    Flag("output", long="output", short="o", takes_value=True),
    DRY_RUN,
    Flag("interactive", long="interactive", short="i"),
    KUSTOMIZE,
]


def _confirm(
    ctx: Context, items: list[tuple[ResourceInfo, str | None, str]]
) -> Output | tuple[list[tuple[ResourceInfo, str | None, str]], str]:
    """kubectl delete --interactive: the objects named or found, listed, and the question,
    answered by the first line of the standard input (`echo y | kubectl delete ... -i`; the
    lab's terminal types nothing into a running command, so a bare -i is cancelled, as kubectl
    is when its input ends). The answer is the objects to delete and the question asked; or
    what kubectl prints when it deletes nothing."""
    if not items:
        return Output("No resources found")
    listed = "\n".join(f"{kind_name(info)}/{name}" for info, _scope, name in items)
    question = (
        f"You are about to delete the following {len(items)} resource(s):\n{listed}\n"
        "Do you want to continue? (y/N): "
    )
    answer = ctx.stdin.split("\n", 1)[0].split()
    if answer not in (["y"], ["Y"]):
        return Output(question + "deletion is cancelled")
    return items, question


FORCE_WARNING = (
    "Warning: Immediate deletion does not wait for confirmation that the running resource has "
    "been terminated. The resource may continue to run on the cluster indefinitely."
)


def run(ctx: Context, parsed: Parsed) -> Output:
    cascade(parsed)  # DeleteFlags.ToOptions, before anything else
    if parsed.value("kustomize") is not None:
        return Output.error("error: " + kustomize_error(ctx, parsed.value("kustomize") or ""))
    cluster = ctx.api
    ns = namespace(parsed)
    grace: int | None = None
    text = parsed.value("grace-period")
    if text is not None:
        digits = text.lstrip("+-")
        if (
            digits.isascii()
            and digits.isdigit()
            and len(digits) > 18
            and (len(digits.lstrip("0")) > 19 or not -(2**63) <= int(text) < 2**63)
        ):
            raise KubectlError(
                f'error: invalid argument "{text}" for "--grace-period" flag: strconv.ParseInt: '
                f'parsing "{text}": value out of range'
            )
        try:
            grace = int(text)
        except ValueError:
            raise KubectlError(
                f'error: invalid argument "{text}" for "--grace-period" flag: strconv.ParseInt: '
                f'parsing "{text}": invalid syntax'
            ) from None
    # DeleteOptions.Complete: -1 is the flag's default (the object's own grace period).
    if parsed.has("now"):
        if grace not in (None, -1):
            raise KubectlError("error: --now and --grace-period cannot be specified together")
        grace = 1
    if grace == 0 and not parsed.has("force"):
        grace = 1  # kubectl's guard: without --force, 0 means 1
    if parsed.has("force") and (grace is None or grace < 0):
        grace = 0
    if grace is not None and grace < 0:
        grace = None
    dry = dry_run(parsed)
    writer = dry_run_writer(cluster, dry)
    items: list[tuple[ResourceInfo, str | None, str]] = []
    errors: list[str] = []
    if parsed.all("filename"):
        for source, body in read_sources(ctx, parsed, "delete"):
            for doc in documents(body, source):
                info = mapping(cluster, doc, source)
                items.append(
                    (
                        info,
                        target_namespace(info, doc, parsed),
                        str(doc.get("metadata", {}).get("name", "")),
                    )
                )
    else:
        if not parsed.positionals:
            raise KubectlError(
                "error: You must provide one or more resources by argument or filename.\n"
                "Example resource specifications include:\n   '-f rsrc.yaml'\n"
                "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"
            )
        selector = parsed.value("selector") or ""
        fields = parsed.value("field-selector") or ""
        if parsed.has("all") and (selector or fields):  # the resource builder's SelectAllParam
            raise KubectlError("error: setting 'all' parameter but found a non empty selector. ")
        all_ns = parsed.has("all-namespaces")
        for group in targets(cluster, parsed.positionals, verb="delete", all_namespaces=all_ns):
            scope = None if (parsed.has("all-namespaces") or not group.info.namespaced) else ns
            if group.names:
                items += [
                    (group.info, scope if group.info.namespaced else None, n) for n in group.names
                ]
            elif selector or fields or parsed.has("all"):
                listed = cluster.list(
                    group.info.key, scope, label_selector=selector, field_selector=fields
                )
                for obj in listed.get("items", []):
                    m = obj["metadata"]
                    items.append((group.info, m.get("namespace"), m["name"]))
            else:
                raise KubectlError("error: resource(s) were provided, but no name was specified")
    # DeleteOptions.Validate, once the objects are found.
    output = parsed.value("output")
    if output and output != "name":
        raise KubectlError(f"error: unexpected -o output mode: {output}. We only support '-o name'")
    if parsed.has("force") and grace is not None and grace > 0:
        raise KubectlError(
            "error: --force and --grace-period greater than 0 cannot be specified together"
        )
    out: list[str] = []
    question = ""  # what --interactive asked; the deletions follow its answer on its line
    if parsed.has("interactive"):
        asked = _confirm(ctx, items)
        if isinstance(asked, Output):
            return asked
        items, question = asked
    if grace == 0:
        out.append(FORCE_WARNING)
    for info, scope, name in items:
        operation = "force deleted" if grace == 0 else "deleted"
        if info.namespaced:
            operation += f" from {scope} namespace"
        try:
            if writer is not None:
                writer.delete(info.key, name, scope, grace_period=grace)
            operation += dry_suffix(dry)
        except ApiError as exc:
            if exc.reason == "NotFound" and parsed.has("ignore-not-found"):
                continue
            errors.append(error_text(exc))
            continue
        if parsed.value("output") == "name":
            out.append(f"{kind_name(info)}/{name}")
        else:
            out.append(f'{kind_name(info)} "{name}" {operation}')
    if not items and not errors:
        return Output("No resources found")
    return Output(question + "\n".join([*out, *errors]), 1 if errors else 0)
