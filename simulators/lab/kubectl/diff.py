"""kubectl diff: the live objects against what `kubectl apply` of the files would make of them.

As kubectl's pkg/cmd/diff: each object of the files (`-f`, several, `-` for the standard input,
filtered by `-l`) is read from the server (LIVE; none if it does not exist) and sent as a
server dry run (MERGED): a create for a new object, else apply's three-way patch
(`apply_patch.three_way`, from the last applied configuration, without writing a new one).
Both are written as YAML with their `managedFields` left out and, for a Secret, their `data`
values masked (`***`, `*** (before)`, `*** (after)`), to files named
`<group.>version.Kind.namespace.name` in two folders `/tmp/LIVE-<n>` and `/tmp/MERGED-<n>`,
and `diff -u -N` compares the folders: for each file that differs, GNU diff's line
`diff -u -N LIVE/f MERGED/f` and its unified diff (the lab's diff, `simulators.lab.diff`).

Exit status as kubectl's: 0 no differences, 1 differences, 2 an error (nothing is compared
then). `--server-side` sends the file as a first apply of its field manager would (no last
applied configuration, so nothing is removed). Left out: `--prune`, `-k` and `-R` (folders):
each refused in one line; KUBECTL_EXTERNAL_DIFF.
"""

from __future__ import annotations

import copy
import hashlib

from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo
from simulators.cluster.selectors import label_matcher
from simulators.lab.diff import unified
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.apply import (
    LAST_APPLIED,
    documents,
    last_applied,
    mapping,
    read_sources,
    target_namespace,
    with_namespace,
)
from simulators.lab.kubectl.apply_patch import three_way
from simulators.lab.kubectl.common import COMMON, KubectlError, dry_run_writer, error_text
from simulators.lab.kubectl.printing import to_yaml
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("filename", long="filename", short="f", takes_value=True),
    Flag("recursive", long="recursive", short="R"),
    Flag("kustomize", long="kustomize", short="k", takes_value=True),
    Flag("selector", long="selector", short="l", takes_value=True),
    Flag("server-side", long="server-side"),
    Flag("field-manager", long="field-manager", takes_value=True),
    Flag("force-conflicts", long="force-conflicts"),
    Flag("show-managed-fields", long="show-managed-fields"),
    Flag("show-secrets", long="show-secrets"),
    Flag("prune", long="prune"),
    Flag("prune-allowlist", long="prune-allowlist", takes_value=True),
    Flag("concurrency", long="concurrency", takes_value=True),
]

MASK, BEFORE, AFTER = "***", "*** (before)", "*** (after)"
# A new Secret's LIVE side once masked (see _yaml).
_NULL: Obj = {}
# cmdutil.CheckDiffErr: kubectl diff's own errors end with 2, diff's "differences" being 1.
FAILED = 2


def run(ctx: Context, parsed: Parsed) -> Output:
    try:
        pairs = _pairs(ctx, parsed)
    except KubectlError as exc:
        return Output.error(str(exc), FAILED)
    except ApiError as exc:
        return Output.error(error_text(exc), FAILED)
    return _compared(ctx, pairs)


def _checked(parsed: Parsed) -> None:
    """The order kubectl checks its flags and arguments in (Complete, then validateArgs)."""
    if parsed.has("kustomize") and not parsed.all("filename"):
        raise KubectlError("error: kustomize is not available in this lab: use -f with files")
    if not parsed.all("filename"):
        raise KubectlError("error: must specify one of -f and -k")
    if parsed.has("force-conflicts") and not parsed.has("server-side"):
        raise KubectlError("error: --force-conflicts only works with --server-side")
    if parsed.has("prune"):
        raise KubectlError("error: --prune is not available in this lab's kubectl diff")
    if parsed.positionals:
        args = " ".join(parsed.positionals)
        raise KubectlError(
            f"error: Unexpected args: [{args}]\nSee 'kubectl diff -h' for help and examples"
        )
    if parsed.has("recursive"):
        raise KubectlError("error: -R is not available in this lab: its home has no folders")


def _pairs(ctx: Context, parsed: Parsed) -> dict[str, tuple[Obj | None, Obj]]:
    """Each object's file name -> (LIVE, MERGED), as they are written (a later object of the
    same name overwrites the file, as kubectl's do)."""
    _checked(parsed)
    cluster: ClusterAPI = ctx.api
    wanted = label_matcher(parsed.value("selector") or "")
    server_side = parsed.has("server-side")
    pairs: dict[str, tuple[Obj | None, Obj]] = {}
    for source, text in read_sources(ctx, parsed, "diff"):
        for doc in documents(text, source):
            info = mapping(cluster, doc, source)
            ns = target_namespace(info, doc, parsed)
            local = with_namespace(doc, ns)
            if not wanted(local):
                continue
            live, merged = _versions(cluster, info, local, ns, server_side)
            live, merged = _shown(info, live, merged, parsed)
            pairs[_file_name(info, local, ns)] = (live, merged)
    return pairs


def _versions(
    cluster: ClusterAPI, info: ResourceInfo, local: Obj, ns: str | None, server_side: bool
) -> tuple[Obj | None, Obj]:
    name = str((local.get("metadata") or {}).get("name") or "")
    try:
        live: Obj | None = cluster.get(info.key, name, ns)
    except ApiError as exc:
        if exc.reason != "NotFound":
            raise
        live = None
    writer = dry_run_writer(cluster, "server")
    if live is None:
        if writer is None:
            return None, local
        return None, writer.create(info.key, local, ns)
    last = None if server_side else last_applied(live)
    patch = three_way(last, _without_last_applied(local), live, strategic=not info.custom)
    if not patch:
        return live, live  # apply.Patcher sends nothing: the merged object is the live one
    if writer is None:
        return live, live
    kind = "merge" if info.custom else "strategic"
    return live, writer.patch(info.key, name, patch, ns, patch_type=kind)


def _without_last_applied(local: Obj) -> Obj:
    """util.GetModifiedConfiguration(annotate=false): the file's object without the annotation,
    its annotations a map even if empty (as apply's last applied configurations hold them)."""
    meta = local.setdefault("metadata", {})
    notes = meta.get("annotations")
    notes = dict(notes) if isinstance(notes, dict) else {}
    notes.pop(LAST_APPLIED, None)
    meta["annotations"] = notes
    return local


def _shown(
    info: ResourceInfo, live: Obj | None, merged: Obj, parsed: Parsed
) -> tuple[Obj | None, Obj]:
    live, merged = copy.deepcopy(live), copy.deepcopy(merged)
    if not parsed.has("show-managed-fields"):
        for obj in (live, merged):
            if obj is not None:
                (obj.get("metadata") or {}).pop("managedFields", None)
    if info.kind == "Secret" and info.api_version == "v1" and not parsed.has("show-secrets"):
        _mask(live, merged)
        if live is None:
            return _NULL, merged
    return live, merged


def _yaml(live: Obj | None) -> str:
    """The LIVE file: empty for an object not yet there; `null` for a Secret's (the masker
    made it an object of no content, which sigs.k8s.io/yaml writes so)."""
    if live is None:
        return ""
    if live is _NULL:
        return "null\n"
    return to_yaml(live)


def _mask(before: Obj | None, after: Obj) -> None:
    """diff.Masker: every data value of a Secret hidden, a changed one marked on both sides."""
    old = before.get("data") if before is not None else None
    new = after.get("data")
    old = old if isinstance(old, dict) else {}
    new = new if isinstance(new, dict) else {}
    for key in old:
        if key in new and old[key] != new[key]:
            old[key], new[key] = BEFORE, AFTER
            continue
        if key in new:
            new[key] = MASK
        old[key] = MASK
    for key in new:
        if key not in old:
            new[key] = MASK


def _file_name(info: ResourceInfo, local: Obj, ns: str | None) -> str:
    """InfoObject.Name: `<group.>version.Kind.namespace.name`."""
    group, _, version = info.api_version.rpartition("/")
    name = (local.get("metadata") or {}).get("name") or ""
    prefix = f"{group}." if group else ""
    return f"{prefix}{version}.{info.kind}.{ns or ''}.{name}"


def _compared(ctx: Context, pairs: dict[str, tuple[Obj | None, Obj]]) -> Output:
    texts = {name: (_yaml(live), to_yaml(merged)) for name, (live, merged) in pairs.items()}
    folders = _folders(texts)
    moment = ctx.api.now()
    out: list[str] = []
    for name in sorted(texts, key=lambda n: n.encode()):
        old, new = texts[name]
        paths = (f"{folders[0]}/{name}", f"{folders[1]}/{name}")
        shown = unified(old, new, paths, moment)
        if shown:
            out.append(f"diff -u -N {paths[0]} {paths[1]}\n{shown}")
    return Output.exactly("".join(out), 1 if out else 0)


def _folders(texts: dict[str, tuple[str, str]]) -> tuple[str, str]:
    """os.MkdirTemp's names, `/tmp/LIVE-` and `/tmp/MERGED-` and a number of up to ten digits:
    from what is compared, so that the same diff names the same folders."""
    digest = hashlib.sha256(repr(sorted(texts.items())).encode()).digest()
    live, merged = int.from_bytes(digest[:4]), int.from_bytes(digest[4:8])
    return f"/tmp/LIVE-{live}", f"/tmp/MERGED-{merged}"
