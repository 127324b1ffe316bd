"""Reading code in the guide: highlighted on the server, a bar above each block."""

from __future__ import annotations

import re

from django.test import Client

from studysite.markdown import highlight, render_markdown


def test_shell_comments_strings_and_variables_get_colour_classes() -> None:
    html = highlight('# check\necho "hi" $HOME -g 1', "shell")
    assert html.startswith('<span class="hl-c"># check\n</span>')
    assert '<span class="hl-s">"hi"</span>' in html and '<span class="hl-v">$HOME</span>' in html
    # Flags and numbers stay plain, so a command reads (and searches) as written.
    assert html.endswith("-g 1")


def test_yaml_keys_and_numbers_are_coloured_and_text_is_escaped() -> None:
    html = highlight("name: <x>\ngpus: 8", "yaml")
    assert '<span class="hl-t">name</span>' in html and "&lt;x&gt;" in html
    assert "<x>" not in html


def test_an_unknown_language_is_escaped_and_left_plain() -> None:
    assert highlight("<b>bold</b>", "klingon") == "&lt;b&gt;bold&lt;/b&gt;"


def test_every_code_block_has_a_bar_above_it_with_wrap_and_copy() -> None:
    html = render_markdown("```shell\nrunai workload list\n```\n\n```\nplain\n```")
    command, plain = html.split('<div class="code-block">')
    assert '<span class="code-lang">shell</span>' in command
    assert '<button type="button" class="wrap-toggle" hidden="">Wrap lines</button>' in command
    assert '<button type="button" class="copy" hidden="">Copy</button>' in command
    assert "wrap-toggle" in plain and 'class="copy"' not in plain


def test_highlighted_pages_keep_the_strict_csp_without_inline_style(client: Client) -> None:
    response = client.get("/guide/gang-scheduling/")
    body = response.content.decode()
    assert '<span class="hl-c"># Distributed PyTorch' in body
    assert not re.search(r"\sstyle=", body)
    policy = response["Content-Security-Policy"]
    assert "'unsafe-inline'" not in policy
