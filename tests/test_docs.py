"""The documentation site: it builds with ``mkdocs build --strict``, and its examples run.

Every ```` ```python ```` block of ``docs/**/*.md`` is executed. The blocks of one page run in
order in one namespace, as a reader pasting them into one session would (a page says so where
a block uses an earlier one). A ```` ```text ```` block that directly follows a Python block is
the output that block prints, and is compared with it.
"""

import contextlib
import html
import io
import os
import pathlib
import re
import subprocess
import sys

import pytest
import torch

from rlcore import check_ambiguities

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def examples(page):
    """``[(code, expected_output or None)]`` for the Python blocks of ``page``, in order."""
    text = page.read_text()
    blocks = list(FENCE.finditer(text))
    found = []
    for block, following in zip(blocks, blocks[1:] + [None]):
        if block.group(1) != "python":
            continue
        expected = None
        if following is not None and following.group(1) == "text" \
                and not text[block.end():following.start()].strip():
            expected = following.group(2)
        found.append((block.group(2), expected))
    return found


PAGES_WITH_CODE = [page for page in PAGES if examples(page)]


def _lines(output):
    return [line.rstrip() for line in output.strip().splitlines()]


def test_the_site_builds_strict(tmp_path):
    """Broken links, anchors, references and docstrings fail the build (``--strict``)."""
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason='needs the docs extra: pip install -e ".[docs]"')
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
         str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stdout + result.stderr
    # the experiment list is generated from the registry (docs/mkdocs_hooks.py)
    from rlzoo.experiments import registry

    experiments = html.unescape((site / "experiments" / "index.html").read_text())
    assert "experiment-list" not in experiments
    for name in registry.names():
        assert re.search(f'<h3 id="{name.lower()}">.*{name}', experiments), name
        assert registry.describe(name) in experiments, name


def test_the_pages_have_examples():
    assert len(PAGES_WITH_CODE) >= 6
    assert sum(len(examples(page)) for page in PAGES) >= 20


@pytest.fixture
def one_thread():
    # Small networks run fastest on one thread; examples may set it themselves, and the
    # setting is restored for the rest of the test session.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_examples_run(page, one_thread):
    namespace = {"__name__": "__docs__"}
    for i, (code, expected) in enumerate(examples(page)):
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            exec(compile(code, f"{page.relative_to(ROOT)}, example {i + 1}", "exec"), namespace)
        if expected is not None:
            assert _lines(output.getvalue()) == _lines(expected), \
                f"{page.name}, example {i + 1} prints another output than the page shows"
    check_ambiguities()  # the rules a page registers leave every generic function unambiguous


def test_the_shell_examples_name_real_experiments_and_parameters():
    """``rlzoo run NAME key=value`` lines of the pages (not executed: they train for minutes)
    name registered experiments and their parameters."""
    from rlzoo.experiments import registry

    commands = [re.match(r"(?:python -m )?rlzoo (?:run|show) (\w+)((?: [^#]*)?)", line.strip())
                for page in PAGES for language, code in FENCE.findall(page.read_text())
                if language == "bash" for line in code.splitlines()]
    commands = [c for c in commands if c and c.group(1) != "NAME"]
    assert commands
    for command in commands:
        name = command.group(1)
        assert name in registry.names(), command.group(0)
        keys = re.findall(r"(\w+)=", command.group(2))
        assert set(keys) <= set(registry.parameters(name)), command.group(0)


def test_the_new_learners_are_under_100_lines():
    page = DOCS / "new-algorithm.md"
    learner = re.compile(r"^class \w+\((AbstractLearner|AbstractReplayLearner)\)", re.MULTILINE)
    learners = [code for code, _ in examples(page) if learner.search(code)]
    assert len(learners) == 2
    assert all(len(code.splitlines()) < 100 for code in learners)


def test_the_docs_stand_alone():
    """The repository carries its own design: no page points outside it."""
    for page in PAGES:
        text = page.read_text()
        assert "DESIGN.md" not in text and "../shared" not in text, page
