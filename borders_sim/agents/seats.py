"""A seat of a lineup as a value: who plays it, made once from what a user hands in.

A tournament's lineup is a sequence of :class:`Seat`. :func:`as_seat` makes one, at the door,
of any of these:

* a bot the library names, as a spec (``honest``, ``ppo:argmax@PATH``, ``ppo-zoo/NAME``,
  ``openspiel-ismcts:sims=50``: :mod:`.lineup`), checked there;
* ``"MODULE:NAME"``, a user's bot: NAME a bot class or a factory ``(seed) -> bot`` in the
  importable module MODULE (a spec the library knows keeps its meaning: ``ppo:argmax`` is the
  ``ppo`` bot, greedy);
* the name of a bot an installed package adds (entry-point group :data:`ENTRY_POINTS`,
  ``borders_sim.bots``: :func:`installed_bots`);
* a bot class or a factory ``(seed) -> bot`` itself (a class whose constructor takes no
  argument is called without the seed);
* a :class:`~borders_sim.policies.network.NetPlayer`, a policy network in memory at its
  temperature (it plays inside the kernels, as a ``ppo`` spec does);
* a torch module of the policy file's shape (``Linear, Tanh, Linear, Tanh, Linear``: no file
  needed, :func:`module_seat`; it plays inside the kernels too);
* a policy function ``(observation, action_mask) -> action`` (two parameters: a function of one
  is a factory), played through the Python loop (:func:`policy_seat`);
* a :class:`Seat`, as it is (``Seat("mine", factory=MyBot)`` names a user's bot).

A bot is anything with ``act(observation, action_mask) -> int`` (:class:`~.base.Bot`). A seat of
a spec whose bot has a compiled twin plays inside the whole-game kernels; any other seat plays
through the Python loop (:func:`borders_sim.arena.run_tournament` picks the path)::

    from borders_sim.agents import Seat
    from borders_sim.arena import run_tournament

    class Greedy:
        name = "greedy"
        def __init__(self, seed):
            self.seed = seed
        def act(self, observation, action_mask):
            return int(action_mask.nonzero()[0][-1])

    results = run_tournament(4, [Greedy, "honest", "honest", "bluffer"], games=40)
"""

from __future__ import annotations

import inspect
import os
import pickle
import sys
from collections.abc import Callable
import functools
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points

from ..checks import as_seed
from ..policies.network import SAMPLE_TEMPERATURE, NetPlayer
from ..user_code import NAMED, import_named
from .base import Bot
from .bots import make, waits
from .lineup import check_spec, compiled_kinds, known, make_spec
from .ppo_bot import PPOBot

#: The entry-point group by which an installed package adds bots by name: in its
#: ``pyproject.toml``, ``[project.entry-points."borders_sim.bots"]`` and ``NAME =
#: "MODULE:CLASS_OR_FACTORY"``.
ENTRY_POINTS = "borders_sim.bots"

@dataclass(frozen=True)
class Seat:
    """Who plays a seat: ``name``, as tables, results and records call it, and one of the
    library's bot ``spec``, a user's ``factory`` ``(seed) -> bot`` or a policy network in
    memory ``net`` (a :class:`~borders_sim.policies.network.NetPlayer`: a policy at its
    temperature, as a training run hands its learner to the arena; compared by the seat's
    name). Make one with :func:`as_seat`, which checks it."""

    name: str
    spec: str | None = None
    factory: Callable[..., Bot] | None = None
    net: NetPlayer | None = field(default=None, compare=False)
    #: a spec's bot options, ``(name, value)`` pairs (:func:`with_options`: a language
    #: model's ``talk``, ``retries``, ``fallback``)
    options: tuple[tuple[str, object], ...] = ()

    @functools.cached_property
    def compiled(self) -> bool:
        """The seat's bot has a compiled twin, so it can play inside the kernels."""
        return self.net is not None or (self.spec is not None
                                        and compiled_kinds([self.spec]) is not None)

    @property
    def waits(self) -> bool:
        """The seat's bot waits on the network for its decisions (a language model's,
        :func:`~.bots.waits`): its games are played in threads, many at once."""
        return self.spec is not None and waits(self.spec)

    @property
    def picklable(self) -> bool:
        """The seat travels to a spawned worker process: a spec does, and a user's factory
        defined at the top of a module (or of a script run as one); a lambda, a class defined
        inside a function, in a notebook or in code piped to ``python -`` (whose ``__main__`` a
        worker cannot import) does not."""
        if self.factory is None:
            return True
        main = sys.modules.get("__main__")
        parts = [self.factory]
        if isinstance(self.factory, functools.partial):  # a policy_seat's: the policy too
            parts += [self.factory.func, *self.factory.args]
        script = getattr(main, "__file__", None)  # a notebook has none, python - "<stdin>"
        if any(getattr(part, "__module__", None) == "__main__" for part in parts) and not (
                script and os.path.isfile(script)):
            return False
        try:
            pickle.dumps(self)
        except (pickle.PicklingError, AttributeError, TypeError):
            return False
        return True

    def make(self, seed: int = 0) -> Bot:
        """The seat's bot, seeded with ``seed`` (a seed of :mod:`borders_sim.checks`).

        Raises:
            TypeError: a user's factory gave something without ``act``.
        """
        if self.spec is not None:
            return make(self.spec, seed, **dict(self.options)) if self.options else \
                make_spec(self.spec, seed)
        seed = as_seed(seed)
        if self.net is not None:
            return PPOBot(seed, weights=self.net.policy, sample=self.net.temperature > 0,
                          temperature=self.net.temperature or SAMPLE_TEMPERATURE)
        bot = self.factory(seed) if _takes_seed(self.factory) else self.factory()
        if not callable(getattr(bot, "act", None)):
            raise TypeError(f"seat {self.name!r}: its factory gave a {type(bot).__name__}, "
                            f"which has no act(observation, action_mask) method")
        return bot


def with_options(seat: Seat, **options: object) -> Seat:
    """``seat`` whose bot is made with ``options`` too (a spec of a kind that takes options:
    ``with_options(as_seat("llm:m@URL"), talk=True, retries=3)``), checked now.

    Raises:
        ValueError: a seat without a spec, or options its kind refuses (named).
    """
    if seat.spec is None:
        raise ValueError(f"seat {seat.name!r}: only a spec's bot takes options")
    given = Seat(seat.name, spec=seat.spec, options=tuple(sorted({**dict(seat.options),
                                                                   **options}.items())))
    given.make(0)  # (the options checked at the door)
    return given


def _takes_seed(factory: Callable) -> bool:
    """Whether ``factory`` takes an argument (the seed); a class: its constructor."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: give it the seed
        return True
    return any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
               for p in params)


def _named(obj: Callable) -> str:
    """A user's class or factory as a table names it: ``MODULE:NAME``, or ``NAME`` when it was
    defined in ``__main__`` (a script or a notebook) or in code run by ``exec``."""
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    return name if module in (None, "__main__", "builtins") else f"{module}:{name}"


def user_seat(text: str) -> Seat:
    """The seat of a user's bot ``"MODULE:NAME"`` (module docstring), named by that text.

    Raises:
        ValueError: a module that cannot be imported from here, a name it lacks or that is not
            callable (one line naming it: :func:`~borders_sim.user_code.import_named`).
    """
    return Seat(text, factory=import_named(text, "bot", "a bot class or a factory (seed) -> bot"))


def installed_bots() -> dict[str, EntryPoint]:
    """The bots that installed packages add by name: the entry points of the group
    :data:`ENTRY_POINTS` whose name the library does not know itself (a name it knows keeps its
    meaning)."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINTS) if not known(ep.name)}


def installed_seat(ep: EntryPoint) -> Seat:
    """The seat of an installed bot (:func:`installed_bots`), named by its entry point's name.

    Raises:
        ValueError: the entry point does not load, or names nothing callable (one line naming
            the bot, its package and the entry point).
    """
    where = f"bot {ep.name!r} (entry point {ep.value!r} of package " \
            f"{ep.dist.name if ep.dist else '?'})"
    try:
        factory = ep.load()
    except Exception as err:  # whatever the package's import raises, said in one line
        raise ValueError(f"{where} does not load: {type(err).__name__}: {err}") from None
    if not callable(factory):
        raise ValueError(f"{where} is a {type(factory).__name__}, not a bot class or a factory "
                         f"(seed) -> bot")
    return Seat(ep.name, factory=factory)


def as_seat(entry: str | Seat | NetPlayer | Callable[..., Bot]) -> Seat:
    """``entry`` as a :class:`Seat` (module docstring: what it may be).

    Raises:
        ValueError: an unknown name, a bad spec or option, a ``MODULE:NAME`` that does not
            import (the message names it).
        TypeError: ``entry`` is none of the kinds a seat is made of.
    """
    if isinstance(entry, Seat):
        if entry.spec is None and not callable(entry.factory) and entry.net is None:
            raise TypeError(f"seat {entry.name!r} has neither a spec, a factory nor a network")
        return entry
    if isinstance(entry, NetPlayer):
        return Seat(entry.name, net=entry)
    if isinstance(entry, str):
        text = entry.strip()
        if not text:
            raise ValueError("an empty bot name; give a bot's name, spec or MODULE:NAME")
        if not known(text):
            if NAMED.fullmatch(text):
                return user_seat(text)
            installed = installed_bots().get(text)
            if installed is not None:
                return installed_seat(installed)
        return Seat(check_spec(text), spec=text)
    if _is_module(entry):
        return module_seat(entry)
    if _is_policy(entry):
        return policy_seat(entry)
    if callable(entry):
        return Seat(_named(entry), factory=entry)
    raise TypeError(f"a seat is a bot name or spec, MODULE:NAME, a bot class, a factory "
                    f"(seed) -> bot, a policy function (observation, action_mask) -> action, a "
                    f"torch module, a NetPlayer or a Seat; got {type(entry).__name__}")


def _is_module(entry: object) -> bool:
    """Whether ``entry`` is a torch module (told by its methods: torch is not imported)."""
    return all(callable(getattr(entry, name, None)) for name in ("children", "parameters",
                                                                 "state_dict", "forward"))


def _is_policy(entry: object) -> bool:
    """Whether ``entry`` is a function (not a class) of two required positional parameters,
    ``(observation, action_mask)``."""
    if isinstance(entry, type) or not callable(entry):
        return False
    try:
        params = inspect.signature(entry).parameters.values()
    except (TypeError, ValueError):
        return False
    required = [p for p in params if p.default is p.empty and p.kind in (
        p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(required) == 2


def module_seat(module: object, name: str | None = None, inputs: str = "scaled",
                temperature: float = SAMPLE_TEMPERATURE) -> Seat:
    """The seat of a torch module of the policy file's shape, played inside the kernels as a
    network at ``temperature`` (:func:`~borders_sim.policies.export.policy_from_module`:
    ``inputs`` is what it read, ``"scaled"`` or ``"raw"``); named ``name`` or by its class.

    Raises:
        ValueError: a module of another shape (what differs, in one line).
    """
    from ..policies.export import policy_from_module

    shown = name or type(module).__name__
    return Seat(shown, net=NetPlayer(shown, policy_from_module(module, inputs), temperature))


class PolicyBot:
    """A bot playing a policy function ``(observation, action_mask) -> action``."""

    def __init__(self, policy: Callable, seed: int | None = None) -> None:
        self.policy, self.name = policy, _named(policy)

    def act(self, observation, action_mask) -> int:
        return int(self.policy(observation, action_mask))


def policy_seat(policy: Callable, name: str | None = None) -> Seat:
    """The seat of a policy function ``(observation, action_mask) -> action`` (the raw
    observation of :func:`~borders_sim.envs.observe` and the bool mask), played through the
    Python loop; named ``name`` or by the function. An action its mask does not allow is
    refused as any bot's is."""
    return Seat(name or _named(policy), factory=functools.partial(PolicyBot, policy))
