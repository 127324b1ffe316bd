"""The guide as a reader gets it: every seed section, its tables restored, its links alive."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.test import Client

from studysite.guide.sections import load_guide
from tests.content.html_parts import prose_text, read_links, read_tables

pytestmark = pytest.mark.django_db

# The product owner's section headings, in order (the seed's text, numbers dropped).
SEED_TITLES = [
    "The big picture: what Run:ai adds to Kubernetes",
    "Where it sits for the NCP-AII exam",
    "The stack underneath",
    "Architecture: control plane and cluster",
    "Organization: departments, projects, node pools",
    "Quota, over-quota, and fairness",
    "Interactive quota and reclaim simulator",
    "Preemption, priority, and reclaim",
    "Gang scheduling and distributed training",
    "Placement: bin-packing vs spreading",
    "GPU fractions vs MIG vs whole GPUs",
    "MIG on Kubernetes: the GPU Operator's MIG Manager",
    "Workload types and assets",
    "The runai CLI",
    "Access control",
    "Installation and prerequisites",
    "Validation checklist",
    "Monitoring and metrics",
    "Run:ai vs Slurm vs plain Kubernetes",
    "Troubleshooting: why is it Pending?",
    "Sample outputs",
    "Hands-on lab: simulated tickets",
    "Scenarios",
    "Searchable reference",
    "Flashcards (click to flip)",
    "Exam traps",
    "Practice quiz (28 questions)",
]

# Every table of the seed with its restored header and row labels (first column).
SEED_TABLES: dict[str, list[tuple[list[str], list[str]]]] = {
    "stack": [
        (
            ["Layer", "What it provides", "If it's broken"],
            [
                "GPU Operator",
                "Network Operator",
                "Training operators",
                "Prometheus",
                "Ingress + certificates",
                "Storage",
            ],
        ),
        (
            ["Choice", "How it works", "Good for", "Watch out for"],
            ["Driver container (the default)", "Host driver (preinstalled)"],
        ),
    ],
    "architecture": [(["Part", "Where it runs", "Role"], ["Control plane", "Cluster components"])],
    "organization": [(["Object", "What it is", "Example"], ["Department", "Project", "Node pool"])],
    "quota-fairness": [
        (
            ["Concept", "Meaning"],
            [
                "Quota (deserved / guaranteed)",
                "Over-quota",
                "Over-quota weight",
                "Priority (queue, department)",
                "Limit (max)",
                "Fairness",
            ],
        )
    ],
    "placement": [(["Strategy", "What it does", "Good for"], ["Bin-pack (consolidate)", "Spread"])],
    "fractions-mig": [
        (
            ["Aspect", "Whole GPU", "MIG instance", "Run:ai GPU fraction"],
            ["How it's split", "Isolation", "Sizes", "Changing the layout", "Best for"],
        )
    ],
    "mig-gpu-operator": [
        (
            ["Piece", "What it does", "Where you set or read it"],
            ["MIG strategy", "MIG Manager", "Layout request", "Progress", "Named layouts"],
        ),
        (["Strategy", "What pods request", "Rules"], ["single", "mixed"]),
        (
            ["Symptom", "Likely cause", "Fix"],
            [
                "error: 'nvidia.com/mig.config' already has a value",
                "State failed; log says the GPU is in use",
                "State failed right after you switch to a custom config",
                "Device plugin crash-loops after a mixed layout",
                "Pod Pending: Insufficient nvidia.com/gpu on a mixed node",
            ],
        ),
    ],
    "workloads-assets": [
        (
            ["Workload", "Use", "Typical behavior"],
            [
                "Workspace (interactive)",
                "Training (standard)",
                "Training (distributed)",
                "Inference",
            ],
        )
    ],
    "runai-slurm-kubernetes": [
        (
            ["Aspect", "Slurm", "Plain Kubernetes", "Run:ai on Kubernetes"],
            [
                "Work unit",
                "Containers",
                "Sharing between teams",
                "Multi-node jobs",
                "Fractional GPUs",
                "Inference serving",
            ],
        ),
        (
            ["Slurm", "Run:ai on Kubernetes"],
            [
                "Partition",
                "Account with fair-share",
                "QOS preemption of lower QOS",
                "sbatch batch job",
                "srun --pty interactive shell",
                "--gres=gpu:8",
                "Enroot + Pyxis image",
                "squeue, sacct",
            ],
        ),
    ],
    "troubleshooting-pending": [
        (
            ["Reason", "Clue", "Fix"],
            [
                "Not enough free GPUs, and the project is at or above quota",
                "Work is non-preemptible, so it can't go over quota",
                "Wrong or empty node pool",
                "Request bigger than any node",
                "Fragmentation",
                "Gang can't fit",
                "Nodes advertise 0 GPUs",
                "Volume can't mount",
                "Not actually a scheduling problem",
            ],
        )
    ],
}

# Words that legitimately mix case; anything else like "ProjectQuota" is export glue.
CAMEL_CASE_WORDS = {
    "InfiniBand",
    "RoCE",
    "PyTorch",
    "TensorFlow",
    "SaaS",
    "ClusterPolicy",
    "ConfigMap",
    "ResourceQuotas",
    "NVLink",
    "NVSwitch",
    "DaemonSet",
    "GPUDirect",
    "OpenShift",
    "ImagePullBackOff",
    "CrashLoopBackOff",
    "ErrImagePull",
    "NCCL_DEBUG",
    "NonPreemptibleOverQuota",
    "JupyterLab",
    "migManager",
    "nodeSelector",
}

SECTIONS = load_guide().sections


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_the_guide_has_every_seed_section_in_order() -> None:
    assert [section.title for section in SECTIONS] == SEED_TITLES
    assert [section.order for section in SECTIONS] == list(range(1, 28))


def test_every_section_has_a_summary_for_the_contents_and_search() -> None:
    for section in SECTIONS:
        assert len(section.summary) > 20, section.slug


@pytest.mark.parametrize("slug", sorted(SEED_TABLES))
def test_every_seed_table_is_restored_with_its_columns_and_rows(client: Client, slug: str) -> None:
    tables = read_tables(page(client, f"/guide/{slug}/"))
    assert [(table.header, [row[0] for row in table.rows]) for table in tables] == SEED_TABLES[slug]
    for table in tables:
        assert table.header_in_thead
        assert all(len(row) == len(table.header) for row in table.rows)
        assert all(cell for row in table.rows for cell in row), "no empty cells"


def test_no_table_anywhere_has_glued_text_or_a_stray_pipe(client: Client) -> None:
    for section in SECTIONS:
        html = page(client, section.url)
        for table in read_tables(html):
            for cell in table.header + [cell for row in table.rows for cell in row]:
                for word in re.findall(r"\S*[a-z][A-Z]\S*", cell):
                    bare = word.strip(".,;:()'\"")
                    assert any(known in bare for known in CAMEL_CASE_WORDS), (section.slug, word)
        assert "|" not in prose_text(html), section.slug


def test_run_ai_adds_lists_its_items_again(client: Client) -> None:
    html = page(client, "/guide/big-picture/")
    after = html.split("Run:ai adds:", 1)[1]
    items = re.findall(r"<li>", after.split("</ul>", 1)[0])
    assert len(items) >= 5
    assert "Gang scheduling" in after and "fractions" in after


def test_the_office_building_analogy_is_a_callout(client: Client) -> None:
    html = page(client, "/guide/big-picture/")
    callout = re.search(r'<aside class="callout callout-analogy".*?</aside>', html, re.S)
    assert callout and "A shared office building" in callout.group(0)


def test_commands_are_copyable_code_blocks_without_prompts(client: Client) -> None:
    html = page(client, "/guide/runai-cli/")
    blocks = re.findall(
        r'<div class="code-block command"><pre tabindex="0"><code>(.*?)</code>', html, re.S
    )
    assert len(blocks) >= 2
    assert all(not line.startswith("$ ") for block in blocks for line in block.splitlines())
    assert html.count('class="copy"') == len(blocks)
    assert "runai training submit t1 -i nvcr.io/nvidia/pytorch:&lt;tag&gt; -g 1" in html


def test_sample_outputs_are_closed_collapsible_blocks_with_what_to_look_at(client: Client) -> None:
    html = page(client, "/guide/sample-outputs/")
    samples = re.findall(r"<details class=\"sample\">(.*?)</details>", html, re.S)
    assert len(samples) == 20
    assert "<details open" not in html
    for sample in samples:
        assert re.search(r'<summary><span class="sample-title">[^<]+</span> <code', sample)
        assert '<pre class="output" tabindex="0"' in sample
        assert "<strong>What to look at:</strong>" in sample
    allocatable = next(s for s in samples if "GPU resources the node now advertises" in s)
    assert "nvidia.com/gpu:     56" in allocatable


def test_the_two_mig_state_snapshots_stay_in_one_sample(client: Client) -> None:
    html = page(client, "/guide/sample-outputs/")
    sample = next(
        s
        for s in re.findall(r'<details class="sample">(.*?)</details>', html, re.S)
        if "Watch the MIG apply state" in s
    )
    assert "pending" in sample and "success" in sample
    assert sample.count("$ kubectl get node gpu-node2") == 2  # one shown as the command, one inside


def test_every_internal_link_and_anchor_resolves(client: Client) -> None:
    pages = {section.url: page(client, section.url) for section in SECTIONS}
    pages["/"] = page(client, "/")
    ids = {url: read_links(html).ids for url, html in pages.items()}
    checked = 0
    for url, html in pages.items():
        for href in read_links(html).hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc:
                continue
            target = parts.path or url
            if target not in ids:
                assert client.get(target).status_code in {200, 302}, (url, href)
                continue
            if parts.fragment:
                assert parts.fragment in ids[target], (url, href)
            checked += 1
    assert checked > 27 * 27


def test_interactive_sections_have_their_introductions(client: Client) -> None:
    for slug in ["quota-simulator", "lab", "scenarios", "reference", "flashcards", "exam-traps",
                 "practice-quiz"]:  # fmt: skip
        html = page(client, f"/guide/{slug}/")
        assert len(prose_text(html.split('<div class="prose">', 1)[1].split("</div>", 1)[0])) > 30
