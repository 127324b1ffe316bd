"""The realism oracle's corpus: kubectl commands a learner types in the four tickets' worlds.

Each is run by the lab's kubectl and by the real kubectl against the same state; their
outputs must be equal with ages masked (tests/oracle/test_oracle.py). Commands of a ticket
run in order on one cluster, so a write is seen by the commands after it.
"""

from __future__ import annotations

CORPUS: dict[str, list[str]] = {
    "mig-single": [
        "kubectl get nodes",
        "kubectl get nodes -o wide",
        "kubectl get nodes -L nvidia.com/mig.config,nvidia.com/mig.config.state",
        "kubectl get node gpu-node2 --show-labels",
        "kubectl get pods",
        "kubectl get pods -A",
        "kubectl get pods -n gpu-operator -o wide",
        "kubectl get pods -A -o wide --field-selector spec.nodeName=gpu-node2",
        "kubectl get pods -n gpu-operator -l app=nvidia-mig-manager",
        "kubectl get pods -n kube-system",
        "kubectl get deploy -A",
        "kubectl get ds -n gpu-operator",
        "kubectl get deploy,ds -n gpu-operator",
        "kubectl get rs -n runai",
        "kubectl get svc -A",
        "kubectl get ns",
        "kubectl get cm -n gpu-operator",
        "kubectl get clusterpolicies",
        "kubectl get clusterpolicies.nvidia.com/cluster-policy -o jsonpath='{.spec.mig.strategy}'",
        "kubectl get nodes -o custom-columns=NAME:.metadata.name,MIG:.metadata.labels.nvidia\\.com/mig\\.config",  # noqa: E501
        "kubectl get pods -n gpu-operator -o name",
        "kubectl get nodes --no-headers",
        "kubectl get pods -A --sort-by=.metadata.name",
        "kubectl get node gpu-node9",
        "kubectl get nodez",
        "kubectl get pods -n nothing-here",
        "kubectl describe node gpu-node2",
        "kubectl describe pod -n default",
        "kubectl label nodes gpu-node2 nvidia.com/mig.config=all-1g.10gb",
        "kubectl cordon gpu-node2",
        "kubectl cordon gpu-node2",
        "kubectl drain gpu-node2 --ignore-daemonsets",
        "kubectl label nodes gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite",
        "kubectl label nodes gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite",
        "kubectl get node gpu-node2 -L nvidia.com/mig.config,nvidia.com/mig.config.state",
        "kubectl uncordon gpu-node2",
        "kubectl get node gpu-node2 -o yaml",
        "kubectl get node gpu-node2 -o json",
        "kubectl api-resources",
        "kubectl top nodes",
        "kubectl top pods -A",
        "kubectl edit node gpu-node1",
        "kubectl edit node gpu-node7",
    ],
    "mig-mixed": [
        "kubectl get node gpu-node3 -L nvidia.com/mig.config,nvidia.com/mig.config.state",
        "kubectl get clusterpolicies.nvidia.com/cluster-policy -o jsonpath='{.spec.migManager.config.name}'",  # noqa: E501
        "kubectl get configmap custom-mig-parted-config -n gpu-operator -o yaml",
        "kubectl describe configmap custom-mig-parted-config -n gpu-operator",
        "kubectl get pod triton -o wide",
        "kubectl describe pod triton",
        "kubectl get events --sort-by=.lastTimestamp",
        "kubectl get events -A --field-selector involvedObject.kind=Pod",
        "kubectl apply -f custom-mig-config.yaml",
        "kubectl apply -f custom-mig-config.yaml",
        'kubectl patch clusterpolicies.nvidia.com/cluster-policy --type merge -p \'{"spec":{"mig":{"strategy":"mixed"}}}\'',  # noqa: E501
        "kubectl get clusterpolicy cluster-policy -o jsonpath='{.spec.mig.strategy}'",
        "kubectl get pods -n gpu-operator --field-selector spec.nodeName=gpu-node3",
        "kubectl logs -n gpu-operator -l app=nvidia-mig-manager --tail 3",
        "kubectl get events -n gpu-operator",
        "kubectl apply -f triton.yaml",
        "kubectl apply -f triton.yaml",
        "kubectl delete pod triton",
        "kubectl get pods",
    ],
    "pending-workspace": [
        "kubectl get pods -A -l project",
        "kubectl get pods -n runai-team-vision -o wide",
        "kubectl describe pod nb-carol-0-0 -n runai-team-vision",
        "kubectl get queues",
        "kubectl get podgroups -A",
        "kubectl get projects",
        "kubectl get interactiveworkloads -A",
        "kubectl get pods -n runai-team-vision -L workloadName,user",
        'kubectl get pods -n runai-team-vision -o jsonpath=\'{range .items[*]}{.metadata.name}{"\\t"}{.spec.nodeName}{"\\n"}{end}\'',  # noqa: E501
        "kubectl get nodes -o custom-columns=NAME:.metadata.name,GPUS:.status.allocatable.nvidia\\.com/gpu",  # noqa: E501
    ],
    "validate-runai": [
        "kubectl get pods -n runai",
        "kubectl get deploy -n runai",
        "kubectl get pods -n runai -o wide",
        "kubectl logs -n runai deploy/runai-scheduler-default",
        "kubectl get sa -n runai",
        "kubectl get secrets -n runai",
        "kubectl get jobs -A",
        "kubectl get ds -A -o wide",
        "kubectl get queues -o yaml",
        "kubectl describe deploy runai-scheduler-default -n runai",
        "kubectl describe ds kube-proxy -n kube-system",
        "kubectl describe ns runai",
        "kubectl get pods -n runai --show-labels",
        "kubectl get all -n runai",
        "kubectl get all -n gpu-operator",
        "kubectl describe queue team-a",
        "kubectl get pods -n kube-system -o wide",
        "kubectl get ds,deploy -A -o name",
        "kubectl get pods --bogus",
        "kubectl annotate ns runai team=platform",
        "kubectl label ns runai tier=system",
        "kubectl label ns runai tier-",
        "kubectl get ns runai --show-labels",
        "kubectl get pod -n kube-system -l k8s-app=kube-dns -o yaml",
        "kubectl scale deploy/runai-agent -n runai --replicas=1",
        # Last: the real kubectl stamps restartedAt from its own clock, the lab from the cluster's.
        "kubectl rollout restart deploy/runai-scheduler-default -n runai",
    ],
}


def cases() -> list[tuple[str, int, str]]:
    return [(ticket, i, line) for ticket, lines in CORPUS.items() for i, line in enumerate(lines)]
