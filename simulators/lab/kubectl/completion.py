"""kubectl completion SHELL: the script a shell sources for kubectl's Tab completion.

kubectl prints cobra's completion script for bash (V2), zsh, fish or PowerShell, some hundreds
of lines of functions. The lab's terminal completes kubectl by itself, so the lab prints a
stand-in that says so and ends as kubectl's bash script ends, registering the completion
function for `kubectl` (`source <(kubectl completion bash)` and the `complete -o default -F
__start_kubectl k` line of every setup guide then run as they would).
"""

from __future__ import annotations

from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import COMMON, usage
from simulators.lab.tool import Context, Output

FLAGS = COMMON

_NOTE = (
    "# The functions of kubectl's real script are left out on this admin host: its terminal\n"
    "# completes kubectl's commands, resource types, names and flags by itself.\n"
)
SCRIPTS = {
    "bash": "# bash completion V2 for kubectl                              -*- shell-script -*-\n"
    + _NOTE
    + "complete -o default -F __start_kubectl kubectl\n",
    "zsh": "#compdef kubectl\ncompdef _kubectl kubectl\n" + _NOTE,
    "fish": "# fish completion for kubectl                              -*- shell-script -*-\n"
    + _NOTE,
    "powershell": "# powershell completion for kubectl                       -*- shell-script -*-\n"
    + _NOTE,
}


def run(ctx: Context, parsed: Parsed) -> Output:
    del ctx
    shells = parsed.positionals
    if not shells:
        return Output.error(f"error: Shell not specified.\n{usage('completion')}")
    if len(shells) > 1:
        return Output.error(
            f"error: Too many arguments. Expected only the shell type.\n{usage('completion')}"
        )
    script = SCRIPTS.get(shells[0])
    if script is None:
        return Output.error(f'error: Unsupported shell type "{shells[0]}".\n{usage("completion")}')
    return Output.exactly(script)
