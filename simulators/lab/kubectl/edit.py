"""kubectl edit: there is no editor on kadmin, so kubectl fails as it does when vi is missing."""

from __future__ import annotations

from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON, KubectlError
from simulators.lab.tool import Context, Output

FLAGS = [*COMMON, Flag("output", long="output", short="o", takes_value=True)]


def run(ctx: Context, parsed: Parsed) -> Output:
    if not parsed.positionals:
        raise KubectlError(
            "error: You must provide one or more resources by argument or filename.\n"
            "Example resource specifications include:\n   '-f rsrc.yaml'\n"
            "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"
        )
    # kubectl's editor is $KUBE_EDITOR, $EDITOR or vi; with none installed exec fails like this.
    return Output.error('error: unable to launch the editor "vi"')
