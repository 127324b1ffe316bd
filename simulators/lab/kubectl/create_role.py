"""kubectl create role and create clusterrole (upstream's create_role.go and
create_clusterrole.go): `--verb`, `--resource`, `--resource-name`, and for a ClusterRole
`--non-resource-url` and `--aggregation-rule`, validated and grouped into rules as kubectl does.

Each resource is resolved through the server's discovery as kubectl's REST mapper does (short
names and kinds to plurals, `kind.group`), then the rules are one per API group, in the groups'
sorted order, with the non-resource URLs in a rule of their own at the end. Validation runs
before anything reaches the server, so a mistake costs nothing; a verb kubectl does not know is
a warning, as in kubectl.
"""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.create_names import Generator, one_name, string_slice

FLAGS = [
    Flag("verb", long="verb", takes_value=True),
    Flag("resource", long="resource", takes_value=True),
    Flag("resource-name", long="resource-name", takes_value=True),
    Flag("non-resource-url", long="non-resource-url", takes_value=True),
    Flag("aggregation-rule", long="aggregation-rule", takes_value=True),
]
RBAC = "rbac.authorization.k8s.io"
VALID_RESOURCE_VERBS = {
    "*",
    "get",
    "delete",
    "list",
    "create",
    "update",
    "patch",
    "watch",
    "proxy",
    "deletecollection",
    "use",
    "bind",
    "escalate",
    "impersonate",
}
VALID_NON_RESOURCE_VERBS = {"*", "get", "post", "put", "delete", "patch", "head", "options"}
# Verbs that make sense on a few (group, resource) pairs only.
SPECIAL_VERBS = {
    "use": {("policy", "podsecuritypolicies"), ("extensions", "podsecuritypolicies")},
    "bind": {(RBAC, "roles"), (RBAC, "clusterroles")},
    "escalate": {(RBAC, "roles"), (RBAC, "clusterroles")},
    "impersonate": {
        ("", "users"),
        ("", "serviceaccounts"),
        ("", "groups"),
        ("authentication.k8s.io", "userextras"),
    },
}


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _verbs(parsed: Parsed) -> list[str]:
    verbs = string_slice(parsed, "verb")
    # "*" stands for every verb: the others are dropped.
    return ["*"] if "*" in verbs else _unique(verbs)


def _resources(parsed: Parsed) -> list[tuple[str, str, str]]:
    """(resource, group, subresource) for each --resource, as schema.ParseResourceArg splits
    `resource.group/subresource` (a `resource.version.group` keeps `version.group` as its
    group, as kubectl's create role does)."""
    out: list[tuple[str, str, str]] = []
    for item in string_slice(parsed, "resource"):
        head, _, sub = item.partition("/")
        resource, _, group = head.partition(".")
        if (resource, group, sub) not in out:
            out.append((resource, group, sub))
    return out


def _aggregation_rule(parsed: Parsed) -> dict[str, str]:
    labels: dict[str, str] = {}
    for value in parsed.all("aggregation-rule"):
        for pair in value.split(","):
            key, sep, val = pair.partition("=")
            if not sep:
                raise KubectlError(
                    f'error: invalid argument "{value}" for "--aggregation-rule" flag: '
                    "malformed pair, expect string=string\n"
                    "See 'kubectl create clusterrole --help' for usage."
                )
            labels[key.strip()] = val.strip()
    return labels


def _mapped(api: ClusterAPI, resource: str, group: str) -> tuple[str, str] | None:
    """(group, plural) as the REST mapper finds it, or None where the server serves nothing."""
    try:
        info = api.resolve(f"{resource}.{group}" if group else resource)
    except ApiError:
        return None
    if group and info.group != group:
        return None
    return info.group, info.plural


def _validate_resources(
    api: ClusterAPI, verbs: list[str], resources: list[tuple[str, str, str]]
) -> None:
    if any(resource == "*" for resource, _, _ in resources):
        return  # every resource: nothing to look up (kubectl checks nothing more)
    for resource, group, _sub in resources:
        if not resource:
            raise KubectlError(
                "error: resource must be specified if apiGroup/subresource specified"
            )
        mapped = _mapped(api, resource, group)
        found = mapped or (group, resource)
        for verb in verbs:
            allowed = SPECIAL_VERBS.get(verb)
            if allowed is not None:
                if found not in allowed:
                    raise KubectlError(
                        f"error: can not perform '{verb}' on '{found[1]}' in group '{found[0]}'"
                    )
                mapped = found
        if mapped is None:
            where = f' in group "{group}"' if group else ""
            raise KubectlError(f'the server doesn\'t have a resource type "{resource}"{where}')


def _warnings(verbs: list[str]) -> list[str]:
    return [
        f"Warning: '{verb}' is not a standard resource verb"
        for verb in verbs
        if verb not in VALID_RESOURCE_VERBS
    ]


def _rules(
    api: ClusterAPI,
    verbs: list[str],
    resources: list[tuple[str, str, str]],
    names: list[str],
    urls: list[str],
) -> list[Obj]:
    by_group: dict[str, list[str]] = {}
    for resource, group, sub in resources:
        group, plural = _mapped(api, resource, group) or (group, resource)
        if sub:
            plural = f"{plural}/{sub}"
        listed = by_group.setdefault(group, [])
        if plural not in listed:
            listed.append(plural)
    rules: list[Obj] = []
    for group in sorted(by_group):
        rule: Obj = {"verbs": list(verbs), "apiGroups": [group], "resources": by_group[group]}
        if names:
            rule["resourceNames"] = list(names)
        rules.append(rule)
    if urls:
        rules.append({"verbs": list(verbs), "nonResourceURLs": list(urls)})
    return rules


def role_generator(cluster_wide: bool, api: ClusterAPI, warnings: list[str]) -> Generator:
    """The generator for `create role` (or `create clusterrole`), resolving on `api` and
    appending kubectl's warnings to `warnings`."""
    kind = "ClusterRole" if cluster_wide else "Role"
    command = f"create {kind.lower()}"

    def build(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
        name = one_name(command, [name, *rest] if name else rest)
        verbs, resources = _verbs(parsed), _resources(parsed)
        names = parsed.all("resource-name")
        urls = _unique(string_slice(parsed, "non-resource-url")) if cluster_wide else []
        aggregation = _aggregation_rule(parsed) if cluster_wide else {}
        obj: Obj = {"apiVersion": f"{RBAC}/v1", "kind": kind, "metadata": {"name": name}}
        if aggregation:
            if urls or verbs or resources or names:
                raise KubectlError(
                    "error: aggregation rule must be specified without nonResourceURLs, verbs, "
                    "resources or resourceNames"
                )
            obj["rules"] = None
            obj["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": aggregation}]}
            return f"clusterroles.{RBAC}", obj
        if not verbs:
            raise KubectlError("error: at least one verb must be specified")
        if cluster_wide:
            if not resources and not urls:
                raise KubectlError("error: one of resource or nonResourceURL must be specified")
        else:
            warnings.extend(_warnings(verbs))
            if not resources:
                raise KubectlError("error: at least one resource must be specified")
        if resources:
            if cluster_wide:
                warnings.extend(_warnings(verbs))
            _validate_resources(api, verbs, resources)
        if urls:
            _validate_urls(verbs, urls)
        obj["rules"] = _rules(api, verbs, resources, names, urls)
        plural = "clusterroles" if cluster_wide else "roles"
        return f"{plural}.{RBAC}", obj

    return build


def _validate_urls(verbs: list[str], urls: list[str]) -> None:
    for verb in verbs:
        if verb not in VALID_NON_RESOURCE_VERBS:
            raise KubectlError(f"error: invalid verb: '{verb}' for nonResourceURL")
    for url in urls:
        if url == "*":
            continue
        if not url.startswith("/"):
            raise KubectlError("error: nonResourceURL should start with /")
        if "*" in url[:-1]:
            raise KubectlError(
                "error: nonResourceURL only supports wildcard matches when '*' is at the end"
            )
