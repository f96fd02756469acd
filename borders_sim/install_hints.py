"""How to install an optional part of borders_sim: the one place an install line is written.

borders_sim is not on PyPI: it is installed from its source checkout (``pip install .``), so an
extra of ``pyproject.toml`` is ``pip install ".[plot]"`` run in that checkout (an extra asked
for by the project's name would send pip to PyPI, where it fails). Every message that says how
to get an optional dependency (matplotlib, Ray, PyTorch and stable-baselines3, OpenSpiel,
resvg-py, Starlette) takes its line from :func:`install_hint`; :func:`needs` writes the whole
sentence::

    >>> install_hint("plot")
    'pip install ".[plot]" in the borders_sim source checkout (or pip install matplotlib)'
    >>> needs("--plot", "plot", "matplotlib").partition(":")[0]
    '--plot needs matplotlib'

The line of an extra with PyTorch (``rl``) installs :data:`TORCH_PIN`, the CPU build, first:
left to pip, an unpinned torch would pull a CUDA build of several GB.

It sits at the bottom of the package, beside :mod:`~borders_sim.checks` (the argument checks
every layer shares), and imports nothing, so every layer that meets an optional import can use
it with its imports pointing down:
``game`` (OpenSpiel; resvg-py and Pillow, the pixels of its drawings), ``envs``
(stable-baselines3), ``agents`` (OpenSpiel's bots), ``arena`` (matplotlib, Ray), ``train``
(PyTorch, matplotlib) and ``cli``.
"""

from __future__ import annotations

#: The PyTorch to install before an extra that needs it: the CPU build these machines use.
TORCH_PIN = "torch==2.13.0"

#: The extras of ``pyproject.toml`` (``[project.optional-dependencies]``) and what each
#: installs; a test keeps the two equal.
EXTRAS: dict[str, tuple[str, ...]] = {
    "test": ("pytest", "pytest-xdist", "hypothesis", "matplotlib", "nbclient", "nbformat",
             "ipykernel", "selenium", "httpx2", "httpx", "mcp>=2,<3",
             "textarena>=0.7.4,<0.8"),
    "plot": ("matplotlib",),
    "notebook": ("jupyterlab", "nbconvert", "ipykernel"),
    "distributed": ("ray",),
    "rl": ("torch>=2.1,<2.15", "sb3-contrib"),
    "rllib": ("ray[rllib]>=2.60,<2.61", "torch>=2.1,<2.15"),
    "tianshou": ("tianshou>=2.0.1,<2.1", "torch>=2.1,<2.15"),
    "bench": ("pettingzoo[classic]", "open_spiel"),
    "render": ("resvg-py", "pillow", "moviepy"),
    "serve": ("starlette", "uvicorn"),
    "llm": ("httpx",),
    "mcp": ("mcp>=2,<3",),
    "textarena": ("textarena>=0.7.4,<0.8",),
    "docs": ("sphinx", "myst-nb", "furo"),
}


def _name(requirement: str) -> str:
    """The project name of a requirement: ``"torch>=2.1,<2.15"`` -> ``"torch"``."""
    for i, ch in enumerate(requirement):
        if not (ch.isalnum() or ch in "-_."):
            return requirement[:i]
    return requirement


def _shell(requirement: str) -> str:
    """A requirement as a shell word (quoted where the shell would read ``[``, ``<`` or ``>``)."""
    return f'"{requirement}"' if any(c in requirement for c in "[]<>=,; ") else requirement


def install_hint(*extras: str, alone: tuple[str, ...] | None = None) -> str:
    """The command lines that install the optional ``extras`` (names of :data:`EXTRAS`), run in
    the borders_sim source checkout, then in parentheses the packages alone (``alone``, default
    the extras' packages), a second way for an install made elsewhere.
    ``install_hint("rl")`` -> ``pip install torch==2.13.0 (the CPU build), then pip install
    ".[rl]" in the borders_sim source checkout (or pip install sb3-contrib)``.

    Raises:
        ValueError: no extra, or one that pyproject.toml does not define.
    """
    if not extras:
        raise ValueError(f"install_hint takes one or more extras of {', '.join(EXTRAS)}")
    for extra in extras:
        if extra not in EXTRAS:
            raise ValueError(f"unknown extra {extra!r}; the extras are {', '.join(EXTRAS)}")
    packages = dict.fromkeys(p for e in extras for p in EXTRAS[e])  # ordered, no repeats
    torch = any(_name(p) == "torch" for p in packages)
    rest = [_shell(p) for p in (packages if alone is None else alone) if _name(p) != "torch"]
    line = f'pip install ".[{",".join(extras)}]" in the borders_sim source checkout'
    if rest:
        line += f" (or pip install {' '.join(rest)})"
    return f"pip install {TORCH_PIN} (the CPU build), then {line}" if torch else line


def needs(what: str, extra: str, module: str, alone: tuple[str, ...] | None = None) -> str:
    """``"{what} needs {module}: {install_hint(extra, alone=alone)}"``: the message of an error
    raised when ``module`` (of the optional ``extra``) is missing."""
    return f"{what} needs {module}: {install_hint(extra, alone=alone)}"
