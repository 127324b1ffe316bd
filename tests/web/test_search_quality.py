"""The site search measured on questions a learner really asks.

Each query names the guide section it should find among its first three
results; together they cover stemming, typos, questions and plain terms.
"""

from __future__ import annotations

import pytest

from studysite.guide.search import search

# On PostgreSQL the search runs in the site database (the second pass of `make test`).
pytestmark = pytest.mark.django_db

# (query, slug of the guide section expected in the first three results)
QUERIES: list[tuple[str, str]] = [
    # questions
    ("why is my job pending", "troubleshooting-pending"),
    ("why is my workspace stuck pending", "troubleshooting-pending"),
    ("my distributed job waits while a small job runs", "gang-scheduling"),
    ("what happens when the owner wants its GPUs back", "preemption-reclaim"),
    ("how do I install the cluster components with helm", "installation"),
    ("what does over quota mean", "quota-fairness"),
    ("how are idle GPUs shared between projects", "quota-fairness"),
    ("how do I split a GPU into MIG slices", "fractions-mig"),
    ("which strategy keeps whole nodes free", "placement"),
    ("what is allocated but not utilized", "monitoring"),
    ("how does Run:ai compare to Slurm", "runai-slurm-kubernetes"),
    ("who can submit to a project", "access-control"),
    ("gpu operator pods crashloop", "stack"),
    # stemming
    ("reclaiming", "preemption-reclaim"),
    ("preempted by priority", "preemption-reclaim"),
    ("spreading inference", "placement"),
    ("validating rdma", "validation"),
    ("checkpointing", "preemption-reclaim"),
    # typos and run-together words
    ("preemtible", "preemption-reclaim"),
    ("fairshare", "quota-fairness"),
    ("fragmantation", "placement"),
    ("gang sheduling", "gang-scheduling"),
    ("overquota", "quota-fairness"),
    ("binpacking", "placement"),
    ("nodepool", "organization"),
    # terms
    ("fair share", "quota-fairness"),
    ("over-quota weight", "quota-fairness"),
    ("over-subscription", "quota-fairness"),
    ("department", "organization"),
    ("node pool quota", "organization"),
    ("single vs mixed", "mig-gpu-operator"),
    ("nvidia.com/mig.config", "mig-gpu-operator"),
    ("mig manager", "mig-gpu-operator"),
    ("gpu fractions", "fractions-mig"),
    ("gpu memory swap", "fractions-mig"),
    ("bin-pack", "placement"),
    ("topology", "placement"),
    ("gang scheduling", "gang-scheduling"),
    ("network operator", "stack"),
    ("priority", "preemption-reclaim"),
    ("non-preemptible", "preemption-reclaim"),
    ("preemptible", "preemption-reclaim"),
    ("workspace training inference", "workloads-assets"),
    ("data source asset", "workloads-assets"),
    ("runai workspace submit", "runai-cli"),
    ("kubectl describe pod events", "troubleshooting-pending"),
    ("helm upgrade", "installation"),
    ("control plane self-hosted", "architecture"),
    ("prometheus", "installation"),
    ("rbac role scope", "access-control"),
    ("dashboards utilization", "monitoring"),
    ("gpu operator driver toolkit", "stack"),
    ("simulator", "quota-simulator"),
    ("NCP-AII blueprint", "ncp-aii-exam"),
]


def test_the_query_set_is_large_enough_to_measure() -> None:
    assert len(QUERIES) >= 40
    assert len({query for query, _ in QUERIES}) == len(QUERIES)


@pytest.mark.parametrize(("query", "slug"), QUERIES, ids=[query for query, _ in QUERIES])
def test_each_query_finds_its_section_in_the_first_three_results(query: str, slug: str) -> None:
    urls = [hit.document.url for hit in search(query)[:3]]
    assert any(url.startswith(f"/guide/{slug}/") for url in urls), urls
