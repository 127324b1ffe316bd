"""Ready-made setups for the guide's scenarios, each a link in the compact URL spelling."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs

from studysite.simulator.query import parse_query, to_url
from studysite.simulator.state import SimState


@dataclass(frozen=True)
class Preset:
    slug: str
    title: str
    description: str
    query: str

    @property
    def state(self) -> SimState:
        return parse_query(parse_qs(self.query, keep_blank_values=True)).state

    @property
    def url(self) -> str:
        return to_url(self.state)


PRESETS = (
    Preset(
        "guide",
        "The guide's example",
        "Three projects, 24 GPUs: quota first, then idle GPUs shared 2:1:1 by weight.",
        "pool=24&p=team-a,8,4,1&p=team-b,8,16,2&p=team-c,8,10,1",
    ),
    Preset(
        "killed",
        "“My training keeps getting killed”",
        "team-llm borrows team-vision's idle quota; then team-vision's work arrives.",
        "pool=16&p=team-vision,8,2,1&p=team-llm,8,14,1&step=team-vision,6",
    ),
    Preset(
        "reclaim-fair-share",
        "Reclaim stops at fair share",
        "team-b borrows 12 GPUs; team-a's demand grows by 10, and reclaim takes back only "
        "what brings team-b down to its new fair share.",
        "pool=24&p=team-a,8,2,1&p=team-b,8,20,1&p=team-c,8,2,1&step=team-a,10",
    ),
    Preset(
        "oversubscribed",
        "Over-subscribed pool",
        "Quotas add up to 24 GPUs in a 16-GPU pool: not every guarantee can hold.",
        "pool=16&p=team-a,8,8,1&p=team-b,8,8,1&p=team-c,8,8,1",
    ),
    Preset(
        "equal",
        "Equal weights",
        "Two projects want far more than their quota: the idle GPUs split evenly.",
        "pool=24&p=team-a,4,20,1&p=team-b,4,20,1",
    ),
    Preset(
        "weights",
        "Weights 2:1",
        "The same, but team-a's over-quota weight is 2: it gets twice the idle share.",
        "pool=24&p=team-a,4,20,2&p=team-b,4,20,1",
    ),
    Preset(
        "weight-0",
        "Weight 0",
        "team-b's over-quota weight is 0: it keeps its quota and the idle GPUs go to team-a.",
        "pool=24&p=team-a,4,20,1&p=team-b,4,20,0",
    ),
    Preset(
        "limit",
        "A limit caps",
        "team-a may use at most 8 GPUs: GPUs stay idle although it wants more.",
        "pool=24&p=team-a,4,20,1,limit:8&p=team-b,4,6,1",
    ),
    Preset(
        "departments",
        "Departments and two node pools",
        "research borrows product's idle H100 quota; then product's team-serve needs it back.",
        "pool=h100:16&pool=l40s:8&d=research,8/2,1&d=product,8/6,1"
        "&p=team-llm,6/0,14/0,1,dept:research&p=team-vision,2/2,2/4,1,dept:research"
        "&p=team-serve,8/6,3/8,1,dept:product&step=team-serve,5",
    ),
)


def preset_url(slug: str) -> str:
    """The link to a preset by its slug (a KeyError names an unknown one)."""
    by_slug = {preset.slug: preset for preset in PRESETS}
    return by_slug[slug].url
