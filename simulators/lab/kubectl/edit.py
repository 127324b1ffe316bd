"""kubectl edit: there is no editor on kadmin, so kubectl fails as it does when vi is missing."""

from __future__ import annotations

from simulators.cluster.api import ApiError
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    KubectlError,
    error_text,
    namespace,
    targets,
)
from simulators.lab.tool import Context, Output

FLAGS = [*COMMON, Flag("output", long="output", short="o", takes_value=True)]


def run(ctx: Context, parsed: Parsed) -> Output:
    if not parsed.positionals:
        raise KubectlError(
            "error: You must provide one or more resources by argument or filename.\n"
            "Example resource specifications include:\n   '-f rsrc.yaml'\n"
            "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"
        )
    # kubectl fetches what it will edit first, so a wrong name is the server's error.
    cluster = ctx.api
    for group in targets(cluster, parsed.positionals, verb="edit"):
        scope = namespace(parsed) if group.info.namespaced else None
        for name in group.names:
            try:
                cluster.get(group.info.key, name, scope)
            except ApiError as exc:
                return Output.error(error_text(exc))
    # kubectl's editor is $KUBE_EDITOR, $EDITOR or vi; with none installed exec fails like this.
    return Output.error('error: unable to launch the editor "vi"')
