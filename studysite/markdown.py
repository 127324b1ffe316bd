"""Markdown to safe HTML, the one renderer for the guide and every study text.

markdown-it-py parses; a few render rules give the site its shapes (callouts,
copyable commands, collapsible sample outputs, linkable headings, worked
examples); Pygments highlights code on the server as classes only (no inline
style, so the CSP stays strict; static/css/reading.css colours them for both
themes); nh3 then sanitises the result so content can never inject script or style.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from pygments.lexer import Lexer
from pygments.lexers import BashLexer, BashSessionLexer, JsonLexer, PythonLexer, YamlLexer
from pygments.token import Comment, Generic, Keyword, Literal, Name, String, _TokenType

CALLOUTS = {"analogy": "Analogy", "warning": "Warning", "tip": "Key point", "note": "Note"}
COMMAND_LANGUAGES = {"shell", "bash", "sh"}
PROMPT = "$ "

# Languages the guide's fences name, and how each is tokenised.
_LEXERS: dict[str, Lexer] = {
    "shell": BashLexer(),
    "bash": BashLexer(),
    "sh": BashLexer(),
    "console": BashSessionLexer(),
    "yaml": YamlLexer(),
    "json": JsonLexer(),
    "python": PythonLexer(),
}
# A few token kinds get a colour (the class "hl-<letter>"); everything else stays plain
# text, so a command reads (and copies, and searches) exactly as written.
_STYLED: tuple[tuple[_TokenType, str], ...] = (
    (Comment, "c"),
    (Generic.Prompt, "p"),
    (String, "s"),
    (Name.Variable, "v"),
    (Name.Builtin, "b"),
    (Name.Tag, "t"),
    (Keyword, "k"),
)
_NUMBERS = (Literal.Number, "n")
_SHELLS = {"shell", "bash", "sh", "console"}

_ALLOWED_TAGS = {
    "a", "aside", "blockquote", "br", "button", "code", "del", "details", "div", "em",
    "figure", "h2", "h3", "h4", "hr", "li", "ol", "p", "pre", "span", "strong", "summary",
    "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
_ALLOWED_ATTRIBUTES = {
    "*": {"class", "id", "role", "aria-label", "aria-labelledby", "tabindex", "hidden"},
    "a": {"href", "title"},
    "button": {"type"},
    "td": {"style", "data-label"},
    "th": {"style", "scope"},
    "ol": {"start"},
}
_ALLOWED_STYLE = {"text-align"}


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str


@dataclass(frozen=True)
class Passage:
    """The text under one heading (or before the first), for search."""

    anchor: str
    heading: str
    text: str


@dataclass(frozen=True)
class Rendered:
    html: str
    headings: tuple[Heading, ...]
    front_matter: str
    passages: tuple[Passage, ...]


def _render_callout(kind: str):  # type: ignore[no-untyped-def]
    def render(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        if token.nesting == -1:
            return "</div></aside>\n"
        title = token.info.strip()[len(kind) :].strip()
        label = html.escape(title or CALLOUTS[kind])
        return (
            f'<aside class="callout callout-{kind}" aria-label="{label}">'
            f'<p class="callout-title">{label}</p><div class="callout-body">\n'
        )

    return render


def _render_sample(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    if token.nesting == -1:
        return "</div></details>\n"
    title = token.info.strip()[len("sample") :].strip()
    command = ""
    for follower in tokens[idx + 1 :]:
        if follower.type == "fence":
            first, _, _ = follower.content.partition("\n")
            command = first.removeprefix(PROMPT)
            follower.meta["sample_output"] = True
            break
    escaped = html.escape(command)
    return (
        '<details class="sample"><summary>'
        f'<span class="sample-title">{html.escape(title)}</span> '
        f'<code class="sample-command">{escaped}</code></summary>'
        '<div class="sample-body"><div class="code-block command">'
        f'<pre tabindex="0"><code>{PROMPT}{highlight(command, "shell")}</code></pre>'
        f"{code_bar('', 'Copy command')}</div>\n"
    )


WORKED_EXAMPLE = "worked-example"


def _render_worked_example(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    # Imported here: the examples run the scheduler engine, which only guide pages need.
    from studysite.guide.examples import worked_example

    token = tokens[idx]
    if token.nesting == -1:
        example = worked_example(env["worked_examples"].pop())
        tries = "".join(
            f'<li><a href="{html.escape(t.url)}">{html.escape(t.text)}</a></li>'
            for t in example.tries
        )
        return (
            str(_PARSER.render(example.markdown))
            + (f'<ul class="worked-example-try">{tries}</ul>' if tries else "")
            + "</div>\n"
        )
    name = token.info.strip()[len(WORKED_EXAMPLE) :].strip()
    example = worked_example(name)
    env.setdefault("worked_examples", []).append(name)
    title = html.escape(example.title)
    return (
        f'<div class="worked-example" role="region" aria-labelledby="example-{name}">'
        '<p class="worked-example-badge"><strong>Worked example</strong> · added by this '
        "site; the numbers are computed by its scheduler engine when the page is built</p>"
        f'<h2 class="worked-example-title" id="example-{name}">{title}</h2>\n'
    )


def highlight(code: str, language: str) -> str:
    """Escaped code with `<span class="hl-x">` around the few token kinds that get a colour."""
    lexer = _LEXERS.get(language)
    if lexer is None:
        return html.escape(code, quote=False)
    styled = _STYLED if language in _SHELLS else (*_STYLED, _NUMBERS)
    pieces: list[str] = []
    current, run = "", ""
    for kind, value in lexer.get_tokens(code):
        name = next((letter for parent, letter in styled if kind in parent), "")
        if name != current and run:
            pieces.append(_span(current, run))
            run = ""
        current, run = name, run + value
    pieces.append(_span(current, run))
    return "".join(pieces).rstrip("\n")


def _span(name: str, text: str) -> str:
    escaped = html.escape(text, quote=False)
    return f'<span class="hl-{name}">{escaped}</span>' if name and text.strip() else escaped


def code_bar(language: str, copy_label: str = "") -> str:
    """The bar above a code block: its language, then "Wrap lines" and "Copy" (shown by
    reading.js). It sits above the code, so no button ever covers a line."""
    label = f'<span class="code-lang">{html.escape(language)}</span>' if language else ""
    copy = (
        f'<button type="button" class="copy" hidden>{html.escape(copy_label)}</button>'
        if copy_label
        else ""
    )
    return (
        f'<div class="code-bar">{label}'
        '<button type="button" class="wrap-toggle" hidden>Wrap lines</button>'
        f"{copy}</div>"
    )


def _render_fence(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    language = token.info.strip().split(" ")[0]
    content = token.content
    if token.meta.get("sample_output"):
        _, _, output = content.partition("\n")
        return (
            '<pre class="output" tabindex="0" aria-label="Sample output">'
            f"<code>{html.escape(output.rstrip())}</code></pre>\n"
        )
    code = f'<pre tabindex="0"><code>{highlight(content.rstrip(), language)}</code></pre>'
    if language in COMMAND_LANGUAGES:
        return f'<div class="code-block command">{code}{code_bar(language, "Copy")}</div>\n'
    return f'<div class="code-block">{code}{code_bar(language)}</div>\n'


def _render_heading_close(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    opening = tokens[idx - 2]
    anchor = opening.attrGet("id")
    if not anchor:
        return f"</{tokens[idx].tag}>\n"
    text = html.escape(tokens[idx - 1].content, quote=True)
    return (
        f' <a class="anchor" href="#{anchor}" aria-label="Link to “{text}”">#</a>'
        f"</{tokens[idx].tag}>\n"
    )


def _build_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(
        ["table", "strikethrough"]
    )
    md.use(front_matter_plugin)
    md.use(anchors_plugin, min_level=2, max_level=3)
    for kind in CALLOUTS:
        md.use(container_plugin, name=kind, render=_render_callout(kind))
    md.use(container_plugin, name="sample", render=_render_sample)
    md.use(container_plugin, name=WORKED_EXAMPLE, render=_render_worked_example)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_block", _render_fence)
    md.add_render_rule("heading_close", _render_heading_close)
    return md


_PARSER = _build_parser()


def _label_cells(tokens: Sequence[Token]) -> None:
    """Give each body cell its column's heading as `data-label`.

    On a narrow screen (reading.css) a table's rows stack into cards and each cell shows its
    heading before it, so every column is on screen without scrolling sideways; the ARIA roles
    keep the table's semantics for screen readers when CSS changes how its parts display.
    """
    headings: list[str] = []
    column = 0
    roles = {
        "table_open": "table",
        "thead_open": "rowgroup",
        "tbody_open": "rowgroup",
        "tr_open": "row",
        "th_open": "columnheader",
        "td_open": "cell",
    }
    for index, token in enumerate(tokens):
        if token.type in roles:
            token.attrSet("role", roles[token.type])
        if token.type == "thead_open":
            headings = []
        elif token.type == "th_open":
            headings.append(" ".join(plain_text(tokens[index + 1]).split()))
        elif token.type == "tr_open":
            column = 0
        elif token.type == "td_open":
            if column < len(headings) and headings[column]:
                token.attrSet("data-label", headings[column])
            column += 1


def _wrap_tables(rendered: str) -> str:
    # A wide table scrolls inside its own focusable region instead of the page (on a wide
    # screen; on a narrow one its rows stack, see _label_cells).
    return re.sub(
        r"<table( [^>]*)?>",
        lambda match: (
            '<div class="table-scroll" tabindex="0" role="region" aria-label="Table">'
            + match.group(0)
        ),
        rendered,
    ).replace("</table>", "</table></div>")


def sanitise(fragment: str) -> str:
    return nh3.clean(
        fragment,
        tags=_ALLOWED_TAGS,
        attributes=_ALLOWED_ATTRIBUTES,
        filter_style_properties=_ALLOWED_STYLE,
        link_rel=None,
        url_schemes={"http", "https", "mailto"},
    )


def plain_text(inline: Token) -> str:
    """What a reader sees of one inline run: no Markdown marks, link text without its URL."""
    return "".join(
        child.content if child.type in {"text", "code_inline"} else " "
        for child in inline.children or ()
        if child.type in {"text", "code_inline", "softbreak", "hardbreak"}
    )


def render_document(source: str) -> Rendered:
    env: dict[str, Any] = {}
    tokens = _PARSER.parse(source, env)
    front_matter = next((t.content for t in tokens if t.type == "front_matter"), "")
    headings: list[Heading] = []
    passages: list[Passage] = []
    current = Passage("", "", "")
    texts: list[str] = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.attrGet("id"):
            passages.append(Passage(current.anchor, current.heading, " ".join(texts)))
            heading = Heading(
                int(token.tag[1]), tokens[index + 1].content, str(token.attrGet("id"))
            )
            headings.append(heading)
            current, texts = Passage(heading.anchor, heading.text, ""), []
        elif token.type == "inline" and tokens[index - 1].type != "heading_open":
            texts.append(plain_text(token))
        elif token.type == "fence":
            texts.append(token.content)
    passages.append(Passage(current.anchor, current.heading, " ".join(texts)))
    _label_cells(tokens)
    body = _wrap_tables(_PARSER.renderer.render(tokens, _PARSER.options, env))
    return Rendered(sanitise(body), tuple(headings), front_matter, tuple(passages))


def render_markdown(source: str) -> str:
    """Render a short study text (a quiz explanation, a card back) to safe HTML."""
    return render_document(source).html


def render_inline(source: str) -> str:
    """Render one line of Markdown without the wrapping paragraph."""
    return sanitise(_PARSER.renderInline(source))
