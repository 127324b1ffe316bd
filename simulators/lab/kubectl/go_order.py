"""Go's JSON field order for the typed objects kubectl prints with -o json.

A created object is printed from its Go struct (k8s.io/api), so its fields come in each struct's
declaration order and a map's keys sorted. The order is per struct type: PodSpec puts
`automountServiceAccountToken` before `imagePullSecrets`, ServiceAccount the other way round, so
no single order serves every kind. `STRUCTS` declares each struct's fields, a field naming the
struct type of its value ("map" for a map, "" for a scalar or a list of scalars); `KINDS` gives
the struct of each kind's top level. A field no struct declares keeps its place after the
declared ones, in sorted order (as a map's keys would be).
"""

from __future__ import annotations

from typing import Any

_META = (("kind", ""), ("apiVersion", ""), ("metadata", "ObjectMeta"))


def _fields(*pairs: str) -> tuple[tuple[str, str], ...]:
    """`"name:Type"` pairs (a bare name is a scalar) in declaration order."""
    return tuple((p.partition(":")[0], p.partition(":")[2]) for p in pairs)


STRUCTS: dict[str, tuple[tuple[str, str], ...]] = {
    "ObjectMeta": _fields(
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels:map",
        "annotations:map",
        "ownerReferences:OwnerReference",
        "finalizers",
        "managedFields",
    ),
    "OwnerReference": _fields(
        "apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"
    ),
    "LabelSelector": _fields("matchLabels:map", "matchExpressions:Requirement"),
    "Requirement": _fields("key", "operator", "values"),
    # core/v1
    "Pod": (*_META, *_fields("spec:PodSpec", "status:PodStatus")),
    "Node": (*_META, *_fields("spec:NodeSpec", "status:NodeStatus")),
    "NodeSpec": _fields(
        "podCIDR",
        "podCIDRs",
        "providerID",
        "unschedulable",
        "taints:Taint",
        "configSource",
        "externalID",
    ),
    "Taint": _fields("key", "value", "effect", "timeAdded"),
    "NodeStatus": _fields(
        "capacity:map",
        "allocatable:map",
        "phase",
        "conditions:NodeCondition",
        "addresses:NodeAddress",
        "daemonEndpoints",
        "nodeInfo:NodeSystemInfo",
        "images:ContainerImage",
        "volumesInUse",
        "volumesAttached",
        "config",
        "runtimeHandlers",
        "features",
    ),
    "NodeCondition": _fields(
        "type", "status", "lastHeartbeatTime", "lastTransitionTime", "reason", "message"
    ),
    "NodeAddress": _fields("type", "address"),
    "NodeSystemInfo": _fields(
        "machineID",
        "systemUUID",
        "bootID",
        "kernelVersion",
        "osImage",
        "containerRuntimeVersion",
        "kubeletVersion",
        "kubeProxyVersion",
        "operatingSystem",
        "architecture",
        "swap",
    ),
    "ContainerImage": _fields("names", "sizeBytes"),
    "EventList": (*_META, *_fields("items:Event")),
    "Event": (
        *_META,
        *_fields(
            "involvedObject:ObjectReference",
            "reason",
            "message",
            "source:EventSource",
            "firstTimestamp",
            "lastTimestamp",
            "count",
            "type",
            "eventTime",
            "series:EventSeries",
            "action",
            "related:ObjectReference",
            "reportingComponent",
            "reportingInstance",
        ),
    ),
    "ObjectReference": _fields(
        "kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"
    ),
    "EventSource": _fields("component", "host"),
    "EventSeries": _fields("count", "lastObservedTime"),
    # Volume: its name, then the one source set (VolumeSource, inline).
    "Volume": _fields("name"),
    "VolumeMount": _fields(
        "name",
        "readOnly",
        "recursiveReadOnly",
        "mountPath",
        "subPath",
        "mountPropagation",
        "subPathExpr",
    ),
    "PodTemplateSpec": _fields("metadata:ObjectMeta", "spec:PodSpec"),
    "PodSpec": _fields(
        "volumes:Volume",
        "initContainers:Container",
        "containers:Container",
        "ephemeralContainers:Container",
        "restartPolicy",
        "terminationGracePeriodSeconds",
        "activeDeadlineSeconds",
        "dnsPolicy",
        "nodeSelector:map",
        "serviceAccountName",
        "serviceAccount",
        "automountServiceAccountToken",
        "nodeName",
        "hostNetwork",
        "hostPID",
        "hostIPC",
        "shareProcessNamespace",
        "securityContext",
        "imagePullSecrets",
        "hostname",
        "subdomain",
        "affinity",
        "schedulerName",
        "tolerations:Toleration",
        "hostAliases",
        "priorityClassName",
        "priority",
        "dnsConfig",
        "readinessGates",
        "runtimeClassName",
        "enableServiceLinks",
        "preemptionPolicy",
        "overhead:map",
        "topologySpreadConstraints",
        "setHostnameAsFQDN",
        "os",
        "hostUsers",
        "schedulingGates",
        "resourceClaims",
        "resources:ResourceRequirements",
    ),
    "Container": _fields(
        "name",
        "image",
        "command",
        "args",
        "workingDir",
        "ports:ContainerPort",
        "envFrom",
        "env:EnvVar",
        "resources:ResourceRequirements",
        "resizePolicy",
        "restartPolicy",
        "restartPolicyRules",
        "volumeMounts:VolumeMount",
        "volumeDevices",
        "livenessProbe",
        "readinessProbe",
        "startupProbe",
        "lifecycle",
        "terminationMessagePath",
        "terminationMessagePolicy",
        "imagePullPolicy",
        "securityContext",
        "stdin",
        "stdinOnce",
        "tty",
    ),
    "ContainerPort": _fields("name", "hostPort", "containerPort", "protocol", "hostIP"),
    "EnvVar": _fields("name", "value", "valueFrom:EnvVarSource"),
    "EnvVarSource": _fields(
        "fieldRef:ObjectFieldSelector",
        "resourceFieldRef:ResourceFieldSelector",
        "configMapKeyRef:KeySelector",
        "secretKeyRef:KeySelector",
        "fileKeyRef",
    ),
    "ObjectFieldSelector": _fields("apiVersion", "fieldPath"),
    "ResourceFieldSelector": _fields("containerName", "resource", "divisor"),
    # ConfigMapKeySelector and SecretKeySelector: the inlined reference's name, then the key.
    "KeySelector": _fields("name", "key", "optional"),
    "ResourceRequirements": _fields("limits:map", "requests:map", "claims"),
    "Toleration": _fields("key", "operator", "value", "effect", "tolerationSeconds"),
    "PodStatus": _fields(
        "observedGeneration",
        "phase",
        "conditions",
        "message",
        "reason",
        "nominatedNodeName",
        "hostIP",
        "hostIPs",
        "podIP",
        "podIPs",
        "startTime",
        "initContainerStatuses",
        "containerStatuses",
        "qosClass",
    ),
    "Service": (*_META, *_fields("spec:ServiceSpec", "status:ServiceStatus")),
    "ServiceSpec": _fields(
        "ports:ServicePort",
        "selector:map",
        "clusterIP",
        "clusterIPs",
        "type",
        "externalIPs",
        "sessionAffinity",
        "loadBalancerIP",
        "loadBalancerSourceRanges",
        "externalName",
        "externalTrafficPolicy",
        "healthCheckNodePort",
        "publishNotReadyAddresses",
        "sessionAffinityConfig",
        "ipFamilies",
        "ipFamilyPolicy",
        "allocateLoadBalancerNodePorts",
        "loadBalancerClass",
        "internalTrafficPolicy",
        "trafficDistribution",
    ),
    "ServicePort": _fields("name", "protocol", "appProtocol", "port", "targetPort", "nodePort"),
    "ServiceStatus": _fields("loadBalancer", "conditions"),
    "Secret": (*_META, *_fields("immutable", "data:map", "stringData:map", "type")),
    "ConfigMap": (*_META, *_fields("immutable", "data:map", "binaryData:map")),
    "ServiceAccount": (
        *_META,
        *_fields("secrets", "imagePullSecrets", "automountServiceAccountToken"),
    ),
    "Namespace": (*_META, *_fields("spec", "status:NamespaceStatus")),
    "NamespaceStatus": _fields("phase", "conditions"),
    # A kind the table does not know: its top level as every object's.
    "Object": (*_META, *_fields("spec", "status")),
    "ResourceQuota": (
        *_META,
        *_fields("spec:ResourceQuotaSpec", "status:ResourceQuotaStatus"),
    ),
    "ResourceQuotaSpec": _fields("hard:map", "scopes", "scopeSelector"),
    "ResourceQuotaStatus": _fields("hard:map", "used:map"),
    # apps/v1, batch/v1
    "Deployment": (*_META, *_fields("spec:DeploymentSpec", "status:DeploymentStatus")),
    "DeploymentSpec": _fields(
        "replicas",
        "selector:LabelSelector",
        "template:PodTemplateSpec",
        "strategy:DeploymentStrategy",
        "minReadySeconds",
        "revisionHistoryLimit",
        "paused",
        "progressDeadlineSeconds",
    ),
    "DeploymentStrategy": _fields("type", "rollingUpdate:RollingUpdateDeployment"),
    "RollingUpdateDeployment": _fields("maxUnavailable", "maxSurge"),
    "DeploymentStatus": _fields(
        "observedGeneration",
        "replicas",
        "updatedReplicas",
        "readyReplicas",
        "availableReplicas",
        "unavailableReplicas",
        "terminatingReplicas",
        "conditions:DeploymentCondition",
        "collisionCount",
    ),
    "DeploymentCondition": _fields(
        "type", "status", "lastUpdateTime", "lastTransitionTime", "reason", "message"
    ),
    "DaemonSet": (*_META, *_fields("spec:DaemonSetSpec", "status:DaemonSetStatus")),
    "DaemonSetSpec": _fields(
        "selector:LabelSelector",
        "template:PodTemplateSpec",
        "updateStrategy:UpdateStrategy",
        "minReadySeconds",
        "revisionHistoryLimit",
    ),
    "UpdateStrategy": _fields("type", "rollingUpdate:map"),
    "DaemonSetStatus": _fields(
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
        "observedGeneration",
        "updatedNumberScheduled",
        "numberAvailable",
        "numberUnavailable",
        "collisionCount",
        "conditions",
    ),
    "StatefulSet": (*_META, *_fields("spec:StatefulSetSpec", "status:StatefulSetStatus")),
    "StatefulSetSpec": _fields(
        "replicas",
        "selector:LabelSelector",
        "template:PodTemplateSpec",
        "volumeClaimTemplates",
        "serviceName",
        "podManagementPolicy",
        "updateStrategy:UpdateStrategy",
        "revisionHistoryLimit",
        "minReadySeconds",
        "persistentVolumeClaimRetentionPolicy",
        "ordinals",
    ),
    "StatefulSetStatus": _fields(
        "observedGeneration",
        "replicas",
        "readyReplicas",
        "currentReplicas",
        "updatedReplicas",
        "currentRevision",
        "updateRevision",
        "collisionCount",
        "conditions",
        "availableReplicas",
    ),
    "ReplicaSet": (*_META, *_fields("spec:ReplicaSetSpec", "status:ReplicaSetStatus")),
    "ReplicaSetSpec": _fields(
        "replicas", "minReadySeconds", "selector:LabelSelector", "template:PodTemplateSpec"
    ),
    "ReplicaSetStatus": _fields(
        "replicas",
        "fullyLabeledReplicas",
        "readyReplicas",
        "availableReplicas",
        "terminatingReplicas",
        "observedGeneration",
        "conditions",
    ),
    "Job": (*_META, *_fields("spec:JobSpec", "status:JobStatus")),
    "JobStatus": _fields(
        "conditions",
        "startTime",
        "completionTime",
        "active",
        "succeeded",
        "failed",
        "terminating",
        "completedIndexes",
        "failedIndexes",
        "uncountedTerminatedPods",
        "ready",
    ),
    "JobSpec": _fields(
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "podFailurePolicy",
        "successPolicy",
        "backoffLimit",
        "backoffLimitPerIndex",
        "maxFailedIndexes",
        "selector:LabelSelector",
        "manualSelector",
        "template:PodTemplateSpec",
        "ttlSecondsAfterFinished",
        "completionMode",
        "suspend",
        "podReplacementPolicy",
        "managedBy",
    ),
    "CronJob": (*_META, *_fields("spec:CronJobSpec", "status")),
    "CronJobSpec": _fields(
        "schedule",
        "timeZone",
        "startingDeadlineSeconds",
        "concurrencyPolicy",
        "suspend",
        "jobTemplate:JobTemplateSpec",
        "successfulJobsHistoryLimit",
        "failedJobsHistoryLimit",
    ),
    "JobTemplateSpec": _fields("metadata:ObjectMeta", "spec:JobSpec"),
    # rbac, scheduling, policy, networking, authentication
    "Role": (*_META, *_fields("rules:PolicyRule")),
    "ClusterRole": (*_META, *_fields("rules:PolicyRule", "aggregationRule:AggregationRule")),
    "PolicyRule": _fields("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"),
    "AggregationRule": _fields("clusterRoleSelectors:LabelSelector"),
    "RoleBinding": (*_META, *_fields("subjects:Subject", "roleRef:RoleRef")),
    "Subject": _fields("kind", "apiGroup", "name", "namespace"),
    "RoleRef": _fields("apiGroup", "kind", "name"),
    "PriorityClass": (
        *_META,
        *_fields("value", "globalDefault", "description", "preemptionPolicy"),
    ),
    "PodDisruptionBudget": (*_META, *_fields("spec:PDBSpec", "status:PDBStatus")),
    "PDBSpec": _fields(
        "minAvailable", "selector:LabelSelector", "maxUnavailable", "unhealthyPodEvictionPolicy"
    ),
    "PDBStatus": _fields(
        "observedGeneration",
        "disruptedPods:map",
        "disruptionsAllowed",
        "currentHealthy",
        "desiredHealthy",
        "expectedPods",
        "conditions",
    ),
    "Ingress": (*_META, *_fields("spec:IngressSpec", "status:IngressStatus")),
    "IngressSpec": _fields(
        "ingressClassName", "defaultBackend:IngressBackend", "tls", "rules:IngressRule"
    ),
    "IngressRule": _fields("host", "http:HTTPIngressRuleValue"),
    "HTTPIngressRuleValue": _fields("paths:HTTPIngressPath"),
    "HTTPIngressPath": _fields("path", "pathType", "backend:IngressBackend"),
    "IngressBackend": _fields("service:IngressServiceBackend", "resource"),
    "IngressServiceBackend": _fields("name", "port:ServiceBackendPort"),
    "ServiceBackendPort": _fields("name", "number"),
    "IngressStatus": _fields("loadBalancer"),
    "TokenRequest": (*_META, *_fields("spec:TokenRequestSpec", "status:TokenRequestStatus")),
    "TokenRequestSpec": _fields(
        "audiences", "expirationSeconds", "boundObjectRef:BoundObjectReference"
    ),
    "BoundObjectReference": _fields("kind", "apiVersion", "name", "uid"),
    "TokenRequestStatus": _fields("token", "expirationTimestamp"),
}
# A status Go always encodes (a struct, not a pointer: `omitempty` does not drop it), as its zero
# value, for the kinds whose server answer may leave it out.
ZERO_STATUS: dict[str, dict[str, Any]] = {
    "CronJob": {},
    "Ingress": {"loadBalancer": {}},
    "PodDisruptionBudget": {
        "disruptionsAllowed": 0,
        "currentHealthy": 0,
        "desiredHealthy": 0,
        "expectedPods": 0,
    },
}
# Structs' `omitempty` scalar fields ("*": every one): a zero count or empty string is left out.
OMIT_ZERO: dict[str, set[str]] = {
    "DeploymentStatus": {"*"},
    "DaemonSetStatus": {
        "observedGeneration",
        "updatedNumberScheduled",
        "numberAvailable",
        "numberUnavailable",
    },
    "StatefulSetStatus": {
        "observedGeneration",
        "readyReplicas",
        "currentReplicas",
        "updatedReplicas",
        "currentRevision",
        "updateRevision",
    },
}
# A spec field Go always encodes (a struct), as its zero value, where the stored object has none.
ZERO_SPEC: dict[str, dict[str, Any]] = {
    "StatefulSet": {"updateStrategy": {}},
    "DaemonSet": {"updateStrategy": {}},
}
# A kind whose struct is named otherwise.
KINDS = {"ClusterRoleBinding": "RoleBinding"}


def _omitted(struct: str, name: str) -> bool:
    fields = OMIT_ZERO.get(struct, set())
    return "*" in fields or name in fields


def _ordered(value: Any, struct: str) -> Any:
    if isinstance(value, list):
        return [_ordered(item, struct) for item in value]
    if not isinstance(value, dict):
        return value
    if struct == "map" or struct not in STRUCTS:
        # A map, or a struct the table does not declare: sorted keys, nested values as found.
        return {k: _ordered(value[k], "") for k in sorted(value)}
    fields = STRUCTS[struct]
    out = {
        name: _ordered(value[name], kind)
        for name, kind in fields
        if name in value and not (_omitted(struct, name) and value[name] in (0, None, ""))
    }
    declared = {name for name, _ in fields}
    out.update({k: _ordered(value[k], "") for k in sorted(value) if k not in declared})
    return out


def struct_order(obj: Any) -> Any:
    """`obj` (a whole object of a kind kubectl knows) with each struct's fields in Go's order,
    each map's keys sorted."""
    if not isinstance(obj, dict):
        return obj
    kind = str(obj.get("kind", ""))
    if kind in ZERO_STATUS and "status" not in obj:
        obj = {**obj, "status": dict(ZERO_STATUS[kind])}
    if kind in ZERO_SPEC and isinstance(obj.get("spec"), dict):
        obj = {**obj, "spec": {**ZERO_SPEC[kind], **obj["spec"]}}
    struct = KINDS.get(kind, kind)
    return _ordered(obj, struct if struct in STRUCTS else "Object")
