"""The shell's expansions of a word, in bash's order: braces, tilde, parameters (with bash's
operators, simulators.lab.shell_parameters), command substitution (`$(...)` and backquotes),
arithmetic (simulators.lab.shell_arithmetic), splitting on IFS, globbing on the home folder.
A mixin of simulators.lab.shell.Shell, which holds the state they read.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from simulators.lab import (
    budget,
    fs,
    shell_arithmetic,
    shell_arrays,
    shell_attributes,
    shell_braces,
    shell_compound,
    shell_parameters,
)
from simulators.lab.environment import FLAG_LETTERS, HOME, Held
from simulators.lab.shell_grammar import parse
from simulators.lab.shell_match import matches
from simulators.lab.shell_scripts import ScriptExit
from simulators.lab.shell_syntax import (
    ShellSyntaxError,
    _Lexer,
    expand_aliases,
    tokenize,
    word_parts,
)
from simulators.lab.shell_tokens import Aborted, Part, Refused, Word

if TYPE_CHECKING:
    from simulators.lab.environment import ShellState
    from simulators.lab.shell import Shell
    from simulators.lab.tool import Context, Tool

MAX_SUBSTITUTION_DEPTH = 4
_GLOB_CHARS = re.compile(r"[*?\[]")
# bash's operators for a variable unset or empty: `${v:-word}` and the rest.
# `<(...)` words in one command: bash's file descriptors 63 down to 54.
MAX_PROCESS_SUBSTITUTIONS = 10
DEFAULTS = (":-", "-", ":=", "=", ":+", "+", ":?", "?")


class Expansion:
    """Word expansion over a shell's state (see simulators.lab.shell.Shell)."""

    ctx: Context
    state: ShellState
    positional: list[str]
    zero: str
    scripts: int
    frames: list[dict[str, Held]]
    sourcing: int
    new_bashes: list[str]
    depth: int
    trace_base: int
    evals: int
    stray: list[str]
    _substituted: bool
    turns: int
    shown: int
    capturing: int
    commands: dict[str, Tool]

    def another(self) -> Shell:
        """A shell on the same context, for a `$(...)` (Shell makes it)."""
        raise NotImplementedError

    def expand(self, word: Word) -> list[str]:
        """A word's fields after brace, tilde, parameter and command expansion, splitting and
        globbing (Refused past the lab's bounds)."""
        words = shell_braces.expand(word.parts)
        if len(words) == 1:
            return self._fields(word)
        fields: list[str] = []
        for parts in words:
            fields.extend(self._fields(Word(word.text, word.quoted, parts)))
            _bounded(sum(map(len, fields)) + len(fields))
        return fields

    def flags(self) -> str:
        """`$-`: the options on as letters, in bash's order; an interactive login's with `i` and
        a closing `s` (`himBHs`), a new bash's without (`hB`, `hBc` for `bash -c`)."""
        on = set(self.state.options)
        new_bash = self.new_bashes[-1] if self.new_bashes else None
        letters = "".join(
            letter
            for letter, option in FLAG_LETTERS
            if (option in on if option else new_bash is None)
        )
        return letters + ("s" if new_bash is None else new_bash)

    def _fields(self, word: Word) -> list[str]:
        fields, globbed = self._expand_parts(word.parts, split=True)
        if globbed and len(fields) == 1 and "noglob" not in self.state.options:
            found = self._glob(word)
            if found or not (self.state.on("nullglob") or self.state.on("failglob")):
                return found or fields
            if self.state.on("failglob"):
                raise Aborted(f"bash: no match: {fields[0]}")
            return []
        return fields

    def unsplit(self, word: Word) -> str:
        """A word expanded as one string, neither split nor globbed (case's subject)."""
        return "".join(self._expand_parts(word.parts, split=False)[0])

    def pattern(self, word: Word) -> str:
        """A case pattern: expanded, its quoted parts matching themselves only."""
        pieces = []
        for part in word.parts:
            text = "".join(self._expand_parts([part], split=False)[0])
            pieces.append(text if part.kind == "lit" else _glob_escape(text))
        return "".join(pieces)

    def _expand_parts(self, parts: list[Part], split: bool) -> tuple[list[str], bool]:
        fields: list[str] = []
        current = ""
        have = False
        globbed = False
        # "$@" and "${a[@]}" of no elements, with empty quotes only beside them, are no word
        # at all: `lists` says one was there, `other` that something else was.
        lists = other = False
        pending = list(reversed(parts))
        while pending:
            part = pending.pop()
            if part.kind == "var" and split and not part.in_quotes:
                word = self._chosen_word(part.value)
                if word is not None:
                    # `${v:-a "b  c"}`: the word's quotes keep their blanks, the rest splits.
                    pending.extend(reversed(word))
                    continue
            listed = self._listed(part.value) if part.kind == "var" else None
            if listed is not None and split and self._apart(part, listed[1]):
                # "$@", "${a[@]}": each element its own field (unquoted with IFS null, each
                # one not empty).
                values = listed[0] if part.in_quotes else [v for v in listed[0] if v]
                lists, other = True, other or bool(values)
                for index, value in enumerate(values):
                    if index:
                        fields.append(current)
                        current = ""
                    current += value
                    have = True
                _bounded(len(current) + sum(len(f) for f in fields))
                continue
            other = other or not (part.kind == "quoted" and not part.value)
            if part.kind == "lit":
                current += part.value
                have = True
                globbed = globbed or bool(_GLOB_CHARS.search(part.value))
                continue
            if part.kind == "quoted":
                current += part.value
                have = True
                continue
            if part.kind == "tilde":
                current += self.state.variables.get("HOME", HOME)
                have = True
                continue
            if listed is not None:  # $@ and ${a[@]} unquoted: IFS's first character joins them
                value = shell_arrays.joined(self, listed[0], split or listed[1])
            else:
                value = part.value if part.kind == "text" else self._value_of(part)
            _bounded(len(current) + len(value) + sum(len(f) for f in fields))
            if part.in_quotes or not split:
                current += value
                have = True
                continue
            if value == "":
                continue
            pieces, hard = _split(value, self.state.variables.get("IFS", " \t\n"))
            current += pieces[0]
            have = have or bool(pieces[0])
            for piece, delimited in zip(pieces[1:], hard, strict=True):
                if have or current or delimited:
                    fields.append(current)
                current, have = piece, bool(piece)
        if lists and not other:
            return [], False
        if have or current:
            fields.append(current)
        return fields, globbed

    def _apart(self, part: Part, star: bool) -> bool:
        """Whether a list's elements are fields of their own: "$@", "${a[@]}" in quotes, any
        unquoted where IFS is null (else IFS's first character joins them, and they split)."""
        return not star if part.in_quotes else self.state.variables.get("IFS") == ""

    def _expand_text(self, body: str) -> str:
        """A here-document's body: $VAR, ${VAR} and $(...) expanded, quotes kept as typed."""
        out: list[str] = []
        lexer = _Lexer(body, lenient=True)
        i = 0
        size = len(body)
        while i < len(body):
            ch = body[i]
            if ch == "\\" and i + 1 < len(body) and body[i + 1] in "$`\\\n":
                if body[i + 1] != "\n":
                    out.append(body[i + 1])
                i += 2
                continue
            if ch in "$`":
                lexer.i, lexer.parts = i, []
                if ch == "$":
                    lexer.dollar(in_quotes=True)
                else:
                    lexer.backquoted(in_quotes=True)
                part = lexer.parts[-1]
                out.append(
                    self._value_of(part) if part.kind in ("var", "cmd", "arith") else part.value
                )
                size += len(out[-1])
                _bounded(size)
                i = max(lexer.i, i + 1)
                continue
            out.append(ch)
            i += 1
        return "".join(out)

    def _value_of(self, part: Part) -> str:
        """An expansion's value: a parameter, $(...) or $((...))."""
        if part.kind == "var":
            return self._parameter(part.value, part.in_quotes)
        if part.kind == "arith":
            return str(self.arithmetic(part.value))
        if part.kind == "procin":
            return self._process_substitution(part)
        if part.kind == "procout":
            raise Refused("bash: >(...): writing to a command is not available in this lab")
        return self._substitute(part)

    def _process_substitution(self, part: Part) -> str:
        """`<(...)`: the name of a file holding the inner command's stdout exactly, as bash
        names the pipe (/dev/fd/63, then 62, ...), readable by every tool until the command
        it is in has run (Context.fds)."""
        fds = self.ctx.fds
        name = f"/dev/fd/{63 - len(fds)}"
        if len(fds) >= MAX_PROCESS_SUBSTITUTIONS:
            raise Refused("bash: too many process substitutions in one command for this lab")
        fds[name] = self._captured(part.value)
        return name

    def arithmetic(self, expression: str, where: str = "") -> int:
        """The value of `$((expression))` (`where` names the command in bash's error: `((`,
        `for`); Refused with bash's message."""
        state = self.state

        def assign(name: str, value: str) -> None:
            if "[" in name:
                shell_arrays.arithmetic_assign(self, name, value)
                return
            problem = state.set(name, value)
            if problem:
                raise Refused(problem)

        def get(name: str) -> str:
            if name == "RANDOM":
                return self._random()
            found = shell_arrays.arithmetic_value(self, name) if "[" in name else state.value(name)
            if found is None:
                self._unbound(name)
            return found or ""

        try:
            evaluator = shell_arithmetic.Evaluator(get, assign)
            return evaluator.evaluate(self._expand_text(expression))
        except shell_arithmetic.ArithmeticError_ as exc:
            raise Refused(f"bash: {where}{': ' if where else ''}{exc}") from None

    def _parameter(self, name: str, in_quotes: bool = False) -> str:
        state = self.state
        if name == "?":
            return str(state.status)
        if name == "$":
            return "4242"
        if name == "#":
            return str(len(self.positional))
        if name == "0":
            return self.zero
        listed = self._listed(name)
        if listed is not None:  # ${a[@]}, $@ and the rest, as one word
            return shell_arrays.joined(self, *listed)
        if name.isdigit():
            index = int(name[-9:]) if len(name) < 10 else 0
            if 0 < index <= len(self.positional):
                return self.positional[index - 1]
            self._unbound(f"${name}")
            return ""
        if name == "-":
            return self.flags()
        if name == "!":
            return ""
        if name.startswith("#") and _is_name(name[1:]):
            value = state.value(name[1:])
            if value is None:
                self._unbound(name[1:])
            return str(len(value or ""))
        if name == "RANDOM":
            return self._random()
        if _is_name(name):
            value = state.value(name)
            if value is None:
                self._unbound(name)
            return value or ""
        default = self._default(name)
        if default is not None:
            base, op, text, takes_word = default
            if not takes_word:
                return "" if op.endswith("+") else self._set_value(base) or ""
            word = "".join(self._expand_parts(word_parts(text, in_quotes), split=False)[0])
            if op.endswith("?"):
                # Interactive bash drops the rest of the command line.
                unset = "parameter null or not set" if op == ":?" else "parameter not set"
                raise Aborted(f"bash: {base}: {word or unset}")
            if op.endswith("=") and "[" in base:
                shell_arrays.assign_default(self, base, word)
            elif op.endswith("=") and not _is_name(base):
                raise Refused(f"bash: ${base}: cannot assign in this way")
            elif op.endswith("="):
                state.set(base, word)
            return word
        indirect = shell_attributes.indirect(self, name)
        if indirect is not None:
            return indirect
        transformed = shell_attributes.transform(self, name)
        if transformed is not None:
            return transformed
        element = shell_arrays.parameter(self, name)
        if element is not None:
            return element
        found = shell_parameters.OPERATOR.fullmatch(name)
        if found:
            base, op, word = found.groups()
            try:
                value = state.value(base) or ""
                return shell_parameters.apply(value, op, word, self._expand_text, self.arithmetic)
            except shell_parameters.BadSubstitution as bad:
                raise Refused(f"bash: {bad}") from None
        raise Refused(f"bash: ${{{name}}}: bad substitution")

    def _listed(self, name: str) -> tuple[list[str], bool] | None:
        """A `${...}` that is a list of words (an array's, `$@`, `${!prefix@}`), its values
        and whether it is a `*` one; None for a single value."""
        return shell_attributes.prefixed(self, name) or shell_arrays.listed(self, name)

    def _random(self) -> str:
        """$RANDOM: a new number each time (simulators.lab.shell_random)."""
        return str(self.state.next_random(self.ctx.world.state.seed))

    def _unbound(self, name: str) -> None:
        """`set -u`: a parameter that is not set stops the line (or the script)."""
        if "nounset" in self.state.options:
            raise Aborted(f"bash: {name}: unbound variable")

    def _default(self, name: str) -> tuple[str, str, str, bool] | None:
        """`${base<op>text}` with one of bash's DEFAULTS operators: base, op, text, and whether
        the operator takes its word (`-`, `=`, `?` for an unset base, or an empty one after `:`;
        `+` for a set one); None for any other parameter."""
        element = shell_arrays.base_of(name)
        for op in DEFAULTS:
            if element is not None:  # `a[i-1]-word`: the operator after the subscript
                base, sep, text = element[0], op, element[1][len(op) :]
                if not element[1].startswith(op):
                    continue
            else:
                base, sep, text = name.partition(op)
            if sep and (_is_name(base) or base.isdigit() or base in ("@", "*") or element):
                value = self._set_value(base, draw=False)
                empty = value is None or (op.startswith(":") and value == "")
                return base, op, text, empty != op.endswith("+")
        return None

    def _set_value(self, base: str, draw: bool = True) -> str | None:
        """A variable's or a positional parameter's value; None if it is not set. $RANDOM
        is a new number only when its value is used (`draw`), always set and not empty."""
        if base == "RANDOM":
            return self._random() if draw else "0"
        if _is_name(base):
            return self.state.value(base)
        if "[" in base:
            return shell_arrays.set_value(self, base)
        if base in ("@", "*"):
            return " ".join(self.positional) if self.positional else None
        index = int(base[-9:]) if len(base) < 10 else 0
        if index == 0:
            return self.zero
        return self.positional[index - 1] if index <= len(self.positional) else None

    def _chosen_word(self, name: str) -> list[Part] | None:
        """The word of `${v:-word}` or `${v:+word}` when the operator takes it, as parts to
        expand in place (its unquoted text to be split as an expansion's); else None."""
        default = self._default(name)
        if default is None or default[1] not in (":-", "-", ":+", "+") or not default[3]:
            return None
        parts = word_parts(default[2])
        return [Part("text", p.value) if p.kind == "lit" else p for p in parts]

    def _substitute(self, part: Part) -> str:
        """$(...): the inner command's stdout, without its final newlines."""
        out = self._captured(part.value)
        self._substituted = True
        return out.rstrip("\n")

    def _captured(self, text: str) -> str:
        """The stdout of `text` run in a subshell, exactly; its stderr goes with the command's."""
        if self.depth >= MAX_SUBSTITUTION_DEPTH:
            raise Refused("bash: command substitution nested too deeply for this lab")
        saved_stray = self.stray
        self.depth += 1
        try:
            inner = self.another()
            inner.commands = self.commands
            inner.depth, inner.trace_base = self.depth, self.trace_base
            inner.capturing = 1
            inner.positional, inner.zero, inner.scripts = self.positional, self.zero, self.scripts
            inner.frames, inner.sourcing = self.frames, self.sourcing  # function nesting
            inner.evals = self.evals
            try:
                program = parse(expand_aliases(tokenize(text), self.state.aliases), text)
            except ShellSyntaxError as exc:
                raise Refused(str(exc)) from None
            pieces = shell_compound.Pieces()
            inner.turns, inner.shown = self.turns, self.shown
            try:
                with inner.subshell():  # what it sets is gone after it
                    shell_compound.run_list(inner, program, None, pieces)
            except Aborted as exc:
                if exc.line():
                    pieces.say(inner, "err", exc.line())
            except ScriptExit:
                pass  # `$(exit 3)`: the subshell ends there
            self.turns = inner.turns
            out, errs = pieces.stdout(), pieces.errors()
        finally:
            self.depth -= 1
            self.stray = saved_stray
        self.stray.extend(errs)
        return out

    def _glob(self, word: Word) -> list[str]:
        """Unquoted * ? [ ] against the host's folders (simulators.lab.fs), as bash's
        glob_filename walks them: each part of the pattern with a glob character matched against
        the entries of the folders reached so far, the others taken as they are; only paths
        that exist, in order; a final `/` matches folders only."""
        pattern = "".join(
            p.value if p.kind == "lit" else _glob_escape(p.value if p.kind == "quoted" else HOME)
            for p in word.parts
        )
        if len(pattern) > 256:
            return []
        only_folders = pattern.endswith("/")
        state = self.ctx.world.state
        absolute = pattern.startswith("/")
        parts = [p for p in pattern.strip("/").split("/") if p]
        # (the path as bash prints it, the absolute path it names)
        reached = [("/" if absolute else "", "/" if absolute else fs.cwd(self.ctx))]
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            following: list[tuple[str, str]] = []
            for shown, real in reached:
                if not fs.is_folder(state, real):
                    continue
                joiner = "" if shown in ("", "/") else "/"
                if part == "**" and self.state.on("globstar"):
                    following.extend(self._below(shown, real, last and not only_folders))
                    continue
                if _GLOB_CHARS.search(part):
                    found, subfolders = fs.children(state, real)
                    names = [n for n in [*found, *subfolders] if self._matches(n, part)]
                else:
                    names = [part]
                for name in names:
                    where = fs.locate_in(state, real, name)
                    wanted = where.folder or (last and where.file and not only_folders)
                    if wanted and not where.error:
                        following.append((shown + joiner + name, where.path))
            reached = following
        end = "/" if only_folders else ""
        return sorted(shown + end for shown, _ in reached if shown not in ("", "/"))

    def _matches(self, name: str, pattern: str) -> bool:
        """bash's pathname matching: a leading dot only by a pattern that starts with one
        (unless dotglob), never `.` or `..` (globskipdots, bash 5.2's default); nocaseglob
        matches letters in either case."""
        if name.startswith(".") and not pattern.startswith(".") and not self.state.on("dotglob"):
            return False
        return matches(name, pattern, self.state.on("nocaseglob"))

    def _below(self, shown: str, real: str, files: bool) -> list[tuple[str, str]]:
        """globstar's `**`: this folder and every folder below it (files too when `**` ends the
        pattern), hidden ones only with dotglob; links to folders listed, not walked into (bash
        4.3 and later)."""
        state = self.ctx.world.state
        hidden = self.state.on("dotglob")
        # `**` matching no folder: the folder itself, as `d/` when the pattern ends there.
        itself = shown + "/" if files and shown not in ("", "/") else shown
        found = [(itself, real)] if shown not in ("", "/") or not files else []
        waiting = [(shown, real)]
        while waiting:
            at_shown, at_real = waiting.pop(0)
            names, subfolders = fs.children(state, at_real)
            joiner = "" if at_shown in ("", "/") else "/"
            for name in sorted({*names, *subfolders}):
                if name.startswith(".") and not hidden:
                    continue
                where = fs.locate_in(state, at_real, name)
                if where.error or not (where.folder or (files and where.file)):
                    continue
                found.append((at_shown + joiner + name, where.path))
                if name in subfolders:  # a link to a folder is listed, not walked into
                    waiting.append((at_shown + joiner + name, where.path))
                _bounded(len(found))
        return found


def _bounded(size: int) -> None:
    """Expansions stop at the lab's output limit (`$X$X$X...` of a long X would not)."""
    if size > budget.limits().output_bytes:
        raise Refused("bash: expansion too long for this lab (over the output limit)")
    budget.check_time()


def _split(value: str, ifs: str) -> tuple[list[str], list[bool]]:
    """An unquoted expansion's value split on IFS as bash splits it: the pieces, and for each
    separator whether it held a character of IFS other than a blank (`a,,b` with IFS `,`
    keeps its empty field; blanks only separate)."""
    if not ifs:
        return [value], []
    blanks = "".join(c for c in " \t\n" if c in ifs)
    others = "".join(c for c in ifs if c not in " \t\n")
    blank = f"[{re.escape(blanks)}]*" if blanks else ""
    alternatives = [f"{blank}[{re.escape(others)}]{blank}"] if others else []
    alternatives += [f"[{re.escape(blanks)}]+"] if blanks else []
    separators = re.compile("|".join(alternatives))
    pieces, hard, start = [], [], 0
    for found in separators.finditer(value):
        pieces.append(value[start : found.start()])
        hard.append(bool(others) and any(c in others for c in found.group()))
        start = found.end()
    pieces.append(value[start:])
    return pieces, hard


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def _is_name(text: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text))
