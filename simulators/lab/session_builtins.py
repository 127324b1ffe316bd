"""The lab session's own builtins: history, hint and help (they read the session's history
and hints through the Context, simulators.lab.session)."""

from __future__ import annotations

from typing import Any

from simulators.lab import budget
from simulators.lab.tool import Context, Output

MAX_HISTORY = 500


def _history(ctx: Context, args: list[str]) -> Output:
    if args[:1] == ["-c"]:
        ctx.history.clear()
        return Output()
    entries = ctx.history
    if args and args[0].startswith("-") and len(args[0]) > 1:
        return Output.error(
            f"bash: history: {args[0][:2]}: invalid option\n"
            "history: usage: history [-c] [-d offset] [n] or history -anrw [filename]"
            " or history -ps arg [arg...]",
            2,
        )
    if args:
        count = budget.bounded_int(args[0], MAX_HISTORY)
        if count is None:
            return Output.error(f"bash: history: {args[0]}: numeric argument required")
        entries = entries[-count:] if count else []
    offset = len(ctx.history) - len(entries)
    return Output("\n".join(f"{i + offset + 1:>5}  {line}" for i, line in enumerate(entries)))


def _hint(ctx: Context, args: list[str]) -> Output:
    return Output(ctx.next_hint())


HELP_TEXT = """Commands on this admin host (kadmin):
  kubectl    get, describe, label, cordon, uncordon, drain, logs, exec ... -- nvidia-smi -L,
             apply -f, create -f, delete pod, patch ... --type merge -p '{...}'  (alias k=kubectl)
  runai      v2: login, project list|set, training|workspace submit|list|describe|logs|delete,
             training pytorch submit, workload list
             v1: config project, submit, submit-dist pytorch, list jobs, describe job, logs
  helm       upgrade -i RELEASE CHART -n NAMESPACE --set key=value
  files      ls, cd, mkdir, find, cat, less, more, head, tail, cp, mv, rm, touch,
             chmod +x FILE (then ./FILE), /etc/os-release, /etc/hosts, /tmp,
             sed -i 's/old/new/g' FILE, > and >> redirects, basename, dirname,
             cat <<EOF > pod.yaml ... EOF (a here-document: type the lines, then EOF)
  text       grep, awk, jq, wc, sort, uniq, cut, tr, tee, xargs, base64 -d, column -t, diff -u,
             nl, paste, tac, rev, seq: ... | jq -r '.items[].metadata.name'
  shell      echo, printf, export, alias, unalias, type, which, pwd, cd, sleep, env, date,
             variables and $?, ;, &&, ||, |, $(...), 2>/dev/null, for, while, if, case,
             name() { ...; }, set -euo pipefail, set -x, bash [-x] FILE, source FILE,
             eval, $RANDOM, <(...), complete, source <(kubectl completion bash),
             arrays: a=(x y); "${a[@]}", declare -A, mapfile -t, ${PIPESTATUS[@]}
  host       whoami, id, hostname, uname -a, sudo COMMAND, command -v NAME,
             curl -k -H "Authorization: Bearer $TOKEN" https://10.0.0.10:6443/api/v1/...
  vi, vim    edit a file (vim keys: i to type, Esc, :wq to save and quit, :q! to leave)
  nano       edit a file (Ctrl+O saves, Ctrl+X exits); kubectl edit opens one too
  watch      re-run a command every 2 s (-n SECONDS) until Ctrl+C; kubectl get -w, logs -f
             and rollout status keep printing too
  history, clear, hint, help
Up/Down recall commands; Tab completes."""


def _help(ctx: Context, args: list[str]) -> Output:
    return Output(HELP_TEXT)


SESSION_BUILTINS: dict[str, Any] = {"history": _history, "help": _help, "hint": _hint}
