"""kubectl auth can-i and auth whoami, answered from the cluster's RBAC objects as the API
server's authorizer answers them (simulators.cluster.access): the lab's user is kubeadm's
`kubernetes-admin` (`kubeadm:cluster-admins`), a cluster admin until a ticket binds it otherwise."""

from __future__ import annotations

from simulators.cluster import access
from simulators.cluster.api import ApiError
from simulators.cluster.impersonation import Impersonating
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl import auth_reconcile, rbac_rules
from simulators.lab.kubectl.common import COMMON, KubectlError, namespace, usage
from simulators.lab.kubectl.printing import object_output, object_text, to_json
from simulators.lab.kubectl.tabwriter import table
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("all-namespaces", long="all-namespaces", short="A"),
    Flag("quiet", long="quiet", short="q"),
    Flag("subresource", long="subresource", takes_value=True),
    Flag("output", long="output", short="o", takes_value=True),
    Flag("list", long="list"),
    Flag("no-headers", long="no-headers"),
    *auth_reconcile.FLAGS,
]

HELP = """Inspect authorization.

Available Commands:
  can-i         Check whether an action is allowed
  reconcile     Reconciles rules for RBAC role, role binding, cluster role, and cluster role \
binding objects
  whoami        Experimental: Check self subject attributes

Usage:
  kubectl auth [flags] [options]

Use "kubectl auth <command> --help" for more information about a given command.
Use "kubectl options" for a list of global command-line options (applies to all commands)."""


def run(ctx: Context, parsed: Parsed) -> Output:
    if not parsed.positionals:
        return Output(HELP, 1)
    action, args = parsed.positionals[0], parsed.positionals[1:]
    if action == "whoami":
        return _whoami(parsed, connected(ctx))
    if action == "can-i":
        return _can_i(ctx, parsed, args)
    if action == "reconcile":
        return auth_reconcile.run(ctx, parsed, args)
    raise KubectlError(f'error: unknown command "{action}" for "kubectl auth"')


def connected(ctx: Context) -> access.Identity:
    """Whom the kubeconfig's user authenticates as (kubectl's run puts a service account's
    token user on `ctx.acting`); the reviews themselves are the server's to answer."""
    return ctx.acting.who if isinstance(ctx.acting, Impersonating) else access.ADMIN


def identity(parsed: Parsed, base: access.Identity = access.ADMIN) -> access.Identity:
    """Whom the command acts as: the kubeconfig's user (`base`), or whom `--as` (with
    `--as-group`) impersonates; only the admin may impersonate (a service account would need
    RBAC's `impersonate` verb, which the lab's tickets never grant)."""
    user = parsed.value("as")
    if not user:
        if parsed.all("as-group"):
            raise KubectlError(
                f"error: requesting uid, groups or user-extra for {base.user} without "
                "impersonating a user"
            )
        return base
    if base != access.ADMIN:
        raise KubectlError(
            f'Error from server (Forbidden): users "{user}" is forbidden: User "{base.user}" '
            'cannot impersonate resource "users" in API group "" at the cluster scope'
        )
    return access.impersonated(user, parsed.all("as-group"))


def _whoami(parsed: Parsed, base: access.Identity) -> Output:
    """The SelfSubjectReview's user, as a table or in any -o PrintFlags take."""
    who = identity(parsed, base)
    output = object_output(parsed) if parsed.value("output") else ""
    if not output:
        rows = [["ATTRIBUTE", "VALUE"], ["Username", who.user]]
        rows.append(["Groups", "[" + " ".join(who.groups) + "]"])
        return Output(table(rows))
    review = {
        "kind": "SelfSubjectReview",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {},
        "status": {"userInfo": access.user_info(who)},
    }
    if output == "json":
        return Output(to_json(review, sort_keys=False))
    label = "selfsubjectreview.authentication.k8s.io/<unknown>"
    return Output(object_text(review, label, output, "")
                  .removesuffix("\n"))  # fmt: skip


def _can_i(ctx: Context, parsed: Parsed, args: list[str]) -> Output:
    if parsed.has("list"):
        if args:
            raise KubectlError("error: list option must be specified with no arguments")
        return _list(ctx, parsed)
    if len(args) not in (2, 3):
        raise KubectlError(
            "error: you must specify two arguments: verb resource or verb resource/resourceName."
            f"\n{usage('auth can-i')}."
        )
    verb, resource = args[0], args[1]
    warning = ""
    attrs: dict[str, str] = {"verb": verb}
    if resource.startswith("/"):
        attrs = {"verb": verb, "path": resource}
    elif resource != "*":
        word, _, name = resource.partition("/")
        attrs["name"] = name
        namespaced = True
        try:
            info = ctx.api.resolve(word)
            attrs.update(resource=info.plural, group=info.group)
            namespaced = info.namespaced
        except ApiError:
            # kubectl reads RESOURCE.GROUP at the first dot.
            plural, _, group = word.partition(".")
            attrs.update(resource=plural, group=group)
            where = f" in group '{group}'" if group else ""
            warning = f"Warning: the server doesn't have a resource type '{plural}'{where}\n\n"
        if not parsed.has("all-namespaces"):
            # kubectl sends its namespace for any resource (RBAC then applies that
            # namespace's RoleBindings), and warns for a cluster-scoped one.
            attrs["namespace"] = namespace(parsed)
            if not namespaced:
                shown = ".".join(p for p in (attrs["resource"], attrs["group"]) if p)
                warning = f"Warning: resource '{shown}' is not namespace scoped\n\n"
    else:
        attrs.update(resource="*", group="*")
    allowed, _why = access.can(ctx.world.api, attrs, identity(parsed, connected(ctx)))
    if parsed.has("quiet"):
        return Output("", 0 if allowed else 1)
    return Output(f"{warning}{'yes' if allowed else 'no'}", 0 if allowed else 1)


def _list(ctx: Context, parsed: Parsed) -> Output:
    """`auth can-i --list`: the SelfSubjectRulesReview's rules, as kubectl prints them."""
    status = access.rules(ctx.world.api, namespace(parsed), identity(parsed, connected(ctx)))
    headers = [] if parsed.has("no-headers") else [rbac_rules.HEADER]
    rows = headers + rbac_rules.rows([*status["resourceRules"], *status["nonResourceRules"]])
    return Output(table(rows))
