"""The shell's own state on kadmin: variables, arrays, exported names, aliases, `$?`, unfinished
input.

Kept with the session (saved and restored with it), not with the world: a reset lab starts
a fresh login shell. The defaults are a Debian login's for the user `admin`, plus the alias
every Kubernetes exam environment sets (`alias k=kubectl`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from simulators.lab import shell_random

HOME = "/home/admin"
MAX_VARIABLES = 256  # variables and arrays together
MAX_VALUE_BYTES = 64 * 1024
# An array's bounds: its elements, and its bytes (an associative array's keys and values).
MAX_ELEMENTS = 4096
MAX_ARRAY_BYTES = 64 * 1024
# A here-document or a long command typed over several lines, kept until it is complete.
MAX_PENDING_LINES = 2000
MAX_PENDING_BYTES = 64 * 1024
# bash's associative arrays are hash tables of 1024 buckets (assoc.h), grown four times when
# they hold twice as many entries as buckets (hashlib.c): their order is the table's.
_BUCKETS = 1024

# Who the learner is on the admin host, and its name: bash's \\u and \\h (shell.prompt_in).
USER, HOSTNAME = "admin", "kadmin"
DEFAULT_VARIABLES = {
    "HOME": HOME,
    "HOSTNAME": HOSTNAME,
    "LANG": "C.UTF-8",
    "LOGNAME": USER,
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "PWD": HOME,
    "SHELL": "/bin/bash",
    "TERM": "xterm-256color",
    "USER": USER,
}
# The shell's own variables that a login sets and nothing exports: the bash it is (5.2.15, the
# bash the lab's shell is checked against), its prompts, and what the admin's .bashrc sets
# (simulators.lab.home_files): its history settings and, for this xterm-256color terminal, its
# coloured PS1 with the window's title. The terminal shows that prompt without its colours
# (shell.prompt_in).
SHELL_VARIABLES = {
    "BASH": "/bin/bash",
    "BASH_VERSION": "5.2.15(1)-release",
    "HISTCONTROL": "ignoreboth",
    "HISTFILESIZE": "2000",
    "HISTSIZE": "1000",
    "PS1": "\\[\\e]0;\\u@\\h: \\w\\a\\]${debian_chroot:+($debian_chroot)}\\[\\033[01;32m\\]"
    "\\u@\\h\\[\\033[00m\\]:\\[\\033[01;34m\\]\\w\\[\\033[00m\\]\\$ ",
    "PS2": "> ",
    "PS4": "+ ",
}
# What a new bash (`bash script`) sets of them: not PS1, which only an interactive one has.
SCRIPT_VARIABLES = {name: SHELL_VARIABLES[name] for name in ("BASH", "BASH_VERSION", "PS2", "PS4")}
# The login's aliases: the admin's .bashrc's and .bash_aliases's (simulators.lab.home_files).
DEFAULT_ALIASES = {
    "alert": 'notify-send --urgency=low -i "$([ $? = 0 ] && echo terminal || echo error)" '
    "\"$(history|tail -n1|sed -e 's/^\\s*[0-9]\\+\\s*//;s/[;&|]\\s*alert$//')\"",
    "k": "kubectl",
    "l": "ls -CF",
    "la": "ls -A",
    "ll": "ls -alF",
}
# bash's own variables that no assignment changes (each readonly; EUID, UID and PPID integers
# too, as `declare -p` shows): admin's uid (simulators.lab.hosttools.UID), the parent of the
# login shell whose $$ is 4242; BASHOPTS and SHELLOPTS follow `shopt`'s and `set -o`'s options
# (ShellState.options_changed).
# bash 5.2's `shopt` options in the order it lists them, and those on in an interactive login
# on Ubuntu (its .bashrc turns on checkwinsize and histappend, bash-completion extglob).
SHOPT_NAMES = (
    "autocd", "assoc_expand_once", "cdable_vars", "cdspell", "checkhash", "checkjobs",
    "checkwinsize", "cmdhist", "compat31", "compat32", "compat40", "compat41", "compat42",
    "compat43", "compat44", "complete_fullquote", "direxpand", "dirspell", "dotglob",
    "execfail", "expand_aliases", "extdebug", "extglob", "extquote", "failglob",
    "force_fignore", "globasciiranges", "globskipdots", "globstar", "gnu_errfmt",
    "histappend", "histreedit", "histverify", "hostcomplete", "huponexit", "inherit_errexit",
    "interactive_comments", "lastpipe", "lithist", "localvar_inherit", "localvar_unset",
    "login_shell", "mailwarn", "no_empty_cmd_completion", "nocaseglob", "nocasematch",
    "noexpand_translation", "nullglob", "patsub_replacement", "progcomp", "progcomp_alias",
    "promptvars", "restricted_shell", "shift_verbose", "sourcepath", "varredir_close",
    "xpg_echo",
)  # fmt: skip
DEFAULT_SHOPTS = (
    "checkwinsize", "cmdhist", "complete_fullquote", "expand_aliases", "extglob", "extquote",
    "force_fignore", "globasciiranges", "globskipdots", "histappend", "hostcomplete",
    "interactive_comments", "login_shell", "patsub_replacement", "progcomp", "promptvars",
    "sourcepath",
)  # fmt: skip

# A new bash's `set -o` options (`bash script`, `bash -c`): not interactive, so no job control
# (monitor), history or `!` expansion, and nothing of its caller's (SHELLOPTS is not exported).
SCRIPT_OPTIONS = ("braceexpand", "hashall", "interactive-comments")
# `$-`: the letters of the options that are on, in bash's order (flags.c), `i` among them for
# an interactive shell.
FLAG_LETTERS = (
    ("a", "allexport"), ("b", "notify"), ("e", "errexit"), ("f", "noglob"), ("h", "hashall"),
    ("i", ""), ("k", "keyword"), ("m", "monitor"), ("n", "noexec"), ("p", "privileged"),
    ("t", "onecmd"), ("u", "nounset"), ("v", "verbose"), ("x", "xtrace"),
    ("B", "braceexpand"), ("C", "noclobber"), ("E", "errtrace"), ("H", "histexpand"),
    ("P", "physical"), ("T", "functrace"),
)  # fmt: skip
# A new bash's `shopt` options: not interactive, not a login, no .bashrc or bash-completion read.
SCRIPT_SHOPTS = tuple(
    name
    for name in DEFAULT_SHOPTS
    if name not in ("expand_aliases", "extglob", "histappend", "login_shell")
)


def bashopts(on: list[str] | tuple[str, ...]) -> str:
    """BASHOPTS: the `shopt` options that are on, in the order shopt lists them."""
    return ":".join(name for name in SHOPT_NAMES if name in on)


OWN_VARIABLES = {
    "BASHOPTS": bashopts(DEFAULT_SHOPTS),
    "EUID": "1000",
    "PPID": "4241",
    "UID": "1000",
}
OWN_ATTRIBUTES = {"BASHOPTS": "r", "EUID": "ir", "PPID": "ir", "SHELLOPTS": "r", "UID": "ir"}
# An interactive login's `set -o` options that are on (bash 5.2 on Ubuntu 22.04).
DEFAULT_OPTIONS = (
    "braceexpand", "emacs", "hashall", "histexpand", "history", "interactive-comments",
    "monitor",
)  # fmt: skip

Key = int | str


def _size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", errors="replace"))


def too_large(name: str) -> str:
    """bash-like words for an array past the lab's bounds."""
    return (
        f"bash: {name}: array too large for this lab (over {MAX_ELEMENTS} elements"
        f" or {MAX_ARRAY_BYTES // 1024} KiB)"
    )


class Array:
    """An array's elements: an indexed one's by index (int keys), an associative (`assoc`) one's
    by key (str keys) in the order they were set; `size` their bytes. `valued` False: declared
    (`declare -a x`) and never given a value. A `shared` one is held by a subshell's undo or a
    function's `local` too: ShellState.writable copies it before it changes."""

    __slots__ = ("assoc", "items", "shared", "size", "valued")

    def __init__(self, assoc: bool = False, valued: bool = True) -> None:
        self.assoc = assoc
        self.items: dict[Key, str] = {}
        self.size = 0
        self.valued = valued
        self.shared = False

    def put(self, key: Key, value: str) -> None:
        old = self.items.get(key)
        if old is None:
            self.size += _size(key) if isinstance(key, str) else 0
        else:
            self.size -= _size(old)
        self.items[key] = value
        self.size += _size(value)
        self.valued = True

    def drop(self, key: Key) -> None:
        old = self.items.pop(key, None)
        if old is not None:
            self.size -= _size(old) + (_size(key) if isinstance(key, str) else 0)

    def copy(self) -> Array:
        made = Array(self.assoc, self.valued)
        made.items, made.size = dict(self.items), self.size
        return made

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Array):
            return NotImplemented
        mine, theirs = (self.assoc, self.valued, self.items), (other.assoc, other.valued)
        return mine[:2] == theirs and list(self.items.items()) == list(other.items.items())

    __hash__ = None  # type: ignore[assignment]

    def in_order(self) -> list[Key]:
        """The keys in bash's order: an indexed array's ascending, an associative one's as
        bash's hash table walks them."""
        if self.assoc:
            return list(_table_order(str(key) for key in self.items))
        return sorted(self.items, key=int)

    def values(self) -> list[str]:
        return [self.items[key] for key in self.in_order()]

    def last(self) -> int:
        """An indexed array's largest index (-1 when it has none)."""
        return max((int(key) for key in self.items), default=-1)

    def over(self) -> bool:
        return len(self.items) > MAX_ELEMENTS or self.size > MAX_ARRAY_BYTES

    def to_json(self) -> list[Any]:
        items = {str(key): value for key, value in self.items.items()} if self.valued else None
        return ["A" if self.assoc else "a", items]

    @classmethod
    def from_json(cls, data: Any) -> Array:
        kind, items = data
        if kind not in ("a", "A") or len(items or ()) > MAX_ELEMENTS:
            raise ValueError("not an array the lab keeps")
        made = cls(assoc=kind == "A", valued=items is not None)
        for key, value in (items or {}).items():
            index: Key = str(key) if made.assoc else int(key)
            if isinstance(index, int) and not 0 <= index < 1 << 63:
                raise ValueError(f"array index out of range: {key}")
            made.put(index, str(value))
        return made


def _hash(key: str) -> int:
    """bash's hash_string: FNV-1 over the key's bytes, each a (signed) char."""
    value = 2166136261
    for byte in key.encode("utf-8", errors="surrogateescape"):
        value = (value * 16777619) & 0xFFFFFFFF
        value ^= byte if byte < 0x80 else (byte - 0x100) & 0xFFFFFFFF
    return value


def _table_order(keys: Iterable[str]) -> list[str]:
    """Keys set in this order (a key set again keeps its place), as bash's hash table walks
    them: bucket by bucket, the last set first in each; the table grown four times at twice
    as many entries as buckets, its chains moved (and so reversed) into the larger one."""
    buckets: list[list[str]] = [[] for _ in range(_BUCKETS)]
    for count, key in enumerate(keys):
        if count >= len(buckets) * 2:
            grown: list[list[str]] = [[] for _ in range(len(buckets) * 4)]
            for chain in buckets:
                for moved in chain:
                    grown[_hash(moved) & (len(grown) - 1)].insert(0, moved)
            buckets = grown
        buckets[_hash(key) & (len(buckets) - 1)].insert(0, key)
    return [key for chain in buckets for key in chain]


# What a name held before a function's `local` (ShellState.hold): a variable's value, an
# array, or None (nothing).
Held = str | Array | None


@dataclass
class ShellState:
    """What a bash login keeps between lines. `pending` holds the lines of a command still
    being typed (an open here-document, quote, `|`, `&&` or trailing backslash)."""

    variables: dict[str, str] = field(
        default_factory=lambda: {
            **DEFAULT_VARIABLES,
            **SHELL_VARIABLES,
            **OWN_VARIABLES,
            "SHELLOPTS": ":".join(sorted(DEFAULT_OPTIONS)),
        }
    )
    exported: list[str] = field(default_factory=lambda: sorted(DEFAULT_VARIABLES))
    aliases: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_ALIASES))
    status: int = 0
    pending: list[str] = field(default_factory=list)
    # `complete`'s specifications, by command name: the options as typed (`-o default -F f`).
    completions: dict[str, str] = field(default_factory=dict)
    # Functions by name: the text of each one's body (simulators.lab.shell_functions).
    functions: dict[str, str] = field(default_factory=dict)
    # `set -o`'s options that are on (simulators.lab.shell_options).
    options: list[str] = field(default_factory=lambda: list(DEFAULT_OPTIONS))
    # `shopt`'s options that are on (simulators.lab.shell_shopt).
    shopts: list[str] = field(default_factory=lambda: list(DEFAULT_SHOPTS))
    # $RANDOM's generator (simulators.lab.shell_random): its state (None: not started yet)
    # and the number it gave last.
    random: int | None = None
    random_last: int = 0
    # The working folder (an absolute path; simulators.lab.fs resolves relative ones from it).
    cwd: str = HOME
    # Arrays by name, indexed and associative (simulators.lab.shell_arrays): a name is a
    # variable, an array or neither. PIPESTATUS is one.
    arrays: dict[str, Array] = field(default_factory=dict)
    # declare's attributes by name (simulators.lab.shell_attributes): letters of "ilnru" in
    # bash's order; a name here with no value is declared and unset (`declare -i x`).
    attributes: dict[str, str] = field(default_factory=lambda: dict(OWN_ATTRIBUTES))

    def own_variables(self) -> dict[str, str]:
        """bash's own readonly variables (OWN_VARIABLES) as this shell has them: what a new
        bash (`bash script`) sets again."""
        return {
            **OWN_VARIABLES,
            "BASHOPTS": bashopts(self.shopts),
            "SHELLOPTS": ":".join(sorted(self.options)),
        }

    def options_changed(self) -> None:
        """SHELLOPTS and BASHOPTS after `set -o`'s or `shopt`'s options changed: those on,
        in the order each lists them."""
        self.variables["SHELLOPTS"] = ":".join(sorted(self.options))
        self.variables["BASHOPTS"] = bashopts(self.shopts)

    def on(self, name: str) -> bool:
        """Whether a `shopt` option is on."""
        return name in self.shopts

    def resolved(self, name: str) -> str:
        """The name a nameref (`declare -n r=x`) stands for, followed to its end (`name` if it
        is none, or its chain is a loop)."""
        seen = 0
        while "n" in self.attributes.get(name, "") and seen < 8:
            target = self.variables.get(name)
            if not target:
                break
            name, seen = target, seen + 1
        return name

    def readonly(self, name: str) -> bool:
        return "r" in self.attributes.get(name, "")

    def next_random(self, lab_seed: int) -> int:
        """$RANDOM: the next number, from the lab's seed if nothing seeded it."""
        state = shell_random.start(lab_seed) if self.random is None else self.random
        self.random, self.random_last = shell_random.following(state, self.random_last)
        return self.random_last

    def environment(self) -> dict[str, str]:
        """The exported variables: what a command started now sees (bash exports no array)."""
        return {k: self.variables[k] for k in self.exported if k in self.variables}

    def set(self, name: str, value: str, export: bool = False) -> str | None:
        """Set a variable (an array's element 0, or key "0", as bash does); bash's error text
        when the lab's limits refuse it, or the variable is readonly."""
        name = self.resolved(name)
        letters = self.attributes.get(name, "")
        if "r" in letters:
            return f"bash: {name}: readonly variable"
        if "u" in letters:
            value = value.upper()
        elif "l" in letters:
            value = value.lower()
        if name in self.arrays:
            problem = self.put(name, "0" if self.arrays[name].assoc else 0, value)
        elif name not in self.variables and self.names() >= MAX_VARIABLES:
            problem = f"bash: {name}: too many variables in this lab"
        elif _size(value) > MAX_VALUE_BYTES:
            problem = f"bash: {name}: value too long for this lab"
        else:
            if name == "RANDOM":  # `RANDOM=N` seeds the generator
                self.random, self.random_last = shell_random.seed_of(value), 0
            self.variables[name] = value
            problem = None
        if not problem and export and name not in self.exported:
            self.exported.append(name)
        return problem

    def unset(self, name: str) -> None:
        self.attributes.pop(name, None)
        self.variables.pop(name, None)
        self.arrays.pop(name, None)
        if name in self.exported:
            self.exported.remove(name)

    # -- arrays (simulators.lab.shell_arrays reads and changes them through these)

    def names(self) -> int:
        """How many names are set: variables and arrays (bash's own PIPESTATUS, EUID and the
        rest of OWN_ATTRIBUTES aside)."""
        own = sum(name in self.variables for name in OWN_ATTRIBUTES)
        return len(self.variables) + len(self.arrays) - ("PIPESTATUS" in self.arrays) - own

    def full(self) -> bool:
        return self.names() >= MAX_VARIABLES

    def value(self, name: str) -> str | None:
        """`$name`: a variable's value, an array's element 0 (key "0"); None if unset."""
        name = self.resolved(name)
        found = self.variables.get(name)
        if found is not None or name not in self.arrays:
            return found
        array = self.arrays[name]
        return array.items.get("0" if array.assoc else 0)

    def writable(self, name: str, assoc: bool = False) -> Array | str:
        """The array `name`, to change: made (associative if `assoc`) if it is not one, a
        variable's value its element 0; or bash's error text where the limits refuse it, or
        the name is readonly."""
        if self.readonly(name):
            return f"bash: {name}: readonly variable"
        found = self.arrays.get(name)
        if found is None:
            if name not in self.variables and self.names() >= MAX_VARIABLES:
                return f"bash: {name}: too many variables in this lab"
            found = Array(assoc, valued=name in self.variables)
            if name in self.variables:
                found.put("0" if assoc else 0, self.variables.pop(name))
            self.arrays[name] = found
        elif found.shared:
            found = self.arrays[name] = found.copy()
        return found

    def put(self, name: str, key: Key, value: str) -> str | None:
        """One element set (`a[1]=x`, `m[k]=v`); bash's error text where the limits refuse it."""
        array = self.writable(name, isinstance(key, str))
        if isinstance(array, str):
            return array
        old = array.items.get(key)
        array.put(key, value)
        if not array.over():
            return None
        if old is None:
            array.drop(key)
        else:
            array.put(key, old)
        return too_large(name)

    def assign(self, name: str, array: Array) -> str | None:
        """A whole array (`a=(...)`) as the name's value; bash's error text where the limits
        refuse it."""
        if self.readonly(name):
            return f"bash: {name}: readonly variable"
        if array.over():
            return too_large(name)
        if name not in self.variables and name not in self.arrays and self.full():
            return f"bash: {name}: too many variables in this lab"
        self.variables.pop(name, None)
        self.arrays[name] = array
        return None

    def hold(self, name: str) -> Held:
        """What `name` holds, for a function's `local` to put back (put_back)."""
        if name in self.variables:
            return self.variables[name]
        found = self.arrays.get(name)
        if found is not None:
            found.shared = True
        return found

    def put_back(self, name: str, held: Held) -> None:
        """`name` as `held` again (None: unset). A name of NUL and a name is that name's
        attributes (`held` their letters)."""
        if name.startswith("\0"):  # None: not declared; else its letters (x: exported)
            letters, name = str(held or ""), name[1:]
            if held is not None:
                self.attributes[name] = letters.replace("x", "")
            else:
                self.attributes.pop(name, None)
            if "x" in letters and name not in self.exported:
                self.exported.append(name)
            return
        if held is None:
            self.unset(name)
            return
        self.variables.pop(name, None)
        self.arrays.pop(name, None)
        if isinstance(held, str):
            self.variables[name] = held
        else:
            self.arrays[name] = held

    def share(self) -> dict[str, Array]:
        """The arrays as a subshell's undo keeps them (each copied when next changed)."""
        for array in self.arrays.values():
            array.shared = True
        return dict(self.arrays)

    def to_json(self) -> dict[str, Any]:
        return {
            # bash's own (OWN_VARIABLES, SHELLOPTS) are not saved: from_json sets them again;
            # nor the login's (SHELL_VARIABLES) as it set them, only the ones unset since.
            "variables": {
                k: v
                for k, v in self.variables.items()
                if k not in OWN_ATTRIBUTES and SHELL_VARIABLES.get(k) != v
            },
            **self._login_variables_unset(),
            "exported": list(self.exported),
            # The login's aliases (.bashrc's) only as changed, and the ones unaliased since.
            "aliases": {k: v for k, v in self.aliases.items() if DEFAULT_ALIASES.get(k) != v},
            **self._login_aliases_unset(),
            "status": self.status,
            "pending": list(self.pending),
            "completions": dict(self.completions),
            "functions": dict(self.functions),
            "options": list(self.options),
            **({} if self.shopts == list(DEFAULT_SHOPTS) else {"shopts": list(self.shopts)}),
            "random": self.random,
            "random_last": self.random_last,
            "cwd": self.cwd,
            "arrays": {name: array.to_json() for name, array in self.arrays.items()},
            "attributes": {k: v for k, v in self.attributes.items() if k not in OWN_ATTRIBUTES},
        }

    def _login_aliases_unset(self) -> dict[str, list[str]]:
        gone = [name for name in DEFAULT_ALIASES if name not in self.aliases]
        return {"unaliased": gone} if gone else {}

    def _login_variables_unset(self) -> dict[str, list[str]]:
        gone = [name for name in SHELL_VARIABLES if name not in self.variables]
        return {"unset": gone} if gone else {}

    @classmethod
    def from_json(cls, data: Any) -> ShellState:
        """A saved shell; a lab saved before the shell kept state gets a fresh login's, one
        saved before it kept arrays or attributes has none."""
        if not isinstance(data, dict):
            return cls()
        gone = {str(name) for name in data.get("unset") or ()}
        unaliased = {str(name) for name in data.get("unaliased") or ()}
        variables = {k: v for k, v in SHELL_VARIABLES.items() if k not in gone}
        variables.update({str(k): str(v) for k, v in (data.get("variables") or {}).items()})
        arrays = {str(k): Array.from_json(v) for k, v in (data.get("arrays") or {}).items()}
        if (
            any(array.over() for array in arrays.values())
            or len(data.get("attributes") or ()) > MAX_VARIABLES
        ):
            # The live shell never keeps one (an imported lab's is refused as damaged).
            raise ValueError("a shell array (or attributes) larger than the lab allows")
        options = [str(o) for o in data.get("options") or DEFAULT_OPTIONS]
        saved = data.get("shopts")
        shopts = (
            [str(o) for o in saved if o in SHOPT_NAMES]
            if isinstance(saved, list)
            else list(DEFAULT_SHOPTS)
        )
        # bash's own readonly variables, whatever was saved (a lab saved before it kept them).
        variables.update(
            OWN_VARIABLES, SHELLOPTS=":".join(sorted(options)), BASHOPTS=bashopts(shopts)
        )
        attributes = {
            str(k): "".join(c for c in str(v) if c in "ilnru")
            for k, v in (data.get("attributes") or {}).items()
        }
        attributes.update(OWN_ATTRIBUTES)
        return cls(
            variables={k: v for k, v in variables.items() if k not in arrays},
            exported=[str(k) for k in data.get("exported") or []],
            aliases={
                **{k: v for k, v in DEFAULT_ALIASES.items() if k not in unaliased},
                **{str(k): str(v) for k, v in (data.get("aliases") or {}).items()},
            },
            status=int(data.get("status", 0)),
            pending=[str(line) for line in data.get("pending") or []],
            completions={str(k): str(v) for k, v in (data.get("completions") or {}).items()},
            functions={str(k): str(v) for k, v in (data.get("functions") or {}).items()},
            options=options,
            shopts=shopts,
            random=None if data.get("random") is None else int(data["random"]) & 0xFFFFFFFF,
            random_last=int(data.get("random_last", 0)),
            cwd=str(data.get("cwd") or HOME),
            arrays=arrays,
            attributes=attributes,
        )
