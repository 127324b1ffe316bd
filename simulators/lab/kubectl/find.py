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


def _takes_next(word: str, flags: list[Flag]) -> bool:
    """Whether cobra reads the word after `word` as its value."""
    if "=" in word:
        return False
    booleans = {f.long for f in flags if not f.takes_value} | {
        f.short for f in flags if f.short and not f.takes_value
    }
    if word.startswith("--"):
        return word[2:] not in booleans
    return word.startswith("-") and len(word) == 2 and word[1:] not in booleans


def strip_flags(words: list[str], flags: list[Flag]) -> list[str]:
    """cobra's stripFlags: the words that are neither flags nor a flag's value."""
    commands: list[str] = []
    rest = list(words)
    while rest:
        word = rest.pop(0)
        if word == "--":
            break
        if _takes_next(word, flags):
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
    while position < len(words):
        word = words[position]
        if word == "--":
            break
        if _takes_next(word, flags):
            position += 2
            continue
        if not word.startswith("-") and word == name:
            return words[:position] + words[position + 1 :]
        position += 1
    return list(words)
