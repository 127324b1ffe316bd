"""`find`'s command line as GNU findutils 4.9 reads it (tree.c, parser.c): the leading options
(-H -L -P -D -O), the starting points, then the expression: each primary parsed with its
arguments and GNU's messages for a bad one, `-a` put between two primaries where none is
typed, and the list turned into a tree by GNU's own precedence climbing (get_expr and
scan_rest), with its errors for a misplaced operator or parenthesis. An expression without
an action is `( EXPR ) -a -print`. Global options after a test get GNU's warning (find's
standard input is taken for a terminal, as a typed command's is, unless a pipe fed it text).

Patterns never reach Python's `re`: -name, -path and their `i` forms are fnmatch(3) globs
(no FNM_PERIOD, `*` matching `/`) and -regex is GNU's emacs syntax (or -regextype's), both
compiled to RE2 (simulators.lab.regex). simulators.lab.find runs the program.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulators.lab import fs
from simulators.lab.find_primaries import (
    DAY,
    OPTION,
    POSITIONAL,
    TABLE,
    TEST,
    Exec,
    Finished,
    newer_xy,
)
from simulators.lab.tool import Context

__all__ = ["Exec", "FindError", "Finished", "Options", "Pred", "Program", "parse"]

NO_PREC, COMMA_PREC, OR_PREC, AND_PREC, NEGATE_PREC = range(5)
MAX_NESTING = 64  # parentheses and `!` inside one another
_BINARY = {"a": ("and", AND_PREC), "and": ("and", AND_PREC), "o": ("or", OR_PREC)}
_BINARY |= {"or": ("or", OR_PREC), ",": ("comma", COMMA_PREC)}
# GNU's evaluation costs (tree.c's costlookup, and the stat most tests need: 3) and the
# primaries with side effects, for its optimizer's swaps (_swap_commas).
_COSTS = {"name": 0, "path": 0, "true": 0, "false": 0, "inum": 1, "type": 2}
_COSTS |= {"readable": 5, "writable": 5, "executable": 5}
_EFFECTS = frozenset({"print", "print0", "printf", "ls", "exec", "delete", "prune", "quit"})


class FindError(Exception):
    """GNU's fatal message for the command line (`find: ...`, status 1), after the warnings
    printed before it."""


@dataclass(eq=False)
class Pred:
    """A node of the predicate list, then of the tree (`items`: an operator's operands)."""

    kind: str  # "primary", "uni", "bi", "open", "close"
    test: str  # name, print, and, or, comma, not, ...
    name: str  # as typed (GNU's p_name), for messages
    prec: int = NO_PREC
    arg: object = None
    cost: int = 0
    artificial: bool = False
    no_default_print: bool = False
    items: list[Pred] = field(default_factory=list)


@dataclass
class Options:
    maxdepth: int = -1
    mindepth: int = -1
    dir_first: bool = True  # not -depth (nor -delete)
    explicit_depth: bool = False
    warnings: bool = True
    day_start: int = 0  # cur_day_start: the lab's now less a day (-daystart: today's midnight)
    full_days: bool = False
    regex: str = "emacs"
    now: int = 0
    level: int = 2  # -O
    follow: str = "P"  # -P never follows a link, -H a starting point's, -L (-follow) all


@dataclass
class Program:
    starts: list[str]
    tree: Pred
    options: Options
    messages: list[str]  # warnings printed while parsing, in order
    outputs: dict[str, str] = field(default_factory=dict)  # -fprint's files: key -> path typed
    refused: str = ""  # -ok's one line


def looks_like_expression(arg: str, leading: bool) -> bool:
    if arg.startswith("-"):
        return len(arg) > 1
    if arg in (")", ","):
        return not leading
    return arg in ("(", "!")


def parse(ctx: Context, args: list[str], now: int) -> Program:
    """The program `args` ask for; raises FindError (its messages: those printed before it
    too, through the parser's `messages`) or Finished."""
    return Parser(ctx, args, now).program()


class Parser:
    def __init__(self, ctx: Context, argv: list[str], now: int) -> None:
        self.ctx = ctx
        self.argv = argv
        self.i = 0
        self.preds: list[Pred] = []
        self.options = Options(day_start=now - DAY, now=now, warnings=not ctx.stdin)
        self.messages: list[str] = []
        self.first_nonoption: str | None = None
        self.outputs: dict[str, str] = {}
        self.refused = ""
        self.starts: list[str] = []
        self.k = 0  # get_expr's place in the list

    def fail(self, message: str) -> FindError:
        return FindError("\n".join([*self.messages, f"find: {message}"]))

    # ------------------------------------------------------------------ the command line

    def program(self) -> Program:
        argv = self.argv
        while self.i < len(argv):
            arg = argv[self.i]
            if arg in ("-H", "-L", "-P"):
                self.options.follow = arg[1]  # the last one given counts
                self.i += 1
            elif arg == "--":
                self.i += 1
                break
            elif arg == "-D":
                if self.i + 1 >= len(argv):
                    raise self.fail(
                        "Missing argument after the -D option.\n"
                        "Try 'find --help' for more information."
                    )
                self.i += 2
            elif arg.startswith("-O"):
                self._level(arg[2:])
                self.i += 1
            else:
                break
        starts: list[str] = []
        while self.i < len(argv) and not looks_like_expression(argv[self.i], True):
            starts.append(argv[self.i])
            self.i += 1
        self.starts = starts or ["."]
        self.preds = [Pred("open", "(", "(", artificial=True)]
        while self.i < len(argv):
            self._one()
        return self._finish()

    def _level(self, text: str) -> None:
        """-O's optimisation level (the lab's find evaluates as typed whatever it is)."""
        if not text:
            raise self.fail("The -O option must be immediately followed by a decimal integer")
        digits = text[: len(text) - len(text.lstrip("0123456789"))]
        if not digits:
            raise self.fail("Please specify a decimal number immediately after -O")
        if digits != text:
            raise self.fail(f"Invalid optimisation level {text}")
        if len(digits) > 19 and int(digits) >= 2**64:
            raise self.fail(f"Invalid optimisation level {text}: Numerical result out of range")
        if int(digits) > 65535:
            raise self.fail(
                f"Optimisation level {int(digits)} is too high.  If you want to find files very"
                " quickly, consider using GNU locate."
            )
        self.options.level = int(digits)

    def _one(self) -> None:
        word = self.argv[self.i]
        if not looks_like_expression(word, False):
            message = f"paths must precede expression: `{word}'"
            where = fs.locate(self.ctx, word)
            if where.exists and not where.error:
                message += (
                    f"\nfind: possible unquoted pattern after predicate `{self.preds[-1].name}'?"
                )
            raise self.fail(message)
        name = word[1:] if word.startswith("-") else word
        newer = word.startswith("-newer") and len(word) == 8
        entry = None if newer else TABLE.get(name)
        if entry is None and not newer:
            raise self.fail(f"unknown predicate `{word}'")
        kind = TEST if entry is None else entry[0]
        special = entry is None  # -newerXY reads its own name (ARG_SPECIAL_PARSE)
        if kind == OPTION:
            if self.first_nonoption is not None and self.options.warnings:
                self.messages.append(
                    f"find: warning: you have specified the global option {word} after the"
                    f" argument {self.first_nonoption}, but global options are not positional,"
                    f" i.e., {word} affects tests specified before it as well as those"
                    " specified after it.  Please specify global options before other arguments."
                )
        elif kind != POSITIONAL and self.first_nonoption is None:
            self.first_nonoption = word
        self.i += 0 if special else 1
        start = self.i
        ok = newer_xy(self, word) if entry is None else entry[1](self, word)
        if not ok:
            if special and self.i == start:
                raise self.fail(f"invalid predicate `{word}'")
            if self.i < len(self.argv):
                raise self.fail(f"invalid argument `{self.argv[self.i]}' to `{word}'")
            raise self.fail(f"missing argument to `{word}'")
        self.preds[-1].name = word

    def take(self) -> str | None:
        """The next argument, consumed (None: there is none)."""
        if self.i >= len(self.argv):
            return None
        self.i += 1
        return self.argv[self.i - 1]

    def insert(
        self, test: str, arg: object = None, *, acts: bool = False, cost: int | None = None
    ) -> Pred:
        """A primary, after an implicit `-a` if a primary or `)` is just before it."""
        self._and_if_needed()
        cost = _COSTS.get(test, 3) if cost is None else cost
        pred = Pred("primary", test, test, arg=arg, cost=cost, no_default_print=acts)
        self.preds.append(pred)
        return pred

    def operator(self, kind: str, word: str) -> None:
        """`!`, `(`, `)` or a binary operator, as typed."""
        if kind == "bi":
            test, prec = _BINARY[word[1:] if word.startswith("-") else word]
            self.preds.append(Pred("bi", test, word, prec))
            return
        if kind != "close":
            self._and_if_needed()
        if kind == "uni":
            self.preds.append(Pred("uni", "not", word, NEGATE_PREC))
        else:
            self.preds.append(Pred(kind, kind, word))

    def _and_if_needed(self) -> None:
        if self.preds and self.preds[-1].kind in ("primary", "close"):
            self.preds.append(Pred("bi", "and", "-a", AND_PREC))

    def warn(self, message: str) -> None:
        if self.options.warnings:
            self.messages.append(f"find: {message}")

    # ------------------------------------------------------------------ the tree

    def _finish(self) -> Program:
        preds = self.preds
        if len(preds) == 1:
            preds = [Pred("primary", "print", "-print", no_default_print=True)]
        elif any(p.no_default_print for p in preds):
            preds = preds[1:]
        else:
            preds += [
                Pred("close", ")", ")", artificial=True),
                Pred("bi", "and", "-a", AND_PREC),
                Pred("primary", "print", "-print", artificial=True, no_default_print=True),
            ]
        tests = {p.test for p in preds}
        if "prune" in tests and "delete" in tests and not self.options.explicit_depth:
            raise self.fail(
                "The -delete action automatically turns on -depth, but -prune does nothing when"
                " -depth is in effect.  If you want to carry on anyway, just explicitly use the"
                " -depth option."
            )
        self.preds, self.k = preds, 0
        tree = self._get_expr(NO_PREC, None, 0)
        if self.k < len(preds):
            left = preds[self.k]
            if left.kind == "close":
                raise self.fail("you have too many ')'")
            raise self.fail(f"unexpected extra predicate '{left.name}'")
        _swap_commas(tree)
        return Program(self.starts, tree, self.options, self.messages, self.outputs, self.refused)

    def _get_expr(self, prev_prec: int, prev: Pred | None, depth: int) -> Pred:
        if depth > MAX_NESTING:
            raise self.fail("expression nested too deeply for this lab")
        preds = self.preds
        if self.k >= len(preds):
            raise self.fail("invalid expression")
        this = preds[self.k]
        if this.kind == "bi":
            raise self.fail(
                f"invalid expression; you have used a binary operator '{this.name}' with"
                " nothing before it."
            )
        if this.kind == "close":
            if prev is None:
                raise self.fail(
                    "invalid expression: expected expression before closing parentheses"
                    f" '{this.name}'."
                )
            if prev.kind in ("uni", "bi") and not this.artificial:
                raise self.fail(f"expected an expression between '{prev.name}' and ')'")
            if this.artificial:
                raise self.fail(f"expected an expression after '{prev.name}'")
            raise self.fail("invalid expression; you have too many ')'")
        self.k += 1
        node = this
        if this.kind == "uni":
            this.items = [self._get_expr(NEGATE_PREC, this, depth + 1)]
        elif this.kind == "open":
            if self.k >= len(preds) or preds[self.k].artificial:
                raise self.fail(
                    "invalid expression; expected to find a ')' but didn't see one. Perhaps you"
                    f" need an extra predicate after '{this.name}'"
                )
            if preds[self.k].kind == "close":
                if this.artificial:
                    raise self.fail(
                        "invalid expression: expected expression before closing parentheses"
                        f" '{preds[self.k].name}'."
                    )
                raise self.fail("invalid expression; empty parentheses are not allowed.")
            node = self._get_expr(NO_PREC, this, depth + 1)
            if self.k >= len(preds) or preds[self.k].kind != "close":
                raise self.fail(
                    "invalid expression; I was expecting to find a ')' somewhere but did not"
                    " see one."
                )
            self.k += 1
        if self.k < len(preds) and preds[self.k].prec > prev_prec:
            node = self._scan_rest(node, prev_prec, depth)
        return node

    def _scan_rest(self, tree: Pred, prev_prec: int, depth: int) -> Pred:
        preds = self.preds
        while self.k < len(preds) and preds[self.k].prec > prev_prec:
            op = preds[self.k]
            if op.kind != "bi":
                raise self.fail("invalid expression")
            self.k += 1
            right = self._get_expr(op.prec, op, depth + 1)
            # One node for a chain of one operator: they all associate (left to right).
            same = tree.kind == "bi" and tree.test == op.test
            op.items = [*tree.items, right] if same else [tree, right]
            tree = op
        return tree


def _swap_commas(node: Pred) -> None:
    """GNU's optimizer (tree.c's do_arm_swaps) swaps two neighbouring operands without side
    effects when the first costs more to evaluate, and it does so for `,` too, whose value is
    its last operand's: `-type f , -name a` is `-name a , -type f` in GNU's find. It makes one
    pass, from the last pair to the first. (Its other reorderings change which tests `-a`
    and `-o` skip, never a result.)"""
    for item in node.items:
        _swap_commas(item)
    if node.kind != "bi" or node.test != "comma":
        return
    items = node.items
    for at in range(len(items) - 1, 0, -1):
        first, second = items[at - 1], items[at]
        if _pure(first) and _pure(second) and _worst(first) > _worst(second):
            items[at - 1], items[at] = second, first


def _pure(node: Pred) -> bool:
    return node.test not in _EFFECTS and all(_pure(item) for item in node.items)


def _worst(node: Pred) -> int:
    return max([node.cost, *(_worst(item) for item in node.items)])
