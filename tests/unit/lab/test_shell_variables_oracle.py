"""Chosen scripts against this machine's bash 5.2, compared as the attributes oracle compares
them (tests/unit/lab/test_attributes_oracle.py: a line at a time, stdout, stderr and the last
status): `-v` and `-R` inside compound conditions of `[[`, `[` and `test`, `[[`'s integer
operands read as arithmetic; `read`, `export`
(`=`, `+=`) and `mapfile` into an integer variable; bash's own readonly variables refusing
each way of assigning them; `${x@P}`'s escapes that do not depend on the host."""

from __future__ import annotations

from tests.unit.lab import test_arrays_oracle, test_attributes_oracle

SCRIPTS = [
    # -v and -R among the other operators
    "x=1; [[ -v x && -n $x ]]; echo $?\nunset x; [[ -v x && -n $x ]]; echo $?",
    "a=(1 2); [[ ! -v a[1] || -v b ]]; echo $?\na=(1); [[ ! -v a[1] || -v b ]]; echo $?",
    "x=1; y=; test -v x -a -v y; echo $?\nunset y; test -v x -a -v y; echo $?",
    "x=1; [ -v x -o -v y ]; echo $?; [ ! -v x ]; echo $?; [ -v ]; echo $?; test -v; echo $?",
    "x=1; [[ ( -v x ) && ! ( -v y ) ]]; echo $?; test \\( -v x \\) -a ! -v y; echo $?",
    "a=(1 2); i=0; [[ -v a[i+1] ]]; echo $?; [[ -v a[i+2] || -v a[@] ]]; echo $?",
    "declare -A m=([k]=v); [[ -v m[k] && ! -v m[j] ]]; echo $?",
    "declare -n r=x; x=1; [[ -R r ]]; echo $?; [[ -R x ]]; echo $?; [[ -R r && -v r ]]; echo $?",
    "declare -n r; [[ -R r ]]; echo $?; declare -i n=3; [[ -v n && n -gt 2 ]]; echo $?",
    "x=1; test -v x = -v; echo $?",
    "n=3; [[ n*2 -gt 5 && 1+1 -eq 2 ]]; echo $?; [[ u -eq 0 ]]; echo $?; [ 2 -gt 1 ]; echo $?",
    'x=1; if [[ -v x ]] && [ -v x -a -n "$x" ]; then echo both; fi',
    # an integer variable takes arithmetic from read, export and mapfile too
    'declare -i n; read n <<< "2+3"; echo $n',
    "declare -i n; export n=4*2; echo $n; env | grep '^n='",
    "declare -i t=1; export t+=2; echo $t; s=a; export s+=b; echo $s",
    'declare -i q; read -a q <<< "1+1 2+2"; declare -p q',
    'declare -i v; read v w <<< "7*2 x"; echo $v $w; declare -i y; IFS=, read y <<< "3*3"; echo $y',
    "f() { local -i k; read k <<< 4*4; echo $k; }; f",
    'declare -i z; mapfile z <<< "1+1"; declare -p z',
    "declare -n nr=t; declare -i t=3; export nr+=5; echo $t",
    # bash's own readonly variables
    "EUID=0",
    "UID=1; echo no",
    "PPID=2",
    "BASHOPTS=x",
    "SHELLOPTS=y",
    "export EUID=4; echo $?",
    "declare EUID=5; echo $?; unset UID; echo $?",
    "((PPID++)); echo $?",
    "for UID in 1; do :; done; echo $?",
    "read UID <<< 3; echo $?",
    "declare -p EUID UID PPID | cut -d= -f1; declare -p BASHOPTS SHELLOPTS | cut -d= -f1",
    "readonly -p | cut -d= -f1 | grep -v BASH_VERSINFO",
    # ${x@P}
    "x='\\s \\\\ [\\[x\\]] \\v'; echo \"${x@P}\"",
    "x='\\e|\\a|'; printf '%q\\n' \"${x@P}\"; echo \"${x@P}\" | cat -v",
    # octal escapes: three digits, or fewer at the end; any other backslash kept
    "x='a\\033[1mb\\101\\0z q\\8 \\12'; echo \"${x@P}\" | cat -v",
    "y='end\\1'; echo \"${y@P}\" | cat -v",
    'a=(\'\\s\' \'$((1+2))\'); echo "${a[@]@P}" "${a[1]@P}" "${nope@P}|"',
    "y='$(echo hi) ${#y}'; echo \"${y@P}\"",
]


def test_chosen_scripts_print_and_end_as_bashs_do() -> None:
    agreed, differ = test_arrays_oracle.compared(SCRIPTS, test_attributes_oracle._lab)
    print(f"shell variables oracle: {agreed} of {len(SCRIPTS)} scripts agree with bash")
    assert not differ, differ[:3]


if __name__ == "__main__":
    agreed, differ = test_arrays_oracle.compared(SCRIPTS, test_attributes_oracle._lab)
    for script, real, lab in differ:
        print("=" * 70, script, "--- bash:", real, "--- lab:", lab, sep="\n")
    print(f"{agreed} of {len(SCRIPTS)} agree")
