"""What a cluster runs: kubelet, workload controllers, node lifecycle, default-scheduler, the GPU
Operator and Run:ai, each reading and writing only through the cluster API (docs/cluster.md)."""
