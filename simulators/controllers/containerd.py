"""containerd on a GPU node: the runtime handlers its CRI plugin has, and a pod's sandbox.

A node's containerd always has ``runc``. The GPU Operator's container toolkit adds the NVIDIA
runtime to containerd's config on the node it runs on (under the name the ClusterPolicy's
``operator.runtimeClass`` gives, ``nvidia`` unless set, which the operator passes to it as
``CONTAINERD_RUNTIME_CLASS``) and sets it as containerd's default runtime
(``CONTAINERD_SET_AS_DEFAULT``, true unless set); when the toolkit container stops, it removes
that config again. So a node has the ``nvidia`` handler exactly while a toolkit pod runs
ready on it.

A pod's RuntimeClass names a handler; when containerd lacks it, the pod gets no sandbox: the
kubelet reports ``FailedCreatePodSandBox`` with containerd 1.7's error and retries every sync,
and the pod stays ``ContainerCreating``.
"""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.controllers import gpu_state
from simulators.controllers.util import dig, name_of, spec, status

NAMESPACE = "gpu-operator"
TOOLKIT = "nvidia-container-toolkit-daemonset"
RUNTIME_CLASSES = "runtimeclasses.node.k8s.io"
DEFAULT_RUNTIME_CLASS = "nvidia"
RUNC = "runc"


def runtime_class_name(api: ClusterAPI) -> str:
    """The RuntimeClass (and containerd runtime) name the operator uses (operator.runtimeClass)."""
    policy = gpu_state.cluster_policy(api)
    value = dig((policy or {}).get("spec"), "operator", "runtimeClass")
    return str(value) if isinstance(value, str) and value else DEFAULT_RUNTIME_CLASS


def _toolkit_env(api: ClusterAPI, name: str) -> str:
    policy = gpu_state.cluster_policy(api)
    for env in dig((policy or {}).get("spec"), "toolkit", "env") or []:
        if isinstance(env, dict) and env.get("name") == name:
            return str(env.get("value", ""))
    return ""


def toolkit_ready(api: ClusterAPI, node: Obj) -> bool:
    """A container toolkit pod runs ready on the node (it has configured containerd there)."""
    try:
        pods = api.list("pods", NAMESPACE, label_selector=f"app={TOOLKIT}")["items"]
    except ApiError:
        return False
    for pod in pods:
        if spec(pod).get("nodeName") != name_of(node) or pod["metadata"].get("deletionTimestamp"):
            continue
        statuses = status(pod).get("containerStatuses") or []
        if statuses and all(s.get("ready") for s in statuses):
            return True
    return False


def handlers(api: ClusterAPI, node: Obj) -> set[str]:
    """The runtime handlers containerd on this node has."""
    out = {RUNC}
    if toolkit_ready(api, node):
        out.add(runtime_class_name(api))
    return out


def default_handler(api: ClusterAPI, node: Obj) -> str:
    """The runtime a pod without a RuntimeClass gets on this node."""
    nvidia = runtime_class_name(api)
    if nvidia in handlers(api, node) and _toolkit_env(api, "CONTAINERD_SET_AS_DEFAULT") not in (
        "false",
        "0",
    ):
        return nvidia
    return RUNC


def pod_handler(api: ClusterAPI, pod: Obj, node: Obj) -> str:
    """The runtime handler a pod asks for: its RuntimeClass's, else the node's default."""
    name = spec(pod).get("runtimeClassName")
    if not name:
        return default_handler(api, node)
    try:
        runtime_class = api.get(RUNTIME_CLASSES, str(name))
    except ApiError:
        return ""  # admitted before its class was deleted: no handler to ask for
    return str(runtime_class.get("handler") or "")


def runs_nvidia(api: ClusterAPI, pod: Obj, node: Obj) -> bool:
    """The pod's containers run under the NVIDIA runtime (which injects the driver and GPUs)."""
    return pod_handler(api, pod, node) == runtime_class_name(api) and toolkit_ready(api, node)


def sandbox_error(api: ClusterAPI, pod: Obj, node: Obj) -> str:
    """Why containerd can't create the pod's sandbox ("" when it can), as the kubelet reports
    it: ``Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox
    runtime: no runtime for "nvidia" is configured`` (containerd 1.7's CRI plugin)."""
    name = spec(pod).get("runtimeClassName")
    if not name:
        return ""
    handler = pod_handler(api, pod, node)
    if not handler:
        # The kubelet's RuntimeClass manager looks the class up before it asks containerd.
        return f'Failed to create pod sandbox: runtimeclass.node.k8s.io "{name}" not found'
    if handler in handlers(api, node):
        return ""
    return (
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox "
        f'runtime: no runtime for "{handler}" is configured'
    )


def ensure_runtime_class(api: ClusterAPI) -> None:
    """The operator's RuntimeClass (``transformRuntimeClass``): created when missing. Its handler
    is immutable, so one created by hand with another handler stays as it is."""
    name = runtime_class_name(api)
    try:
        api.get(RUNTIME_CLASSES, name)
        return
    except ApiError as err:
        if err.code != 404:
            return
    try:
        api.create(
            RUNTIME_CLASSES,
            {
                "apiVersion": "node.k8s.io/v1",
                "kind": "RuntimeClass",
                "metadata": {
                    "name": name,
                    "labels": {"app.kubernetes.io/component": "gpu-operator"},
                },
                "handler": name,
            },
        )
    except ApiError:
        return
