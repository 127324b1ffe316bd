"""Go's quoting as the lab's Go tools (kubectl, helm, runai) print it in their messages."""

from __future__ import annotations


def go_quote(text: str) -> str:
    """strconv.Quote (fmt's %q) for the texts a learner types: escapes for quotes,
    backslashes and control characters, printable characters as they are."""
    escapes = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    escapes |= {"\v": "\\v", '"': '\\"', "\\": "\\\\"}
    out: list[str] = []
    for ch in text:
        if ch in escapes:
            out.append(escapes[ch])
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def go_sharp_quote(text: str) -> str:
    """Go's %#q of a string: backquoted when strconv.CanBackquote allows, else %q."""
    if "`" not in text and "\ufeff" not in text and all(c == "\t" or c.isprintable() for c in text):
        return f"`{text}`"
    return go_quote(text)
