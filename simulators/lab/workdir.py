"""bash 5.2's `cd` and `pwd` over the host's tree (simulators.lab.fs), links and all.

The shell keeps two names for where it is, as bash does: the working folder (`ShellState.cwd`,
what relative paths resolve from; it moves with a folder `mv` moves) and bash's own idea of
it, `$PWD`, which `pwd` prints and `cd` starts from. They part only when the folder is moved
or removed under the shell: bash keeps the old name, so `pwd` prints a path that is gone,
`pwd -P` cannot find one, and `cd ..` first tries the old name's parent, then the folder's own
`..`. `cd` is bash's change_to_directory: the path made absolute from $PWD and canonical as
text (`..` takes off a name, but only one that is a folder: `cd file/..` is "Not a
directory"), then chdir'd; if that fails, the path as typed, from where the shell really is;
and when the folder reached has no path any more (inside a removed one), $PWD is the path as
made, after getcwd's complaint. `-P` (or `set -o physical`) resolves the links: `cd -P /bin`
is /usr/bin. CDPATH is not read.
"""

from __future__ import annotations

import posixpath

from simulators.lab import fs
from simulators.lab.tool import Context, Output

GETCWD = (
    "error retrieving current directory: getcwd: cannot access parent directories: " + fs.NOT_FOUND
)
CD_USAGE = "cd: usage: cd [-L|[-P [-e]] [-@]] [dir]"


def logical(ctx: Context) -> str:
    """bash's working directory (`pwd`, `pwd -L`): $PWD while it names the folder the shell is
    in, or no folder at all (moved or removed under the shell); else the working folder."""
    here = fs.cwd(ctx)
    named = ctx.shell.variables.get("PWD", "")
    if not named.startswith("/") or named == here:
        return here
    where = fs.locate_in(ctx.world.state, "/", named)
    return named if not where.folder or where.path == physical(ctx) else here


def physical(ctx: Context) -> str | None:
    """The working folder with its links resolved (`pwd -P`); None if it was removed."""
    where = fs.locate_in(ctx.world.state, "/", fs.cwd(ctx))
    return where.path if where.folder and not where.error else None


def pwd(ctx: Context, args: list[str]) -> Output:
    nolinks = "physical" in ctx.shell.options
    for arg in args:
        if arg == "--" or not arg.startswith("-") or arg == "-":
            break  # operands are ignored, as bash's pwd ignores them
        for letter in arg[1:]:
            if letter not in "LP":
                usage = "pwd: usage: pwd [-LP]"
                return Output.error(f"bash: pwd: -{letter}: invalid option\n{usage}", 2)
            nolinks = letter == "P"
    if not nolinks:
        return Output(logical(ctx))
    found = physical(ctx)
    return Output(found) if found is not None else Output.error(f"pwd: {GETCWD}")


def cd(ctx: Context, args: list[str]) -> Output:
    """bash's cd (see the module's docstring): `cd` alone and `cd ~` go home, `cd -` back to
    $OLDPWD (printing it); PWD and OLDPWD follow."""
    nolinks = "physical" in ctx.shell.options
    operands: list[str] = []
    for index, arg in enumerate(args):
        if arg == "--":
            operands = args[index + 1 :]
            break
        if not arg.startswith("-") or arg == "-":
            operands = args[index:]
            break
        for letter in arg[1:]:
            if letter not in "LPe@":
                return Output.error(f"bash: cd: -{letter}: invalid option\n{CD_USAGE}", 2)
            if letter in "LP":
                nolinks = letter == "P"
    if len(operands) > 1:
        return Output.error("bash: cd: too many arguments")
    target = operands[0] if operands else ctx.shell.variables.get("HOME", "")
    if not operands and not target:
        return Output.error("bash: cd: HOME not set")
    shown = False
    if target == "-":
        old = ctx.shell.variables.get("OLDPWD")
        if old is None:
            return Output.error("bash: cd: OLDPWD not set")
        target, shown = old, True
    if not target:  # bash 5.2: `cd ""` stays, where it still can
        if physical(ctx) is None:
            return Output.error(f"bash: cd: : {fs.NOT_FOUND}")
        return Output()
    if target == "~" or target.startswith("~/"):
        target = fs.HOME + target[1:]
    return _change(ctx, target, nolinks, shown)


def _change(ctx: Context, target: str, nolinks: bool, shown: bool) -> Output:
    """change_to_directory and bindpwd: go to `target`, or say why not."""
    state = ctx.world.state
    before = logical(ctx)
    made = target if target.startswith("/") else f"{before.rstrip('/')}/{target}"
    if nolinks:
        where = fs.locate_in(state, "/", made)
        tdir: str | None = where.path if where.folder and not where.error else None
    else:
        tdir = _canonical(ctx, made)
    reached, why = _chdir(ctx, target if nolinks else tdir or made)
    reset = tdir is None  # resetpwd: the path getcwd finds, not the one made
    if reached is None and not nolinks:
        reached, _ = _chdir(ctx, target)  # the name as typed, from where the shell is
        reset = True
    if reached is None:
        return Output.error(f"bash: cd: {target}: {why}")
    complaint = ""
    if reset:
        if physical_of(ctx, reached) is not None:
            tdir = reached
        else:  # inside a removed folder: getcwd finds no path, bash keeps the one made
            complaint, tdir = f"cd: {GETCWD}", tdir or made
    assert tdir is not None
    ctx.shell.set("OLDPWD", ctx.shell.variables.get("PWD", ""))
    ctx.shell.set("PWD", tdir)
    ctx.shell.cwd = tdir
    return Output(tdir if shown else "", 0, complaint)


def _canonical(ctx: Context, path: str) -> str | None:
    """bash's sh_canonpath with PATH_CHECKDOTDOT and PATH_CHECKEXISTS: `.` and empty names
    dropped, `..` taking off the name before it if that names a folder, the result a folder;
    else None. A leading `//` stays (POSIX leaves it to the system), three or more are `/`."""
    state = ctx.world.state
    kept: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if kept and not fs.locate_in(state, "/", "/" + "/".join(kept)).folder:
                return None
            kept = kept[:-1]
            continue
        kept.append(part)
    lead = "//" if path.startswith("//") and not path.startswith("///") else "/"
    result = lead + "/".join(kept)
    where = fs.locate_in(state, "/", result)
    return result if where.folder and not where.error else None


def _chdir(ctx: Context, path: str) -> tuple[str | None, str]:
    """chdir(2): the folder `path` reaches (absolute, links resolved; inside a removed folder,
    the removed one's path), or None and why not."""
    state = ctx.world.state
    if path.startswith("/"):
        where = fs.locate_in(state, "/", path)
    else:
        base = physical(ctx)
        if base is None:  # the removed folder: `.` is itself, `..` its parent, names are gone
            here = posixpath.normpath(fs.cwd(ctx))
            parts = [p for p in path.split("/") if p not in ("", ".")]
            while parts and parts[0] == ".." and physical_of(ctx, here) is None:
                here, parts = fs.parent(here), parts[1:]
            if physical_of(ctx, here) is None:
                return (here, "") if not parts else (None, fs.NOT_FOUND)
            where = fs.locate_in(state, here, "/".join(parts) or ".")
        else:
            where = fs.locate_in(state, base, path)
    if where.error or not where.exists:
        return None, where.error or fs.NOT_FOUND
    if not where.folder:
        return None, fs.NOT_FOLDER
    if not fs.allows(state, where.path, 1):
        return None, fs.DENIED
    return where.path, ""


def physical_of(ctx: Context, path: str) -> str | None:
    where = fs.locate_in(ctx.world.state, "/", path)
    return where.path if where.folder and not where.error else None
