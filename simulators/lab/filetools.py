"""`rm`, `cp`, `mv`, `touch` and `chmod` on the home folder, as coreutils 9.1 prints them.

The admin host's home folder is flat (simulators.lab.files): its files have names without a
`/`, and it is the only folder anything is written to. An operand naming it (`.`, `~`,
/home/admin, with or without a final `/`) is a folder, as in bash; a path anywhere else is
refused with one line saying so. Permission bits are kept (HostState.modes) and shown by
`ls -l`; `chmod +x` makes a script runnable as `./name` (simulators.lab.shell_scripts). They do
not stop kadmin's own reads and writes: the learner is the files' owner.

Compared with the real tools on generated sequences in tests/unit/lab/test_filetools_oracle.py.
"""

from __future__ import annotations

import re

from simulators.lab import files
from simulators.lab.environment import HOME
from simulators.lab.textutils import Usage, options_of, tool, try_help
from simulators.lab.tool import Context, Output

UMASK = 0o022
_HOME_FORMS = frozenset({".", "./", "~", "~/", HOME, HOME + "/"})
# Folders that exist on a real host but hold nothing a learner can write here.
_OTHER_FOLDERS = frozenset({"..", "../", "/", "/home", "/home/", "/tmp", "/tmp/"})


def _is_home(path: str) -> bool:
    return path in _HOME_FORMS


def _name(path: str) -> str | None:
    """The home folder's file `path` names; None for any other place (no file there)."""
    name = files.normalize(path)
    return name if files.is_name(name) else None


def _elsewhere(tool_name: str, path: str) -> str:
    return f"{tool_name}: '{path}': only the home folder ({HOME}) can be changed in this lab"


def _missing(tool_name: str, message: str = "missing file operand") -> Usage:
    return Usage(f"{tool_name}: {message}\n{try_help(tool_name)}")


def _answer_yes(ctx: Context) -> bool:
    """A prompt's answer, read from stdin's first line (a terminal's is empty: no)."""
    line = ctx.stdin.split("\n", 1)[0].strip()
    ctx.stdin = ctx.stdin.split("\n", 1)[1] if "\n" in ctx.stdin else ""
    return line[:1] in ("y", "Y")


# ---------------------------------------------------------------------------- rm


def _rm(ctx: Context, args: list[str]) -> Output:
    long = {"--force": "f", "--recursive": "r", "--verbose": "v", "--dir": "d"}
    opts, operands = options_of(args, "rm", "firRdvI", long=long)
    force = "f" in opts
    if not operands:
        if force:
            return Output()
        raise Usage(f"rm: missing operand\n{try_help('rm')}")
    recursive = "r" in opts or "R" in opts
    out: list[str] = []
    errors: list[str] = []
    asked: list[str] = []  # -i's questions, on stderr, which are no failure
    state = ctx.world.state
    for path in operands:
        if path.rstrip("/").rsplit("/", 1)[-1] in (".", ".."):
            errors.append(
                f"rm: refusing to remove '.' or '..' directory: skipping '{path}'"
                if recursive
                else f"rm: cannot remove '{path}': Is a directory"
            )
            continue
        if _is_home(path) or path in _OTHER_FOLDERS:
            if not recursive:
                errors.append(f"rm: cannot remove '{path}': Is a directory")
            elif path.rstrip("/") == "":
                errors.append(f"rm: it is dangerous to operate recursively on '{path}'")
                errors.append("rm: use --no-preserve-root to override this failsafe")
            elif _is_home(path):
                # Its files go; the folder itself is /home's, which admin cannot write.
                for each in sorted(state.files):
                    files.remove(ctx, each)
                    if "v" in opts:
                        out.append(f"removed '{path.rstrip('/')}/{each}'")
                errors.append(f"rm: cannot remove '{path}': Permission denied")
            else:
                errors.append(f"rm: cannot remove '{path}': Permission denied")
            continue
        name = _name(path)
        if name is None or name not in state.files:
            if not force:
                errors.append(f"rm: cannot remove '{path}': No such file or directory")
            continue
        if "i" in opts:
            empty = "empty " if not state.files[name] else ""
            asked.append(f"rm: remove regular {empty}file '{path}'? ")
            if not _answer_yes(ctx):
                continue
        files.remove(ctx, name)
        if "v" in opts:
            out.append(f"removed '{path}'")
    return Output("\n".join(out), 1 if errors else 0, "\n".join(asked + errors))


rm = tool("rm", _rm)


# ---------------------------------------------------------------------------- cp, mv


def _copy_or_move(ctx: Context, args: list[str], tool_name: str) -> Output:
    moving = tool_name == "mv"
    flags = "finvb" if moving else "finvrRpa"
    long = {"--force": "f", "--interactive": "i", "--no-clobber": "n", "--verbose": "v"}
    opts, operands = options_of(args, tool_name, flags, long=long)
    if not operands:
        raise _missing(tool_name)
    if len(operands) == 1:
        raise _missing(tool_name, f"missing destination file operand after '{operands[0]}'")
    *sources, target = operands
    into = _is_home(target)
    state = ctx.world.state
    if len(sources) > 1 and not into:
        if _name(target) in state.files:
            return Output.error(f"{tool_name}: target '{target}': Not a directory")
        return Output.error(f"{tool_name}: target '{target}': No such file or directory")
    out: list[str] = []
    errors: list[str] = []
    failed = False
    seen: set[str] = set()
    for source in sources:
        if into and tool_name == "cp":
            name = _name(source)
            if name in seen:
                errors.append(f"cp: warning: source file '{source}' specified more than once")
                continue
            if name is not None and name in state.files:  # the same file, known by its inode
                seen.add(name)
        problem = _one(ctx, tool_name, opts, (source, target, into), out, errors)
        if problem:
            errors.append(problem)
            failed = True
    return Output("\n".join(out), int(failed), "\n".join(errors))


def _one(
    ctx: Context,
    tool_name: str,
    opts: dict[str, str],
    where: tuple[str, str, bool],
    out: list[str],
    asked: list[str],
) -> str | None:
    """Copy or move one file (`where`: source, target, whether the target is the home folder);
    the tool's error line if it could not. -v's lines go to `out`, -i's questions to `asked`."""
    source, target, into = where
    state = ctx.world.state
    if _is_home(source) or source in _OTHER_FOLDERS:
        if tool_name == "cp" and not ("r" in opts or "R" in opts or "a" in opts):
            return f"cp: -r not specified; omitting directory '{source}'"
        return _elsewhere(tool_name, source)
    name = _name(source)
    if name is None or name not in state.files:
        return f"{tool_name}: cannot stat '{source}': No such file or directory"
    shown = f"{target.rstrip('/')}/{name}" if into else target
    dest = name if into else _name(target)
    if dest is None:
        return _elsewhere(tool_name, target)
    exists = dest in state.files
    if exists and "n" in opts:
        return None  # -n: an existing target is left alone, itself too
    if dest == name:
        return f"{tool_name}: '{source}' and '{shown}' are the same file"
    if exists and "i" in opts:
        asked.append(f"{tool_name}: overwrite '{shown}'? ")
        if not _answer_yes(ctx):
            return None
    if not exists and len(state.files) >= files.MAX_FILES:
        return f"{tool_name}: cannot create regular file '{shown}': No space left on device"
    mode = files.mode_of(ctx, name)
    state.files[dest] = state.files[name]
    if tool_name == "mv":
        files.remove(ctx, name)
        files.set_mode(ctx, dest, mode)
        said = f"renamed '{source}' -> '{shown}'"
    else:
        if "p" in opts or "a" in opts:
            files.set_mode(ctx, dest, mode)
        elif not exists:
            files.set_mode(ctx, dest, mode & ~UMASK)
        said = f"'{source}' -> '{shown}'"
    if "v" in opts:
        out.append(said)
    return None


cp = tool("cp", lambda ctx, args: _copy_or_move(ctx, args, "cp"))
mv = tool("mv", lambda ctx, args: _copy_or_move(ctx, args, "mv"))


# ---------------------------------------------------------------------------- touch


def _touch(ctx: Context, args: list[str]) -> Output:
    long = {"--no-create": "c", "--date": "d", "--reference": "r"}
    opts, operands = options_of(args, "touch", "acmf", valued="dtr", long=long)
    if not operands:
        raise _missing("touch")
    errors = []
    for path in operands:
        if _is_home(path) or path in _OTHER_FOLDERS:
            continue
        name = _name(path)
        if name is None:
            errors.append(f"touch: cannot touch '{path}': No such file or directory")
            continue
        if name in ctx.world.state.files or "c" in opts:
            continue
        problem = files.write(ctx, name, "")
        if problem:
            errors.append(f"touch: cannot touch '{path}': No space left on device")
    return Output("", 1 if errors else 0, "\n".join(errors))


touch = tool("touch", _touch)


# ---------------------------------------------------------------------------- chmod

_CHMOD_OPTIONS = {
    "-R": "R", "--recursive": "R", "-v": "v", "--verbose": "v", "-c": "c", "--changes": "c",
    "-f": "f", "--silent": "f", "--quiet": "f",
}  # fmt: skip
_CLAUSE = re.compile(r"[ugoa]*(?:[-+=](?:[rwxXst]*|[ugo]))+")
_WHO = {"u": 0o4700, "g": 0o2070, "o": 0o1007, "a": 0o7777}
_WHAT = {"r": 0o444, "w": 0o222, "x": 0o111, "s": 0o6000, "t": 0o1000}


def new_mode(spec: str, mode: int) -> int | None:
    """`mode` changed as chmod's MODE says (gnulib's mode_compile and mode_adjust, for a regular
    file and a umask of 022); None if it is not a mode."""
    if re.fullmatch(r"[0-7]+", spec):
        value = int(spec, 8)
        return value if value <= 0o7777 else None
    if not all(_CLAUSE.fullmatch(clause) for clause in spec.split(",")):
        return None
    for clause in spec.split(","):
        who = re.match(r"[ugoa]*", clause).group()  # type: ignore[union-attr]
        affected = 0
        for letter in who:
            affected |= _WHO[letter]
        for op, what in re.findall(r"([-+=])([rwxXstugo]*)", clause[len(who) :]):
            if what in ("u", "g", "o"):
                shift = {"u": 6, "g": 3, "o": 0}[what]
                bits = (mode >> shift) & 7
                value = (0o444 if bits & 4 else 0) | (0o222 if bits & 2 else 0)
                value |= 0o111 if bits & 1 else 0
            else:
                value = 0
                for letter in what:
                    if letter == "X":
                        value |= 0o111 if mode & 0o111 else 0
                    else:
                        value |= _WHAT[letter]
            value &= affected if affected else ~UMASK & 0o7777
            if op == "=":
                preserved = ~affected & 0o7777 if affected else 0
                mode = (mode & preserved) | value
            elif op == "+":
                mode |= value
            else:
                mode &= ~value
    return mode


def _chmod(ctx: Context, args: list[str]) -> Output:
    opts: set[str] = set()
    spec: str | None = None
    dashed = False  # the mode came as an option (`-x`)
    operands: list[str] = []
    ended = False
    for arg in args:
        if not ended and arg == "--":
            ended = True
        elif not ended and arg in _CHMOD_OPTIONS:
            opts.add(_CHMOD_OPTIONS[arg])
        elif not ended and spec is None and re.fullmatch(r"-[rwxXstugoa0-7,+=-]+", arg):
            spec, dashed = arg, True  # `chmod -x f`: a mode, as GNU chmod reads it
        elif not ended and arg.startswith("-") and len(arg) > 1:
            letter = arg[1] if not arg.startswith("--") else ""
            wrong = f"invalid option -- '{letter}'" if letter else f"unrecognized option '{arg}'"
            raise Usage(f"chmod: {wrong}\n{try_help('chmod')}")
        elif spec is None:
            spec = arg
        else:
            operands.append(arg)
    if spec is None or (dashed and not operands):
        raise _missing("chmod", "missing operand")
    if not operands:
        raise _missing("chmod", f"missing operand after \u2018{spec}\u2019")
    if new_mode(spec, 0) is None:
        raise Usage(f"chmod: invalid mode: \u2018{spec}\u2019\n{try_help('chmod')}")
    out: list[str] = []
    errors: list[str] = []
    failed = False
    for path in operands:
        if _is_home(path) or path in _OTHER_FOLDERS:
            failed = True
            errors.append(_elsewhere("chmod", path))
            continue
        name = _name(path)
        if name is None or name not in ctx.world.state.files:
            failed = True
            if "v" in opts:
                out.append(f"'{path}' could not be accessed")
            if "f" not in opts:
                errors.append(f"chmod: cannot access '{path}': No such file or directory")
            continue
        before = files.mode_of(ctx, name)
        after = new_mode(spec, before)
        assert after is not None
        files.set_mode(ctx, name, after)
        if "v" in opts or ("c" in opts and after != before):
            was = f"{before:04o} ({files.mode_string(before)[1:]})"
            now = f"{after:04o} ({files.mode_string(after)[1:]})"
            out.append(
                f"mode of '{path}' changed from {was} to {now}"
                if after != before
                else f"mode of '{path}' retained as {now}"
            )
    return Output("\n".join(out), int(failed), "\n".join(errors))


chmod = tool("chmod", _chmod)
