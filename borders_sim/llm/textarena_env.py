"""BORDERS as a TextArena environment: ``textarena.make("Borders-v0")`` once this module is
imported, so TextArena's agents and harness play it (every seat an agent of the harness). Its
observations are TextArena's for language models (``LLMObservationWrapper``: the messages so far
as one string); ``Borders-v0-raw`` gives the messages as ``(sender, text, type)`` tuples.

The TextArena loop::

    import textarena as ta
    import borders_sim.llm.textarena_env  # registers Borders-v0 (3 to 8 players)

    env = ta.make("Borders-v0")
    env.reset(num_players=4, seed=1)
    done = False
    while not done:
        player_id, observation = env.get_observation()
        done, info = env.step(action=agents[player_id](observation))
    rewards, game_info = env.close()

Each player first gets the rules (generated from the rulings' text, as the language-model seat's
prompt, :mod:`.rules_text`) and the reply's form; at each of its decisions, its view
(``observe_text`` of its seat: only what it may know) ending with its legal actions as a JSON
array of ``{"id", "action"}`` objects. The other seats' decisions reach each player as that seat
saw them (a packed card stays the packer's secret); a player's raw reply is never shown to the
others. A reply is read by :func:`~.protocol.parse_reply`, which never guesses (a JSON object
``{"action": <id or text>}``, reasoning before it allowed); a reply that names no legal action
is told its reason (and its legal actions again) and asked again, up to ``error_allowance``
times, then the seat's
``random`` fallback plays the decision and ``info["fallback"]`` says so (BORDERS cannot go on
without a seat, so no one is eliminated). At the end every winner gets reward 1 (a shared win
too) and every other seat -1.
"""

from __future__ import annotations

import textarena as ta

from ..agents.bots import make
from ..batch.seeds import bot_seed
from ..checks import as_int, as_seed
from ..game.drawing.scene import seen_action
from ..game.game import Game
from ..game.views import observe
from ..rules.config import GameConfig
from ..rules.state import MAX_PLAYERS, MIN_PLAYERS
from .protocol import parse_reply
from .seat import legal_text, retry_text, seat_view, system_text

#: The environment's id in TextArena's registry.
ENV_ID = "Borders-v0"


class BordersEnv(ta.Env):
    """BORDERS for TextArena's harness (module docstring).

    Args:
        error_allowance: replies a seat may get wrong at one decision before its fallback
            plays it.
    """

    def __init__(self, error_allowance: int = 2) -> None:
        self.error_allowance = as_int(error_allowance, "error_allowance", lo=0, hi=20)

    def reset(self, num_players: int, seed: int | None = None) -> None:
        """Deal a game of ``num_players`` (3 to 8) from ``seed`` (default 0).

        Raises:
            ValueError: a player count or seed out of range (named).
        """
        n = as_int(num_players, "num_players", lo=MIN_PLAYERS, hi=MAX_PLAYERS)
        seed = 0 if seed is None else as_seed(seed)
        self.game = Game(GameConfig(num_players=n), seed=seed)
        self.fallbacks = [make("random", bot_seed(seed, p)) for p in range(n)]
        self.state = ta.FFAMultiPlayerState(num_players=n, seed=seed,
                                            error_allowance=self.error_allowance)
        self.state.reset(game_state={"seed": seed},
                         player_prompt_function=lambda player_id, game_state: (
                             system_text() + f"\n\nYou are p{player_id} of {n}."))
        self.errors = 0
        self._to_move()

    def get_observation(self) -> tuple[int, list]:
        """The player to move and the messages it has not seen yet."""
        return self.state.current_player_id, self.state.get_current_player_observation()

    def step(self, action: str) -> tuple[bool, dict]:
        """Play the reply ``action`` of the player to move (module docstring)."""
        game, p = self.game, self.game.current_player
        pairs = [(int(a), game.action_to_string(int(a))) for a in game.legal_actions()]
        reply = parse_reply(action, pairs)
        if not reply.ok and self.errors < self.error_allowance:
            self.errors += 1
            self.state.add_observation(
                to_id=p, observation_type=ta.ObservationType.GAME_ADMIN,
                message=retry_text(reply.failure) + legal_text(pairs))
            self.state.made_invalid_move = True
            return self.state.step(rotate_player=False)
        if reply.ok:
            chosen = int(reply.action)
        else:
            chosen = int(self.fallbacks[p].act(observe(game, p), game.legal_mask()))
            self.state.step_info["fallback"] = {"player": p, "failure": reply.failure}
        self.errors = 0
        game.step(chosen)
        menu = game.config.gold_menu
        for q in range(game.num_players):
            if q != p:
                self.state.add_observation(
                    to_id=q, observation_type=ta.ObservationType.GAME_ACTION_DESCRIPTION,
                    message=f"p{p}: {seen_action(p, chosen, q, menu)['action']}")
        if game.is_terminal:
            winners = game.winners()
            self.state.set_game_outcome(
                {q: 1 if q in winners else -1 for q in range(game.num_players)},
                reason=f"scores {game.scores()}, winners "
                       f"{', '.join(f'p{w}' for w in winners)}")
        else:
            self._to_move()
        return self.state.step(rotate_player=False)

    def _to_move(self) -> None:
        """Hand the turn to the seat to move, with its view and legal list."""
        game = self.game
        p = game.current_player
        self.state.manually_set_current_player_id(p, force=True)
        view, pairs = seat_view(observe(game, p), game.legal_actions())
        self.state.add_observation(to_id=p, observation_type=ta.ObservationType.GAME_BOARD,
                                   message=view + legal_text(pairs))


if ENV_ID not in ta.envs.registration.ENV_REGISTRY:
    # TextArena's default observation for language models (the messages as one string); not
    # its ActionFormattingWrapper, whose brackets would put the reply's JSON object inside an
    # array, where the parse never looks. "Borders-v0-raw": the messages as tuples.
    ta.envs.registration.register_with_versions(
        ENV_ID, entry_point=BordersEnv, wrappers={"default": [ta.wrappers.LLMObservationWrapper]})
