"""The ``borders-sim`` command line.

Usage::

    borders-sim tournament [--players N] [--bots a,b,c,...] [--games G] [--seed S]
                           [--json FILE] [--csv FILE] [--plot FILE.png] [--record DIR]
                           [--backend local|ray] [--ray-address ADDR] [--threads T]
    borders-sim play --seat P [--bots a,b,...] [--players N] [--seed S]
    borders-sim replay FILE [--verbose]
    borders-sim serve [--host H] [--port P] [--records DIR] [--bot SPEC] [--idle-minutes M]
                      [--max-games G]      # the table in the browser (the serve extra)
    borders-sim simulate --players N [--games G] [--seed S] [--no-action-cards] [--threads T]
    borders-sim simulate --players all --games 2000
    borders-sim bench [--quick ...]      # runs benchmarks/rollouts.py of a source checkout
    borders-sim warmup                   # compile every kernel ahead (Docker images, clusters)
    borders-sim actions                  # the table of action-id ranges
    borders-sim --version

One module per command (:mod:`.tournament`, :mod:`.play` with the terminal game of
:mod:`.terminal`, :mod:`.replay`, :mod:`.serve`, :mod:`.simulate`, :mod:`.warmup`,
:mod:`.bench`), assembled by :mod:`.app`. Bad input (an unknown bot, a lineup that does not
match the player count, a path that cannot be written, an unreachable Ray address, a corrupt
trace, an unknown option) is one line ``borders-sim COMMAND: error: ...`` and a non-zero exit
(2 for arguments, 1 otherwise). Numbers take the rules of :mod:`borders_sim.checks` (seeds from 0
to ``2**64 - 1``).
"""

from .app import main

__all__ = ["main"]
