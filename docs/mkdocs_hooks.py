"""MkDocs hooks of the documentation site (listed under ``hooks:`` in ``mkdocs.yml``).

``experiments.md`` holds the marker ``<!-- experiment-list -->``; when the site is built it is
replaced by the list of named experiments read from ``rlzoo.experiments.registry``: for each
experiment its name, description, module, command line and every parameter with its default,
grouped by module under the module's docstring. The list cannot fall behind the code: a new
``@register``-ed experiment appears on the next build.
"""

import importlib.util
import inspect
import pathlib
import sys

from mkdocs.exceptions import PluginError

MARKER = "<!-- experiment-list -->"
ROOT = pathlib.Path(__file__).resolve().parents[1]


def _rst_to_markdown():
    # the same rewriting of reST habits (roles, "::" blocks, doctests) as the API reference's
    spec = importlib.util.spec_from_file_location("griffe_rst", ROOT / "docs" / "griffe_rst.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.rst_to_markdown


def _literal(value):
    """A default as the Python literal a user would type (``30_000``, ``'cpu'``, ``None``)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10_000:
        return f"{value:_}"
    return repr(value)


def _cell(text):
    return text.replace("|", "\\|")


def experiment_list():
    """The Markdown of the experiment list, from the registry."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # document the working tree being built
    from rlzoo.experiments import registry

    rst_to_markdown = _rst_to_markdown()
    names = registry.names()
    by_module = {}
    for name in names:
        by_module.setdefault(registry.get(name).__module__, []).append(name)

    lines = [f"{len(names)} experiments are registered.", "",
             "| experiment | description |", "|---|---|"]
    lines += [f"| [`{name}`](#{name.lower()}) | {_cell(registry.describe(name))} |"
              for name in names]
    for module_name, members in by_module.items():
        lines += ["", f"## `{module_name}`", ""]
        doc = inspect.getdoc(sys.modules[module_name])
        if doc:
            lines += [rst_to_markdown(doc), ""]
        for name in members:
            function = registry.get(name)
            lines += ["", f"### `{name}` {{#{name.lower()}}}", "",
                      registry.describe(name) + ".", ""]
            doc = inspect.getdoc(function)
            if doc:
                lines += [rst_to_markdown(doc), ""]
            lines += ["```bash", f"rlzoo run {name} --seed 0", f"rlzoo show {name}", "```", "",
                      "| parameter | default |", "|---|---|"]
            lines += [f"| `{key}` | `{_literal(value)}` |"
                      for key, value in registry.parameters(name).items()]
    return "\n".join(lines) + "\n"


def on_page_markdown(markdown, page, config, files, **kwargs):
    if page.file.src_uri != "experiments.md":
        return markdown
    if MARKER not in markdown:
        raise PluginError(f"experiments.md must contain the marker {MARKER}")
    return markdown.replace(MARKER, experiment_list())
