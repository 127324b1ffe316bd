"""The admin host's shell: tokenize a line, run `;`/`&&`/`||` lists and `|` pipes, complete.

Nothing a user types reaches a real shell: this module has its own tokenizer
(quotes, backslashes, comments, operators) and dispatches words to the lab's
tools only. Redirection `>`/`>>` writes into the simulated home folder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from simulators.lab import budget, files, helm, kubectl, runai
from simulators.lab.budget import BudgetExceeded
from simulators.lab.tool import Context, Output

PROMPT = "admin@kadmin:~$ "
# The default; the web layer sets its own (LAB_MAX_LINE_BYTES) through budget.Limits.
MAX_LINE_BYTES = budget.DEFAULT_LINE_BYTES

OPERATORS = ("&&", "||", ";", "|", ">>", ">", "<", "&")
_OPERATOR_STARTS = frozenset(op[0] for op in OPERATORS)


class ShellSyntaxError(Exception):
    """bash's own words for a line it cannot parse."""


@dataclass
class Word:
    text: str
    quoted: bool = False


@dataclass
class Op:
    text: str


Token = Word | Op


def tokenize(line: str, lenient: bool = False) -> list[Token]:
    """Split a line like bash: quotes, backslashes, `#` comments, operators.

    `lenient` (for completion) accepts an unterminated quote instead of raising.
    """
    tokens: list[Token] = []
    buf: list[str] = []
    in_word = False
    quoted = False
    i = 0
    n = len(line)

    def flush() -> None:
        nonlocal buf, in_word, quoted
        if in_word:
            tokens.append(Word("".join(buf), quoted))
        buf, in_word, quoted = [], False, False

    while i < n:
        ch = line[i]
        if ch in " \t\n\r":
            flush()
            if ch in "\n":
                tokens.append(Op(";"))
            i += 1
            continue
        if ch == "#" and not in_word:
            break
        if ch == "'":
            end = line.find("'", i + 1)
            if end < 0:
                if not lenient:
                    raise ShellSyntaxError("bash: unexpected EOF while looking for matching `''")
                end = n
            buf.append(line[i + 1 : end])
            in_word, quoted = True, True
            i = end + 1
            continue
        if ch == '"':
            j = i + 1
            part: list[str] = []
            closed = False
            while j < n:
                c = line[j]
                if c == "\\" and j + 1 < n and line[j + 1] in '"\\$`\n':
                    part.append(line[j + 1])
                    j += 2
                    continue
                if c == '"':
                    closed = True
                    break
                part.append(c)
                j += 1
            if not closed and not lenient:
                raise ShellSyntaxError("bash: unexpected EOF while looking for matching `\"'")
            buf.append("".join(part))
            in_word, quoted = True, True
            i = j + 1
            continue
        if ch == "\\":
            if i + 1 < n:
                buf.append(line[i + 1])
                in_word, quoted = True, True
            i += 2
            continue
        op = None
        if ch in _OPERATOR_STARTS:
            op = next((o for o in OPERATORS if line.startswith(o, i)), None)
        if op is not None:
            flush()
            tokens.append(Op(op))
            i += len(op)
            continue
        buf.append(ch)
        in_word = True
        i += 1
    flush()
    return tokens


@dataclass
class Simple:
    argv: list[str]
    redirect: tuple[str, str] | None = None  # (">" or ">>", filename)


@dataclass
class Pipeline:
    commands: list[Simple] = field(default_factory=list)


def parse(tokens: list[Token]) -> list[tuple[str, Pipeline]]:
    """Tokens to [(connector, pipeline)]: connector is "", ";", "&&" or "||"."""
    result: list[tuple[str, Pipeline]] = []
    connector = ""
    pipeline = Pipeline()
    current = Simple([])
    expect_command = False  # after |, && or || bash needs another command
    i = 0

    def near(tok: str) -> ShellSyntaxError:
        return ShellSyntaxError(f"bash: syntax error near unexpected token `{tok}'")

    while i < len(tokens):
        tok = tokens[i]
        if isinstance(tok, Word):
            current.argv.append(tok.text)
            expect_command = False
            i += 1
            continue
        op = tok.text
        if op in (">", ">>"):
            target = tokens[i + 1] if i + 1 < len(tokens) else None
            if not isinstance(target, Word):
                raise ShellSyntaxError("bash: syntax error near unexpected token `newline'")
            current.redirect = (op, target.text)
            i += 2
            continue
        if op == "<":
            raise ShellSyntaxError("bash: input redirection is not available in this lab")
        if op == "&":
            raise ShellSyntaxError("bash: background jobs are not available in this lab")
        if not current.argv:
            raise near(op)
        pipeline.commands.append(current)
        current = Simple([])
        if op == "|":
            expect_command = True
            i += 1
            continue
        result.append((connector, pipeline))
        pipeline = Pipeline()
        connector = op
        expect_command = op in ("&&", "||")
        i += 1
    if expect_command:
        raise ShellSyntaxError("bash: syntax error: unexpected end of file")
    if current.argv:
        pipeline.commands.append(current)
    elif current.redirect is not None:
        raise ShellSyntaxError("bash: redirection without a command is not available in this lab")
    if pipeline.commands:
        result.append((connector, pipeline))
    return result


Builtin = Callable[[Context, list[str]], Output]


class Shell:
    """Runs parsed lines against a Context; `extra` adds the session's builtins."""

    def __init__(self, ctx: Context, extra: dict[str, Builtin]) -> None:
        self.ctx = ctx
        self.commands: dict[str, Builtin] = {
            "kubectl": kubectl.run,
            "runai": runai.run,
            "helm": helm.run,
            "ls": files.ls,
            "cat": files.cat,
            "sed": files.sed,
            "grep": files.grep,
            "head": files.head,
            "tail": files.tail,
            **extra,
        }

    def execute(self, line: str) -> Output:
        with budget.ensured():
            return self._execute(line)

    def _execute(self, line: str) -> Output:
        too_long = budget.line_too_long(line)
        if too_long:
            return Output.error(too_long, 2)
        if "\x00" in line:
            return Output.error("bash: warning: command substitution: ignored null byte", 2)
        try:
            program = parse(tokenize(line))
        except ShellSyntaxError as exc:
            return Output.error(str(exc), 2)
        outputs: list[str] = []
        code = 0
        size = 0
        try:
            for connector, pipeline in program:
                if connector == "&&" and code != 0:
                    continue
                if connector == "||" and code == 0:
                    continue
                result = self._pipeline(pipeline)
                code = result.code
                if result.text:
                    outputs.append(result.text)
                    size += len(result.text) + 1
                    budget.check_output(size, "bash")
        except BudgetExceeded as exc:
            # Like a shell killed by its limits: what ran before stays, then one line.
            return Output("\n".join([*outputs, str(exc)]), 1)
        return Output("\n".join(outputs), code)

    def _pipeline(self, pipeline: Pipeline) -> Output:
        stdin = ""
        result = Output()
        errors: list[str] = []
        for index, cmd in enumerate(pipeline.commands):
            last = index == len(pipeline.commands) - 1
            self.ctx.stdin = stdin
            try:
                result = self._simple(cmd)
            finally:
                self.ctx.stdin = ""
            budget.check_output(len(result.text), cmd.argv[0][:40])
            if not last:
                # stderr of earlier stages still reaches the terminal; their stdout feeds
                # the next stage. Error lines of a failing stage are shown, not piped.
                if result.code != 0 and result.text.startswith(("error", "Error", "bash:")):
                    errors.append(result.text)
                    stdin = ""
                else:
                    stdin = result.text + ("\n" if result.text else "")
        if errors:
            text = "\n".join([*errors, result.text] if result.text else errors)
            return Output(text, result.code)
        return result

    def _simple(self, cmd: Simple) -> Output:
        name, args = cmd.argv[0], cmd.argv[1:]
        handler = self.commands.get(name)
        if handler is None:
            return Output.error(f"bash: {name}: command not found", 127)
        result = handler(self.ctx, args)
        if cmd.redirect is not None:
            op, target = cmd.redirect
            existing = files.read(self.ctx, target) if op == ">>" else None
            body = result.text + ("\n" if result.text else "")
            text = (existing or "") + body
            if result.code != 0 and result.text.startswith(("error", "Error")):
                # Errors go to stderr, which a > redirect does not capture.
                problem = files.write(self.ctx, target, existing or "")
                return Output(problem or result.text, result.code)
            problem = files.write(self.ctx, target, text)
            if problem:
                return Output.error(problem)
            return Output("", result.code)
        return result

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
        # The words of the last simple command, and the word being typed.
        words: list[str] = []
        after_redirect = False
        for tok in tokens:
            if isinstance(tok, Op):
                words = []
                after_redirect = tok.text in (">", ">>")
                continue
            words.append(tok.text)
        if ends_in_space:
            current = ""
        elif words:
            current = words.pop()
        else:
            current = ""
        if after_redirect and not words:
            return _starting(sorted(self.ctx.world.state.files), current)
        if not words:
            return _starting(sorted(self.commands), current)
        name, rest = words[0], words[1:]
        if name == "kubectl":
            return sorted(set(kubectl.complete(self.ctx, rest, current)))
        if name == "runai":
            return sorted(set(runai.complete(self.ctx, rest, current)))
        if name == "helm":
            return _helm_complete(rest, current)
        if name in ("cat", "sed", "grep", "ls", "head", "tail", "vi", "vim", "nano"):
            if current.startswith("-"):
                options = {"sed": ["-i", "-e", "-E"], "grep": ["-i", "-v", "-A", "-B", "-E"]}
                return _starting(options.get(name, []), current)
            if name == "sed" and not any(not w.startswith("-") for w in rest):
                return []
            return _starting(sorted(self.ctx.world.state.files), current)
        return []


def _helm_complete(words: list[str], current: str) -> list[str]:
    if not words:
        return _starting(["list", "repo", "upgrade", "version"], current)
    if words[0] == "upgrade":
        if current.startswith("-"):
            return _starting(
                ["--install", "-i", "--namespace", "-n", "--create-namespace", "--set", "--values"],
                current,
            )
        positionals = [w for w in words[1:] if not w.startswith("-")]
        if len(positionals) == 0:
            return _starting(["runai-cluster", "gpu-operator"], current)
        if len(positionals) == 1:
            return _starting(["runai/runai-cluster", "nvidia/gpu-operator"], current)
    if words[0] == "repo" and len(words) == 1:
        return _starting(["add", "update"], current)
    return []


def _starting(options: list[str], current: str) -> list[str]:
    return [o for o in options if o.startswith(current)]
