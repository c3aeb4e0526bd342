"""MkDocs hook: pages that show a section of a file outside docs/ (README.md's semantics,
autograd and nn sections, CHANGELOG.md), so each text has one home.

A line ``{{ include FILE }}`` or ``{{ include FILE section="Title" }}`` is replaced by
the file (or by its ``## Title...`` section without the heading); ``untitled`` after the
file name drops the file's ``# `` title line (the including page has its own). Links the included text
makes relative to the repository root are rewritten: ``docs/x.md`` becomes ``x.md``, any
other repository path becomes plain code text (it is no page of the site).
"""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
_INCLUDE = re.compile(r'^\{\{ include (\S+)(?: section="([^"]+)")?( untitled)? \}\}$', re.M)
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def _section(text: str, title: str, name: str) -> str:
    m = re.search(rf"^## {re.escape(title)}.*$", text, re.M)
    if m is None:
        raise ValueError(f"docs/hooks.py: {name} has no section '## {title}'")
    end = text.find("\n## ", m.end())
    return text[m.end():end if end != -1 else len(text)].strip() + "\n"


def _relink(text: str) -> str:
    def fix(m: re.Match) -> str:
        label, target = m.group(1), m.group(2)
        if target.startswith(("http://", "https://", "#", "mailto:")):
            return m.group(0)
        if target.startswith(("docs/", "../docs/")):
            return f"[{label}]({target.split('docs/', 1)[1]})"
        return label if label.startswith("`") else f"{label} (`{target}`)"

    return _LINK.sub(fix, text)


def on_page_markdown(markdown: str, page, config, files) -> str:
    def include(m: re.Match) -> str:
        name = m.group(1)
        text = (ROOT / name).read_text()
        if m.group(2):
            text = _section(text, m.group(2), name)
        elif m.group(3) and text.startswith("# "):
            text = text.split("\n", 1)[1]
        return _relink(text)

    return _INCLUDE.sub(include, markdown)
