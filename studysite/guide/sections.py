"""The guide: its sections read once from content/guide/*.md and kept rendered.

Pages are served from this in-memory, pre-rendered form, so a request costs a
dictionary lookup and a template render, never a Markdown parse.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import yaml
from django.conf import settings

from studysite.markdown import Heading, Passage, render_document


class ContentError(RuntimeError):
    """The content folder holds something the site cannot serve."""


@dataclass(frozen=True)
class Section:
    slug: str
    order: int
    title: str
    summary: str
    html: str
    headings: tuple[Heading, ...]
    passages: tuple[Passage, ...]

    @property
    def url(self) -> str:
        return f"/guide/{self.slug}/"


@dataclass(frozen=True)
class Guide:
    sections: tuple[Section, ...]

    @functools.cached_property
    def by_slug(self) -> dict[str, Section]:
        return {section.slug: section for section in self.sections}

    def neighbours(self, section: Section) -> tuple[Section | None, Section | None]:
        index = self.sections.index(section)
        previous = self.sections[index - 1] if index > 0 else None
        following = self.sections[index + 1] if index + 1 < len(self.sections) else None
        return previous, following


def content_dir() -> Path:
    return Path(settings.BASE_DIR) / "content"


def read_section(path: Path) -> Section:
    rendered = render_document(path.read_text(encoding="utf-8"))
    meta = yaml.safe_load(rendered.front_matter) or {}
    missing = {"title", "order", "summary"} - meta.keys()
    if missing:
        raise ContentError(f"{path.name}: front matter lacks {', '.join(sorted(missing))}")
    slug = path.stem.split("-", 1)[1]
    return Section(
        slug=slug,
        order=int(meta["order"]),
        title=str(meta["title"]),
        summary=str(meta["summary"]),
        html=rendered.html,
        headings=rendered.headings,
        passages=rendered.passages,
    )


@functools.cache
def load_guide() -> Guide:
    paths = sorted((content_dir() / "guide").glob("[0-9][0-9]-*.md"))
    sections = sorted((read_section(path) for path in paths), key=lambda s: s.order)
    return Guide(tuple(sections))
