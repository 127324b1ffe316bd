"""The objects a file names (`-f FILE`, kubectl's FilenameOptions) for the verbs that act on
objects the cluster holds: get, describe, label, annotate, patch, scale.

Each document of each file is one object: its kind (resolved as apply resolves it), its name,
and its namespace (its own, else the command's; a different `-n` is kubectl's mismatch error).
`-f -` reads the standard input. A missing file is kubectl's `the path "..." does not exist`.
"""

from __future__ import annotations

import posixpath

from simulators.cluster.api import ClusterAPI, Obj, ResourceInfo
from simulators.lab import fs
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.apply import documents, mapping, read_sources, target_namespace
from simulators.lab.kubectl.common import KubectlError, Target
from simulators.lab.tool import Context

FILENAME = Flag("filename", long="filename", short="f", takes_value=True)
RECURSIVE = Flag("recursive", long="recursive", short="R")
FILE_FLAGS = [FILENAME, RECURSIVE]


def file_targets(
    ctx: Context, parsed: Parsed, verb: str, resources: list[str] | None = None
) -> list[Target] | None:
    """The files' objects as targets (a kind's neighbouring objects in one namespace together,
    in the files' order; an empty file names none), or None when no `-f` was given. Names
    given beside `-f` (`resources`: the command's resource words, by default its positionals)
    are kubectl's usage error."""
    if not parsed.all("filename"):
        return None
    if parsed.positionals if resources is None else resources:
        raise KubectlError(
            "error: when paths, URLs, or stdin is provided as input, you may not specify "
            "resource arguments as well"
        )
    cluster: ClusterAPI = ctx.api
    found: list[Target] = []
    for source, text in read_sources(ctx, parsed, verb):
        for doc in documents(text, source):
            info = mapping(cluster, doc, source)
            name = str((doc.get("metadata") or {}).get("name", ""))
            ns = target_namespace(info, doc, parsed)
            if found and found[-1].info == info and found[-1].namespace == ns:
                found[-1].names.append(name)  # one kind's objects print as one table
            else:
                found.append(Target(info, [name], ns))
    return found


def file_objects(ctx: Context, parsed: Parsed, verb: str) -> list[tuple[ResourceInfo, Obj]] | None:
    """The files' objects as the files have them, each with its kind (with its namespace set
    as kubectl's builder sets it), or None when no `-f` was given; names given beside `-f` are
    kubectl's usage error (as file_targets)."""
    if not parsed.all("filename"):
        return None
    if parsed.positionals:
        file_targets(ctx, parsed, verb)  # raises kubectl's usage error
    found: list[tuple[ResourceInfo, Obj]] = []
    for source, text in read_sources(ctx, parsed, verb):
        for doc in documents(text, source):
            info = mapping(ctx.api, doc, source)
            ns = target_namespace(info, doc, parsed)
            if ns is not None:
                doc = {**doc, "metadata": {**(doc.get("metadata") or {}), "namespace": ns}}
            found.append((info, doc))
    return found


def single_file(parsed: Parsed) -> bool:
    """kubectl's singleItemImplied for files: one path named."""
    return len(parsed.all("filename")) == 1


KUSTOMIZE = Flag("kustomize", long="kustomize", short="k", takes_value=True)


def kustomize_error(ctx: Context, directory: str) -> str:
    """What kustomize says of `-k DIR` in the lab, which builds no kustomization (the path as
    kustomize resolves it)."""
    where = fs.locate(ctx, directory)
    path = posixpath.normpath(posixpath.join(fs.cwd(ctx), directory))
    if where.file:
        return f"must build at directory: '{path}': file is not directory"
    if where.folder:
        return (
            "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' "
            f"in directory '{path}'"
        )
    return (
        f"must build at directory: not a valid directory: evalsymlink failure on '{directory}' "
        f": lstat {path}: no such file or directory"
    )
