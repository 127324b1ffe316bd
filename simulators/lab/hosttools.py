"""Who and where the learner is on the admin host: `whoami`, `id`, `hostname` and `uname`, as
coreutils 9.1 and net-tools print them on an Ubuntu 22.04 host named kadmin, for the user
admin (uid 1000, in the sudo group)."""

from __future__ import annotations

from simulators.lab.environment import DEFAULT_VARIABLES
from simulators.lab.textutils import Usage, options_of, tool, try_help
from simulators.lab.tool import Context, Output

USER = DEFAULT_VARIABLES["USER"]
HOST = DEFAULT_VARIABLES["HOSTNAME"]
UID = 1000
GROUPS = ((1000, USER), (27, "sudo"))
# uname's fields in the order -a prints them: -s -n -r -v -m -p -i -o.
UNAME = (
    ("s", "Linux"),
    ("n", HOST),
    ("r", "5.15.0-126-generic"),
    ("v", "#136-Ubuntu SMP Wed Nov 6 10:38:22 UTC 2024"),
    ("m", "x86_64"),
    ("p", "x86_64"),
    ("i", "x86_64"),
    ("o", "GNU/Linux"),
)
_UNAME_LONG = {
    "--all": "a", "--kernel-name": "s", "--nodename": "n", "--kernel-release": "r",
    "--kernel-version": "v", "--machine": "m", "--processor": "p", "--hardware-platform": "i",
    "--operating-system": "o",
}  # fmt: skip


def _no_operands(name: str, operands: list[str]) -> None:
    if operands:
        raise Usage(f"{name}: extra operand \u2018{operands[0]}\u2019\n{try_help(name)}")


def _whoami(ctx: Context, args: list[str]) -> Output:
    _no_operands("whoami", options_of(args, "whoami", "")[1])
    return Output(USER)


def _uname(ctx: Context, args: list[str]) -> Output:
    opts, operands = options_of(args, "uname", "asnrvmpio", long=_UNAME_LONG)
    _no_operands("uname", operands)
    wanted = {letter for letter, _ in UNAME} if "a" in opts else set(opts) or {"s"}
    return Output(" ".join(value for letter, value in UNAME if letter in wanted))


def _id(ctx: Context, args: list[str]) -> Output:
    long = {"--user": "u", "--group": "g", "--groups": "G", "--name": "n", "--real": "r"}
    opts, operands = options_of(args, "id", "ugGnr", long=long)
    if operands and operands[0] != USER:
        return Output.error(f"id: \u2018{operands[0]}\u2019: no such user")
    _no_operands("id", operands[1:])
    chosen = [letter for letter in "ugG" if letter in opts]
    if len(chosen) > 1:
        raise Usage(f'id: cannot print "only" of more than one choice\n{try_help("id")}')
    names = "n" in opts
    if not chosen:
        if names or "r" in opts:
            raise Usage(
                f"id: cannot print only names or real IDs in default format\n{try_help('id')}"
            )
        groups = ",".join(f"{number}({name})" for number, name in GROUPS)
        return Output(f"uid={UID}({USER}) gid={GROUPS[0][0]}({GROUPS[0][1]}) groups={groups}")
    if chosen == ["G"]:
        return Output(" ".join(name if names else str(number) for number, name in GROUPS))
    number, name = (UID, USER) if chosen == ["u"] else GROUPS[0]
    return Output(name if names else str(number))


def _hostname(ctx: Context, args: list[str]) -> Output:
    opts, operands = options_of(args, "hostname", "sfaAdyb", long={"--short": "s", "--fqdn": "f"})
    if operands:
        return Output.error("hostname: you must be root to change the host name")
    if "d" in opts or "y" in opts:
        return Output("")  # no domain
    return Output(HOST)


whoami = tool("whoami", _whoami)
uname = tool("uname", _uname)
id_ = tool("id", _id)
hostname = tool("hostname", _hostname)


def ssh(ctx: Context, args: list[str]) -> Output:
    """`ssh NODE`: the lab's nodes take no logins; their tools run in their pods."""
    hosts = [a for a in args if not a.startswith("-")]
    if not hosts:
        return Output.error(
            "usage: ssh [-46AaCfGgKkMNnqsTtVvXxYy] destination [command [argument ...]]", 255
        )
    host = hosts[0].rpartition("@")[2]
    return Output.error(
        f"ssh: {host}: the lab's nodes take no logins; run a node's tools in its pods"
        " (kubectl exec -n gpu-operator ds/nvidia-driver-daemonset -- nvidia-smi)",
        255,
    )


def sudo(ctx: Context, args: list[str]) -> Output:
    """sudo run by its path (`/usr/bin/sudo ls`) or by another program (`xargs sudo`, find's
    `-exec sudo`): the shell's own sudo (simulators.lab.shell.Shell.sudo), over the caller's
    context, as `bash -c` runs a new shell over it."""
    from simulators.lab import shell, shell_compound  # the shell imports this registry

    runner = shell.Shell(ctx, {})
    return runner.sudo(args, shell_compound.Input(ctx.stdin))
