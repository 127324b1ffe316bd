"""The commands on kadmin's PATH and bash's builtins: one registry, name -> tool.

A tool is `(ctx, args) -> Output` (simulators.lab.tool). To add one, `register` it (with
`files=True` if its operands are files, for Tab completion); the shell (simulators.lab.shell)
dispatches every command word through REGISTRY, and `help`, `type` and `which` read it.
A name not here is `bash: NAME: command not found`.
"""

from __future__ import annotations

from simulators.lab import (
    awk,
    builtins,
    conditions,
    curl,
    diff,
    editor,
    files,
    filetools,
    find,
    grep,
    helm,
    hosttools,
    jqtool,
    kubectl,
    linetools,
    ls,
    pathtools,
    runai,
    sed,
    shell_complete,
    shell_compound,
    sort,
    streams,
    textutils,
    tr,
)
from simulators.lab.tool import Context, Output, Tool

REGISTRY: dict[str, Tool] = {}
# Where `which` finds each program; a name registered without one is a bash builtin.
PATHS: dict[str, str] = {}
FILE_OPERANDS: set[str] = set()
OPTIONS: dict[str, list[str]] = {}


def register(
    name: str,
    tool: Tool,
    *,
    path: str | None = None,
    files: bool = False,
    options: list[str] | None = None,
) -> None:
    """Put a tool on the lab's PATH (`path`: where `which` says it is; None: a builtin)."""
    REGISTRY[name] = tool
    if path is not None:
        PATHS[name] = path
    if files:
        FILE_OPERANDS.add(name)
    if options:
        OPTIONS[name] = options


def _shell_only(name: str) -> Tool:
    def tool(ctx: Context, args: list[str]) -> Output:
        return Output.error(f"bash: {name}: not available here")  # xargs's command

    return tool


def _bash_program(name: str) -> Tool:
    """bash or sh as another program runs it (xargs, find -exec): a new shell over the
    caller's context running a script or `-c COMMAND` in a subshell, as the shell's own
    `bash -c` does (simulators.lab.shell_scripts.bash)."""

    def tool(ctx: Context, args: list[str]) -> Output:
        from simulators.lab import shell, shell_scripts  # the shell imports this registry

        return shell_scripts.bash(shell.Shell(ctx, {}), name, args)

    return tool


def which(ctx: Context, args: list[str]) -> Output:
    found = [PATHS[a] for a in args if a in PATHS]
    return Output("\n".join(found), 0 if len(found) == len(args) and args else 1)


def type_(ctx: Context, args: list[str]) -> Output:
    out, errors = [], []
    for name in args:
        if name in ctx.shell.aliases:
            out.append(f"{name} is aliased to `{ctx.shell.aliases[name]}'")
        elif name in ctx.shell.functions:  # its body as typed (bash prints it reformatted)
            out.append(f"{name} is a function\n{name} () \n{ctx.shell.functions[name]}")
        elif name in PATHS:
            out.append(f"{name} is {PATHS[name]}")
        elif name in REGISTRY:
            out.append(f"{name} is a shell builtin")
        else:
            errors.append(f"bash: type: {name}: not found")
    return Output("\n".join(out), 1 if errors else 0, stderr="\n".join(errors))


def complete(ctx: Context, name: str, words: list[str], current: str) -> list[str]:
    """Tab candidates for a command other than kubectl and runai."""
    if name == "helm":
        return _helm_complete(words, current)
    if current.startswith("-"):
        return _starting(OPTIONS.get(name, []), current)
    if name in ("alias", "unalias", "type", "which"):
        pool = (
            sorted({*ctx.shell.aliases, *REGISTRY})
            if name != "unalias"
            else sorted(ctx.shell.aliases)
        )
        return _starting(pool, current)
    if name in ("cd", "rmdir"):  # folders only, as bash-completion's _cd offers them
        return [p for p in _starting(files.completed(ctx, current), current) if p.endswith("/")]
    if name in FILE_OPERANDS:
        if name in ("sed", "awk", "jq", "grep") and not any(not w.startswith("-") for w in words):
            return []  # the first operand is the script or pattern
        return _starting(files.completed(ctx, current), current)
    return []


def _helm_complete(words: list[str], current: str) -> list[str]:
    if not words:
        return _starting(["list", "repo", "upgrade", "version"], current)
    if words[0] == "upgrade":
        if current.startswith("-"):
            return _starting(
                ["--install", "-i", "--namespace", "-n", "--create-namespace", "--set", "--values"],
                current,
            )
        positionals = [w for w in words[1:] if not w.startswith("-")]
        if len(positionals) == 0:
            return _starting(["runai-cluster", "gpu-operator"], current)
        if len(positionals) == 1:
            return _starting(["runai/runai-cluster", "nvidia/gpu-operator"], current)
    if words[0] == "repo" and len(words) == 1:
        return _starting(["add", "update"], current)
    return []


def _starting(options: list[str], current: str) -> list[str]:
    return [o for o in options if o.startswith(current)]


BIN = "/usr/bin/"
register("kubectl", kubectl.run, path="/usr/local/bin/kubectl")
register("runai", runai.run, path="/usr/local/bin/runai")
register("helm", helm.run, path="/usr/local/bin/helm")
register(
    "ls",
    ls.ls,
    path=BIN + "ls",
    files=True,
    options=["-l", "-a", "-A", "-h", "-1", "-t", "-r", "-S", "-d", "-F", "-R"],
)
register("cat", files.cat, path=BIN + "cat", files=True)
register(
    "diff",
    diff.diff,
    path=BIN + "diff",
    files=True,
    options=["-u", "-c", "-q", "-s", "-i", "-b", "-w", "-B", "-N"],
)
register("rm", filetools.rm, path=BIN + "rm", files=True, options=["-f", "-r", "-i", "-v"])
register("cp", filetools.cp, path=BIN + "cp", files=True, options=["-i", "-n", "-p", "-v"])
register("mv", filetools.mv, path=BIN + "mv", files=True, options=["-f", "-i", "-n", "-v"])
register("touch", filetools.touch, path=BIN + "touch", files=True, options=["-c"])
register("chmod", filetools.chmod, path=BIN + "chmod", files=True, options=["+x", "-v"])
register("mkdir", filetools.mkdir, path=BIN + "mkdir", files=True, options=["-p", "-v", "-m"])
register("rmdir", filetools.rmdir, path=BIN + "rmdir", files=True, options=["-p", "-v"])
register("vi", editor.vi, path="/usr/bin/vi", files=True)
register("vim", editor.vi, path="/usr/bin/vim", files=True)
register("nano", editor.nano, path="/usr/bin/nano", files=True)
register("watch", streams.watch, path="/usr/bin/watch", options=["-n", "-t"])
register("sed", sed.sed, path=BIN + "sed", files=True, options=["-i", "-e", "-E", "-n"])
register(
    "grep",
    grep.grep,
    path=BIN + "grep",
    files=True,
    options=["-i", "-v", "-w", "-x", "-o", "-q", "-l", "-c", "-n", "-E", "-F", "-A", "-B", "-C"],
)
register("find", find.find, path=BIN + "find", files=True, options=["-name", "-type", "-exec"])
register("head", files.head, path=BIN + "head", files=True, options=["-n"])
register("tail", files.tail, path=BIN + "tail", files=True, options=["-n"])
register("wc", textutils.wc, path=BIN + "wc", files=True, options=["-l", "-w", "-c", "-m", "-L"])
register(
    "sort",
    sort.sort,
    path=BIN + "sort",
    files=True,
    options=["-n", "-r", "-u", "-k", "-t", "-h", "-f", "-V"],
)
register("uniq", textutils.uniq, path=BIN + "uniq", files=True, options=["-c", "-d", "-u", "-i"])
register("cut", textutils.cut, path=BIN + "cut", files=True, options=["-d", "-f", "-c", "-s"])
register("tr", tr.tr, path=BIN + "tr", options=["-c", "-d", "-s", "-t"])
register("base64", textutils.base64, path=BIN + "base64", files=True, options=["-d", "-w"])
register("tee", textutils.tee, path=BIN + "tee", files=True, options=["-a"])
register("basename", pathtools.basename, path=BIN + "basename", options=["-a", "-s", "-z"])
register("dirname", pathtools.dirname, path=BIN + "dirname", options=["-z"])
register("tac", linetools.tac, path=BIN + "tac", files=True)
register("rev", linetools.rev, path=BIN + "rev", files=True)
register("nl", linetools.nl, path=BIN + "nl", files=True, options=["-b", "-n", "-w", "-s", "-v"])
register("paste", linetools.paste, path=BIN + "paste", files=True, options=["-d", "-s"])
register("seq", linetools.seq, path=BIN + "seq", options=["-s", "-w", "-f"])
register("column", linetools.column, path=BIN + "column", files=True, options=["-t", "-s", "-o"])
register("less", textutils.less, path=BIN + "less", files=True)
register("more", textutils.more, path=BIN + "more", files=True)
register(
    "jq",
    jqtool.jq,
    path=BIN + "jq",
    files=True,
    options=["-r", "-c", "-n", "-s", "-e", "-S", "--arg"],
)
register("awk", awk.awk, path=BIN + "awk", files=True, options=["-F", "-v", "-f"])
register("echo", builtins.echo)
register("printf", builtins.printf)
register("pwd", builtins.pwd)
register("cd", builtins.cd)
register("export", builtins.export)
register("unset", builtins.unset)
register("alias", builtins.alias)
register("unalias", builtins.unalias)
register("true", builtins.true)
register(":", builtins.true)
register("test", conditions.test, path=BIN + "test")
register("[", conditions.bracket, path=BIN + "[")
register("[[", conditions.double_bracket)
register("read", shell_compound.read_tool)
register("complete", shell_complete.complete)
# The shell runs these itself (simulators.lab.shell_scripts); here for `which` and `type`, and
# for xargs and find's -exec.
for _name in ("bash", "sh"):
    register(_name, _bash_program(_name), path="/usr/bin/" + _name)
for _name in (
    *("source", ".", "shift", "exit", "return", "local", "set", "shopt", "let", "eval"),
    *("declare", "typeset", "readonly", "mapfile", "readarray"),  # simulators.lab.shell_declare
):
    register(_name, _shell_only(_name))
register("break", shell_compound.jump("break"))
register("continue", shell_compound.jump("continue"))
register("false", builtins.false)
register("type", type_)
register("sleep", builtins.sleep, path=BIN + "sleep")
register("date", builtins.date, path=BIN + "date")
register("clear", builtins.clear, path=BIN + "clear")
register("env", builtins.env, path=BIN + "env")
register("which", which, path=BIN + "which")
register("whoami", hosttools.whoami, path=BIN + "whoami")
register("id", hosttools.id_, path=BIN + "id", options=["-u", "-g", "-G", "-n"])
register("hostname", hosttools.hostname, path=BIN + "hostname")
register("uname", hosttools.uname, path=BIN + "uname", options=["-a", "-r", "-m", "-s"])
register("sudo", hosttools.sudo, path=BIN + "sudo")
register("command", _shell_only("command"))
register("ssh", hosttools.ssh, path=BIN + "ssh")
register(
    "curl",
    curl.curl,
    path=BIN + "curl",
    options=["-k", "-H", "-X", "-d", "-s", "-S", "-i", "-o", "-w", "-f", "-v", "--cacert"],
)
register("python3", builtins.python3)
# xargs runs other commands, so the shell itself supplies it (simulators.lab.shell.Shell.xargs).
PATHS["xargs"] = BIN + "xargs"
register("python", builtins.python)
