"""Playing games in batches: many games, with given seats and seeds, inside one compiled call.

This package owns the central act of the library, and every whole-game kernel is a thin caller
of it:

* :mod:`.seeds`: every seeding rule (a stream's games, a game's bots, a lineup draw, random
  rollouts, a search rollout's world);
* :mod:`.seats`: the seat vocabulary (compiled bots, network specs, ``"external:NAME"``) and the
  seat table of kinds it gives, unknown names refused;
* :mod:`.loop`: the one compiled game loop (deal a game; let the compiled seats decide until an
  external seat must, or the game ends);
* :mod:`.chunks`: the one chunked, multi-threaded run of a batch (:func:`~.chunks.run_chunks`);
* :mod:`.games`: whole games between compiled bots (the compiled path of tournaments);
* :mod:`.rollouts`: random rollouts, the fastest loop (benchmarks, ``borders-sim simulate``).

Its callers: tournaments (:mod:`borders_sim.arena`), the demonstrations and the search's rollouts
(:mod:`borders_sim.agents`), :class:`~borders_sim.envs.VectorEnv` and
:class:`~borders_sim.envs.training.TrainingEnv`. It sits above the rules and the compiled
policies (:mod:`borders_sim.policies`) and below the agents, the environments and the arena.
"""
