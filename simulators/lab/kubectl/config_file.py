"""The kubeconfig a `kubectl config` command reads and writes, and what the subcommands share.

Which file: `--kubeconfig FILE` (a home-folder file), else the first file of $KUBECONFIG that
exists (else its last), else ~/.kube/config. A missing file reads as an empty config; the first
change creates it (mode 0600). A change is written only when the config changed, as clientcmd's
ModifyConfig does. Left out: merging several $KUBECONFIG files (the lab reads and writes the one
chosen).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from simulators.lab import files, filetools_folders, fs, kubeconfig
from simulators.lab.flags import Parsed
from simulators.lab.kubeconfig import Config, KubeconfigError
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.help import page
from simulators.lab.tool import Context, Output


@dataclass
class KubeconfigFile:
    """The kubeconfig a command reads and writes: as kubectl names it in its messages, as the
    home folder finds it, its text (None: missing)."""

    path: str
    name: str
    explicit: bool
    text: str | None


def chosen(ctx: Context, parsed: Parsed) -> KubeconfigFile:
    given = parsed.value("kubeconfig")
    if given:
        return KubeconfigFile(given, given, True, files.read(ctx, given))
    listed = [path for path in ctx.env.get("KUBECONFIG", "").split(":") if path]
    for path in listed:
        text = files.read(ctx, path)
        if text is not None:
            return KubeconfigFile(path, path, False, text)
    if listed:
        return KubeconfigFile(listed[-1], listed[-1], False, None)
    return KubeconfigFile(kubeconfig.PATH, kubeconfig.PATH, False, files.read(ctx, kubeconfig.PATH))


def loaded(file: KubeconfigFile) -> Config:
    if file.text is None:
        return kubeconfig.empty()
    try:
        return kubeconfig.load(file.text, file.path)
    except KubeconfigError as exc:
        raise KubectlError(str(exc)) from None


def written(
    ctx: Context, file: KubeconfigFile, before: Config, after: Config, relativize: bool = True
) -> None:
    """ModifyConfig: the file rewritten as kubectl writes it, when the config changed; with
    `relativize`, the paths of each cluster and user that changed made relative to the file's
    folder where they lie in it (RelativizeClusterLocalPaths, RelativizeAuthInfoLocalPaths)."""
    if kubeconfig.normalized(after) == kubeconfig.normalized(before):
        return
    if relativize:
        base = posixpath.dirname(absolute(file.path, fs.cwd(ctx)))
        for section in ("clusters", "users"):
            old, new = kubeconfig.named(before, section), kubeconfig.named(after, section)
            changed = {n: _relative(b, base) if old.get(n) != b else b for n, b in new.items()}
            after = kubeconfig.with_named(after, section, changed)
    folder = fs.parent(absolute(file.path, fs.cwd(ctx)))
    if not fs.is_folder(ctx.world.state, folder):  # clientcmd's WriteToFile: os.MkdirAll(dir, 0755)
        for above in [*fs.ancestors(folder), folder]:
            if fs.is_folder(ctx.world.state, above):
                continue
            taken = fs.is_file(ctx.world.state, above)
            reason = fs.NOT_FOLDER if taken else filetools_folders.new_folder(ctx, above)
            if reason:
                raise KubectlError(f"error: mkdir {above}: {reason.lower()}")
    error = files.write(ctx, file.name, kubeconfig.dump(after))
    if error is not None:
        reason = error.rsplit(": ", 1)[-1].lower()
        raise KubectlError(f"error: open {file.path}: {reason}")
    state = ctx.world.state
    if file.text is None and hasattr(state, "modes"):  # os.WriteFile(..., 0600)
        written_key = files.key_of(ctx, file.name)
        if written_key is not None:
            files.set_mode(ctx, written_key, kubeconfig.MODE)


def _relative(body: dict[str, Any], base: str) -> dict[str, Any]:
    """A stanza's file paths resolved from `base`, then relative to it unless that takes a
    `../` (RelativizePathWithNoBacksteps keeps those absolute); an exec command only when it
    is a path."""
    out = dict(body)
    for field in ("certificate-authority", "client-certificate", "client-key"):
        if out.get(field):
            out[field] = _relative_path(out[field], base)
    plugin = out.get("exec")
    if isinstance(plugin, dict) and "/" in str(plugin.get("command") or ""):
        out["exec"] = {**plugin, "command": _relative_path(plugin["command"], base)}
    return out


def _relative_path(path: str, base: str) -> str:
    resolved = absolute(path, base)
    relative = posixpath.relpath(resolved, base)
    return resolved if relative.startswith("../") else relative


def absolute(path: str, base: str) -> str:
    """filepath.Abs from `base` (the shell's working folder, or a kubeconfig's)."""
    return posixpath.normpath(posixpath.join(base, path))


def is_folder(ctx: Context, path: str) -> bool:
    return fs.locate(ctx, path).folder


def read(ctx: Context, path: str) -> str | None:
    """A file kubectl opens by its path, or a `<(...)`'s."""
    return files.read(ctx, path)


def help_error(sub: str, message: str) -> Output:
    """cobra's Help() on stdout, then the error: as a terminal shows them."""
    return Output.error(f"{page(['config', sub])}\nerror: {message}")


def listed(words: list[str]) -> str:
    """fmt's %v of a []string."""
    return "[" + " ".join(words) + "]"
