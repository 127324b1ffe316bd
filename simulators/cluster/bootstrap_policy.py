"""The ClusterRoles and ClusterRoleBindings a kubeadm cluster has from its first minute.

kube-apiserver's RBAC bootstrap (its ``bootstrappolicy``): the user-facing roles ``admin``,
``edit`` and ``view``, which hold no rules of their own but an ``aggregationRule`` that the
clusterrole-aggregation controller fills (``simulators.controllers.clusterrole_aggregation``)
from every ClusterRole labelled ``rbac.authorization.k8s.io/aggregate-to-<role>: "true"``
(``view`` is itself labelled aggregate-to-edit and ``edit`` aggregate-to-admin, so each builds
on the one below); the ``system:aggregate-to-*`` roles that carry their rules; the components'
roles (``system:kube-scheduler``, ``system:node``...) and the discovery and certificate roles,
all labelled ``kubernetes.io/bootstrapping: rbac-defaults`` and annotated ``autoupdate``.
kubeadm adds ``kubeadm:get-nodes`` and ``system:coredns`` and binds the bootstrap token's
group, kube-proxy and CoreDNS. The rules are Kubernetes 1.36's; the ``system:controller:*``
roles of each kube-controller-manager loop are left out.

A rule is written ``_rule(verbs, groups, resources)``, each a space-separated list (``""`` the
core group), in the order the API server returns them.
"""

from __future__ import annotations

from simulators.cluster.api import Obj

RBAC = "rbac.authorization.k8s.io"
AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-"
READ = "get list watch"
WRITE = "create delete deletecollection patch update"
EVERY = "create delete deletecollection get list patch update watch"


def _rule(verbs: str, groups: str | None, resources: str, names: str = "") -> Obj:
    rule: Obj = {}
    if groups is not None:
        rule["apiGroups"] = groups.split(" ") if groups else [""]
        rule["resources"] = resources.split()
        if names:
            rule["resourceNames"] = names.split()
    else:
        rule["nonResourceURLs"] = resources.split()
    rule["verbs"] = verbs.split()
    return rule


def _urls(verbs: str, urls: str) -> Obj:
    return _rule(verbs, None, urls)


_CORE_EVENTS = _rule("create patch update", " events.k8s.io", "events")  # "" and events.k8s.io
_REVIEWS = (
    _rule("create", "authentication.k8s.io", "tokenreviews"),
    _rule("create", "authorization.k8s.io", "subjectaccessreviews"),
)


def _signer(name: str) -> list[Obj]:
    return [_rule("approve", "certificates.k8s.io", "signers", f"kubernetes.io/{name}")]


# name -> (rules, the roles it aggregates or "", the roles it is aggregated into)
ROLES: dict[str, tuple[list[Obj], str, tuple[str, ...]]] = {
    "admin": ([], "admin", ()),
    "cluster-admin": (
        [_rule("*", "*", "*"), _urls("*", "*")],
        "",
        (),
    ),
    "edit": ([], "edit", ("admin",)),
    "system:aggregate-to-admin": (
        [
            _rule("create", "authorization.k8s.io", "localsubjectaccessreviews"),
            _rule(EVERY, RBAC, "rolebindings roles"),
        ],
        "",
        ("admin",),
    ),
    "system:aggregate-to-edit": (
        [
            _rule(
                READ,
                "",
                "pods/attach pods/exec pods/portforward pods/proxy secrets services/proxy",
            ),
            _rule("impersonate", "", "serviceaccounts"),
            _rule(WRITE, "", "pods pods/attach pods/exec pods/portforward pods/proxy"),
            _rule("create", "", "pods/eviction"),
            _rule(
                WRITE,
                "",
                "configmaps events persistentvolumeclaims replicationcontrollers "
                "replicationcontrollers/scale secrets serviceaccounts services services/proxy",
            ),
            _rule("create", "", "serviceaccounts/token"),
            _rule(
                WRITE,
                "apps",
                "daemonsets deployments deployments/rollback deployments/scale replicasets "
                "replicasets/scale statefulsets statefulsets/scale",
            ),
            _rule(WRITE, "autoscaling", "horizontalpodautoscalers"),
            _rule(WRITE, "batch", "cronjobs jobs"),
            _rule(
                WRITE,
                "extensions",
                "daemonsets deployments deployments/rollback deployments/scale ingresses "
                "networkpolicies replicasets replicasets/scale replicationcontrollers/scale",
            ),
            _rule(WRITE, "policy", "poddisruptionbudgets"),
            _rule(WRITE, "networking.k8s.io", "ingresses networkpolicies"),
            _rule(EVERY, "coordination.k8s.io", "leases"),
        ],
        "",
        ("edit",),
    ),
    "system:aggregate-to-view": (
        [
            _rule(
                READ,
                "",
                "configmaps endpoints persistentvolumeclaims persistentvolumeclaims/status pods "
                "replicationcontrollers replicationcontrollers/scale serviceaccounts services "
                "services/status",
            ),
            _rule(
                READ,
                "",
                "bindings events limitranges namespaces/status pods/log pods/status "
                "replicationcontrollers/status resourcequotas resourcequotas/status",
            ),
            _rule(READ, "", "namespaces"),
            _rule(READ, "discovery.k8s.io", "endpointslices"),
            _rule(
                READ,
                "apps",
                "controllerrevisions daemonsets daemonsets/status deployments deployments/scale "
                "deployments/status replicasets replicasets/scale replicasets/status statefulsets "
                "statefulsets/scale statefulsets/status",
            ),
            _rule(READ, "autoscaling", "horizontalpodautoscalers horizontalpodautoscalers/status"),
            _rule(READ, "batch", "cronjobs cronjobs/status jobs jobs/status"),
            _rule(
                READ,
                "extensions",
                "daemonsets daemonsets/status deployments deployments/scale deployments/status "
                "ingresses ingresses/status networkpolicies replicasets replicasets/scale "
                "replicasets/status replicationcontrollers/scale",
            ),
            _rule(READ, "policy", "poddisruptionbudgets poddisruptionbudgets/status"),
            _rule(READ, "networking.k8s.io", "ingresses ingresses/status networkpolicies"),
        ],
        "",
        ("view",),
    ),
    "system:auth-delegator": (list(_REVIEWS), "", ()),
    "system:basic-user": (
        [
            _rule(
                "create", "authorization.k8s.io", "selfsubjectaccessreviews selfsubjectrulesreviews"
            ),
            _rule("create", "authentication.k8s.io", "selfsubjectreviews"),
        ],
        "",
        (),
    ),
    "system:certificates.k8s.io:certificatesigningrequests:nodeclient": (
        [_rule("create", "certificates.k8s.io", "certificatesigningrequests/nodeclient")],
        "",
        (),
    ),
    "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient": (
        [_rule("create", "certificates.k8s.io", "certificatesigningrequests/selfnodeclient")],
        "",
        (),
    ),
    "system:certificates.k8s.io:kube-apiserver-client-approver": (
        _signer("kube-apiserver-client"),
        "",
        (),
    ),
    "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver": (
        _signer("kube-apiserver-client-kubelet"),
        "",
        (),
    ),
    "system:certificates.k8s.io:kubelet-serving-approver": (_signer("kubelet-serving"), "", ()),
    "system:certificates.k8s.io:legacy-unknown-approver": (_signer("legacy-unknown"), "", ()),
    "system:discovery": (
        [
            _urls(
                "get",
                "/api /api/* /apis /apis/* /healthz /livez /openapi /openapi/* /readyz /version "
                "/version/",
            )
        ],
        "",
        (),
    ),
    "system:heapster": (
        [_rule(READ, "", "events namespaces nodes pods"), _rule(READ, "extensions", "deployments")],
        "",
        (),
    ),
    "system:kube-aggregator": ([_rule(READ, "", "endpoints services")], "", ()),
    "system:kube-controller-manager": (
        [
            _CORE_EVENTS,
            _rule("create", "coordination.k8s.io", "leases"),
            _rule("get update", "coordination.k8s.io", "leases", "kube-controller-manager"),
            _rule("create", "", "secrets serviceaccounts"),
            _rule("delete", "", "secrets"),
            _rule("get", "", "configmaps namespaces secrets serviceaccounts"),
            _rule("update", "", "secrets serviceaccounts"),
            *_REVIEWS,
            _rule("list watch", "*", "*"),
            _rule("create", "", "serviceaccounts/token"),
        ],
        "",
        (),
    ),
    "system:kube-dns": ([_rule("list watch", "", "endpoints services")], "", ()),
    "system:kube-scheduler": (
        [
            _CORE_EVENTS,
            _rule("create", "coordination.k8s.io", "leases"),
            _rule("get update", "coordination.k8s.io", "leases", "kube-scheduler"),
            _rule(READ, "", "nodes"),
            _rule("delete get list watch", "", "pods"),
            _rule("create", "", "bindings pods/binding"),
            _rule("patch update", "", "pods/status"),
            _rule(READ, "", "replicationcontrollers services"),
            _rule(READ, "apps extensions", "replicasets"),
            _rule(READ, "apps", "statefulsets"),
            _rule(READ, "policy", "poddisruptionbudgets"),
            _rule(READ, "", "persistentvolumeclaims persistentvolumes"),
            *_REVIEWS,
            _rule(READ, "storage.k8s.io", "csinodes"),
            _rule(READ, "", "namespaces"),
            _rule(READ, "storage.k8s.io", "csidrivers"),
            _rule(READ, "storage.k8s.io", "csistoragecapacities"),
        ],
        "",
        (),
    ),
    "system:kubelet-api-admin": (
        [
            _rule(READ, "", "nodes"),
            _rule("proxy", "", "nodes"),
            _rule("*", "", "nodes/log nodes/metrics nodes/proxy nodes/stats"),
        ],
        "",
        (),
    ),
    "system:monitoring": (
        [
            _urls(
                "get",
                "/healthz /healthz/* /livez /livez/* /metrics /metrics/slis /readyz /readyz/*",
            )
        ],
        "",
        (),
    ),
    "system:node": (
        [
            _rule("create", "authentication.k8s.io", "tokenreviews"),
            _rule(
                "create", "authorization.k8s.io", "localsubjectaccessreviews subjectaccessreviews"
            ),
            _rule(READ, "", "services"),
            _rule("create get list watch", "", "nodes"),
            _rule("patch update", "", "nodes/status"),
            _rule("patch update", "", "nodes"),
            _rule("create patch update", "", "events"),
            _rule(READ, "", "pods"),
            _rule("create delete", "", "pods"),
            _rule("patch update", "", "pods/status"),
            _rule("create", "", "pods/eviction"),
            _rule(READ, "", "configmaps secrets"),
            _rule("get", "", "persistentvolumeclaims persistentvolumes"),
            _rule("get", "", "endpoints"),
            _rule("create get list watch", "certificates.k8s.io", "certificatesigningrequests"),
            _rule("create delete get patch update", "coordination.k8s.io", "leases"),
            _rule("get", "storage.k8s.io", "volumeattachments"),
            _rule("create", "", "serviceaccounts/token"),
            _rule("get patch update", "", "persistentvolumeclaims/status"),
            _rule(READ, "storage.k8s.io", "csidrivers"),
            _rule("create delete get patch update", "storage.k8s.io", "csinodes"),
            _rule(READ, "node.k8s.io", "runtimeclasses"),
        ],
        "",
        (),
    ),
    "system:node-bootstrapper": (
        [_rule("create get list watch", "certificates.k8s.io", "certificatesigningrequests")],
        "",
        (),
    ),
    "system:node-problem-detector": (
        [
            _rule("get", "", "nodes"),
            _rule("patch", "", "nodes/status"),
            _CORE_EVENTS,
        ],
        "",
        (),
    ),
    "system:node-proxier": (
        [
            _rule("list watch", "", "endpoints services"),
            _rule(READ, "", "nodes"),
            _CORE_EVENTS,
            _rule("list watch", "discovery.k8s.io", "endpointslices"),
        ],
        "",
        (),
    ),
    "system:persistent-volume-provisioner": (
        [
            _rule("create delete get list watch", "", "persistentvolumes"),
            _rule("get list update watch", "", "persistentvolumeclaims"),
            _rule(READ, "storage.k8s.io", "storageclasses"),
            _rule("watch", "", "events"),
            _CORE_EVENTS,
        ],
        "",
        (),
    ),
    "system:public-info-viewer": (
        [_urls("get", "/healthz /livez /readyz /version /version/")],
        "",
        (),
    ),
    "system:service-account-issuer-discovery": (
        [_urls("get", "/.well-known/openid-configuration /openid/v1/jwks")],
        "",
        (),
    ),
    "system:volume-scheduler": (
        [
            _rule("get list patch update watch", "", "persistentvolumes"),
            _rule(READ, "storage.k8s.io", "storageclasses"),
            _rule("get list patch update watch", "", "persistentvolumeclaims"),
        ],
        "",
        (),
    ),
    "view": ([], "view", ("edit",)),
}
# kubeadm's own, without the bootstrap label and annotation.
KUBEADM_ROLES: dict[str, list[Obj]] = {
    "kubeadm:get-nodes": [_rule("get", "", "nodes")],
    "system:coredns": [
        _rule("list watch", "", "endpoints services pods namespaces"),
        _rule("list watch", "discovery.k8s.io", "endpointslices"),
    ],
}
_TOKEN_GROUP = "Group:system:bootstrappers:kubeadm:default-node-token"
# binding name -> (cluster role, subjects as "Kind:name" or "ServiceAccount:namespace/name")
BINDINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cluster-admin": ("cluster-admin", ("Group:system:masters",)),
    "kubeadm:cluster-admins": ("cluster-admin", ("Group:kubeadm:cluster-admins",)),
    "kubeadm:get-nodes": ("kubeadm:get-nodes", (_TOKEN_GROUP,)),
    "kubeadm:kubelet-bootstrap": ("system:node-bootstrapper", (_TOKEN_GROUP,)),
    "kubeadm:node-autoapprove-bootstrap": (
        "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
        (_TOKEN_GROUP,),
    ),
    "kubeadm:node-autoapprove-certificate-rotation": (
        "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
        ("Group:system:nodes",),
    ),
    "kubeadm:node-proxier": ("system:node-proxier", ("ServiceAccount:kube-system/kube-proxy",)),
    "system:basic-user": ("system:basic-user", ("Group:system:authenticated",)),
    "system:coredns": ("system:coredns", ("ServiceAccount:kube-system/coredns",)),
    "system:discovery": ("system:discovery", ("Group:system:authenticated",)),
    "system:kube-controller-manager": (
        "system:kube-controller-manager",
        ("User:system:kube-controller-manager",),
    ),
    "system:kube-dns": ("system:kube-dns", ("ServiceAccount:kube-system/kube-dns",)),
    "system:kube-scheduler": ("system:kube-scheduler", ("User:system:kube-scheduler",)),
    "system:monitoring": ("system:monitoring", ("Group:system:monitoring",)),
    "system:node": ("system:node", ()),
    "system:node-proxier": ("system:node-proxier", ("User:system:kube-proxy",)),
    "system:public-info-viewer": (
        "system:public-info-viewer",
        ("Group:system:authenticated", "Group:system:unauthenticated"),
    ),
    "system:service-account-issuer-discovery": (
        "system:service-account-issuer-discovery",
        ("Group:system:serviceaccounts",),
    ),
    "system:volume-scheduler": ("system:volume-scheduler", ("User:system:kube-scheduler",)),
}
_BOOTSTRAP_LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
_BOOTSTRAP_ANNOTATIONS = {"rbac.authorization.kubernetes.io/autoupdate": "true"}


def _meta(name: str, labels: dict[str, str] | None = None) -> Obj:
    if name.startswith("kubeadm:") or name in KUBEADM_ROLES:
        return {"name": name}
    return {
        "name": name,
        "labels": {**_BOOTSTRAP_LABELS, **(labels or {})},
        "annotations": dict(_BOOTSTRAP_ANNOTATIONS),
    }


def cluster_roles() -> list[Obj]:
    """Every ClusterRole above as it is created, before aggregation (an aggregated role's
    ``rules`` null, as kube-apiserver's bootstrap stores it)."""
    objects: list[Obj] = []
    for name, (rules, aggregates, into) in ROLES.items():
        labels = {f"{AGGREGATE_TO}{role}": "true" for role in into}
        obj: Obj = {"metadata": _meta(name, labels)}
        if aggregates:
            obj["aggregationRule"] = {
                "clusterRoleSelectors": [{"matchLabels": {f"{AGGREGATE_TO}{aggregates}": "true"}}]
            }
            obj["rules"] = None
        else:
            obj["rules"] = rules
        objects.append(obj)
    objects += [{"metadata": _meta(n), "rules": rules} for n, rules in KUBEADM_ROLES.items()]
    return objects


def _subject(text: str) -> Obj:
    kind, _, name = text.partition(":")
    if kind == "ServiceAccount":
        namespace, _, account = name.partition("/")
        return {"kind": kind, "name": account, "namespace": namespace}
    return {"apiGroup": RBAC, "kind": kind, "name": name}


def cluster_role_bindings() -> list[Obj]:
    """Every ClusterRoleBinding above (``system:node``'s with no subjects, as kubeadm's is)."""
    objects: list[Obj] = []
    for name, (role, subjects) in BINDINGS.items():
        obj: Obj = {
            "metadata": _meta(name),
            "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role},
        }
        if subjects:
            obj["subjects"] = [_subject(s) for s in subjects]
        objects.append(obj)
    return objects
