"""Services' Endpoints and EndpointSlices follow their pods, as the controllers keep them."""

from __future__ import annotations

from simulators.controllers.manager import step
from simulators.lab.world import build_world

SLICES = "endpointslices.discovery.k8s.io"


def _dns_ips(api: object) -> list[str]:
    endpoints = api.get("endpoints", "kube-dns", "kube-system")  # type: ignore[attr-defined]
    return [a["ip"] for a in endpoints["subsets"][0].get("addresses", [])]


def test_a_services_endpoints_follow_its_ready_pods() -> None:
    api = build_world("image-pull", 0).api
    coredns = api.list("pods", "kube-system", label_selector="k8s-app=kube-dns")["items"]
    assert sorted(_dns_ips(api)) == sorted(p["status"]["podIP"] for p in coredns)
    endpoints = api.get("endpoints", "kube-dns", "kube-system")
    assert endpoints["subsets"][0]["ports"][0] == {"name": "dns", "port": 53, "protocol": "UDP"}
    (dns_slice,) = api.list(SLICES, "kube-system")["items"]
    assert dns_slice["metadata"]["labels"]["kubernetes.io/service-name"] == "kube-dns"
    assert dns_slice["metadata"]["ownerReferences"][0]["kind"] == "Service"
    gone = coredns[0]
    api.delete("pods", gone["metadata"]["name"], "kube-system", grace_period=0)
    step(api, 1)
    assert gone["status"]["podIP"] not in _dns_ips(api)


def test_the_kubernetes_service_points_at_the_api_server() -> None:
    api = build_world("image-pull", 0).api
    endpoints = api.get("endpoints", "kubernetes", "default")
    assert endpoints["subsets"] == [
        {
            "addresses": [{"ip": "10.0.0.10"}],
            "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}],
        }
    ]
    assert api.get(SLICES, "kubernetes", "default")["endpoints"][0]["addresses"] == ["10.0.0.10"]
