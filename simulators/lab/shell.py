"""The admin host's shell: run `;`/`&&`/`||` lists and `|` pipes, redirect, complete.

Nothing a user types reaches a real shell: simulators.lab.shell_syntax reads the command
(quotes, expansions, operators, here-documents), simulators.lab.shell_expansion expands its
words, and this module dispatches them to the lab's tools only (simulators.lab.commands).
Redirections (simulators.lab.shell_redirect) read and write the simulated home folder.
Variables, aliases and `$?` live in the session's ShellState.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from simulators.lab import (
    budget,
    builtins,
    commands,
    conditions,
    environment,
    files,
    fs,
    kubectl,
    runai,
    shell_arrays,
    shell_assign,
    shell_attributes,
    shell_compound,
    shell_declare,
    shell_functions,
    shell_options,
    shell_redirect,
    shell_scripts,
    shell_shopt,
    shell_xtrace,
    xargs,
)
from simulators.lab.budget import BudgetExceeded
from simulators.lab.environment import MAX_PENDING_BYTES, Array, Held
from simulators.lab.shell_compound import Input, TooManyTurns
from simulators.lab.shell_expansion import Expansion
from simulators.lab.shell_grammar import Compound, List, Pipeline, Simple, parse
from simulators.lab.shell_syntax import ShellSyntaxError, assignment, expand_aliases, tokenize
from simulators.lab.shell_tokens import Aborted, Incomplete, Op, Refused, Word
from simulators.lab.tool import Context, Output, streams

__all__ = ["CONTINUATION", "PROMPT", "Op", "ShellSyntaxError", "Word", "parse", "tokenize"]

PROMPT = "admin@kadmin:~$ "  # in the home folder; prompt_in for any other


def prompt_in(folder: str) -> str:
    """bash's PS1 on kadmin (`\\u@\\h:\\w\\$ `) in a working folder."""
    return f"{environment.USER}@{environment.HOSTNAME}:{fs.display(folder)}$ "


CONTINUATION = "> "  # bash's PS2
# The default; the web layer sets its own (LAB_MAX_LINE_BYTES) through budget.Limits.
MAX_LINE_BYTES = budget.DEFAULT_LINE_BYTES
MAX_FIELDS = 4096

Builtin = Callable[[Context, list[str]], Output]
# Compound commands whose status PIPESTATUS holds after them (a subshell, `((...))`).
_OWN_STATUS = frozenset({"subshell", "arith"})
# Loop turns past shell_compound.MAX_TURNS stop the command with this line.
TOO_MANY_TURNS = f"bash: loop stopped: over {shell_compound.MAX_TURNS:,} turns in one command"


ONLY_IN_LOOPS = "only meaningful in a `for', `while', or `until' loop"
SUDO_USAGE = (
    "usage: sudo [-AbEHknPS] [-C num] [-D directory] [-g group] [-h host] [-p prompt]"
    " [-R directory] [-T timeout] [-u user] [VAR=value] [-i|-s] [<command>]"
)
# A subshell's undo (Shell.snapshot): variables, exports, aliases, functions, `set`'s and
# `shopt`'s options, positional parameters, the working folder, arrays.
Kept = tuple[
    dict[str, str],
    list[str],
    dict[str, str],
    dict[str, str],
    list[str],
    list[str],
    list[str],
    str,
    dict[str, Array],
]


class Shell(Expansion):
    """Runs typed commands against a Context; `extra` adds the session's builtins."""

    def __init__(self, ctx: Context, extra: dict[str, Builtin]) -> None:
        self.ctx = ctx
        self.state = ctx.shell
        # xargs, this shell's own, is looked up (_command), not held: a bound method held in
        # a dict of its own object is a reference cycle, and every command's shell, context
        # and output waited for the collector (issue 30).
        self.commands: dict[str, Builtin] = {**commands.REGISTRY, **extra}
        self.depth = 0
        self.stray: list[str] = []  # stderr of command substitutions, shown with the command
        self._substituted = False  # the command ran a $(...): with no command word, its $? stays
        self.shown = 0  # bytes of output so far in this command (its limit: budget)
        self.turns = 0  # loop turns so far in this command (shell_compound.MAX_TURNS)
        self.loops = 0  # loops the running command is inside: `break` outside one does nothing
        self.capturing = 0  # inside a $(...) or a compound command whose stdout is piped
        # A script's $1... and $0 (shell_scripts), and how many scripts run inside one another.
        self.positional: list[str] = []
        self.zero = "-bash"
        # The running functions' saved values of their `local` variables, innermost last, and
        # how many `source`d files are running (both may `return`).
        self.frames: list[dict[str, Held]] = []
        self.sourcing = 0
        # The new bashes running (`bash script`: "", `bash -c`: "c"), innermost last: `$-`.
        self.new_bashes: list[str] = []
        self.conditions = 0  # conditions running (if, while): `set -e` lets them fail
        self.scripts = 0
        self.trace_base = 0  # `set -x`: the $(...) depth its PS4 counts from (shell_xtrace)
        self.evals = 0  # `eval`s running inside one another (shell_scripts.MAX_EVAL_NESTING)
        # The arguments of the running declare or local that were array lists as typed.
        self.listed: frozenset[int] = frozenset()

    def another(self) -> Shell:
        return Shell(self.ctx, {})

    # -------------------------------------------------------------------- running

    def execute(self, text: str) -> Output:
        """Run a whole command (one or more lines); sets `$?`."""
        with budget.ensured():
            result = self._execute(text)
        self.state.status = result.code
        return result

    def parsed(self, text: str, typed: bool = True) -> List | Output:
        """`text` as a program, or bash's one-line refusal of it (status 2): a line over the
        lab's limit, a text over 64 KiB, a syntax error, and for a line `typed` at the prompt
        a null byte (`eval`'s words are `typed` False). An unfinished here-document runs with
        what it has, as bash warns and does."""
        for line in text.split("\n"):
            too_long = budget.line_too_long(line)
            if too_long:
                return Output.error(too_long, 2)
        if len(text) > MAX_PENDING_BYTES:
            who = "bash" if typed else "bash: eval"
            return Output.error(f"{who}: command too long for this lab (over 64 KiB)", 2)
        if typed and "\x00" in text:
            return Output.error("bash: warning: command substitution: ignored null byte", 2)
        try:
            try:
                return parse(expand_aliases(tokenize(text), self.state.aliases), text)
            except Incomplete as exc:
                if "here-document" not in str(exc):
                    raise
                lenient = tokenize(text, lenient=True)
                return parse(expand_aliases(lenient, self.state.aliases), text)
        except ShellSyntaxError as exc:
            return Output.error(str(exc), 2)

    def _execute(self, text: str) -> Output:
        program = self.parsed(text)
        if isinstance(program, Output):
            return program
        pieces = shell_compound.Pieces()
        self.shown = self.turns = self.loops = 0
        try:
            code = shell_compound.run_list(self, program, None, pieces)
        except shell_scripts.ScriptExit as done:
            # Typed at the prompt: the page's terminal is the lab's own, so it stays.
            shown = [
                *pieces.lines(),
                "exit: the lab's terminal stays open (close the page to leave)",
            ]
            return Output("\n".join(shown), done.code)
        except (BudgetExceeded, TooManyTurns, Aborted) as exc:
            # Like a shell killed by its limits: what ran before stays, then one line.
            stopped = TOO_MANY_TURNS if isinstance(exc, TooManyTurns) else str(exc)
            if isinstance(exc, Aborted):
                stopped = exc.line()
            return Output("\n".join([*pieces.lines(), *filter(None, [stopped])]), 1)
        return Output("\n".join(pieces.lines()), code, newline=not pieces.open_line())

    def pipeline(self, pipeline: Pipeline, source: Input | None) -> tuple[str, str, int]:
        """(stdout exactly, with its final newline; stderr's lines for the terminal; status).
        The first command reads `source` (a compound command's stdin), the others the pipe."""
        stdin: str | Input = source if source is not None else ""
        errors: list[str] = []
        out, code, failed = "", 0, 0
        codes: list[int] = []  # PIPESTATUS
        # bash runs each command of a pipe in a subshell: what they set is gone after it.
        kept = self.snapshot() if len(pipeline.commands) > 1 else None
        streaming = self.ctx.stream is not None
        try:
            for index, cmd in enumerate(pipeline.commands):
                last = index == len(pipeline.commands) - 1
                try:
                    if isinstance(cmd, Compound):
                        piped = kept is not None
                        out, err, code = shell_compound.run_piped(self, cmd, stdin, last, piped)
                    else:
                        out, err, code = self._simple(cmd, stdin, last)
                except Aborted as exc:
                    if kept is None:
                        raise  # no pipe, no subshell: the whole command line stops
                    out, err, code = "", exc.line(), 1
                except shell_scripts.ScriptExit as done:
                    if kept is None:
                        raise
                    out, err, code = "", "", done.code  # `f | cat`, f exiting: its pipe goes on
                if err:
                    errors.append(err)
                codes.append(code)
                failed = code or failed  # `set -o pipefail`: the last that failed
                budget.check_output(len(out), "bash")
                if index < len(pipeline.commands) - 1:
                    stdin = out
        finally:
            if kept is not None:
                self.restore(kept)
        only = pipeline.commands[0]
        # A group, `if` or loop leaves PIPESTATUS as its own last pipeline set it.
        if kept is not None or not isinstance(only, Compound) or only.kind in _OWN_STATUS:
            shell_arrays.pipestatus(self, codes)
        if "pipefail" in self.state.options:
            code = failed
        started = self.ctx.stream
        if not streaming and started is not None and not started.probe and pipeline.source:
            # A stream started here goes on as this pipeline, not the line's other commands.
            self.ctx.stream = dataclasses.replace(started, probe=pipeline.source)
        return out, "\n".join(errors), code

    def snapshot(self) -> Kept:
        """What a subshell may change and its end undoes: variables, exports, aliases, options,
        $1... and the working folder (`(cd /tmp)`, `bash -c 'cd /tmp'`)."""
        state = self.state
        return (
            dict(state.variables),
            list(state.exported),
            dict(state.aliases),
            dict(state.functions),
            list(state.options),
            list(state.shopts),
            self.positional,
            state.cwd,
            state.share(),
        )

    def restore(self, kept: Kept) -> None:
        state = self.state
        (
            state.variables,
            state.exported,
            state.aliases,
            state.functions,
            state.options,
            state.shopts,
            self.positional,
            state.cwd,
            state.arrays,
        ) = kept

    @contextmanager
    def subshell(self) -> Iterator[None]:
        """`( ... )`: what it sets is gone after it."""
        kept = self.snapshot()
        try:
            yield
        finally:
            self.restore(kept)

    def define_function(self, name: str, source: str) -> str | None:
        """`name() { ...; }` run: kept (shell_functions.define); bash's error line if not."""
        return shell_functions.define(self, name, source)

    @contextmanager
    def own_fds(self) -> Iterator[None]:
        """A command's `<(...)` files (Context.fds), gone once it has run; the command it is
        inside keeps its own."""
        kept, self.ctx.fds = self.ctx.fds, {}
        try:
            yield
        finally:
            self.ctx.fds = kept

    def _simple(self, cmd: Simple, stdin: str | Input, last: bool) -> tuple[str, str, int]:
        self.stray = []
        self._substituted = False
        trace: list[str] = []
        try:
            with self.own_fds():
                out, err, code = self._run_simple(cmd, stdin, last, trace)
        except Refused as exc:
            out, err, code = "", "\n".join([*self.stray, str(exc)]), 1
        if trace:  # `set -x`: on the shell's stderr, before the command's own redirections
            err = "\n".join([*trace, err] if err else trace)
        return out, err, code

    def _run_simple(
        self, cmd: Simple, given: str | Input, last: bool, trace: list[str]
    ) -> tuple[str, str, int]:
        """One command; `last` in its pipe (its stdout goes on to the terminal unless
        redirected, or captured by a compound command in a pipe or a $(...)). Under `set -x`
        its expansions' stderr and its trace lines go to `trace`."""
        words = list(cmd.words)
        assigning: list[Word] = []
        while words and assignment(words[0]) is not None:
            assigning.append(words.pop(0))
        # Before a command, for its environment only.
        assignments = shell_assign.environment(self, assigning) if words else []
        argv, listed = shell_assign.command_words(self, words, MAX_FIELDS)
        if shell_xtrace.on(self) and words:
            trace.extend([*self.stray, *shell_xtrace.command(self, assignments, argv)])
            self.stray = []
        source = given if isinstance(given, Input) else None
        stdin, targets = shell_redirect.redirections(
            self,
            cmd.redirects,
            source.rest()
            if source is not None
            else given
            if isinstance(given, str)
            else str(given),
        )
        if source is None or any(r.op in ("<", "<<", "<<<") for r in cmd.redirects):
            source = Input(stdin)
        if not argv:
            # Each assignment expanded and made in turn (`x=1 y=$x`), traced as it is made.
            for word in assigning:
                shown, value = shell_assign.assign(self, word)
                if shell_xtrace.on(self):
                    trace.extend([*self.stray, shell_xtrace.assigned(self, shown, value)])
                    self.stray = []
            code = self.state.status if self._substituted else 0
            return shell_redirect.route(self, "", "\n".join(self.stray), code, targets)
        env = self.state.environment()
        env.update(assignments)
        name, args = argv[0], argv[1:]
        # A function runs before a builtin or a program of its name: looked up here only.
        function = name in self.state.functions
        handler = None if function else self._program(name)
        if handler is None and not function:
            return shell_redirect.route(self, "", f"bash: {name}: command not found", 127, targets)
        self.ctx.stdin, self.ctx.env = stdin, env
        self.listed = listed
        try:
            if handler is None:
                result = shell_functions.call(self, name, args, source)
            else:
                result = self._call(name, handler, args, source)
        finally:
            self.ctx.stdin, self.ctx.env = "", {}
            self.listed = frozenset()
        out, err = streams(name, result)
        if result.piped is not None and (self.capturing or targets[1][0] != "out" or not last):
            out = result.piped
        if out and result.newline:
            out += "\n"
        return shell_redirect.route(
            self, out, "\n".join([*self.stray, err] if err else self.stray), result.code, targets
        )

    def _call(self, name: str, handler: Builtin, args: list[str], source: Input) -> Output:
        """A tool, or the shell's own builtins (a function is run by _run_simple)."""
        if name == "set":
            return shell_options.set_(self, args)
        if name == "shopt":
            return shell_shopt.shopt(self, args)
        if name == "let":  # each argument an arithmetic expression; status 1 if the last is 0
            if not args:
                return Output.error("bash: let: expression expected")
            values = [self.arithmetic(expression, "let") for expression in args]
            return Output("", 0 if values[-1] else 1)
        if name == "return":
            return shell_functions.return_(self, args)
        if name in ("local", "declare", "typeset", "readonly"):
            return shell_declare.declare(self, name, args, self.listed)
        if name == "export" and self.listed:  # `export a=(1 2)`: an array, marked exported
            lists = frozenset(index + 1 for index in self.listed)
            return shell_declare.declare(self, name, ["-gx", *args], lists)
        if name == "export":
            return builtins.export(self.ctx, args, self._assigned_to)
        if name == "unset":
            return shell_arrays.unset(self, args)
        if name in ("mapfile", "readarray"):
            return shell_declare.mapfile(self, name, args, source)
        if name == "read":  # each value as its name takes it: an integer's arithmetic
            return shell_compound.read(self.ctx, args, source, self._assigned)
        if name in ("bash", "sh"):
            return shell_scripts.bash(self, name, args)
        if name == "eval":
            return shell_scripts.eval_(self, args, source)
        if name in ("source", "."):
            return shell_scripts.source(self, name, args)
        if name == "shift":
            return shell_scripts.shift(self, args)
        if name == "sudo":
            return self.sudo(args, source)
        if name == "command":
            return self._command_word(args, source)
        if name == "exit":
            raise shell_scripts.ScriptExit(shell_scripts.exit_status(self, args))
        if name in ("break", "continue"):
            if not self.loops:  # bash goes on, status 0
                return Output.exactly("", 0, f"bash: {name}: {ONLY_IN_LOOPS}")
            result = handler(self.ctx, args)  # raises LoopJump when it is a jump
            return result
        tests = conditions.BUILTINS.get(name)
        if tests is not None:  # with this shell's variables: `-v NAME`, `-R NAME`
            return tests(self.ctx, args, self)
        return handler(self.ctx, args)

    def _assigned(self, name: str, value: str) -> str:
        return shell_attributes.assigned(self, name, value, append=False)

    def _assigned_to(self, name: str, value: str, append: bool) -> str:
        return shell_attributes.assigned(self, name, value, append)

    def sudo(self, args: list[str], source: Input) -> Output:
        """`sudo [-E] [-H] [-n] [-u admin|root] COMMAND`: the command, run as it is (admin's
        kubeconfig is the cluster's admin already); a root shell is refused. Also sudo as a
        program (hosttools.sudo)."""
        while args and args[0] in ("-E", "-H", "-n", "-u", "--preserve-env"):
            args = args[2:] if args[0] == "-u" else args[1:]
        if not args:
            return Output.error(SUDO_USAGE)
        name, rest = args[0], args[1:]
        if name.startswith("-") or (name in ("su", "bash", "sh") and not rest):
            return Output.error("sudo: a root shell is not available in this lab")
        handler = self._program(name)
        if handler is None:
            return Output.error(f"sudo: {name}: command not found")
        return self._call(name, handler, rest, source)

    def _command_word(self, args: list[str], source: Input) -> Output:
        """bash's `command`: `-v` says how each name would run (an alias as `alias` prints
        it, a builtin by its name, a program by its path), `-V` as `type` does; else the
        command run as it is."""
        if args[:1] in (["-v"], ["-V"]):
            if args[0] == "-V":
                return commands.type_(self.ctx, args[1:])
            found = []
            for name in args[1:]:
                if name in self.state.aliases:
                    found.append(f"alias {name}='{self.state.aliases[name]}'")
                elif name in self.commands:
                    found.append(commands.PATHS.get(name, name))
            return Output("\n".join(found), 0 if found else 1)  # bash: any one found
        if not args:
            return Output()
        name = args[0]
        handler = self._program(name)
        if handler is None:
            return Output.error(f"bash: {name}: command not found", 127)
        return self._call(name, handler, args[1:], source)

    def _program(self, name: str) -> Builtin | None:
        """A command word that is no function: with a `/`, a file run as a script
        (shell_scripts.run_path); else a tool or builtin (_command), None if there is none."""
        if "/" in name:
            return lambda ctx, args: shell_scripts.run_path(self, name, args)
        return self._command(name)

    def _command(self, name: str) -> Builtin | None:
        return self.xargs if name == "xargs" else self.commands.get(name)

    def xargs(self, ctx: Context, args: list[str]) -> Output:
        """xargs: the commands simulators.lab.xargs reads from stdin, run here in turn (status
        123 if one failed, 1 if the reading stopped at an open quote)."""
        try:
            planned = xargs.plan(args, ctx.stdin)
        except xargs.XargsError as exc:
            return Output.error(str(exc), exc.status)
        outs: list[str] = []
        errs: list[str] = []
        code = 0
        name = planned.argvs[0][0] if planned.argvs else ""
        handler = self._command(name) if planned.argvs else None
        if planned.argvs and handler is None:
            return Output.error(f"xargs: {name}: No such file or directory", 127)
        for argv in planned.argvs:
            assert handler is not None
            sub = Context(ctx.world, ctx.history, ctx.next_hint, shell=ctx.shell, env=ctx.env)
            result = handler(sub, argv[1:])
            out, err = streams(argv[0], result)
            if out:
                outs.append(out + ("\n" if result.newline else ""))
            if err:
                errs.append(err)
            code = 123 if result.code else code
            budget.check_output(sum(len(o) for o in outs), "xargs")
        if planned.error:
            errs.append(planned.error)
            code = 1
        return Output.exactly("".join(outs), code, "\n".join(errs))

    # -------------------------------------------------------------------- completion

    def complete(self, line: str) -> list[str]:
        """Candidates for the word under the cursor (the end of the line)."""
        if budget.line_too_long(line):
            return []
        try:
            tokens = tokenize(line, lenient=True)
        except ShellSyntaxError:
            return []
        ends_in_space = not line or line[-1] in " \t"
        words: list[str] = []
        after_redirect = False
        for tok in tokens:
            if isinstance(tok, Op):
                words = []
                after_redirect = tok.text in (">", ">>", ">|", "<", "&>")
                continue
            if isinstance(tok, Word):
                words.append(tok.text)
        current = "" if ends_in_space or not words else words.pop()
        if after_redirect and not words:
            return _starting(files.completed(self.ctx, current), current)
        if not words:
            return _starting(sorted({*self.commands, "xargs", *self.state.aliases}), current)
        if words[0] in self.state.aliases:
            # `k get po<Tab>` completes as kubectl would: the alias's words, then the rest.
            try:
                alias = [
                    t.text for t in tokenize(self.state.aliases[words[0]]) if isinstance(t, Word)
                ]
            except ShellSyntaxError:
                alias = []
            words = alias + words[1:] if alias else words
        if not words:
            return []
        name, rest = words[0], words[1:]
        if name == "kubectl":
            return sorted(set(kubectl.complete(self.ctx, rest, current)))
        if name == "runai":
            return sorted(set(runai.complete(self.ctx, rest, current)))
        return commands.complete(self.ctx, name, rest, current)


def _starting(options: list[str], current: str) -> list[str]:
    return [o for o in options if o.startswith(current)]
