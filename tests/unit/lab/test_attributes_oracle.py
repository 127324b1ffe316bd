"""The lab's variable attributes and indirection against this machine's bash 5.2: seeded random
scripts of `declare`/`typeset`/`local` with `-i`, `-r`, `-l`, `-u`, `-n`, `-x` and their `+`
forms, `declare NAME` with no value, `readonly` (`-a`, `-p`), assignments through them (`=`,
`+=`, elements of an integer array, a nameref's `r[1]=x`, `for`'s and `read`'s), `unset` (of
a readonly name, through a nameref, `unset -n`), `${!name}`, `${!prefix*}` and `${!prefix@}`,
the transformations `@Q @U @u @L @a @A @E`, `[[ -v ... ]]`, `[ -v ... ]` and `test -v`. Each
script runs in a new lab a line at a time and in `bash --norc --noprofile -c` (bash's
`line N:` taken out, as the arrays oracle does); stdout, stderr and the status must agree.

The draws keep to what both shells run the same way: no arithmetic on a word that is no
expression (bash -c stops the whole script at that expansion error, where the lab's terminal
goes on), and no indirection through a name that is not set. `readonly` and `declare -r`
with no names are drawn through `grep ' [a-z]'`, which leaves out bash's own readonly
variables (BASHOPTS, EUID, PPID, SHELLOPTS, UID, whose values differ between the two shells,
and BASH_VERSINFO, which the lab does not keep). An assignment to a
readonly name is drawn: bash drops the rest of that line (-c's script and a terminal alike)
and goes on at the next, as the lab does."""

from __future__ import annotations

import random
import sys

from simulators.lab import LabSession
from tests.unit.lab import test_arrays_oracle
from tests.unit.lab.test_arrays_oracle import FILES, Ran

SEED = 20_261_206
SCRIPTS = 300
STRINGS = ["abc", "'Mixed Case'", "$'t\\tu'", '"q\'r"', "''", "é", "x", "'A b'"]
# No expression names n: one that did, held by n as text and read later by an integer n,
# would be bash's recursion error, which stops bash -c's script.
NUMBERS = ["3+4", "u*2", "7", "-2", "u", "'1 + 1'", "2*3", "0"]
NAMES = ("n", "s", "q", "ref", "a", "g", "t", "sx")


def _statement(rng: random.Random) -> str:
    kind = rng.choices(
        ["integer", "case", "readonly", "nameref", "declared", "show", "indirect", "prefix",
         "transform", "test", "local", "plus", "array", "compound"],
        weights=[4, 4, 2, 3, 2, 3, 2, 2, 4, 3, 1, 2, 2, 4],
    )[0]  # fmt: skip
    string, number = rng.choice(STRINGS), rng.choice(NUMBERS)
    if kind == "integer":
        return rng.choice(
            [f"declare -i n={number}", f"declare -i n; n+={number}", f"n={number}", "echo $n",
             f"typeset -i n; n={number}; echo $n", f"declare -i n+={number}",
             "declare -i n; for n in 1+1 3*3; do echo $n; done"]
        )  # fmt: skip
    if kind == "case":
        return rng.choice(
            [f"declare -l s={string}", f"declare -u s={string}", f"s={string}",
             f"s+={string}", "declare -ul s=Ab", "declare -u s; declare -l s", 'echo "$s"',
             f"declare -ux sx={string}", "declare -u s; read s <<< 'ab c'; echo $s",
             "readonly q; read q <<< x; echo $?", "readonly q; for q in 1; do :; done"]
        )  # fmt: skip
    if kind == "readonly":
        return rng.choice(
            ["readonly q=1", "declare -r q=2", "readonly q", "declare q=3; echo $?",
             "unset q; echo $?", "readonly -p | grep ' [a-z]'", "declare +r q; echo $?",
             "readonly -a g=(1 2)", "q=4", "declare -i q; echo $?", "readonly q=5; echo $?"]
        )  # fmt: skip
    if kind == "nameref":
        target = rng.choice(["s", "t", "a"])
        return rng.choice(
            [f"declare -n ref={target}", f"ref={string}", 'echo "$ref"', "ref[1]=el",
             'echo "${ref[@]}" ${#ref[@]}', "unset ref", "unset -n ref", "declare +n ref",
             "declare -n ref=1x; echo $?"]
        )  # fmt: skip
    if kind == "declared":
        name = rng.choice(["t", "s", "n"])
        return rng.choice(
            [f"declare {name}", f"declare -p {name}", f'echo "${{{name}-unset}}"',
             f"declare -x {name}", f"unset {name}"]
        )  # fmt: skip
    if kind == "show":
        return rng.choice(
            ["declare -p n s", "declare -p q ref", "export -p | grep ' [a-z]'",
             "declare -i | grep ' [a-z]'", "declare -p a g"]
        )  # fmt: skip
    if kind == "indirect":
        return rng.choice(
            ["p=s; s=${s-set}; echo ${!p}", "p=a[1]; echo ${!p}", "p=n; n=${n-5}; echo ${!p}",
             "declare -n ref=t; echo ${!ref}"]
        )  # fmt: skip
    if kind == "prefix":
        return rng.choice(
            ["echo ${!s*}", 'printf "<%s>" "${!s@}"; echo', 'printf "<%s>" "${!s*}"; echo',
             "echo ${!zz*}x", "sa=1 sb=(2); echo ${!s@}"]
        )  # fmt: skip
    if kind == "transform":
        return rng.choice(
            ['echo "${s@Q}" "${s@U}" "${s@u}" "${s@L}"', 'echo "${s@a}" "${n@a}" "${q@a}"',
             'echo "${s@A}"', 'echo "${n@A}"', 'echo ${a[@]@Q}', 'printf "<%s>" "${a[@]@Q}"',
             'echo "${a[@]@A}"', "e='a\\tb'; echo \"${e@E}\"", 'echo "${a[1]@U}" "${t@Q}"x',
             'echo "${a@a}" "${g[@]@a}"']
        )  # fmt: skip
    if kind == "test":
        return rng.choice(
            ["[[ -v s ]]; echo $?", "[[ -v a[1] ]]; echo $?", "[[ -v a[7] ]]; echo $?",
             "declare -A m=([k]=v); [[ -v m[k] ]]; echo $? ; [[ -v m[z] ]]; echo $?",
             "test -v t; echo $?", "[ ! -v n ]; echo $?", "[[ -v ref ]]; echo $?",
             "[[ -v a[@] ]]; echo $?"]
        )  # fmt: skip
    if kind == "compound":
        return _compound(rng)
    if kind == "local":
        return rng.choice(
            ["f() { local -i n=2+2; local -u s=low; declare -p n s; }; f; declare -p n s",
             "f() { local -r t=1; declare -p t; }; f; echo ${t-none}",
             "f() { declare -n r=$1; r=set; }; f t; echo $t"]
        )  # fmt: skip
    if kind == "plus":
        return rng.choice(
            ["declare +i n; n=1+1; echo $n", "declare +u s; s=Ab; echo $s",
             "declare +x sx; declare -p sx", "declare -x n; declare -p n"]
        )  # fmt: skip
    return rng.choice(
        [f"a=(x {string} z)", "declare -ai g=(1+1 2); g[2]=3*3; g+=(4+4); echo ${g[@]}",
         "g[1]+=5; echo ${g[@]}", "a[1]=mid", "declare -r a; a[0]=no"]
    )  # fmt: skip


def _operand(rng: random.Random, double: bool) -> str:
    """One test of a condition: `-v` and `-R` of the script's names and elements, a string
    test, `-o` of an option `set -o` names, or (in `[[`) an integer comparison whose operands
    are arithmetic."""
    name = rng.choice(NAMES)
    choices = [f"-v {name}", f"-v a[{rng.randint(0, 3)}]", f"-R {name}", f"! -v {name}",
               '-n "$s"', '-z "${t-}"', f'"${{s-}}" = {rng.choice(STRINGS)}',
               f"-o {rng.choice(['pipefail', 'nounset', 'noclobber'])}"]  # fmt: skip
    if double:
        number = rng.choice(["n", "n*2", "n+1", "3", "g[1]", "0"])
        choices += [f"{number} -gt {rng.randint(-1, 9)}", f"{rng.randint(0, 5)} -le {number}"]
    return rng.choice(choices)


def _compound(rng: random.Random) -> str:
    """A condition of two or three tests joined as `[[` (`&&`, `||`, `!`, parentheses) or
    `test` and `[` (`-a`, `-o`) join them, and its status; now and then after an option of
    `set -o` is turned on or off."""
    form = rng.choice(["[[", "test", "["])
    setting = rng.choice(["", "", "set -o pipefail; ", "set +o pipefail; "])
    count = rng.randint(2, 3)
    tests = [_operand(rng, form == "[[") for _ in range(count)]
    if form == "[[":
        joined = tests[0]
        for more in tests[1:]:
            joined = f"{joined} {rng.choice(['&&', '||'])} {more}"
        if rng.random() < 0.3:
            joined = f"! ( {joined} )"
        return f"{setting}[[ {joined} ]]; echo $?"
    joined = f" {rng.choice(['-a', '-o'])} ".join(tests)
    return setting + (f"test {joined}; echo $?" if form == "test" else f"[ {joined} ]; echo $?")


# Every script ends showing its names (and its status, which bash's is then compared with).
SHOWN = (
    f"s_=$?; for v in {' '.join(NAMES)}; do declare -p $v 2>/dev/null || echo $v unset; done;"
    " (exit $s_)"
)


def scripts(seed: int = SEED, count: int = SCRIPTS) -> list[str]:
    rng = random.Random(seed)
    made = []
    for _ in range(count):
        statements = [_statement(rng) for _ in range(rng.randint(2, 7))]
        made.append("\n".join([*statements, SHOWN]))
    return made


def _lab(script: str) -> Ran:
    """The script's stdout, stderr and status in a new lab, a line at a time (bash -c reads
    its script so: an error that drops the rest of a line goes on at the next one)."""
    lab = LabSession.new("mig-single", seed=0)
    lab.run(f"mkdir -p g && cd g && touch {' '.join(FILES)} && : > ../out.txt && : > ../err.txt")
    code = 0
    for line in script.split("\n"):
        ran = lab.run(f"{{\n{line}\n}} >>../out.txt 2>>../err.txt")
        assert not ran.output, ran.output
        code = ran.exit_code
    stdout, stderr = (lab.run(f"cat ../{name}.txt").output for name in ("out", "err"))
    return stdout.rstrip("\n"), stderr.rstrip("\n"), code


def compared(seed: int = SEED, count: int = SCRIPTS) -> tuple[int, list[tuple[str, Ran, Ran]]]:
    """How many scripts agree, and the ones that do not (script, bash's, the lab's)."""
    return test_arrays_oracle.compared(scripts(seed, count), _lab)


def test_generated_attribute_scripts_print_and_end_as_bashs_do() -> None:
    agreed, differ = compared()
    print(f"attributes oracle: {agreed} of {SCRIPTS} scripts agree with bash")
    assert not differ, differ[:3]


if __name__ == "__main__":
    seeds = [int(arg) for arg in sys.argv[1:]] or [SEED]
    total = agreed_all = 0
    for seed in seeds:
        agreed, differ = compared(seed)
        for script, real, lab in differ:
            print("=" * 70, script, "--- bash:", real, "--- lab:", lab, sep="\n")
        total += SCRIPTS
        agreed_all += agreed
    print(f"attributes oracle: {agreed_all} of {total} scripts agree with bash")
