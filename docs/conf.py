"""Sphinx configuration of the borders_sim documentation site.

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Sphinx with MyST and the furo theme, as the Farama projects (Gymnasium, PettingZoo) build
theirs: the pages are markdown and hold what the README held before it became a front page
(``readme_map.py`` records where each of its sections went; ``getting-started`` and ``index``
include the front page's opening, first game and citation), MyST-NB executes the notebook
and the code cells of the environment pages during the build, so their text and their outputs
come from one run, and autodoc writes the API reference from the docstrings
(``api_reference.py``; a public name without a docstring is a warning, so ``-W`` fails the
build). Everything is read from this machine: no intersphinx, nothing fetched.

The notebook (``examples/quickstart.ipynb``) trains on a small budget here: its own variables
``BORDERS_NOTEBOOK_MINUTES`` and ``BORDERS_NOTEBOOK_GAMES``, set below unless the environment
sets them, as ``tests/test_notebook.py`` runs it. Build from outside the source checkout's root
to document the installed package (from the root, Python imports the source tree first).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
NOTEBOOK = DOCS.parent / "examples" / "quickstart.ipynb"
sys.path.insert(0, str(DOCS))  # this folder's extensions (not the package: that is imported)

import borders_sim  # noqa: E402

project = "borders_sim"
author = "the borders_sim authors"
copyright = "the borders_sim authors, Apache License 2.0"  # noqa: A001
release = version = borders_sim.__version__

extensions = [
    "myst_nb",                # MyST markdown, and notebooks executed during the build
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",    # the docstrings' Google style (Args:, Returns:)
    "sphinx.ext.viewcode",
    "api_reference",          # docs/api/: one page per package, from its __all__
    "readme_links",           # the README's links, made to point into this site
]
# docs/borders_v0.md keeps the layout of PettingZoo's environment pages (H1, then H3 sections)
suppress_warnings = ["myst.header"]
exclude_patterns = ["_build", "README.md", "api_reference.py", "check_links.py", "**/__pycache__", "**.ipynb_checkpoints"]
html_theme = "furo"
html_title = f"borders_sim {release}"

# MyST: heading anchors, so that the old README's #section links resolve on the site's pages
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

# MyST-NB: execute every notebook and every page with code cells, each time; a cell's error
# fails the build
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 900
nb_execution_in_temp = True  # the notebook writes its training run under runs/ of a temp dir
nb_merge_streams = True

# autodoc: the signatures as written, members in source order
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"show-inheritance": True}

# the notebook's small budget, unless the environment sets another
os.environ.setdefault("BORDERS_NOTEBOOK_MINUTES", "0.2")
os.environ.setdefault("BORDERS_NOTEBOOK_GAMES", "40")


def _kernel_of_this_interpreter() -> None:
    """Point Jupyter at a ``python3`` kernel of this interpreter only (no user's kernel spec,
    IPython profile or runtime files), as ``tests/test_notebook.py`` does."""
    from ipykernel.kernelspec import write_kernel_spec

    jupyter = Path(tempfile.mkdtemp(prefix="borders-docs-jupyter-"))
    write_kernel_spec(str(jupyter / "kernels" / "python3"))
    os.environ["JUPYTER_PATH"] = str(jupyter)
    os.environ["JUPYTER_RUNTIME_DIR"] = str(jupyter / "runtime")
    os.environ["IPYTHONDIR"] = str(jupyter / "ipython")
    os.environ.pop("MPLBACKEND", None)  # the kernel's own inline figures


def _copy_notebook() -> None:
    """Copy the notebook into this folder (Sphinx reads sources under it only; a symbolic
    link's target would be outside), unless the copy is already the same."""
    copy = DOCS / NOTEBOOK.name
    if not copy.is_file() or copy.read_bytes() != NOTEBOOK.read_bytes():
        shutil.copyfile(NOTEBOOK, copy)


_kernel_of_this_interpreter()
_copy_notebook()


def _drop_modules_without_source(app) -> list:
    """Before viewcode writes its pages: forget the modules it found no source for (``pyspiel``,
    a compiled extension, through the OpenSpiel classes the API documents). Sphinx's viewcode
    skips their pages but still lists them in ``_modules/index.html``, a link to nothing
    (``docs/check_links.py`` finds such links in CI)."""
    modules = getattr(app.env, "_viewcode_modules", {})
    for name in [name for name, entry in modules.items() if not entry]:
        del modules[name]
    return []


def setup(app) -> None:
    app.connect("html-collect-pages", _drop_modules_without_source, priority=400)
