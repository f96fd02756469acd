"""Compiled policies: what a seat plays inside a compiled call.

Each is a numba kernel of a player's observation vector and legal mask only (never the state),
so the same code plays a seat of a whole-game kernel (:mod:`borders_sim.batch`) and the Python
bot of the same name (:mod:`borders_sim.agents`):

* the heuristic bots :mod:`.honest`, :mod:`.bluffer`, :mod:`.collector` and :mod:`.strict`, on
  the shared machinery of :mod:`.heuristics`;
* :mod:`.network`: a policy network (the ``ppo`` bot), its arrays, its file and its one compiled
  forward pass and sampling;
* :mod:`.registry`: the compiled bots, one entry each (name, policy, and the lists it joins:
  league, deviators, evaluations, default lineups);
* :mod:`.dispatch`: derived from that table, the bot *kinds* (:data:`~.dispatch.COMPILED_BOTS`,
  then one kind per network) and :func:`~.dispatch.act_kernel`, the one dispatch from a kind to
  its policy.
"""
