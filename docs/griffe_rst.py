"""A Griffe extension: the reST habits of the project's docstrings, read as Markdown.

The docstrings are written for readers of the source (and ``help()``): Sphinx roles
(``:class:`~rlcore.Agent```), literal blocks introduced by ``::`` and doctest examples
(``>>> ...``). mkdocstrings renders docstrings as Markdown, where those would show as raw roles,
stray ``::`` and nested block quotes. Before the API reference is rendered this extension
rewrites, in each docstring's text only (the source files are untouched):

* a role ``:class:`~a.b.C``` as the code span ``C`` (``:class:`a.b.C``` as ``a.b.C``);
* ``DESIGN.md §3`` (the design, which the site carries as ``architecture.md``) as a link to
  that section of the architecture page;
* the reST escape ``\\ `` (used to glue a plural ``s`` to a code span) as nothing;
* an indented literal block after a paragraph ending in ``::`` as a fenced code block, and the
  ``::`` as ``:``;
* a run of doctest lines (``>>>``, ``...`` and the expected output) as a fenced ``pycon`` block.

It is listed under ``extensions`` in ``mkdocs.yml``; the docs are built from the same docstrings
that ``pytest --doctest-modules`` runs.
"""

import re

import griffe

_ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`(~?)([^`]+)`")
# "DESIGN.md §3" names a section of the design, which the site carries as architecture.md
_DESIGN = re.compile(r"(?:``)?(?:DESIGN|docs/architecture|architecture)\.md(?:``)?(?: §(\d))?")
DESIGN_SECTIONS = {
    "1": "design-packages", "2": "design-environment-interface", "3": "design-run-loop",
    "4": "design-update-rules", "5": "design-components", "6": "design-experiments",
    "7": "design-one-path", "8": "design-everyday-use", "9": "design-past-one-machine",
}


def _role(match):
    target = match.group(2)
    if match.group(1):
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _design(match):
    section = match.group(1)
    if section is None:
        return "[the architecture][design]"
    return f"[architecture §{section}][{DESIGN_SECTIONS[section]}]"


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def rst_to_markdown(text):
    """The docstring ``text`` with roles, ``::`` blocks and doctests in Markdown."""
    text = _ROLE.sub(_role, text).replace("\\ ", "")
    text = _DESIGN.sub(_design, text)
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.endswith("::") and not stripped.startswith(">>>"):
            # a literal block: the next indented lines after a blank line
            base = _indent(line)
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and _indent(lines[j]) > base:
                head = line.rstrip()[:-1]  # "Example::" -> "Example:"; a lone "::" -> ":"
                if head.strip() != ":":
                    out.append(head)
                    out.append("")
                block = []
                k = j
                while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) > base):
                    block.append(lines[k])
                    k += 1
                while block and not block[-1].strip():
                    block.pop()
                inner = min(_indent(b) for b in block if b.strip())
                language = "pycon" if block[0].strip().startswith(">>>") else "python"
                pad = " " * base
                out.append(f"{pad}```{language}")
                out.extend(pad + b[inner:] if b.strip() else "" for b in block)
                out.append(f"{pad}```")
                out.append("")
                i = k
                continue
        if stripped.startswith(">>>"):
            pad = " " * _indent(line)
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(pad):] if lines[i].startswith(pad) else lines[i].strip())
                i += 1
            if out and out[-1].strip():
                out.append("")
            out.append(f"{pad}```pycon")
            out.extend(pad + b for b in block)
            out.append(f"{pad}```")
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class RstDocstrings(griffe.Extension):
    """Rewrite each docstring with :func:`rst_to_markdown` as the object is loaded."""

    def on_instance(self, *, node, obj, agent, **kwargs):
        if obj.docstring is not None:
            obj.docstring.value = rst_to_markdown(obj.docstring.value)
