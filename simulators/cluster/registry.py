"""The resource types the lab's cluster serves, as kube-apiserver and the CRDs name them."""

from __future__ import annotations

from simulators.cluster.api import ALL_VERBS, ApiError, ResourceInfo

_R = ResourceInfo
_CORE_ALL = ("all",)
_RBAC = "rbac.authorization.k8s.io"


def _crd(
    group: str,
    version: str,
    kind: str,
    plural: str,
    *,
    short: tuple[str, ...] = (),
    namespaced: bool = True,
    columns: tuple[tuple[str, str, str], ...] | None = None,
    categories: tuple[str, ...] = (),
) -> ResourceInfo:
    # A CRD without additionalPrinterColumns prints NAME and AGE, which is a creationTimestamp
    # column as the API server synthesises it.
    cols = columns if columns is not None else (("Age", "date", ".metadata.creationTimestamp"),)
    return _R(
        group,
        version,
        kind,
        plural,
        kind.lower(),
        short,
        namespaced,
        ALL_VERBS,
        categories,
        ("status",),
        tuple({"name": n, "type": t, "jsonPath": p} for n, t, p in cols),
        custom=True,
    )


RESOURCES: tuple[ResourceInfo, ...] = (
    # core/v1
    _R("", "v1", "Binding", "bindings", "binding", verbs=("create",)),
    _R("", "v1", "ConfigMap", "configmaps", "configmap", ("cm",)),
    _R("", "v1", "Endpoints", "endpoints", "endpoints", ("ep",)),
    _R("", "v1", "Event", "events", "event", ("ev",)),
    _R("", "v1", "LimitRange", "limitranges", "limitrange", ("limits",)),
    _R("", "v1", "Namespace", "namespaces", "namespace", ("ns",), False, subresources=("status",)),
    _R("", "v1", "Node", "nodes", "node", ("no",), False, subresources=("status",)),
    _R(
        "",
        "v1",
        "PersistentVolume",
        "persistentvolumes",
        "persistentvolume",
        ("pv",),
        False,
        subresources=("status",),
    ),
    _R(
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        "persistentvolumeclaim",
        ("pvc",),
        subresources=("status",),
    ),
    _R(
        "",
        "v1",
        "Pod",
        "pods",
        "pod",
        ("po",),
        categories=_CORE_ALL,
        subresources=(
            "attach",
            "binding",
            "ephemeralcontainers",
            "eviction",
            "exec",
            "log",
            "portforward",
            "status",
        ),
    ),
    _R(
        "",
        "v1",
        "ResourceQuota",
        "resourcequotas",
        "resourcequota",
        ("quota",),
        subresources=("status",),
    ),
    _R("", "v1", "Secret", "secrets", "secret"),
    _R(
        "",
        "v1",
        "ServiceAccount",
        "serviceaccounts",
        "serviceaccount",
        ("sa",),
        subresources=("token",),
    ),
    _R(
        "",
        "v1",
        "Service",
        "services",
        "service",
        ("svc",),
        categories=_CORE_ALL,
        subresources=("status",),
    ),
    # apps/v1
    _R("apps", "v1", "ControllerRevision", "controllerrevisions", "controllerrevision"),
    _R(
        "apps",
        "v1",
        "DaemonSet",
        "daemonsets",
        "daemonset",
        ("ds",),
        categories=_CORE_ALL,
        subresources=("status",),
    ),
    _R(
        "apps",
        "v1",
        "Deployment",
        "deployments",
        "deployment",
        ("deploy",),
        categories=_CORE_ALL,
        subresources=("scale", "status"),
    ),
    _R(
        "apps",
        "v1",
        "ReplicaSet",
        "replicasets",
        "replicaset",
        ("rs",),
        categories=_CORE_ALL,
        subresources=("scale", "status"),
    ),
    _R(
        "apps",
        "v1",
        "StatefulSet",
        "statefulsets",
        "statefulset",
        ("sts",),
        categories=_CORE_ALL,
        subresources=("scale", "status"),
    ),
    # batch/v1
    _R("batch", "v1", "Job", "jobs", "job", categories=_CORE_ALL, subresources=("status",)),
    _R(
        "batch",
        "v1",
        "CronJob",
        "cronjobs",
        "cronjob",
        ("cj",),
        categories=_CORE_ALL,
        subresources=("status",),
    ),
    # coordination.k8s.io/v1
    _R("coordination.k8s.io", "v1", "Lease", "leases", "lease"),
    # discovery.k8s.io/v1
    _R("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", "endpointslice"),
    # networking.k8s.io/v1
    _R(
        "networking.k8s.io",
        "v1",
        "Ingress",
        "ingresses",
        "ingress",
        ("ing",),
        subresources=("status",),
    ),
    # node.k8s.io/v1
    _R("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", "runtimeclass", (), False),
    # policy/v1
    _R(
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        "poddisruptionbudget",
        ("pdb",),
        subresources=("status",),
    ),
    # apiextensions.k8s.io/v1: the CRDs of the custom kinds below (cluster/seed.py)
    _R(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        "customresourcedefinition",
        ("crd", "crds"),
        False,
        categories=("api-extensions",),
        subresources=("status",),
    ),
    # rbac.authorization.k8s.io/v1
    _R(
        _RBAC,
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        "clusterrolebinding",
        namespaced=False,
    ),
    _R(_RBAC, "v1", "ClusterRole", "clusterroles", "clusterrole", namespaced=False),
    _R(_RBAC, "v1", "RoleBinding", "rolebindings", "rolebinding"),
    _R(_RBAC, "v1", "Role", "roles", "role"),
    # scheduling.k8s.io/v1
    _R(
        "scheduling.k8s.io",
        "v1",
        "PriorityClass",
        "priorityclasses",
        "priorityclass",
        ("pc",),
        False,
    ),
    # storage.k8s.io/v1
    _R("storage.k8s.io", "v1", "StorageClass", "storageclasses", "storageclass", ("sc",), False),
    # Reviews: answered by the HTTP server, never stored (kubectl auth can-i / whoami)
    _R(
        "authentication.k8s.io",
        "v1",
        "SelfSubjectReview",
        "selfsubjectreviews",
        "selfsubjectreview",
        namespaced=False,
        verbs=("create",),
    ),
    _R(
        "authorization.k8s.io",
        "v1",
        "SelfSubjectAccessReview",
        "selfsubjectaccessreviews",
        "selfsubjectaccessreview",
        namespaced=False,
        verbs=("create",),
    ),
    _R(
        "authorization.k8s.io",
        "v1",
        "SelfSubjectRulesReview",
        "selfsubjectrulesreviews",
        "selfsubjectrulesreview",
        namespaced=False,
        verbs=("create",),
    ),
    # NVIDIA GPU Operator (CRDs as its Helm chart installs them)
    _crd(
        "nvidia.com",
        "v1",
        "ClusterPolicy",
        "clusterpolicies",
        namespaced=False,
        columns=(
            ("Status", "string", ".status.state"),
            ("Age", "string", ".metadata.creationTimestamp"),
        ),
    ),
    _crd(
        "nvidia.com",
        "v1alpha1",
        "NVIDIADriver",
        "nvidiadrivers",
        short=("nvd", "nvdriver", "nvdrivers"),
        namespaced=False,
        columns=(
            ("Status", "string", ".status.state"),
            ("Age", "string", ".metadata.creationTimestamp"),
        ),
    ),
    # NVIDIA Network Operator (Mellanox/network-operator, its NicClusterPolicy CRD)
    _crd(
        "mellanox.com",
        "v1alpha1",
        "NicClusterPolicy",
        "nicclusterpolicies",
        short=("ncp",),
        namespaced=False,
        columns=(
            ("Status", "string", ".status.state"),
            ("Age", "string", ".metadata.creationTimestamp"),
        ),
    ),
    # KAI Scheduler (NVIDIA/KAI-Scheduler deployments/kai-scheduler/crds)
    _crd(
        "scheduling.run.ai",
        "v2",
        "Queue",
        "queues",
        namespaced=False,
        columns=(
            ("Priority", "string", ".spec.priority"),
            ("Parent", "string", ".spec.parentQueue"),
            ("Children", "string", ".status.childQueues"),
            ("DisplayName", "string", ".spec.displayName"),
        ),
    ),
    _crd("scheduling.run.ai", "v2alpha2", "PodGroup", "podgroups", short=("pg",)),
    # Run:ai control plane (not public; closest to what a Run:ai cluster lists)
    _crd("run.ai", "v2alpha1", "TrainingWorkload", "trainingworkloads", short=("tw",)),
    _crd("run.ai", "v2alpha1", "InteractiveWorkload", "interactiveworkloads", short=("iw",)),
    _crd("run.ai", "v2alpha1", "DistributedWorkload", "distributedworkloads", short=("dw",)),
    _crd("run.ai", "v2alpha1", "InferenceWorkload", "inferenceworkloads", short=("ifw",)),
    _crd("run.ai", "v1", "RunaiJob", "runaijobs", short=("rj",)),
    _crd("run.ai", "v2", "Project", "projects", namespaced=False),
    _crd("run.ai", "v1", "Department", "departments", namespaced=False),
)


class Registry:
    """Looks resource types up by what a path or a user names them."""

    def __init__(self, resources: tuple[ResourceInfo, ...] = RESOURCES) -> None:
        self.infos = resources
        self._by_key: dict[str, ResourceInfo] = {}
        self._by_word: dict[str, ResourceInfo] = {}
        for info in resources:
            self._by_key[info.key] = info
            for word in (info.plural, info.singular, info.kind.lower(), *info.short_names):
                self._by_word.setdefault(word, info)
                if info.group:
                    self._by_word.setdefault(f"{word}.{info.group}", info)
                    self._by_word.setdefault(f"{word}.{info.version}.{info.group}", info)
        self._by_kind: dict[tuple[str, str], ResourceInfo] = {
            (info.api_version, info.kind): info for info in resources
        }

    def by_key(self, key: str) -> ResourceInfo:
        info = self._by_key.get(key)
        if info is None:
            info = self._by_word.get(key.lower())
        if info is None:
            raise ApiError(404, "NotFound", f'the server doesn\'t have a resource type "{key}"')
        return info

    def resolve(self, word: str) -> ResourceInfo:
        info = self._by_word.get(word.lower())
        if info is None or info.plural == "bindings":
            raise ApiError(404, "NotFound", f'the server doesn\'t have a resource type "{word}"')
        return info

    def by_kind(self, api_version: str, kind: str) -> ResourceInfo:
        info = self._by_kind.get((api_version, kind))
        if info is None:
            group = api_version.rpartition("/")[0]
            version = api_version.rpartition("/")[2]
            raise ApiError(
                404,
                "NotFound",
                f'no matches for kind "{kind}" in version "{api_version}"',
                {"group": group, "version": version, "kind": kind},
            )
        return info

    def by_path(self, group: str, version: str, plural: str) -> ResourceInfo | None:
        key = f"{plural}.{group}" if group else plural
        info = self._by_key.get(key)
        if info is None or info.version != version:
            return None
        return info


REGISTRY = Registry()
