"""Bots as Python objects: ``make(name, seed)`` gives a bot with ``act(observation,
action_mask) -> int`` for a player's observation vector (:func:`borders_sim.envs.observe`, or
the ``"observation"`` of the PettingZoo env) and its legal mask (any 0/1 array of
``NUM_ACTIONS``)."""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

import numpy as np

from ..rules.actions import NUM_ACTIONS
from ..checks import as_choice, as_seed, shown
from ..rules.engine import MASK_SIZE
from ..rules.observation import OBS_SIZE
from ..rules.rng import seed_words
from .base import Bot
from .ismcts import ISMCTSBot
from ..policies.dispatch import COMPILED_BOTS, act_kernel
from ..policies.network import NO_NETS
from .ppo_bot import PPOBot


class CompiledBot(Bot):
    """A bot whose policy is a compiled kernel of :mod:`borders_sim.policies.dispatch`; the same
    kernel plays it inside whole-game kernels (:mod:`borders_sim.batch`), so both make the same
    choices for the same seed.

    Args:
        name: one of :data:`~borders_sim.policies.dispatch.COMPILED_BOTS`.
        seed: seeds the bot's own generator (a seed, 0 to ``2**64 - 1``,
            :mod:`borders_sim.checks`).

    Raises:
        ValueError: an unknown name or a bad seed.
    """

    def __init__(self, name: str, seed: int = 0) -> None:
        self.name = as_choice(name, "name", COMPILED_BOTS)
        self.kind = COMPILED_BOTS.index(name)
        self.rng = seed_words(as_seed(seed))
        self._mask = np.zeros(MASK_SIZE, dtype=np.uint8)
        self._words = self._mask.view(np.uint64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs = np.asarray(observation, dtype=np.float32)
        mask = np.asarray(action_mask)
        if obs.shape != (OBS_SIZE,) or mask.shape != (NUM_ACTIONS,):
            raise ValueError(f"{self.name} bot: expected an observation of shape ({OBS_SIZE},) "
                             f"and a mask of shape ({NUM_ACTIONS},), got {obs.shape} and "
                             f"{mask.shape}")
        self._mask[:NUM_ACTIONS] = mask != 0
        count = int(self._mask.sum())
        if count == 0:
            raise ValueError(f"{self.name} bot: the action mask allows no action")
        a = int(act_kernel(self.kind, obs, self._mask, self._words, count, self.rng, NO_NETS))
        if not 0 <= a < NUM_ACTIONS or not self._mask[a]:
            raise RuntimeError(f"{self.name} bot chose action {a}, which the mask does not "
                               "allow (a bug in the bot)")
        return a

    def __repr__(self) -> str:
        return f"CompiledBot({self.name!r})"


#: Bot name -> factory ``(seed, **options) -> bot``: the compiled heuristics, the search bot
#: and the learned policy (``ppo``, options ``weights`` and ``sample``).
REGISTRY: dict[str, Callable[..., Bot]] = {
    name: (lambda seed, name=name: CompiledBot(name, seed)) for name in COMPILED_BOTS}
REGISTRY["ismcts"] = ISMCTSBot
REGISTRY["ppo"] = PPOBot
#: Bot kinds that live in a package of their own, imported when a name first asks for one:
#: name prefix -> package with ``bot_factory(spec) -> (seed) -> bot``. OpenSpiel's bots
#: (``openspiel-ismcts:sims=50``, :mod:`borders_sim.openspiel`) need open_spiel, which the rest
#: of borders_sim never imports; a language model's seat (``llm:MODEL@URL``, or ``llm`` with
#: options, :mod:`borders_sim.llm`) needs httpx. A package whose ``bot_factory`` takes keyword
#: options gets those of :func:`make`.
PLUGIN_KINDS = {"openspiel-": "borders_sim.openspiel", "llm:": "borders_sim.llm"}
#: The kinds whose bots wait on the network for each decision (a language model's): a
#: tournament plays their games in threads, many replies in flight (``concurrency``).
WAITING_KINDS = ("llm:",)


def waits(spec: str) -> bool:
    """Whether the bot of ``spec`` waits on the network (:data:`WAITING_KINDS`)."""
    return isinstance(spec, str) and spec.startswith(WAITING_KINDS)


def is_plugin(spec: str) -> bool:
    """Whether ``spec`` names a bot of a :data:`PLUGIN_KINDS` package (a prefix ending in
    ``:`` names one alone too: ``llm``)."""
    return isinstance(spec, str) and (spec.startswith(tuple(PLUGIN_KINDS))
                                      or f"{spec}:" in PLUGIN_KINDS)


def plugin_factory(spec: str, **options: Any) -> Callable[[int], Bot]:
    """The factory ``(seed) -> bot`` of a :data:`PLUGIN_KINDS` spec, its package imported now;
    ``options`` go to its ``bot_factory`` (refused by a package that takes none).

    Raises:
        ValueError: a bad name or option, or the package's dependency is not installed (the
            message gives its install line).
    """
    package = next(module for prefix, module in PLUGIN_KINDS.items()
                   if spec.startswith(prefix) or f"{spec}:" == prefix)
    try:
        module = importlib.import_module(package)
    except ModuleNotFoundError as err:
        if err.name is not None and err.name.startswith(package):
            raise
        raise ValueError(f"bot {spec!r}: {err}") from None
    if options:
        takes = inspect.signature(module.bot_factory).parameters.values()
        if not any(p.kind is p.VAR_KEYWORD for p in takes):
            raise ValueError(f"bot {spec!r}: options follow the name (:key=value), got "
                             f"{sorted(options)}")
        return module.bot_factory(spec, **options)
    return module.bot_factory(spec)


def make(name: str, seed: int = 0, **options: Any) -> Bot:
    """A new bot ``name`` (see :data:`REGISTRY`, or an OpenSpiel bot of :data:`PLUGIN_KINDS`
    with its options in the name, ``openspiel-ismcts:sims=50``) seeded with ``seed``;
    ``options`` go to its constructor (``make("ppo", weights=PATH)``, ``make("ismcts",
    simulations=400)``, ``make("llm", model="qwen3-4b", base_url="http://127.0.0.1:8000/v1")``:
    a language model's seat, :mod:`borders_sim.llm`). A lineup's specs (``ppo:argmax@PATH``) are made by
    :func:`~.lineup.make_spec`.

    Raises:
        ValueError: an unknown name (the message lists the known ones) or a bad seed (a seed
            is an int from 0 to ``2**64 - 1``, :mod:`borders_sim.checks`).
    """
    if is_plugin(name):
        return plugin_factory(name, **options)(as_seed(seed))
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"unknown bot {shown(name)}; known bots: {sorted(REGISTRY)}")
    if options and name in COMPILED_BOTS:
        raise ValueError(f"the {name} bot takes no options, got {sorted(options)}")
    return REGISTRY[name](as_seed(seed), **options)
