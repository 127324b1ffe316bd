"""`basename` and `dirname`, as coreutils 9.1 prints them: names only, no file is read.

`basename NAME [SUFFIX]`, or with `-a`/`-s SUFFIX` any number of names; `-z` ends each with a
NUL. `dirname NAME...`, `-z` too. Both follow gnulib's `base_name`/`dir_len` on POSIX names:
trailing slashes do not count, a name of slashes only is `/`, a name without one is in `.`.
"""

from __future__ import annotations

from simulators.lab.textutils import Usage, options_of, try_help
from simulators.lab.tool import Context, Output


def _base(name: str) -> str:
    stripped = name.rstrip("/")
    if not stripped:
        return "/" if name else ""
    return stripped.rsplit("/", 1)[-1]


def _without(base: str, suffix: str) -> str:
    """coreutils' remove_suffix: only a proper suffix, never the whole name."""
    if suffix and base != suffix and base.endswith(suffix):
        return base[: -len(suffix)]
    return base


def _dir(name: str) -> str:
    stripped = name.rstrip("/")
    if not stripped:
        return "/" if name else "."
    head, slash, _ = stripped.rpartition("/")
    if not slash:
        return "."
    # `//a` keeps its `/`s as they lead; `a//b` is `a`.
    return head.rstrip("/") or "/"


def _printed(names: list[str], zero: bool) -> Output:
    end = "\0" if zero else "\n"
    return Output.exactly("".join(name + end for name in names))


def basename(ctx: Context, args: list[str]) -> Output:
    long = {"--multiple": "a", "--suffix": "s", "--zero": "z"}
    try:
        opts, names = options_of(args, "basename", "az", "s", long)
        if not names:
            raise Usage(f"basename: missing operand\n{try_help('basename')}")
        multiple = "a" in opts or "s" in opts
        suffix = opts.get("s", "")
        if not multiple:
            if len(names) > 2:
                raise Usage(f"basename: extra operand '{names[2]}'\n{try_help('basename')}")
            names, suffix = names[:1], names[1] if len(names) == 2 else ""
    except Usage as usage:
        return Output.error(str(usage))
    return _printed([_without(_base(name), suffix) for name in names], "z" in opts)


def dirname(ctx: Context, args: list[str]) -> Output:
    try:
        opts, names = options_of(args, "dirname", "z", "", {"--zero": "z"})
        if not names:
            raise Usage(f"dirname: missing operand\n{try_help('dirname')}")
    except Usage as usage:
        return Output.error(str(usage))
    return _printed([_dir(name) for name in names], "z" in opts)
