"""borders_sim: the card game BORDERS (3-8 players) as a fast, faithful simulator for RL.

* :class:`GameConfig`: player count and rule variants (defaults are the rulebook).
* :class:`Game`: play a game step by step with legal masks and readable action strings.
* :mod:`borders_sim.rules`: the numba kernels over a plain array state.
* :func:`set_compile_messages`: an installed package ships its kernels compiled, so its first
  ``Game(...)`` loads them without compiling (``docs/speed.md``, Start-up, has the measured
  times). Where they cannot be used (a source checkout run in place, another CPU or numba, an
  edited module) the first use of a kernel compiles it and says so on stderr;
  ``set_compile_messages(False)`` or the environment variable ``BORDERS_SIM_QUIET=1`` silences
  that note. Later runs load numba's on-disk cache and print nothing; ``borders-sim warmup``
  (:mod:`borders_sim.cli.warmup`) compiles every kernel ahead of time.
"""

from pathlib import Path

from ._compile import cache as _cache, shipped as _shipped
from ._compile.cache import configure_cache_dir, package_digest, sync_kernel_cache

# Before any kernel module is imported: numba picks each kernel's cache directory then, and each
# kernel looks for the kernels shipped in the package (borders_sim._compile.shipped).
_digest = package_digest(Path(__file__).parent)
configure_cache_dir(Path(__file__).parent)
_shipped.configure(Path(__file__).parent, _digest)
sync_kernel_cache(Path(__file__).parent, _digest)  # before any kernel loads numba's cache

from ._compile.notice import set_compile_messages  # noqa: E402
from .game import Game, IllegalActionError  # noqa: E402
from .rules.actions import NUM_ACTIONS  # noqa: E402
from .rules.config import GameConfig  # noqa: E402
from .rules.engine import EngineError  # noqa: E402

__version__ = "0.1.0"
__all__ = ["EngineError", "Game", "GameConfig", "IllegalActionError", "NUM_ACTIONS",
           "kernel_cache", "set_compile_messages",
           "__version__"]


def kernel_cache() -> str:
    """Where numba caches this package's compiled kernels, in words (a directory, the
    ``__pycache__`` beside the sources, or nowhere: then every new process compiles again)."""
    return _cache.location
