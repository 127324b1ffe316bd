"""How kubectl finds the command a line names: cobra's Command.Find on kubectl's root.

cobra strips the flags from the words before it looks for a command name (stripFlags): a flag
written without `=` takes the next word as its value unless it is a boolean (pflag's
NoOptDefVal), whether the root knows the flag or not, and the root knows only kubectl's global
flags then (its help flag is added later). So `kubectl -n dev get pods` is get, `kubectl
--bogus get nodes` looks for a command "nodes", and `kubectl -x options` runs the root itself,
which refuses -x. The command's own words are then the line less the first word naming it
(argsMinusFirstX). When no command is found, kubectl looks for a plugin: a line whose first
word is a flag is refused there ("flags cannot be placed before plugin name").
"""

from __future__ import annotations

from simulators.lab.flags import Flag


def _booleans(flags: list[Flag]) -> set[str]:
    """The long and short names of the flags that take no value."""
    return {f.long for f in flags if not f.takes_value} | {
        f.short for f in flags if f.short and not f.takes_value
    }


def _takes_next(word: str, booleans: set[str]) -> bool:
    """Whether cobra reads the word after `word` as its value."""
    if "=" in word:
        return False
    if word.startswith("--"):
        return word[2:] not in booleans
    return word.startswith("-") and len(word) == 2 and word[1:] not in booleans


def strip_flags(words: list[str], flags: list[Flag]) -> list[str]:
    """cobra's stripFlags: the words that are neither flags nor a flag's value."""
    commands: list[str] = []
    booleans = _booleans(flags)
    rest = list(words)
    while rest:
        word = rest.pop(0)
        if word == "--":
            break
        if _takes_next(word, booleans):
            if len(rest) <= 1:
                break
            rest.pop(0)
        elif word and not word.startswith("-"):
            commands.append(word)
    return commands


def minus_first(words: list[str], name: str, flags: list[Flag]) -> list[str]:
    """cobra's argsMinusFirstX: the words less the first one that is `name` and not a flag's
    value."""
    position = 0
    booleans = _booleans(flags)
    while position < len(words):
        word = words[position]
        if word == "--":
            break
        if _takes_next(word, booleans):
            position += 2
            continue
        if not word.startswith("-") and word == name:
            return words[:position] + words[position + 1 :]
        position += 1
    return list(words)
