"""The host's files: reading and writing them by path (simulators.lab.fs resolves it), cat, head
and tail (ls is simulators.lab.ls, sed simulators.lab.sed, the editors simulators.lab.editor).

Files live in the world state as key -> text (simulators.lab.fs). grep's patterns go through
simulators.lab.regex (RE2, linear time). Every stage checks the
command's budget (simulators.lab.budget) as its output grows.
"""

from __future__ import annotations

from simulators.lab import budget, fs
from simulators.lab.tool import Context, Output

MAX_FILE_BYTES = 64 * 1024
MAX_FILES = 64
# A new file's permission bits: 0666 less kadmin's umask (022).
NEW_FILE_MODE = 0o644


def completed(ctx: Context, current: str) -> list[str]:
    """Paths for a Tab on `current`, as bash's filename completion offers them: the entries of
    the folder the word names so far, folders ending in `/`; dot names only for a last part
    starting with a dot (readline's default)."""
    folder_part, _, last = current.rpartition("/")
    base = folder_part + "/" if "/" in current else ""
    where = fs.locate(ctx, folder_part or ("/" if current.startswith("/") else "."))
    if not where.folder:
        return []
    state = ctx.world.state
    found, subfolders = fs.children(state, where.path)
    # A link to a folder is completed as one (bash: `cd /bi` Tab gives `/bin/`).
    linked = {n for n in found if fs.locate_in(state, where.path, n).folder}
    subfolders = sorted({*subfolders, *linked}, key=str.encode)
    found = [n for n in found if n not in linked]
    names = [base + n for n in found] + [base + n + "/" for n in subfolders]
    return sorted(n for n in names if not n[len(base) :].startswith(".") or last.startswith("."))


def opened(ctx: Context, path: str) -> tuple[str | None, str]:
    """A file's text, or None and why not (fs's "No such file or directory", "Is a
    directory", ...)."""
    if path.startswith("/dev/fd/"):
        text = ctx.fds.get(path)  # a `<(...)`'s output
        return text, "" if text is not None else fs.NOT_FOUND
    where = fs.locate(ctx, path)
    if where.error:
        return None, where.error
    if where.folder:
        return None, fs.IS_FOLDER
    if not where.file:
        return None, fs.NOT_FOUND
    return fs.read(ctx.world.state, where.path), ""


def read(ctx: Context, path: str) -> str | None:
    return opened(ctx, path)[0]


def key_of(ctx: Context, path: str) -> str | None:
    """The storage key of the file `path` names, None if no file is there."""
    where = fs.locate(ctx, path)
    return where.key if where.file and not where.error else None


def mode_of(ctx: Context, name: str) -> int:
    """A file's or folder's permission bits (its key)."""
    return fs.mode_of(ctx.world.state, fs.path_of(name))


def set_mode(ctx: Context, name: str, mode: int) -> None:
    modes = ctx.world.state.modes
    path = fs.path_of(name)
    default = fs.FOLDER_MODE if fs.is_folder(ctx.world.state, path) else NEW_FILE_MODE
    if mode == default:
        modes.pop(name, None)
    else:
        modes[name] = mode


def remove(ctx: Context, name: str) -> None:
    """The file (its key) and its mode are gone."""
    ctx.world.state.files.pop(name, None)
    ctx.world.state.modes.pop(name, None)


def creatable(ctx: Context, path: str) -> tuple[fs.Located, str]:
    """Where a new or rewritten file at `path` would be, or why it cannot be (the reason
    alone: "Permission denied", "Is a directory", ...)."""
    where = fs.locate(ctx, path)
    if where.error:
        return where, where.error
    if where.folder or path.endswith("/"):
        return where, fs.IS_FOLDER if where.folder else fs.NOT_FOUND
    if where.file and not fs.owned(where.path) and not fs.allows(ctx.world.state, where.path, 2):
        return where, fs.DENIED  # root's (the system's files): the admin's own are its to write
    if not where.file and not fs.writable(ctx.world.state, fs.parent(where.path)):
        return where, fs.DENIED
    if not where.file and len(ctx.world.state.files) >= MAX_FILES:
        return where, "No space left on device"
    return where, ""


def write(ctx: Context, path: str, text: str) -> str | None:
    """Store a file; returns bash's error text when it cannot."""
    where, why = creatable(ctx, path)
    if why:
        return f"bash: {path}: {why}"
    # /dev/null's writes are discarded, whatever their size.
    if not fs.store(ctx.world.state, where.path, text, most=MAX_FILE_BYTES):
        return f"bash: {path}: File too large"
    return None


def mode_string(mode: int) -> str:
    """`ls -l`'s permissions of a regular file: `-rwxr-xr-x`, with s/S and t/T."""
    letters = ["-"]
    for shift, special, mark in ((6, 0o4000, "s"), (3, 0o2000, "s"), (0, 0o1000, "t")):
        bits = (mode >> shift) & 7
        letters += ["r" if bits & 4 else "-", "w" if bits & 2 else "-"]
        execute = bool(bits & 1)
        if mode & special:
            letters.append(mark if execute else mark.upper())
        else:
            letters.append("x" if execute else "-")
    return "".join(letters)


# ---------------------------------------------------------------------------- cat


# GNU cat's options, each as the single-letter ones it stands for.
_CAT_SHORT = {
    "A": "vET", "b": "b", "e": "vE", "E": "E", "n": "n", "s": "s", "t": "vT", "T": "T", "u": "",
    "v": "v",
}  # fmt: skip
_CAT_LONG = {
    "--show-all": "vET",
    "--number-nonblank": "b",
    "--show-ends": "E",
    "--number": "n",
    "--squeeze-blank": "s",
    "--show-tabs": "T",
    "--show-nonprinting": "v",
}
_CAT_USAGE = "\nTry 'cat --help' for more information."


def cat(ctx: Context, args: list[str]) -> Output:
    """GNU cat: the files (or stdin, `-`) in order, byte for byte, with -A -b -e -E -n -s -t
    -T -v and their long names as coreutils 9 prints them (tests/unit/lab/test_shell_oracle.py
    compares it with the real cat)."""
    flags: set[str] = set()
    names: list[str] = []
    options = True
    for arg in args:
        if options and arg == "--":
            options = False
        elif options and arg.startswith("--"):
            if arg not in _CAT_LONG:
                return Output.error(f"cat: unrecognized option '{arg}'{_CAT_USAGE}")
            flags.update(_CAT_LONG[arg])
        elif options and arg.startswith("-") and arg != "-":
            for letter in arg[1:]:
                if letter not in _CAT_SHORT:
                    return Output.error(f"cat: invalid option -- '{letter}'{_CAT_USAGE}")
                flags.update(_CAT_SHORT[letter])
        else:
            names.append(arg)
    out: list[str] = []
    errors: list[str] = []
    for name in names or ["-"]:
        text, why = (ctx.stdin, "") if name == "-" else opened(ctx, name)
        if text is None:
            errors.append(f"cat: {name}: {why}")
            continue
        out.append(text)
    joined = "".join(out)
    if flags:
        joined = _cat_lines(joined, flags)
    elif any(isinstance(text, fs.Prefix) for text in out):
        # A program's bytes, all of them, as far as a reader counting them knows.
        joined = fs.Prefix(joined, sum(fs.whole_size(text) for text in out))
    return Output.exactly(joined, 1 if errors else 0, stderr="\n".join(errors))


def _cat_lines(text: str, flags: set[str]) -> str:
    """cat's line options on the concatenated text: squeeze, number, show (as GNU cat orders
    them; numbering goes on across files, as GNU's does)."""
    shown: list[str] = []
    number = 0
    blank_before = False
    pieces = text.split("\n")  # lines end at a newline only (a carriage return is a byte)
    for index, body in enumerate(pieces):
        end = "\n" if index < len(pieces) - 1 else ""
        if not body and not end:
            break  # the text ended with its newline
        blank = not body and bool(end)
        if "s" in flags and blank and blank_before:
            continue
        blank_before = blank
        prefix = ""
        if "b" in flags:
            if not blank:
                number += 1
                prefix = f"{number:>6}\t"
        elif "n" in flags:
            number += 1
            prefix = f"{number:>6}\t"
        if "E" in flags and end and body.endswith("\r"):
            body = body[:-1] + "^M"  # coreutils 9.1: a CRLF line ends ^M$
        if "v" in flags:
            body = _nonprinting(body, tabs="T" not in flags)
        elif "T" in flags:
            body = body.replace("\t", "^I")
        shown.append(prefix + body + ("$" if "E" in flags and end else "") + end)
    return "".join(shown)


def _nonprinting(text: str, tabs: bool) -> str:
    """cat -v's notation for the text's UTF-8 bytes: ^X for controls, ^? for DEL, M- for the
    high half; a tab stays a tab unless -T."""
    out: list[str] = []
    for byte in text.encode("utf-8", errors="surrogateescape"):
        prefix = ""
        if byte >= 128:
            prefix, byte = "M-", byte - 128
        if byte == 9 and tabs and not prefix:
            out.append("\t")
        elif byte < 32:
            out.append(f"{prefix}^{chr(byte + 64)}")
        elif byte == 127:
            out.append(f"{prefix}^?")
        else:
            out.append(prefix + chr(byte))
    return "".join(out)


def _chomp(text: str) -> str:
    """The text as Output holds it: without its one final newline (blank lines kept)."""
    return text[:-1] if text.endswith("\n") else text


# ---------------------------------------------------------------------------- head, tail


def _head_tail(ctx: Context, args: list[str], tail: bool) -> Output:
    """GNU head and tail: -n N, -c N (bytes), -N, head's -n -N and -c -N (all but the last N),
    tail's -n +N and -c +N (from the Nth on), -q and -v, headers between several files, and
    every byte kept (a last line without its newline stays so)."""
    name = "tail" if tail else "head"
    usage = f"\nTry '{name} --help' for more information."
    count, sign, unit = 10, "", "n"
    headers: bool | None = None
    files: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        value = None
        if arg in ("-n", "-c", "--lines", "--bytes"):
            if i >= len(args):
                return Output.error(f"{name}: option requires an argument -- '{arg[-1]}'{usage}")
            unit, value = "c" if arg in ("-c", "--bytes") else "n", args[i]
            i += 1
        elif arg.startswith(("--lines=", "--bytes=")):
            unit, value = "c" if arg.startswith("--bytes") else "n", arg.partition("=")[2]
        elif arg in ("-q", "--quiet", "--silent", "-v", "--verbose"):
            headers = arg in ("-v", "--verbose")
        elif arg.startswith(("-n", "-c")) and len(arg) > 2:
            unit, value = arg[1], arg[2:]
        elif arg.startswith("-") and arg[1:].isdigit() and i == 1 and _old_form(args, tail):
            unit, value = "n", arg[1:]  # the old -N: first, and for tail, before one file only
        elif arg.startswith("-") and arg != "-":
            if tail and arg in ("-f", "-F", "--follow"):
                return Output.error(f"{name}: {arg}: the lab's files never grow; tail prints once")
            return Output.error(f"{name}: invalid option -- '{arg.lstrip('-')[:1]}'{usage}")
        else:
            files.append(arg)
        if value is not None:
            parsed = budget.bounded_int(value.lstrip("+-"), 1 << 30)
            if parsed is None:
                what = "lines" if unit == "n" else "bytes"
                return Output.error(f"{name}: invalid number of {what}: '{value}'")
            count = parsed
            if tail:  # coreutils' tail: once a `+N` was given, from the start it stays
                sign = "+" if value.startswith("+") or sign == "+" else ""
            else:
                sign = "-" if value.startswith("-") else ""
    if tail and count == 0 and sign != "+":
        return Output()  # coreutils' tail: nothing to print, no file opened
    names = files or ["-"]
    shown = len(names) > 1 if headers is None else headers
    out: list[str] = []
    errors: list[str] = []
    for file in names:
        text, why = (ctx.stdin, "") if file == "-" else opened(ctx, file)
        if text is None and why == fs.IS_FOLDER:
            errors.append(f"{name}: error reading '{file}': {why}")
            text = ""  # its header is printed, as GNU's are, before the read fails
        elif text is None:
            errors.append(f"{name}: cannot open '{file}' for reading: {why}")
            continue
        if shown:
            title = "standard input" if file == "-" else file
            out.append(("\n" if out else "") + f"==> {title} <==\n")
        out.append(_pick(text, count, sign, unit, tail))
    return Output.exactly("".join(out), 1 if errors else 0, stderr="\n".join(errors))


def _old_form(args: list[str], tail: bool) -> bool:
    """Whether `-N` first is the old form of -n N: for head always, for tail only as
    `tail -N` or `tail -N FILE` (coreutils' parse_obsolete_option)."""
    if not tail or len(args) == 1:
        return True
    return len(args) == 2 and not (args[1].startswith("-") and len(args[1]) > 1)


def _pick(text: str, count: int, sign: str, unit: str, tail: bool) -> str:
    """The part of one file head or tail prints."""
    if unit == "c":
        data = text.encode()
        keep = max(len(data) - count, 0)
        if tail:
            part = data[max(count, 1) - 1 :] if sign == "+" else data[keep:]
        else:
            part = data[:keep] if sign == "-" else data[:count]
        return part.decode(errors="replace")
    lines = lines_ended(text)
    keep = max(len(lines) - count, 0)
    if tail:
        picked = lines[max(count, 1) - 1 :] if sign == "+" else lines[keep:]
    else:
        picked = lines[:keep] if sign == "-" else lines[:count]
    return "".join(picked)


def lines_ended(text: str) -> list[str]:
    """The text's lines, each with its newline (a last one may have none): at newlines only,
    never at the other breaks str.splitlines knows."""
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    return [*lines, pieces[-1]] if pieces[-1] else lines


def head(ctx: Context, args: list[str]) -> Output:
    return _head_tail(ctx, args, tail=False)


def tail(ctx: Context, args: list[str]) -> Output:
    return _head_tail(ctx, args, tail=True)
