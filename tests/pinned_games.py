"""A fixed set of seeded games whose outcomes are pinned byte for byte.

Speed work on the kernels must not change a single game. Every game of :func:`cases` is played
through the whole-game kernels (:func:`~borders_sim.batch.rollouts.random_games` for random
play, :func:`~borders_sim.batch.games.play_bot_games` for the compiled bots) and through the
Python loop over :meth:`borders_sim.Game.step` with the same policy; both must end in the same
state, and that state, the decision count and the Python loop's action sequence must match
``tests/data/pinned_games.json``.

The games cover every player count 3..8 (so one and two inspectors, 3.4-1), with and without
action cards, ``accept_commits`` on and off (R-05 / P-5.3(b')), and a few flag sets that reach
the other phases (player-chosen Lawyer goods R-17d, gifts R-06c, no forced-move skipping P-0.3,
the rule variants); each under random play and under every compiled bot (all seats the same
bot, and a mixed table).

Regenerate the fixture only when a change is *meant* to change games (a rules fix, a new state
field) and say so in the commit::

    python -m tests.pinned_games          # rewrites tests/data/pinned_games.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from borders_sim import Game, GameConfig
from borders_sim.agents import COMPILED_BOTS, make
from borders_sim.batch.games import run_bot_games
from borders_sim.batch.seeds import bot_seed
from borders_sim.envs import observe
from borders_sim.rules.limits import max_game_length
from borders_sim.rules.rng import next_below
from borders_sim.batch.rollouts import make_batch, play_batch

FIXTURE = Path(__file__).parent / "data" / "pinned_games.json"
FIRST_SEED = 9001
GAMES = 2  # seeds FIRST_SEED .. FIRST_SEED + GAMES - 1 for every config and policy

#: name -> GameConfig flags: the basic grid, then flag sets that reach the other phases.
CONFIGS = {
    f"{n}p_{'cards' if ac else 'goods'}_{'commit' if commit else 'hold'}":
        {"num_players": n, "action_cards": ac, "accept_commits": commit}
    for n in range(3, 9) for ac in (True, False) for commit in (True, False)}
CONFIGS.update({
    f"{n}p_{name}": dict(flags, num_players=n) for n in (4, 7) for name, flags in {
        "no_skip": {"skip_forced": False, "accept_commits": False},
        "lawyer_choice_gifts": {"lawyer_goods": "player_choice", "haggle_rounds": 8,
                                "bounty_goods": True, "smuggler_transfers": True},
        "gold_only": {"haggling": "gold_only", "haggle_rounds": 1, "gold_menu": (1, 2, 5)},
        "no_haggling": {"haggling": "none", "bounties": False},
        "variants": {"robbery_timing": "own_turn", "crate_order": "announcement",
                     "first_inspector": "random", "midround_2_5_rollover": True,
                     "tiebreak_legal": "pieces", "collect_order_2inspectors": "a_plus_1",
                     "allow_tobacco_announce_3p": False},
    }.items()})

#: policy name -> bot kind per seat (None: the random-play kernel, not a bot); the mixed table
#: is of the first four compiled bots (random, honest, bluffer, collector), as it was pinned.
POLICIES = {"random_games": None, **{f"bot_{name}": (k,) * 8
                                     for k, name in enumerate(COMPILED_BOTS)},
            "bot_mixed": tuple(p % 4 for p in range(8))}


def digest(data: bytes) -> str:
    """The first 128 bits of the sha256 of ``data``, in hex."""
    return hashlib.sha256(data).hexdigest()[:32]


def play_kernels(config: GameConfig, policy: str) -> tuple[list[bytes], list[int]]:
    """Final state bytes and decisions of the pinned games of ``config`` played by the kernels."""
    states, policy_seeds = make_batch(config, FIRST_SEED, GAMES)
    cap = max_game_length(config)
    kinds = POLICIES[policy]
    if kinds is None:
        steps = play_batch(states, policy_seeds, cap)
    else:
        steps = run_bot_games(states, np.array([kinds] * GAMES, dtype=np.int64),
                              np.arange(FIRST_SEED, FIRST_SEED + GAMES, dtype=np.int64), cap)
    return [states[g].tobytes() for g in range(GAMES)], [int(x) for x in steps]


def random_games_rng(policy_seed: int) -> np.ndarray:
    """The generator words :func:`~borders_sim.batch.rollouts.random_games` seeds its policy
    with for ``policy_seed``."""
    x = np.uint64(policy_seed)
    with np.errstate(over="ignore"):
        return np.array([x * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1),
                         x ^ np.uint64(0xD1B54A32D192ED03)], dtype=np.uint64)


def play_python(config: GameConfig, policy: str) -> tuple[list[bytes], list[int], list[bytes]]:
    """The same games through :meth:`Game.step`: final state bytes, decisions, action ids."""
    _, policy_seeds = make_batch(config, FIRST_SEED, GAMES)
    kinds = POLICIES[policy]
    finals, counts, actions = [], [], []
    for g in range(GAMES):
        seed = FIRST_SEED + g
        game = Game(config, seed=seed)
        taken = []
        if kinds is None:
            rng = random_games_rng(int(policy_seeds[g]))
            while not game.is_terminal:
                legal = game.legal_actions()
                taken.append(legal[int(next_below(rng, len(legal)))])
                game.step(taken[-1])
        else:
            bots = [make(COMPILED_BOTS[kinds[p]], bot_seed(seed, p))
                    for p in range(config.num_players)]
            while not game.is_terminal:
                p = game.current_player
                taken.append(bots[p].act(observe(game, p), game.legal_mask()))
                game.step(taken[-1])
        finals.append(game.state[0].tobytes())
        counts.append(len(taken))
        actions.append(np.array(taken, dtype=np.int16).tobytes())
    return finals, counts, actions


def cases() -> list[tuple[str, str]]:
    return [(c, p) for c in CONFIGS for p in POLICIES]


def record(config_name: str, policy: str) -> list[dict]:
    """The pinned record of each game of a case, played both ways (which must agree)."""
    config = GameConfig(**CONFIGS[config_name])
    k_finals, k_steps = play_kernels(config, policy)
    p_finals, p_steps, p_actions = play_python(config, policy)
    if k_finals != p_finals or k_steps != p_steps:
        raise AssertionError(f"{config_name}/{policy}: the kernels and Game.step disagree")
    return [{"seed": FIRST_SEED + g, "decisions": k_steps[g], "state": digest(k_finals[g]),
             "actions": digest(p_actions[g])} for g in range(GAMES)]


def main() -> int:
    pinned = {f"{c}/{p}": record(c, p) for c, p in cases()}
    FIXTURE.parent.mkdir(exist_ok=True)
    lines = [f"{json.dumps(key)}: {json.dumps(games)}" for key, games in sorted(pinned.items())]
    FIXTURE.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"wrote {len(pinned)} cases ({len(pinned) * GAMES} games) to {FIXTURE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
