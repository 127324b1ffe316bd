"""What a quiz or bank page names its options by: keys found by each option's text.

The page names options by their position on screen, never by the content's ids;
a test that means "choose these options" finds their keys on the page it got."""

from __future__ import annotations

import re
from collections.abc import Iterable

from studysite.study.content import Question


def keys_on_page(
    body: str, question: Question, ids: Iterable[str], name: str = "option"
) -> list[str]:
    """The keys under which `body` shows the options `ids` of `question` (field `name`)."""
    keys = []
    for option_id in ids:
        text = re.escape(question.option_by_id[option_id].text_html)
        pattern = rf'name="{re.escape(name)}" value="([^"]+)"(?: checked)?><span>{text}</span>'
        found = re.search(pattern, body)
        assert found, f"{question.id}/{option_id} is not on the page"
        keys.append(found.group(1))
    return sorted(keys)


def exam_keys(body: str, question: Question, ids: Iterable[str]) -> list[str]:
    return keys_on_page(body, question, ids, f"q-{question.id}")
