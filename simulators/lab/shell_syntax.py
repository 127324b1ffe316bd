"""bash's grammar, as much as an admin types: words, quotes, expansions, operators, here-documents.

`tokenize(text)` reads one command as typed, over one or more lines, into tokens
(simulators.lab.shell_tokens), of which simulators.lab.shell_grammar makes lists of pipelines
and compound commands. A command that is not finished
yet (an open quote or here-document, a trailing backslash) raises Incomplete, whose message is
what bash says when the input ends there; an interactive session asks for more with `> `.
Nothing here runs anything: expansion and execution are simulators.lab.shell's.
"""

from __future__ import annotations

import dataclasses
import re

from simulators.lab.builtins import ansi_c
from simulators.lab.shell_scan import ShellSyntaxError as ShellSyntaxError
from simulators.lab.shell_scan import (
    arithmetic_end,
    matching_paren,
    parameter_end,
    subscript_end,
)
from simulators.lab.shell_tokens import Arith, HereDoc, Incomplete, Op, Part, Token
from simulators.lab.shell_tokens import Word as Word  # streams.py reads it here

OPERATORS = (
    "&>>", "<<<", "<<-", "&&", "||", ";;", "&>", ">>", ">&", ">|", "<<", "<&",
    ">", "<", "|", ";", "&", "(", ")",
)  # fmt: skip
_OPERATOR_STARTS = frozenset(op[0] for op in OPERATORS)
_PLAIN = re.compile(r"[^\s'\"\\$&|;<>()#~`]+")
# bash's assignment builtins: their NAME=value arguments are assignments (`declare a=(1 2)`).
DECLARATIONS = frozenset({"declare", "typeset", "local", "export", "readonly"})
_SUBSCRIPTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[")
_ASSIGNED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?=|\[)")
_LISTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
REDIRECTS = frozenset({">", ">>", ">|", "<", "<<", "<<-", "<<<", ">&", "<&", "&>", "&>>"})
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
SPECIAL_PARAMETERS = frozenset("?$#!@*-0123456789")


# Tokens after which `((` starts an arithmetic command (a command starts there).
_COMMAND_STARTS = frozenset({";", "\n", "&&", "||", "|", "(", ")", ";;"})
_WORDS_BEFORE_COMMANDS = frozenset({"for", "do", "then", "else", "elif", "if", "while"})
_WORDS_BEFORE_COMMANDS |= {"until", "!", "{"}


def tokenize(text: str, lenient: bool = False, listed: bool = False) -> list[Token]:
    """Split a command as bash does. `lenient` (completion) accepts unfinished input; `listed`:
    the words of an array's list (`a=(x [3]=y)`), where `[SUBSCRIPT]=` starts a word."""
    return _Lexer(text, lenient, listed).run()


def word_parts(text: str, in_quotes: bool = False) -> list[Part]:
    """`text` read as one word whose blanks and operators are plain characters: the word of
    `${v:-word}` (and `:=`, `:+`, `:?`), where bash removes quotes and expands `$`, `~` at
    its start included, and splits nothing. Within double quotes (`"${v:-'a'}"`) a single
    quote and a tilde are themselves."""
    lexer = _Lexer(text, lenient=True)
    if not in_quotes and (text == "~" or text.startswith("~/")):
        lexer.add("tilde", "~")
        lexer.i = 1
    while lexer.i < len(text):
        ch = text[lexer.i]
        if not (in_quotes and ch == "'") and lexer.quoting(ch):
            continue
        if ch == "$":
            lexer.dollar(in_quotes=False)
            continue
        lexer.add("lit", ch)
        lexer.i += 1
    return _merge(lexer.parts)


class _Lexer:
    def __init__(self, text: str, lenient: bool, listed: bool = False) -> None:
        self.text = text
        self.lenient = lenient
        self.listed = listed
        # Up to here an assignment's subscript (`a[i + 1]=v`): blanks and operators are its own.
        self.subscript_end = -1
        self.i = 0
        self.tokens: list[Token] = []
        self.parts: list[Part] = []
        self.in_word = False
        self.word_start = 0  # where the word being read began
        self.heredocs: list[HereDoc] = []
        self.heredoc_strip: bool | None = None  # after `<<` (False) or `<<-` (True)
        # Inside `[[ ... ]]`: `&&`, `||`, `(`, `)`, `<` and `>` are the expression's words.
        self.conditional = False

    def fail(self, message: str) -> None:
        if not self.lenient:
            raise Incomplete(message)

    def flush(self) -> None:
        if not self.in_word:
            return
        parts = _merge(self.parts)
        text = "".join(_as_typed(p) for p in parts)
        quoted = any(p.kind == "quoted" or p.in_quotes for p in parts)
        word = Word(text, quoted, parts, self.word_start, self.i)
        self.parts, self.in_word = [], False
        if self.heredoc_strip is not None:
            doc = HereDoc(
                "".join(p.value for p in parts),
                self.heredoc_strip,
                expand=not quoted,
            )
            self.heredocs.append(doc)
            self.tokens.append(doc)
            self.heredoc_strip = None
            return
        if word.plain and word.text == "[[" and self.command_starts():
            self.conditional = True
        elif word.plain and word.text == "]]":
            self.conditional = False
        self.tokens.append(word)

    def add(self, kind: str, value: str, in_quotes: bool = False) -> None:
        if not self.in_word:
            self.word_start = self.i
        self.parts.append(Part(kind, value, in_quotes))
        self.in_word = True

    def run(self) -> list[Token]:
        text, n = self.text, len(self.text)
        while self.i < n:
            ch = text[self.i]
            if self.i < self.subscript_end and ch not in "'\"\\$`":
                self.add("lit", ch)
                self.i += 1
                continue
            if not self.in_word and (ch == "[" if self.listed else ch.isalpha() or ch == "_"):
                self.subscript()
            if ch == "\n":
                self.flush()
                self.tokens.append(Op("\n"))
                self.i += 1
                if self.heredocs:
                    self.read_bodies()
                continue
            if ch in " \t\r":
                self.flush()
                self.i += 1
                continue
            if ch == "#" and not self.in_word:
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end
                continue
            if self.quoting(ch):
                continue
            if ch == "$":
                self.dollar(in_quotes=False)
                continue
            if ch == "`":
                self.backquoted(in_quotes=False)
                continue
            if ch == "~" and not self.in_word:
                end = self.i + 1
                if end >= n or text[end] in "/ \t\n;|&<>)":
                    self.add("tilde", "~")
                    self.i += 1
                    continue
            if text.startswith("((", self.i) and self.command_starts():
                self.arithmetic_command()
                continue
            if ch in "<>" and text.startswith("(", self.i + 1) and not self.conditional:
                self.process_substitution(ch)
                continue
            if ch == "(" and self.in_word and not self.conditional and self.listing():
                continue
            if ch in _OPERATOR_STARTS:
                op = next((o for o in OPERATORS if text.startswith(o, self.i)), None)
                if self.conditional and op is not None and op[0] in "&|()<>":
                    word = op if op in ("&&", "||") else ch
                    self.flush()
                    self.add("lit", word)
                    self.flush()
                    self.i += len(word)
                    continue
                if op is not None:
                    self.operator(op)
                    continue
            # A run of ordinary characters at once: a line is read in one pass, not per char.
            run = _PLAIN.match(text, self.i)
            end = run.end() if run else self.i + 1
            self.add("lit", text[self.i : end])
            self.i = end
        self.flush()
        if self.heredocs and not self.lenient:
            raise Incomplete(
                "bash: warning: here-document delimited by end-of-file"
                f" (wanted `{self.heredocs[0].delimiter}')"
            )
        if self.heredoc_strip is not None and not self.lenient:
            raise ShellSyntaxError("bash: syntax error near unexpected token `newline'")
        return self.tokens

    def subscript(self) -> None:
        """`NAME[` (or, in an array's list, `[`) where an assignment may be: up to its `]`, if
        `=` or `+=` follows, the subscript is one word's (`a[i + 1]=v`)."""
        found = _SUBSCRIPTED.match(self.text, self.i) if not self.listed else None
        start = found.end() if found else self.i + 1
        if not self.listed and (found is None or not self.assigning()):
            return
        end = subscript_end(self.text, start)
        if end >= 0 and self.text.startswith(("=", "+="), end + 1):
            self.subscript_end = end

    def listing(self) -> bool:
        """`NAME=(` or `NAME+=(` where an assignment may be: its list up to the `)` is part of the
        word (`a=(x "y z")`), read again when it runs (simulators.lab.shell_arrays)."""
        typed = "".join(p.value if p.kind == "lit" else "\0" for p in self.parts)
        if not _LISTED.fullmatch(typed) or not self.assigning():
            return False
        end = matching_paren(self.text, self.i + 1)
        if end < 0:
            self.fail("bash: unexpected EOF while looking for matching `)'")
            end = len(self.text)
        body = self.text[self.i + 1 : end]
        for token in tokenize(body, self.lenient, listed=True):
            if isinstance(token, Op | Arith) and token.text != "\n":
                raise ShellSyntaxError(f"bash: syntax error near unexpected token `{token.text}'")
        self.add("array", body)
        self.i = end + 1
        return True

    def assigning(self) -> bool:
        """Whether a word here may be an assignment: one of a command's first words, after
        assignments only, or an argument of declare, local, export (bash's assignment
        builtins)."""
        words: list[Word] = []  # the command's words so far, the last first
        for token in reversed(self.tokens):
            if isinstance(token, Op) and token.text in REDIRECTS:
                words = words[:-1]  # its target
            elif isinstance(token, Op):
                break
            elif not isinstance(token, Word):
                return isinstance(token, HereDoc)
            elif token.plain and token.text in _WORDS_BEFORE_COMMANDS:
                break
            else:
                words.append(token)
        words.reverse()
        first = words[0] if words else None
        declaring = first is not None and first.plain and first.text in DECLARATIONS
        return declaring or all(assignment(word) is not None for word in words)

    def process_substitution(self, ch: str) -> None:
        """`<(command)` (or `>(command)`): a word, the name of a file that is its output."""
        end = matching_paren(self.text, self.i + 2)
        if end < 0:
            self.fail("bash: unexpected EOF while looking for matching `)'")
            end = len(self.text)
        self.add("procin" if ch == "<" else "procout", self.text[self.i + 2 : end])
        self.i = end + 1

    def command_starts(self) -> bool:
        """Whether a command would start here (`((` is then an arithmetic command)."""
        if self.in_word:
            return False
        last = self.tokens[-1] if self.tokens else None
        if last is None:
            return True
        if isinstance(last, Op):
            return last.text in _COMMAND_STARTS
        return isinstance(last, Word) and last.plain and last.text in _WORDS_BEFORE_COMMANDS

    def arithmetic_command(self) -> None:
        end = arithmetic_end(self.text, self.i + 2)
        if end < 0:
            self.fail("bash: unexpected EOF while looking for matching `))'")
            end = len(self.text)
        self.tokens.append(Arith(self.text[self.i + 2 : end]))
        self.i = end + 2

    def quoting(self, ch: str) -> bool:
        """Read a quoted string or a backslash's character at `ch`, if it starts one."""
        text, n = self.text, len(self.text)
        if ch == "'":
            end = text.find("'", self.i + 1)
            if end < 0:
                self.fail("bash: unexpected EOF while looking for matching `''")
                end = n
            self.add("quoted", text[self.i + 1 : end])
            self.i = end + 1
            return True
        if ch == '"':
            self.double_quoted()
            return True
        if ch != "\\":
            return False
        if self.i + 1 >= n:
            self.fail("bash: syntax error: unexpected end of file")
            self.i += 1
            return True
        if text[self.i + 1] != "\n":  # backslash-newline joins the lines
            self.add("quoted", text[self.i + 1])
        self.i += 2
        return True

    def operator(self, op: str) -> None:
        fd: int | None = None
        # `2>` and `2>&1`: digits right before a redirection name the file descriptor.
        if op in REDIRECTS and self.in_word and all(p.kind == "lit" for p in self.parts):
            digits = "".join(p.value for p in self.parts)
            if digits.isdigit() and len(digits) < 3:
                fd = int(digits)
                self.parts, self.in_word = [], False
        self.flush()
        if self.heredoc_strip is not None and not self.lenient:
            raise ShellSyntaxError(f"bash: syntax error near unexpected token `{op}'")
        self.tokens.append(Op(op, fd, self.i, self.i + len(op)))
        self.i += len(op)
        if op in ("<<", "<<-"):
            self.heredoc_strip = op == "<<-"

    def read_bodies(self) -> None:
        """The lines after a command with `<<WORD` are its here-documents' bodies, in order."""
        text = self.text
        while self.heredocs:
            doc = self.heredocs[0]
            lines: list[str] = []
            while True:
                if self.i >= len(text):
                    if self.lenient:
                        self.heredocs.clear()
                        return
                    raise Incomplete(
                        "bash: warning: here-document delimited by end-of-file"
                        f" (wanted `{doc.delimiter}')"
                    )
                end = text.find("\n", self.i)
                line = text[self.i :] if end < 0 else text[self.i : end]
                self.i = len(text) if end < 0 else end + 1
                if doc.strip_tabs:
                    line = line.lstrip("\t")
                if line == doc.delimiter:
                    break
                lines.append(line + "\n")
            doc.body = "".join(lines)
            self.heredocs.pop(0)

    def double_quoted(self) -> None:
        text, n = self.text, len(self.text)
        if not self.in_word:
            self.word_start = self.i
        self.i += 1
        buf: list[str] = []
        self.in_word = True
        while self.i < n:
            c = text[self.i]
            if c == "\\" and self.i + 1 < n and text[self.i + 1] in '"\\$`\n':
                if text[self.i + 1] != "\n":
                    buf.append(text[self.i + 1])
                self.i += 2
                continue
            if c == '"':
                self.add("quoted", "".join(buf))
                self.i += 1
                return
            if c in "$`":
                self.add("quoted", "".join(buf))
                buf = []
                if c == "$":
                    self.dollar(in_quotes=True)
                else:
                    self.backquoted(in_quotes=True)
                continue
            buf.append(c)
            self.i += 1
        self.add("quoted", "".join(buf))
        self.fail("bash: unexpected EOF while looking for matching `\"'")

    def backquoted(self, in_quotes: bool) -> None:
        """`` `command` ``, the old form of `$(command)`: a backslash before `$`, `` ` `` or
        another backslash quotes it, any other stays as typed."""
        text, n = self.text, len(self.text)
        at, body = self.i + 1, []
        while at < n and text[at] != "`":
            if text[at] == "\\" and at + 1 < n and text[at + 1] in "$`\\":
                at += 1
            body.append(text[at])
            at += 1
        if at >= n:
            self.fail("bash: unexpected EOF while looking for matching ``'")
        self.add("cmd", "".join(body), in_quotes)
        self.i = at + 1

    def dollar(self, in_quotes: bool) -> None:
        text, n, i = self.text, len(self.text), self.i
        nxt = text[i + 1] if i + 1 < n else ""
        if nxt == "'" and not in_quotes:
            # $'...': C's escapes; `\'` does not end it.
            at = i + 2
            while at < n and text[at] != "'":
                at += 2 if text[at] == "\\" else 1
            if at >= n:
                self.fail("bash: unexpected EOF while looking for matching `''")
            self.add("quoted", ansi_c(text[i + 2 : min(at, n)]))
            self.i = at + 1
            return
        if nxt == "(":
            if text.startswith("((", i + 1):
                end = arithmetic_end(text, i + 3)
                if end < 0:
                    self.fail("bash: unexpected EOF while looking for matching `))'")
                    end = n
                self.add("arith", text[i + 3 : end], in_quotes)
                self.i = end + 2
                return
            end = matching_paren(text, i + 2)
            if end < 0:
                self.fail("bash: unexpected EOF while looking for matching `)'")
                end = n
            self.add("cmd", text[i + 2 : end], in_quotes)
            self.i = end + 1
            return
        if nxt == "{":
            end = parameter_end(text, i + 2)
            if end < 0:
                self.fail("bash: unexpected EOF while looking for matching `}'")
                end = n
            self.add("var", text[i + 2 : end], in_quotes)
            self.i = end + 1
            return
        if nxt and nxt in SPECIAL_PARAMETERS:
            self.add("var", nxt, in_quotes)
            self.i = i + 2
            return
        j = i + 1
        while j < n and text[j] in NAME_CHARS:
            j += 1
        if j == i + 1 or text[i + 1].isdigit():
            self.add("quoted" if in_quotes else "lit", "$")
            self.i = i + 1
            return
        self.add("var", text[i + 1 : j], in_quotes)
        self.parts[-1].bare = True
        self.i = j


def _as_typed(part: Part) -> str:
    if part.kind == "array":
        return f"({part.value})"
    if part.kind == "var":
        return "$" + part.value
    if part.kind in ("procin", "procout"):
        return f"{'<' if part.kind == 'procin' else '>'}({part.value})"
    return f"$(({part.value}))" if part.kind == "arith" else part.value


def _merge(parts: list[Part]) -> list[Part]:
    merged: list[Part] = []
    for part in parts:
        last = merged[-1] if merged else None
        if last is not None and part.kind == last.kind and part.kind in ("lit", "quoted"):
            last.value += part.value
        else:
            merged.append(dataclasses.replace(part))
    return merged


def plain_word(text: str) -> Word:
    return Word(text, False, [Part("lit", text)])


# ---------------------------------------------------------------------------- aliases


def expand_aliases(tokens: list[Token], aliases: dict[str, str]) -> list[Token]:
    """Replace an alias in command position by its value's tokens, as bash does while reading.

    An alias is not expanded again inside its own value (so `alias ls='ls -l'` works), and
    a value ending in a space makes the next word a candidate too.
    """
    out: list[Token] = []
    command_position = True
    for tok in tokens:
        if command_position and isinstance(tok, Word):
            expanded = _alias_tokens(tok, aliases, frozenset())
            if expanded != [tok]:
                for made in expanded:  # where the alias was typed (their own text is the value's)
                    if isinstance(made, Word | Op):
                        made.start, made.end = tok.start, tok.end
            out.extend(expanded)
            value = aliases.get(tok.text, "") if expanded != [tok] else ""
            # NAME=value keeps the next word in command position; so does an alias ending in " "
            # and a reserved word a command follows (`{ k get po; }`, `then k ...`).
            reserved = tok.plain and tok.text in _WORDS_BEFORE_COMMANDS and tok.text != "for"
            command_position = _assignment(tok) or value.endswith(" ") or reserved
            continue
        out.append(tok)
        if isinstance(tok, Op):
            command_position = tok.text in ("\n", ";", "&&", "||", "|", "&", "(")
        else:
            command_position = False
    return out


def _alias_tokens(word: Word, aliases: dict[str, str], seen: frozenset[str]) -> list[Token]:
    if not word.plain or word.text not in aliases or word.text in seen or len(seen) > 16:
        return [word]
    try:
        tokens = tokenize(aliases[word.text])
    except ShellSyntaxError:
        return [word]
    if tokens and isinstance(tokens[0], Word):
        return _alias_tokens(tokens[0], aliases, seen | {word.text}) + tokens[1:]
    return tokens


def _assignment(word: Word) -> bool:
    """NAME=value before a command: the word after it is still in command position."""
    return assignment(word) is not None


def assignment(word: Word) -> str | None:
    """The NAME of a `NAME=value`, `NAME+=value` or `NAME[SUBSCRIPT]=value` word (its name, `[`,
    `]` and `=` unquoted, as bash requires), else None."""
    first = word.parts[0] if word.parts else None
    if first is None or first.kind != "lit":
        return None
    found = _ASSIGNED.match(first.value)
    if found is None:
        return None
    if found.group(2) != "[":
        return found.group(1)
    typed = "".join(p.value if p.kind == "lit" else "\0" for p in word.parts)
    end = subscript_end(typed, found.end())
    return found.group(1) if end >= 0 and typed.startswith(("=", "+="), end + 1) else None
