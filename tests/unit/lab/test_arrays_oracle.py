"""The lab's arrays and PIPESTATUS against this machine's bash 5.2: seeded random scripts of
indexed and associative arrays (lists with globs, `$v`, `$(...)`, braces and `[i]=` words,
`+=`, elements set by arithmetic and negative subscripts, `unset 'a[i]'`), what reads them
(`${a[i]}`, `$a`, `"${a[@]}"`, `"${a[*]}"` under several IFS, `${#a[@]}`, `${!a[@]}`, slices,
the parameter operators element by element, defaults, `for x in "${a[@]}"`, arithmetic on
elements), `declare -p`, `declare -a`/`-A`, `local -a` in a function, `read -a`,
`mapfile`/`readarray`, `set --` slices, and PIPESTATUS after pipelines, subshells, `!`,
groups and `set -o pipefail`. Each script runs in a new lab and in `bash --norc --noprofile`
in a folder holding the same files; stdout, stderr (bash's `line N:` taken out, as an
interactive bash says it) and the status must agree.

The draws keep to what both shells run to the end: bash -c stops a script at an expansion
error (a bad substitution, arithmetic on a word), where the lab's terminal goes on to the
next command, so no draw makes one; and no element holds a glob character (the lab does not
glob the result of an expansion)."""

from __future__ import annotations

import random
import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from simulators.lab import LabSession

SEED = 20_250_522
SCRIPTS = 400
FILES = ("a.yaml", "b.yaml", "c.txt")
# The words of a list: expanded as a command's are (split, globbed, braces).
WORDS = [
    "x", '"y z"', "''", "$v", '"$v"', "$(echo m n)", "{1,2}", "*.yaml", "-n", "'q\"r'",
    "$'t\\tu'", "é", "k=v", "0", "12", '"$i"',
]  # fmt: skip
# An element's value set one at a time (not split, not globbed).
VALUES = ["w", '"s t"', "''", "$v", "7", "$'\\n'", "x$i", '"[a]"']
INDEXES = ["0", "1", "2", "5", "-1", "i+1", "$i", "-9", "i*3", "(1)"]
KEYS = ["k", '"a b"', "$v", "x-1", "'@'", "é", "$i"]
PATTERNS = ["y", "?", "*", "[xy]", "z", "-"]
NAMES = ["a", "b"]
Ran = tuple[str, str, int]  # stdout, stderr, status


def _list(rng: random.Random) -> str:
    words = []
    for _ in range(rng.randint(0, 4)):
        if rng.random() < 0.2:
            words.append(f"[{rng.choice(INDEXES[:6])}]={rng.choice(VALUES)}")
        else:
            words.append(rng.choice(WORDS))
    return " ".join(words)


def _reading(rng: random.Random, name: str) -> str:
    """An expansion of `name` whose words printf shows one by one."""
    index = rng.choice(INDEXES)
    pattern = rng.choice(PATTERNS)
    forms = [
        f"${{{name}[{index}]}}", f'"${{{name}[{index}]}}"', f"${name}", f'"${{{name}}}"',
        f"${{{name}[@]}}", f'"${{{name}[@]}}"', f"${{{name}[*]}}", f'"${{{name}[*]}}"',
        f"${{#{name}[@]}}", f"${{#{name}[{rng.choice(INDEXES[:4])}]}}", f"${{#{name}}}",
        f"${{!{name}[@]}}",
        f'"${{!{name}[*]}}"', f'"${{{name}[@]:{rng.choice(["0", "1", "2", " -1", " -2"])}}}"',
        f'"${{{name}[@]:{rng.choice(["0", "1"])}:{rng.choice(["0", "1", "2"])}}}"',
        f'"${{{name}[@]/{pattern}/_}}"', f'"${{{name}[@]//{pattern}/<&>}}"',
        f'"${{{name}[@]#{pattern}}}"', f'"${{{name}[*]%{pattern}}}"', f'"${{{name}[@]^^}}"',
        f'"${{{name}[@],}}"', f'"x${{{name}[@]}}y"', f'"${{{name}[@]:-def}}"',
        f"${{{name}[{index}]:-def}}", f'"${{{name}[@]:+alt}}"', f'"${{{name}[{index}]-unset}}"',
        f'"${{{name}[{index}]^}}"', f"${{{name}[@]:1}}",
    ]  # fmt: skip
    return rng.choice(forms)


def _statement(rng: random.Random) -> str:
    name = rng.choice(NAMES)
    kind = rng.choices(
        ["list", "append", "element", "scalar", "unset", "read", "loop", "declare", "ifs",
         "pipe", "readarray", "assoc", "local", "numbers", "positional", "show", "copy",
         "join"],
        weights=[4, 2, 3, 1, 2, 6, 2, 2, 1, 2, 1, 2, 1, 1, 1, 2, 2, 2],
    )[0]  # fmt: skip
    if kind == "list":
        return f"{name}=({_list(rng)})"
    if kind == "append":
        return f"{name}+=({_list(rng)})"
    if kind == "element":
        return f"{name}[{rng.choice(INDEXES)}]{rng.choice(['=', '+='])}{rng.choice(VALUES)}"
    if kind == "scalar":
        return f"{name}{rng.choice(['=', '+='])}{rng.choice(VALUES)}"
    if kind == "unset":
        target = rng.choice([f"'{name}[{rng.choice(INDEXES)}]'", name, f"'{name}[@]'"])
        return f"unset {target}"
    if kind == "read":
        return f"printf '[%s]' {_reading(rng, name)}; echo"
    if kind == "loop":
        words = rng.choice([f'"${{{name}[@]}}"', f"${{{name}[*]}}", f'"${{!{name}[@]}}"'])
        if rng.random() < 0.3:  # an index's element, by name in its subscript
            return f'for j in "${{!{name}[@]}}"; do echo "$j=${{{name}[j]}}"; done'
        return f"for e in {words}; do printf '<%s>' \"$e\"; done; echo"
    if kind == "join":  # in a subshell: IFS as it was after it
        ifs = rng.choice(["IFS=,", "IFS=", "unset IFS", "IFS=' :'", "IFS=:,"])
        words = rng.choice(
            [f'"${{{name}[*]}}"', f"${{{name}[*]}}", f"${{{name}[@]}}", f'"${{!{name}[*]}}"',
             f'"${{{name}[*]/y/Y}}"', f'"${{{name}[*]:1}}"', 'x="${a[*]}" y=${b[@]}; echo "$x|$y"']
        )  # fmt: skip
        return f"( {ifs}; printf '[%s]' {words}; echo )"
    if kind == "copy":
        other = "b" if name == "a" else "a"
        return rng.choice(
            [f'{other}=("${{{name}[@]}}" new)', f'{other}=("${{{name}[@]:1}}")',
             f'{other}=(${{{name}[*]}})', f"[[ ${{#{name}[@]}} -gt 1 ]] && echo many",
             f'case "${{{name}[0]}}" in x|w) echo first;; *) echo other;; esac',
             f"unset -v '{name}[0]'; echo ${{#{name}[@]}}"]
        )  # fmt: skip
    if kind == "declare":
        return rng.choice(
            [f"declare -p {name}", f"declare -a {name}", f"declare -a {name}=({_list(rng)})",
             f"declare -A {name}", f"declare -p {name} c"]
        )  # fmt: skip
    if kind == "ifs":
        return rng.choice(["IFS=,", "IFS=", "unset IFS", "IFS=' :'"])
    if kind == "pipe":
        pipe = rng.choice(
            ["false | true", "true | false | (exit 3)", "! false | false", "(exit 2)",
             "{ false; }", "if false; then :; fi", "x=1", "set -o pipefail; false | true",
             "true | { false | true; }", "echo hi | cat"]
        )  # fmt: skip
        return f'{pipe}; echo "${{PIPESTATUS[@]}} $? ${{#PIPESTATUS[*]}}"; set +o pipefail'
    if kind == "readarray":
        feed = rng.choice(
            ["<<< 'a b  c'", "<<< ' x,y ,'", "<<< ''", "< /dev/null", "<<< 'p\\ q r'"]
        )
        return rng.choice(
            [f"read -a {name} {feed}; echo $?", f"read -ra {name} {feed}",
             f"IFS=, read -a {name} {feed}", f"mapfile -t {name} < <(printf 'l1\\n\\nl3\\n')",
             f"readarray {name} <<< 'one'",
             f"mapfile -t -s 1 -n 2 {name} < <(printf '%s\\n' 1 2 3 4)",
             f"printf 'z\\n' | mapfile -t {name}", f"mapfile -d , -t {name} <<< 'a,b,c'"]
        )  # fmt: skip
    if kind == "assoc":
        key = rng.choice(KEYS)
        return rng.choice(
            [f"declare -A m; m[{key}]={rng.choice(VALUES)}", "declare -A m=([k]=1 [\"a b\"]=2)",
             f"unset 'm[{key}]'", "printf '[%s]' \"${!m[@]}\" \"${m[@]}\" ${#m[@]}; echo",
             f"echo \"${{m[{key}]}}\"", "declare -p m", f"m+=([{key}]=p)"]
        )  # fmt: skip
    if kind == "local":
        return (
            f"f() {{ local -a {name}=({_list(rng)}); {name}+=(z); declare -p {name}; "
            f'local n=$1; echo "$n"; }}; f q; declare -p {name}'
        )
    if kind == "numbers":
        return rng.choice(
            ["n=(3 5 7); (( n[1] += 2 )); echo $(( n[0] * n[2] )) ${n[@]}",
             "n=(1 2); n[i+1]=9; (( n[-1]++ )); echo ${n[*]} $(( n[2] ))",
             "n=(4); let 'n[3]=n[0]*2'; echo ${!n[@]} ${n[@]}"]
        )  # fmt: skip
    if kind == "positional":
        return rng.choice(
            ['set -- p "q r" s; printf "[%s]" "${@:2}" "${*:1:2}"; echo',
             'set -- u v; printf "[%s]" "${@: -1}" ${#@} "${@/v/V}"; echo']
        )  # fmt: skip
    return f"declare -p {name}"


# Every script ends showing its arrays (and its status, which bash's is then compared with).
SHOWN = "s=$?; for n in a b m; do declare -p $n 2>/dev/null || echo $n unset; done; (exit $s)"


def scripts() -> list[str]:
    rng = random.Random(SEED)
    made = []
    for _ in range(SCRIPTS):
        statements = [
            "v='p q'; i=1; declare -A m",
            *(_statement(rng) for _ in range(rng.randint(2, 6))),
        ]
        made.append("\n".join([*statements, SHOWN]))
    return made


def _bash(folder: Path, script: str) -> Ran:
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script],
        capture_output=True,
        text=True,
        cwd=folder,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": str(folder)},
        check=False,
        timeout=20,
    )
    # bash -c names a function's line "environment: line N" where a terminal's bash says none.
    stdout, stderr = (
        re.sub(r"^(bash|environment): line \d+: ", "bash: ", text, flags=re.M)
        for text in (done.stdout, done.stderr)
    )
    return stdout.rstrip("\n"), stderr.rstrip("\n"), done.returncode


def _lab(script: str) -> Ran:
    """The script's stdout, stderr and status in a new lab, in a folder like bash's."""
    lab = LabSession.new("mig-single", seed=0)
    lab.run(f"mkdir -p g && cd g && touch {' '.join(FILES)}")
    ran = lab.run(f"{{\n{script}\n}} 2>../err.txt")
    stderr = lab.run("cat ../err.txt").output
    return ran.output.rstrip("\n"), stderr.rstrip("\n"), ran.exit_code


def compared(
    drawn: list[str] | None = None, lab_run: Callable[[str], Ran] = _lab
) -> tuple[int, list[tuple[str, Ran, Ran]]]:
    """How many scripts (`drawn`, else this module's) agree, and the ones that do not
    (script, bash's, the lab's as `lab_run` runs it), bash's run in a folder of FILES."""
    agreed, differ = 0, list[tuple[str, Ran, Ran]]()
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root) / "g"
        folder.mkdir()
        for name in FILES:
            (folder / name).write_text("")
        for script in scripts() if drawn is None else drawn:
            real, lab = _bash(folder, script), lab_run(script)
            if real == lab:
                agreed += 1
            else:
                differ.append((script, real, lab))
    return agreed, differ


def test_generated_array_scripts_print_and_end_as_bashs_do() -> None:
    agreed, differ = compared()
    print(f"arrays oracle: {agreed} of {SCRIPTS} scripts agree with bash")
    assert not differ, differ[:3]


if __name__ == "__main__":
    agreed, differ = compared()
    for script, real, lab in differ:
        print("=" * 70, script, "--- bash:", real, "--- lab:", lab, sep="\n")
    print(f"{agreed} of {SCRIPTS} agree")
