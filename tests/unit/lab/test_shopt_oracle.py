"""`shopt` and the options that change how the lab's shell globs, matches and writes files,
against this machine's bash 5.2: generated scripts turn nullglob, failglob, dotglob,
nocaseglob, globstar and nocasematch, and `set`'s noclobber (-C, with `>|`) and noglob (-f),
on and off (in subshells too), ask for them (`-p`, `-q`, an option's line, its
status, BASHOPTS), name ones that do not exist, and expand patterns over a home folder with
folders, dot files and names in both cases, or match words with `case`, `[[ == ]]` and
`[[ =~ ]]`. Each script runs in a new lab a line at a time (each line's output and errors
appended to a file in /tmp) and in `bash -c` over the same files (stderr into stdout, bash's
`line N:` taken out); what they print must agree."""

from __future__ import annotations

import random
import re

from simulators.lab import LabSession
from tests.unit.lab.real_host import bash, home_folder

SEED = 20_261_206
SCRIPTS = 200
DONE = ("nullglob", "failglob", "dotglob", "nocaseglob", "globstar", "nocasematch")
FOLDERS = ["d", "d/e", "Docs", ".cfg"]
FILES = ["d/a.yaml", "d/e/b.YAML", "Docs/n.md", ".cfg/x", "top.yaml", "d/e/.h", "A.yaml", "Top.md"]
PATTERNS = [
    "*", ".*", "**", "**/", "**/*.yaml", "d/**", "d/**/*", "*.yaml", "*.YAML", "[d]*", "t*",
    "T*", "*.none", "**/*.none", "d/*", "*/", "Docs/*.MD", "?o*", "**/e", "d/**/",
]  # fmt: skip
WORDS = ["yaml", "Yaml", "ABC", "abc", "aBc"]


def _statement(rng: random.Random) -> str:
    option = rng.choice(DONE)
    kind = rng.choices(
        ["set", "glob", "match", "ask", "sub", "bad", "clobber"], [5, 6, 3, 2, 1, 1, 3]
    )[0]
    if kind == "set":
        return f"shopt -{rng.choice('su')} {option}"
    if kind == "glob":
        return "echo " + " ".join(rng.sample(PATTERNS, rng.randint(1, 2)))
    if kind == "match":
        word, pattern = rng.choice(WORDS), rng.choice(["y*", "YAML", "a?c", "[a]bc", "*B*"])
        return rng.choice(
            [f"case {word} in {pattern}) echo in;; *) echo out;; esac",
             f"[[ {word} == {pattern} ]]; echo $?", f"[[ {word} != {pattern} ]]; echo $?",
             f"[[ {word} =~ ^{pattern.strip('*?[]')} ]]; echo $?"]
        )  # fmt: skip
    if kind == "ask":
        names = " ".join(rng.sample(DONE, rng.randint(1, 3)))
        return rng.choice(
            [f"shopt {names}; echo $?", f"shopt -p {names}", f"shopt -q {names}; echo $?",
             "echo $BASHOPTS | tr : '\\n' | grep -E '^(" + "|".join(DONE) + ")$'",
             f"shopt -s {names}; shopt -p {names}", f"shopt -u {names}; echo $?"]
        )  # fmt: skip
    if kind == "clobber":
        return rng.choice(
            ["set -C", "set +C", "set -f", "set +f", "set -o noclobber", "set -o noglob",
             "echo x > out; echo $?", "echo y >| out; cat out", "echo z &> out; echo $?",
             "echo a > out; set -C; echo b > out; echo $?; cat out", "set -C; echo c &> out",
             "echo w >> out; cat out", "echo v 2> err > out; echo $?", "echo *.yaml d*",
             "(set -f; echo *); echo t*", "shopt -o noclobber noglob; echo $?",
             "echo $SHELLOPTS | tr : '\\n' | grep -E 'noclobber|noglob'",
             "bash -c 'echo $- $SHELLOPTS'", "set -uC; bash -c 'echo ${nothing}x $-'; set +uC",
             "printf 'shopt -p nullglob; echo $-\\n' > /tmp/s; bash /tmp/s"]
        )  # fmt: skip
    if kind == "sub":
        return f"(shopt -s {option}; echo *.none **/n.md .c*); echo *.none .c*"
    return rng.choice(
        ["shopt -s bogus; echo $?", "shopt -x; echo $?", "shopt -su nullglob; echo $?",
         "shopt -q bogus; echo $?", "shopt -o pipefail", "shopt -po nounset"]
    )  # fmt: skip


def scripts() -> list[str]:
    rng = random.Random(SEED)
    return ["\n".join(_statement(rng) for _ in range(rng.randint(3, 9))) for _ in range(SCRIPTS)]


def _real(script: str) -> str:
    with home_folder() as home:
        for name in FOLDERS:
            (home / name).mkdir()
        for name in FILES:
            (home / name).write_text("x\n", encoding="utf-8")
        out = bash(home, "exec 2>&1\n" + script)
    return re.sub(r"^bash: line \d+: ", "bash: ", out, flags=re.M)


def _ours(script: str) -> str:
    lab = LabSession.new("mig-single", seed=0)
    lab.world.state.folders.extend(FOLDERS)
    lab.world.state.files.update({name: "x\n" for name in FILES})
    for line in script.split("\n"):  # each typed at the prompt, what it prints kept whole
        lab.run(f"{{ {line}\n}} >> /tmp/printed 2>&1")
    return lab.world.state.files.get("/tmp/printed", "")


def test_generated_shopt_scripts_glob_match_and_answer_as_bashs_do() -> None:
    differing = [(s, _ours(s), _real(s)) for s in scripts() if _ours(s) != _real(s)]
    assert not differing, differing[:3]
