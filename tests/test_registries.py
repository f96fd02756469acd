"""Every registry is one entry: a compiled bot is one entry of ``policies/registry.py``'s
``BOTS`` (its kind, the names, the dispatch and the lists it joins derived from it), and a reward
mode one entry of ``rules/rewards.py``'s ``REWARDS`` (its bounds, sum and shaping scale asked by
every other module)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from borders_sim.arena import default_lineup
from borders_sim.arena.deviators import DEFAULT_BOTS
from borders_sim.envs.training import TrainingEnv
from borders_sim.policies import registry
from borders_sim.policies.dispatch import BOT_NET, BOT_RANDOM, COMPILED_BOTS, act_kernel
from borders_sim.rules import rewards
from borders_sim.rules.config import GameConfig
from borders_sim.rules.rewards import REWARD_MODES, REWARDS, RewardMode
from borders_sim.train.league import LEAGUE_BOTS

ROOT = Path(__file__).resolve().parents[1]


# --- compiled bots ------------------------------------------------------------------------------
def test_the_kinds_and_lists_are_as_they_were():
    """The kinds are pinned (pinned games, demonstrations and shipped weights record them by
    number), and so are the lists the table derives."""
    from borders_sim.train.trainer import DEVIATOR_BOTS, EVAL_BOTS
    assert COMPILED_BOTS == ("random", "honest", "bluffer", "collector", "strict")
    assert (BOT_RANDOM, BOT_NET) == (0, 5)
    assert LEAGUE_BOTS == DEVIATOR_BOTS == ("honest", "bluffer", "collector", "strict", "random")
    assert EVAL_BOTS == ("honest", "bluffer", "collector", "strict")
    assert default_lineup(6) == ("random", "honest", "bluffer", "collector", "strict", "random")
    assert DEFAULT_BOTS == (*DEVIATOR_BOTS, "ppo", "ppo:argmax")


def test_the_dispatch_of_the_table_is_cached():
    """The generated dispatch keeps numba's on-disk cache: a new process loads it."""
    run = textwrap.dedent("""
        from borders_sim._compile import units
        from borders_sim.policies import dispatch
        (kernel, args), = units.UNITS["bot policies"]()
        kernel.compile(args)
        print(sum(kernel.stats.cache_hits.values()))""")
    for _ in range(2):  # the first may compile it (after an edit), the second must load it
        done = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True,
                              cwd=ROOT)
        assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
    assert act_kernel._cache._enabled


def test_a_bad_entry_is_refused():
    with pytest.raises(ValueError, match="name is lower-case"):
        registry.CompiledBotEntry("Strict Bot", registry.random_policy)
    with pytest.raises(ValueError, match="role must be one of"):
        registry.roster("sparring")


FIRST_BOT = '''
from borders_sim._compile.jit import kernel
from borders_sim.rules.engine import kth_legal


@kernel
def first_policy(obs, mask, words, count, rng):
    """The lowest legal action id."""
    return kth_legal(words, 0, 0)
'''

#: A new process that adds the bot ``first`` at the end of the table (as an edit of
#: ``registry.py`` would, before anything derives from it), then reports what it became.
ADD_A_BOT = '''
import json, sys
sys.path.insert(0, sys.argv[1])
from borders_sim.policies import registry
from first_bot import first_policy
registry.BOTS = (*registry.BOTS, registry.CompiledBotEntry("first", first_policy, league=False,
                                                           evaluation=False))

import numpy as np
from borders_sim import Game, GameConfig
from borders_sim.agents import make
from borders_sim.agents.lineup import compiled_kinds
from borders_sim.arena import default_lineup
from borders_sim.arena.deviators import DEFAULT_BOTS
from borders_sim.batch.games import run_bot_games
from borders_sim.batch.rollouts import make_batch
from borders_sim.envs import observe
from borders_sim.envs.training import TrainingEnv
from borders_sim.policies.dispatch import BOT_NET, COMPILED_BOTS, act_kernel
from borders_sim.policies.network import NO_NETS
from borders_sim.rules.engine import MASK_SIZE
from borders_sim.rules.limits import max_game_length
from borders_sim.train.league import LEAGUE_BOTS
from borders_sim.train.trainer import DEVIATOR_BOTS, EVAL_BOTS

kind = COMPILED_BOTS.index("first")
config = GameConfig(num_players=4)
game, bot, chose_first, mask = Game(config, seed=5), make("first", seed=1), [], None
while not game.is_terminal:  # the Python bot, through the dispatch
    legal = game.legal_actions()
    chose_first.append(bot.act(observe(game, game.current_player), game.legal_mask()) == legal[0])
    game.step(legal[0])
mask = np.zeros(MASK_SIZE, np.uint8)
mask[[7, 9]] = 1
direct = int(act_kernel(kind, np.zeros(1, np.float32), mask, mask.view(np.uint64), 2,
                        np.ones(2, np.uint64), NO_NETS))
states, _ = make_batch(config, 5, 1)  # the whole-game kernel: the same game, every seat first
steps = run_bot_games(states, np.full((1, 8), kind, np.int64), np.arange(5, 6),
                      max_game_length(config))
env = TrainingEnv(2, opponents=("first",), seed=0)  # a training env's opponent
obs, infos = env.reset()
for _ in range(30):
    obs, r, term, trunc, infos = env.step(infos["action_mask"].argmax(axis=1))
print(json.dumps({
    "kind": kind, "bot_net": BOT_NET, "direct": direct, "python_first": all(chose_first),
    "same_game": (states[0].tobytes() == game.state[0].tobytes()
                  and int(steps[0]) == len(chose_first)),
    "kinds": compiled_kinds(["first", "honest"])[0], "cached": act_kernel._cache._enabled,
    "league": LEAGUE_BOTS, "eval": EVAL_BOTS, "deviators": DEVIATOR_BOTS,
    "exploit": DEFAULT_BOTS, "lineup6": default_lineup(6), "env_opponents": env.opponents}))
'''


def test_a_bot_is_one_entry(tmp_path):
    """A bot added as one entry of the table (and its kernel) plays through the dispatch, the
    Python bot, the whole-game kernel and the training env, by a kind of its own, and joins
    exactly the lists its flags say, nothing else edited. Its kernel lives outside the package,
    so that process compiles the dispatch instead of caching it (never into the shared cache)."""
    (tmp_path / "first_bot.py").write_text(FIRST_BOT)
    env = {**os.environ, "BORDERS_SIM_QUIET": "1"}
    done = subprocess.run([sys.executable, "-c", ADD_A_BOT, str(tmp_path)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert (got["kind"], got["bot_net"]) == (5, 6)
    assert got["direct"] == 7 and got["python_first"] and got["same_game"]
    assert got["kinds"] == {"first": 5, "honest": 1} and not got["cached"]
    assert got["league"] == list(LEAGUE_BOTS) and got["eval"] == ["honest", "bluffer",
                                                                  "collector", "strict"]
    assert got["deviators"] == ["honest", "bluffer", "collector", "strict", "first", "random"]
    assert got["exploit"] == got["deviators"] + ["ppo", "ppo:argmax"]
    assert got["lineup6"] == ["random", "honest", "bluffer", "collector", "strict", "first"]
    assert got["env_opponents"] == ["first"]


# --- reward modes -------------------------------------------------------------------------------
#: A mode only this test knows: 0..1, constant-sum, shaped at 1/200.
RANK = RewardMode("rank", "a share of the table by finishing place", 0.0, 1.0, in_points=False,
                  total=1.0, shaping_scale=0.005)


def test_the_modes_mean_what_they_meant():
    assert REWARD_MODES == ("win", "score", "margin")
    assert [REWARDS[m].sum_kind for m in REWARD_MODES] == ["zero-sum", "general-sum", "zero-sum"]
    assert [REWARDS[m].bounds(100) for m in REWARD_MODES] == [(-1, 1), (0, 100), (-100, 100)]
    assert [TrainingEnv(1, opponents=("honest",), reward=m).potential_scale
            for m in REWARD_MODES] == [0.01, 1.0, 1.0]


def test_a_reward_mode_is_one_entry(monkeypatch):
    """A mode added to the table reaches the training env's shaping scale and OpenSpiel's type
    and bounds, nothing else edited."""
    monkeypatch.setitem(REWARDS, "rank", RANK)
    assert rewards.reward_mode("rank") == 3
    env = TrainingEnv(1, opponents=("honest",), reward="rank", dense=True)
    assert (env.reward, env.potential_scale) == ("rank", 0.005)
    with pytest.raises(ValueError, match="reward must be one of"):
        TrainingEnv(1, opponents=("honest",), reward="ranks")

    pyspiel = pytest.importorskip("pyspiel")
    from borders_sim.openspiel import game_type, score_bound, utility_bounds
    game = pyspiel.load_game("python_borders", {"players": 5, "reward": "rank"})
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (0.0, 1.0, 1.0)
    assert game.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    for mode in ("win", "score", "margin"):  # the table's modes, as it says
        config = GameConfig(num_players=5)
        assert utility_bounds(config, mode) == REWARDS[mode].bounds(score_bound(config))
        assert game_type(mode).utility.name.lower().replace("_", "-") == REWARDS[mode].sum_kind
