"""Which ``borders_sim`` the suite tests: the installed package, not the source beside it.

Run from the checkout (``python -m pytest``, the README's command), Python and pytest put the
repository root first on ``sys.path``, so a plain ``import borders_sim`` would load the source
tree next to these tests and compile its kernels again, instead of the package that ``pip
install .`` installed with its kernels compiled in (``borders_sim/_kernels/``). This file, which
pytest imports before any test module, imports the installed package first and points every
process the tests start at it:

* this process: ``borders_sim`` is imported with the repository root left off ``sys.path``
  (an editable install, or no install at all, gives the checkout itself);
* processes it starts: the installed package's directory goes first on ``sys.path`` (inherited
  by ``multiprocessing``'s spawned workers and by Ray's), and first on ``PYTHONPATH`` with
  ``PYTHONSAFEPATH=1`` (Python 3.11+: a ``python -c``/``-m`` child started in the checkout does
  not put it first); the root stays on the path behind it, for ``tests.*`` helpers.

The first line of the run names the package under test and whether its shipped kernels
load. Benchmarks scripts run by the tests measure the checkout (they put it first themselves).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _is_root(entry: str) -> bool:
    try:
        return Path(entry or os.getcwd()).resolve() == ROOT
    except OSError:
        return False


def _import_under_test() -> Path:
    """Import ``borders_sim`` (the installed one where there is one); return its directory."""
    if "borders_sim" not in sys.modules:
        saved = list(sys.path)
        sys.path[:] = [p for p in sys.path if not _is_root(p)]
        try:
            import borders_sim  # noqa: F401  (site-packages, or an editable install's finder)
        except ModuleNotFoundError:
            pass  # not installed: the checkout's, below
        finally:
            sys.path[:] = saved
    import borders_sim
    return Path(borders_sim.__file__).resolve().parent


PACKAGE = _import_under_test()
INSTALLED = PACKAGE.parent != ROOT

if INSTALLED:
    sys.path.insert(0, str(PACKAGE.parent))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(PACKAGE.parent), str(ROOT)]
        + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    os.environ["PYTHONSAFEPATH"] = "1"


def under_test() -> str:
    """The package under test and whether its shipped kernels load, in words."""
    from borders_sim._compile import shipped
    why_not = shipped.shipped.why_not() if shipped.shipped is not None else "unknown"
    where = "installed" if INSTALLED else "the checkout: an editable install, or none"
    kernels = "shipped kernels: loaded" if not why_not else f"shipped kernels: not used ({why_not})"
    return f"borders_sim under test: {PACKAGE} ({where}); {kernels}"


def pytest_sessionstart(session) -> None:
    """Say what is tested before the first test, at every verbosity (the README's run is -q)."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(under_test())


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto`` (the default, pyproject.toml): one worker per core, at most 4 (each worker
    holds every kernel; the suite's heavy tests start processes of their own)."""
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else os.cpu_count() or 1))
