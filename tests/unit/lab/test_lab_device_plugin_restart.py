"""Found by the isolation property test (tests/unit/lab/test_lab_isolation.py): a workload
holds a GPU when the device plugin's pods are deleted, so for a moment its node offers no GPUs."""

from __future__ import annotations

from simulators.lab import LabSession


def test_deleting_the_device_plugin_under_a_running_training_leaves_the_lab_answering() -> None:
    lab = LabSession.new("pending-workspace", seed=37)
    lab.run("runai training submit tr-a -p team-vision -i pytorch -g 1")
    deleted = lab.run("kubectl delete pods -n gpu-operator -l app=nvidia-device-plugin-daemonset")
    assert "internal error" not in deleted.output
    assert deleted.output.count("deleted from gpu-operator namespace") == 3
    listed = lab.run("runai training list -p team-vision").output
    assert "tr-a" in listed and "internal error" not in listed
    plugins = lab.run("kubectl get pods -n gpu-operator -l app=nvidia-device-plugin-daemonset")
    assert plugins.output.count("Running") == 3
