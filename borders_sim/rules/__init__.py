"""The game as numba kernels over one numpy record: the bottom layer of borders_sim.

A game is one element of :data:`~borders_sim.rules.state.STATE_DTYPE` (:mod:`.state`); the card
tables are :mod:`.cards`, the flags :mod:`.config`, the flat action space :mod:`.actions`. The
engine (:mod:`.engine`: the legal mask, a step, advancing to the next decision) runs the phases of
a round (:mod:`.phases`), and :mod:`.observation`, :mod:`.scoring` and :mod:`.rewards` read a
state. Nothing here knows the Python objects above it; :class:`borders_sim.Game` wraps these
kernels with checks.
"""
