"""bash's grammar over the lexer's tokens (simulators.lab.shell_syntax): lists of pipelines of
simple commands and of the compound commands an admin types on one line or a few: `if`, `for`,
`while`, `until`, `case` and `{ ...; }`, nested, with redirections after them (`done > f`) and
in pipes (`... | while read l; do ...; done`).

A reserved word is one only where a command starts (`echo done` prints done). Input that ends
inside a command (a trailing `|`, a `for` without its `done`) raises Incomplete with bash's
own words at end of file; an interactive session asks for more with `> `. Nothing here runs
anything: simulators.lab.shell does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from simulators.lab.shell_syntax import REDIRECTS, ShellSyntaxError, tokenize
from simulators.lab.shell_tokens import Arith, HereDoc, Incomplete, Op, Token, Word

# Words that end a list inside a compound command, and the compound commands' first words.
_ENDS = frozenset({"then", "elif", "else", "fi", "do", "done", "esac", "}"})
_STARTS = frozenset({"if", "for", "while", "until", "case", "{"})
# Reserved words bash has that this grammar does not read: refused in one line.
_REFUSED = frozenset({"select", "coproc"})
# A function's name: bash (not in POSIX mode) takes more than a variable's.
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]*")
# Compound commands nested deeper than this are refused rather than followed.
MAX_DEPTH = 16


@dataclass
class Redirect:
    fd: int  # 1 for `>`, 0 for `<`; -1 for `&>` (both stdout and stderr)
    op: str  # ">", ">|" (noclobber or not), ">>", "<", "<<", "<<<", ">&"
    target: Word | HereDoc


@dataclass
class Simple:
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Compound:
    """`kind` "if": `clauses` are (condition, body) for `if` and each `elif`, `otherwise` the
    `else` body; "while"/"until": one clause; "for": `name`, `words` (None: no `in`), `body`;
    "case": `subject` and `items` (patterns, body); "group", "subshell": `body`; "arith":
    `arithmetic`, the expression of `((...))`; "cfor": `arithmetic`, the three of
    `for ((init; test; step))`, and `body`."""

    kind: str
    clauses: list[tuple[List, List]] = field(default_factory=list)
    otherwise: List | None = None
    name: str = ""
    words: list[Word] | None = None
    body: List = field(default_factory=list)
    subject: Word | None = None
    items: list[tuple[list[Word], List]] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    arithmetic: list[str] = field(default_factory=list)
    # "function": `name` and the text of its body, a compound command (with its redirections);
    # "for": its words as typed, "case": its word as typed (what `set -x` shows).
    source: str = ""


Command = Simple | Compound


@dataclass
class Pipeline:
    commands: list[Command] = field(default_factory=list)
    negated: bool = False  # `! cmd`: its status inverted
    # The text it was read from ("" where that is not known: a here-document, `((...))`): a
    # stream started in it re-runs this pipeline, not the whole line (simulators.lab.streams).
    source: str = field(default="", compare=False)


# [(connector, pipeline)]: connector is "", ";", "&&" or "||".
List = list[tuple[str, Pipeline]]


def parse(tokens: list[Token], source: str = "") -> List:
    """Tokens to a list of pipelines, compound commands within. `source`: the text the
    tokens were read from, where a function definition's body is kept from."""
    parser = _Parser(tokens, source)
    program = parser.list_until(frozenset())
    if parser.i < len(tokens):
        raise parser.near(parser.tokens[parser.i])
    return program


def needs_more(text: str) -> bool:
    """Whether bash would ask for another line (`> `) after this input."""
    try:
        parse(tokenize(text))
    except Incomplete:
        return True
    except ShellSyntaxError:
        return False
    return False


class _Parser:
    def __init__(self, tokens: list[Token], source: str = "") -> None:
        self.tokens = tokens
        self.source = source
        self.i = 0
        self.depth = 0

    # -- tokens
    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def reserved(self) -> str | None:
        """The reserved word at the current token, if it is one (a plain word)."""
        token = self.peek()
        return token.text if isinstance(token, Word) and token.plain else None

    def op(self) -> str | None:
        token = self.peek()
        return token.text if isinstance(token, Op) else None

    def near(self, token: Token | str | None) -> ShellSyntaxError:
        if token is None:
            return Incomplete("bash: syntax error: unexpected end of file")
        text = token if isinstance(token, str) else getattr(token, "text", None)
        if isinstance(token, HereDoc):
            text = token.delimiter
        if text == "\n":
            text = "newline"
        return ShellSyntaxError(f"bash: syntax error near unexpected token `{text}'")

    def skip_newlines(self) -> None:
        while self.op() == "\n":
            self.i += 1

    def expect(self, word: str) -> None:
        self.skip_newlines()
        if self.reserved() != word:
            raise self.near(self.peek())
        self.i += 1

    # -- lists and pipelines
    def list_until(self, ends: frozenset[str]) -> List:
        """Pipelines joined by `;`, newlines, `&&` and `||`, up to one of `ends` where a command
        would start (not taken) or the end of the tokens."""
        result: List = []
        connector = ""
        while True:
            self.skip_newlines()
            word = self.reserved()
            if self.peek() is None or (word in ends and word is not None):
                return result
            if (self.op() == ";;" and "esac" in ends) or (self.op() == ")" and ")" in ends):
                return result  # an empty item of a case; a subshell's end
            if word in _ENDS or self.op() in (";", ";;", "&&", "||", "|", ")"):
                raise self.near(self.peek())
            result.append((connector, self.pipeline()))
            op = self.op()
            if op == ")" and ")" in ends:
                return result
            if op is None:
                if self.peek() is None or self.reserved() in ends:
                    return result
                raise self.near(self.peek())
            if op in (";", "\n"):
                connector = ";"
                self.i += 1
            elif op in ("&&", "||"):
                connector = op
                self.i += 1
                self.skip_newlines()
                if self.peek() is None:
                    raise Incomplete("bash: syntax error: unexpected end of file")
            elif op == ";;" and "esac" in ends:
                return result
            else:
                raise self.near(op)

    def pipeline(self) -> Pipeline:
        first = self.i
        negated = self.reserved() == "!"
        if negated:
            self.i += 1
        pipeline = Pipeline([self.command()], negated)
        while self.op() == "|":
            self.i += 1
            self.skip_newlines()
            if self.peek() is None:
                raise Incomplete("bash: syntax error: unexpected end of file")
            pipeline.commands.append(self.command())
        read = self.tokens[first : self.i]
        if read and all(isinstance(t, Word | Op) and t.start >= 0 for t in read):
            pipeline.source = self.source[read[0].start : read[-1].end]  # type: ignore[union-attr]
        return pipeline

    def command(self) -> Command:
        token = self.peek()
        if isinstance(token, Arith):
            self.i += 1
            return Compound(
                "arith", arithmetic=[token.expression], redirects=self.redirects_after()
            )
        if self.op() == "(":
            return self._subshell()
        word = self.reserved()
        if word in _REFUSED:
            raise ShellSyntaxError(f"bash: {word}: not available in this lab")
        if word == "function" or (word is not None and self._parens_follow()):
            return self._function()
        if word in _STARTS:
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ShellSyntaxError("bash: compound commands nested too deep for this lab")
            self.i += 1
            reader: dict[str, Callable[[], Compound]] = {
                "if": self._if, "for": self._for, "while": self._while,
                "until": self._until, "case": self._case, "{": self._group,
            }  # fmt: skip
            compound = reader[str(word)]()
            self.depth -= 1
            compound.redirects = self.redirects_after()
            return compound
        return self.simple()

    def simple(self) -> Simple:
        current = Simple()
        while (token := self.peek()) is not None:
            if isinstance(token, Word):
                current.words.append(token)
                self.i += 1
            elif isinstance(token, HereDoc | Arith):  # `<<`'s taken there; `((` starts none
                raise self.near(token)
            elif token.text in REDIRECTS:
                current.redirects.append(self.redirect(token))
            elif token.text == "&":
                raise ShellSyntaxError("bash: background jobs are not available in this lab")
            else:
                break
        if not current.words and not current.redirects:
            raise self.near(self.peek())
        return current

    def redirect(self, token: Op) -> Redirect:
        op = token.text
        target = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
        if op in ("<<", "<<-"):
            if not isinstance(target, HereDoc):
                raise self.near("newline")
        elif not isinstance(target, Word):
            word = target.text if isinstance(target, Op) and target.text != "\n" else "newline"
            raise self.near(word)
        default = 0 if op.startswith("<") else 1
        fd = -1 if op.startswith("&") else (token.fd if token.fd is not None else default)
        name = {"<<-": "<<", "&>": ">", "&>>": ">>", "<&": ">&"}.get(op, op)
        self.i += 2
        return Redirect(fd, name, target)

    def redirects_after(self) -> list[Redirect]:
        found = []
        while isinstance(token := self.peek(), Op) and token.text in REDIRECTS:
            found.append(self.redirect(token))
        return found

    # -- compound commands
    def _if(self) -> Compound:
        compound = Compound("if")
        while True:
            condition = self.list_until(frozenset({"then"}))
            self.expect("then")
            body = self.list_until(frozenset({"elif", "else", "fi"}))
            compound.clauses.append((self.nonempty(condition), self.nonempty(body)))
            word = self.reserved()
            self.i += 1
            if word == "elif":
                continue
            if word == "else":
                compound.otherwise = self.nonempty(self.list_until(frozenset({"fi"})))
                self.expect("fi")
            elif word != "fi":
                raise self.near(self.peek() if word is None else word)
            return compound

    def _while(self, kind: str = "while") -> Compound:
        condition = self.list_until(frozenset({"do"}))
        self.expect("do")
        body = self.list_until(frozenset({"done"}))
        self.expect("done")
        return Compound(kind, clauses=[(self.nonempty(condition), self.nonempty(body))])

    def _until(self) -> Compound:
        return self._while("until")

    def _for(self) -> Compound:
        token = self.peek()
        if isinstance(token, Arith):
            return self._c_for(token)
        if not isinstance(token, Word) or not token.plain or not _is_name(token.text):
            raise (
                self.near(token)
                if not isinstance(token, Word)
                else ShellSyntaxError(f"bash: `{token.text}': not a valid identifier")
            )
        self.i += 1
        compound = Compound("for", name=token.text)
        self.skip_newlines()
        if self.reserved() == "in":
            self.i += 1
            compound.words = []
            while isinstance(word := self.peek(), Word):
                compound.words.append(word)
                self.i += 1
            if self.op() not in (";", "\n"):
                raise self.near(self.peek())
            self.i += 1
            compound.source = " ".join(self.typed(word) for word in compound.words)
        elif self.op() == ";":
            self.i += 1
        self.expect("do")
        compound.body = self.nonempty(self.list_until(frozenset({"done"})))
        self.expect("done")
        return compound

    def typed(self, word: Word) -> str:
        """A word as it was typed (its text, for one an alias made)."""
        if self.source and 0 <= word.start < word.end:
            return self.source[word.start : word.end]
        return word.text

    def _c_for(self, token: Arith) -> Compound:
        expressions = token.expression.split(";")
        if len(expressions) != 3:
            raise ShellSyntaxError("bash: syntax error: arithmetic expression required")
        self.i += 1
        if self.op() == ";":
            self.i += 1
        self.skip_newlines()
        self.expect("do")
        body = self.nonempty(self.list_until(frozenset({"done"})))
        self.expect("done")
        return Compound("cfor", arithmetic=expressions, body=body)

    def _case(self) -> Compound:
        subject = self.peek()
        if not isinstance(subject, Word):
            raise self.near(subject)
        self.i += 1
        self.expect("in")
        compound = Compound("case", subject=subject, source=self.typed(subject))
        while True:
            self.skip_newlines()
            if self.reserved() == "esac":
                self.i += 1
                return compound
            if self.op() == "(":
                self.i += 1
            patterns: list[Word] = []
            while True:
                word = self.peek()
                if not isinstance(word, Word):
                    raise self.near(word)
                patterns.append(word)
                self.i += 1
                if self.op() == "|":
                    self.i += 1
                    continue
                if self.op() == ")":
                    self.i += 1
                    break
                raise self.near(self.peek())
            body = self.list_until(frozenset({"esac"}))
            compound.items.append((patterns, body))
            if self.op() == ";;":
                self.i += 1
            elif self.reserved() != "esac":
                raise self.near(self.peek())

    def _subshell(self) -> Compound:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ShellSyntaxError("bash: compound commands nested too deep for this lab")
        self.i += 1
        body = self.nonempty(self.list_until(frozenset({")"})))
        if self.op() != ")":
            raise self.near(self.peek())
        self.i += 1
        self.depth -= 1
        return Compound("subshell", body=body, redirects=self.redirects_after())

    def _parens_follow(self) -> bool:
        """`NAME ( )` where a command starts: a function's definition."""
        after = self.tokens[self.i + 1 : self.i + 3]
        return [t.text for t in after if isinstance(t, Op)] == ["(", ")"] and len(after) == 2

    def _function(self) -> Compound:
        """`NAME () BODY` or `function NAME [()] BODY`, BODY a compound command; its text is
        kept (the shell keeps functions as text, as `declare -f` shows them)."""
        if self.reserved() == "function":
            self.i += 1
        name = self.reserved()
        if name is None or name in _STARTS or name in _ENDS or not _FUNCTION_NAME.fullmatch(name):
            raise self.near(self.peek())
        self.i += 1
        if self.op() == "(":
            self.i += 1
            if self.op() != ")":
                raise self.near(self.peek())
            self.i += 1
        self.skip_newlines()
        first = self.peek()
        if self.reserved() not in _STARTS and self.op() != "(":
            raise self.near(first)
        self.command()
        last = self.tokens[self.i - 1]
        start, end = getattr(first, "start", -1), getattr(last, "end", -1)
        if not self.source or start < 0 or end <= start:
            raise ShellSyntaxError(f"bash: {name}: this function's definition cannot be kept")
        return Compound("function", name=name, source=self.source[start:end])

    def _group(self) -> Compound:
        body = self.nonempty(self.list_until(frozenset({"}"})))
        self.expect("}")
        return Compound("group", body=body)

    def nonempty(self, body: List) -> List:
        """A list that must hold a command (bash: `then fi` is a syntax error at `fi`)."""
        if not body:
            raise self.near(self.peek())
        return body


def _is_name(text: str) -> bool:
    return bool(text) and (text[0].isalpha() or text[0] == "_") and text.replace("_", "a").isalnum()
