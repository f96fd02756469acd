"""
# BORDERS

This environment is part of `borders_sim`, a numba-compiled simulator of the card game BORDERS
for reinforcement-learning research. It follows the conventions of PettingZoo's classic games.

| | |
|---|---|
| Import | `from borders_sim.envs import borders_v0` |
| Actions | Discrete |
| Parallel API | No |
| Manual Control | No |
| Agents | `agents = ['player_0', ..., 'player_{n-1}']` |
| Agents | 3-8 (`num_players`, default 4) |
| Action Shape | Discrete(513) |
| Action Values | 0 to 512 |
| Observation Shape | (1822,) |
| Observation Values | [0, float32 max]: counts and one-hots, float32 |

BORDERS is a Prohibition-era smuggling game for 3 to 8 players. Each round the smugglers
trade cards at the market, pack 1-5 goods into a crate in secret and announce it with its
exact card count and one legal type, truthfully or not; the inspector(s) (the rulebook's
Prohibition agent, a role that rotates each round) then check the crates one by one, haggling
with the owner (offers of gold, goods and promises, demands) while the other players may offer
bounties for opening a rival's crate. An opened truthful crate earns its owner the fines of
its cards from the inspector; an opened lie loses the cards not of the announced type and its
owner pays their fines. Passed goods go to the warehouse, from which main resources are
collected. The game ends with the inspector cycle in which the last main resource in the
middle is collected (or the draw pile runs out a second time); the most points (warehouse
goods, gold, main resources, King and Queen bonuses) win.

Every decision is one step of one agent: the action window, the market, packing, the
announcement, choosing the crate to inspect, bounties and gifts, every haggling step (offer,
respond, answer a demand), joining an opening, reactions, the Lawyer and the Syndicate Fund,
and the collection of main resources. Forced decisions (exactly one legal action) are applied
without asking by default (`skip_forced=True`).

```python
from borders_sim.envs import borders_v0

env = borders_v0.env(num_players=4, render_mode="ansi")
env.reset(seed=42)
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        action = None
    else:
        mask = observation["action_mask"]
        action = env.action_space(agent).sample(mask)  # a policy goes here
    env.step(action)
env.close()
```

### Observation Space

The observation is a dictionary with an `'observation'` element, the vector described below,
and an `'action_mask'` element, the legal moves described in the Legal Actions Mask section.

The vector holds everything the agent knows and nothing else (RULINGS R-39): its own hand,
crate and face-down warehouse cards; the public table (round, phase, whose turn, inspector
badges A and B, round order, gold, hand sizes, face-up warehouses, face-down counts, main
resources, the discard pile, the draw pile size); the border check in progress (announcements,
offers, demands, bounties, accepted deals, promises, inspector statuses, what opened crates
showed); per-player public history for the whole game; and what the agent privately knows of
other players' hidden cards (cards it handed over face down, cards taken with Night Raid).

It is seat-relative: every per-seat block has 8 rows, row `r` being the seat `r` places
to the agent's left (row 0 is the agent itself), so one policy serves every seat and
player count; rows at and beyond the player count are 0. Inspector blocks have two rows, badge
A then badge B (B is 0 with one inspector). Counts are raw, not normalised. The same knowledge
in words: `borders_sim.envs.observe_json(game, seat)` and `observe_text(game, seat)`.

The table is `borders_sim.rules.observation.OBSERVATION_LAYOUT`; `decode(obs)` splits a vector
into these named blocks.

| name | indices | shape | meaning |
|---|---|---|---|
| num_players | 0-5 | 6 | one-hot of the player count, 3..8 |
| seat | 6-13 | 8 | one-hot of the viewer's own seat: row r of a per-seat block is seat (seat + r) mod n, and action ids that name a seat (rob, inspect) are absolute |
| config | 14-33 | 20 | the rule flags, as the state's cfg (state.CFG_* indices) |
| gold_menu | 34-49 | 16 | gold amounts of the gold action ids, 0 past the menu (P-0.5) |
| round | 50 | 1 | round number, 1-based |
| round_in_cycle | 51 | 1 | rounds played in the current inspector cycle before this one (§6) |
| cycle_length | 52 | 1 | rounds in a cycle for this player count (§6) |
| end_triggered | 53 | 1 | 1 once the end of the game is triggered (main resources or fallback, §6) |
| last_round | 54 | 1 | the last round once the end is triggered, else 0 |
| draw_pile_size | 55 | 1 | cards in the draw pile |
| runouts | 56 | 1 | times the draw pile ran out (R-29; the second triggers the fallback) |
| discard_pile | 57-76 | 20 | the open discard pile, cards by type |
| main_in_middle | 77-88 | 12 | 1 for each main resource still in the middle |
| phase | 89-107 | 19 | one-hot of the phase (state.PHASE_NAMES) |
| to_move | 108-115 | 8 | one-hot of the seat to decide (all 0 once the game is over) |
| inspector_a | 116-123 | 8 | one-hot of badge A's seat |
| inspector_b | 124-131 | 8 | one-hot of badge B's seat (6-8 players) |
| round_order | 132-139 | 8 | each seat's place in this round's order (4-3), 1-based |
| window_passes | 140 | 1 | passes in a row in the action window (P-1) |
| market_discards | 141 | 1 | cards discarded in the current market turn (P-2) |
| gold | 142-149 | 8 | gold of each seat |
| reserved_gold | 150-157 | 8 | gold escrowed by accepted deals and bounties (R-09) |
| hand_size | 158-165 | 8 | cards in hand |
| face_up | 166-197 | 8x4 | face-up warehouse cards by legal type |
| face_down_count | 198-205 | 8 | number of face-down warehouse cards |
| reserved_warehouse | 206-317 | 8x14 | warehouse cards escrowed, by type (R-09) |
| main_held | 318-413 | 8x12 | main resources held |
| collected | 414-421 | 8 | 1 if the seat collected a main resource this round |
| crate_status | 422-469 | 8x6 | one-hot: none, packing, closed, announced, done, sitting out |
| crate_count | 470-477 | 8 | cards in the announced crate (0 until announced, P-3) |
| announced | 478-509 | 8x4 | one-hot of the announced legal type |
| seen | 510-621 | 8x14 | of each crate settled this round, the cards everybody saw (an opened crate; a passed crate's legal goods) |
| seen_hidden | 622-629 | 8 | of each crate settled this round, the cards whose type stayed hidden |
| history | 630-805 | 8x22 | public counters for the whole game (state.HISTORY_COUNTERS) |
| promises | 806-869 | 8x8 | promises of a future pass that row still owes column |
| raid_thief | 870-877 | 8 | one-hot of the seat that played this round's Night Raid |
| own_hand | 878-897 | 20 | own hand by card type |
| own_active | 898-903 | 6 | own action cards usable this round (7.2) |
| own_crate | 904-917 | 14 | own crate by goods type |
| own_face_down | 918-931 | 14 | own face-down warehouse cards by type |
| known_hand | 932-1091 | 8x20 | cards each seat surely holds in hand (taken from the viewer with Night Raid) |
| known_face_down | 1092-1203 | 8x14 | cards surely among each seat's face-down warehouse cards (handed over by the viewer) |
| raid_taken | 1204-1363 | 8x20 | one-hot of the card this round's Night Raid took from each seat, where the viewer took or lost it |
| crate_under_check | 1364-1371 | 8 | one-hot of the owner of the crate under check |
| exchange | 1372 | 1 | the exchange in progress, 1-based (P-5.3) |
| inspector_status | 1373-1382 | 2x5 | one-hot per badge (state.G_STATUS_NAMES) |
| offer | 1383-1442 | 2x30 | the owner's standing offer to each badge: gold, warehouse cards by type, crate cards by type, promise |
| offer_lock | 1443-1446 | 2x2 | gold already set / offer withdrawn in this offer turn |
| demand | 1447-1448 | 2 | gold demanded by each badge this exchange |
| deal | 1449-1508 | 2x30 | the accepted deal with each badge, same shape as offer |
| deal_order | 1509-1510 | 2 | order of acceptance of the deals (R-08), 0 none |
| bounties | 1511-1766 | 8x2x16 | bounty of each seat to each badge: gold, warehouse cards by type, accepted (R-07) |
| gifts_made | 1767-1774 | 8 | 1 if the seat made its gold gift this bounty turn (R-06c) |
| outcome | 1775-1779 | 5 | one-hot: pending, passed, passed by Secret Route, opened, False Bottom |
| truthful | 1780 | 1 | 1 if the opened crate matched its announcement |
| fine | 1781 | 1 | the fine at stake (4.4-B) |
| lawyer_to | 1782-1783 | 2 | one-hot of the badge halved by the owner's Lawyer |
| fund_paid | 1784 | 1 | gold the owner paid in deals this settlement (Syndicate Fund) |
| lawyer_pool | 1785-1813 | 29 | goods of the halved deals still to hand over, warehouse then crate by type, and the cards left (R-17d) |
| lawyer_payer | 1814-1821 | 8 | one-hot of the seat handing over the Lawyer's goods |

#### Legal Actions Mask

The legal moves of the agent to move are the `action_mask` element of its observation: an
int8 vector of length 513, 1 where the action is legal now. The mask is all zeros
for every agent other than the one to move, and for every agent once the game is over.

### Action Space

One flat space of 513 ids for every phase and player count, one range of ids per
kind of decision (`borders_sim.rules.actions.RANGES`); seat-indexed ranges have 8
ids (absolute seats `p0`..`p7`), gold ranges one id per entry of the gold menu, badge ranges
two ids (A then B). `env.unwrapped.game.action_to_string(id)` reads an id
(`"offer gold 5 to A"`).

| ids | name | phase | meaning |
|---|---|---|---|
| 0 | raid | action window (P-1) | play Night Raid |
| 1-8 | rob | action window (P-1) | play Robbery on a seat |
| 9 | window_pass | action window (P-1) | pass |
| 10-29 | discard | market (P-2), raid discard (R-21) | discard a card of a type |
| 30 | end_market | market (P-2) | end the market turn and draw to 6 |
| 31-44 | pack | pack (P-3) | put a goods card of a type into the crate |
| 45 | close | pack (P-3) | close the crate |
| 46-49 | announce | announce (P-4) | announce a legal type |
| 50-57 | inspect | choose crate (P-5.1) | inspect the crate of a seat |
| 58-89 | bounty_gold | bounty (P-5.2) | offer gold to inspector A/B to open |
| 90-117 | bounty_card | bounty (P-5.2) | add a warehouse card to the bounty for A/B |
| 118-245 | gift_gold | bounty (R-06c) | give gold to a smuggler |
| 246-357 | gift_card | bounty (R-06c) | give a warehouse card to a smuggler |
| 358 | bounty_done | bounty (P-5.2) | no more bounties |
| 359-390 | offer_gold | offer (P-5.3a) | set the gold offered to A/B |
| 391-418 | offer_warehouse | offer (P-5.3a) | add a warehouse card to the offer |
| 419-446 | offer_crate | offer (P-5.3a) | add a crate card to the offer |
| 447-448 | promise | offer (P-5.3a) | promise a future pass to A/B |
| 449-450 | withdraw | offer (P-5.3a) | withdraw the offer to A/B |
| 451 | offer_done | offer (P-5.3a) | end the offer turn |
| 452 | accept | respond (P-5.3b) | accept the owner's offer |
| 453-468 | demand | respond (P-5.3b) | demand gold |
| 469 | open | respond (P-5.3b) | open the crate |
| 470 | pass | respond (P-5.3b) | let the crate pass, no deal |
| 471 | wait | respond (P-5.3b) | wait for the next exchange |
| 472 | accept_demand | answer demand (P-5.3c) | accept the inspector's demand |
| 473 | refuse_demand | answer demand (P-5.3c) | refuse the inspector's demand |
| 474 | join | join (P-5.4) | join the open |
| 475 | stay_out | join (P-5.4) | stay out |
| 476 | play_route | react (P-5.4) | play Secret Route |
| 477 | play_bottom | react (P-5.4) | play False Bottom |
| 478 | no_reaction | react (P-5.4) | play no card |
| 479-480 | lawyer | lawyer (P-5.5) | play the Lawyer, half to A/B |
| 481 | no_lawyer | lawyer (P-5.5) | pay in full |
| 482 | fund | fund (P-5.5) | play the Syndicate Fund |
| 483 | no_fund | fund (P-5.5) | no Fund |
| 484-495 | collect | collect (P-6) | collect a main resource |
| 496 | skip_collect | collect (P-6) | collect nothing |
| 497-510 | hand_over | lawyer goods (R-17d) | hand over a card of a type |
| 511 | keep_deal | keep or open (P-5.3(b')) | keep the held deal, do not open |
| 512 | open_and_void | keep or open (P-5.3(b')) | open the crate, voiding the held deal |

#### Illegal actions

`raw_env.step` with an illegal action raises `borders_sim.IllegalActionError` naming the
action, the player and the phase, and changes nothing. `env()` follows PettingZoo's classic
convention through its standard wrappers: an illegal action ends the game, the offender gets
-1 and every other agent 0 (`TerminateIllegalWrapper(illegal_reward=-1)`); an id outside the
action space fails an assertion (`AssertOutOfBoundsWrapper`).

### Rewards

Rewards come only at the end of the game (0 at every other step), when all agents terminate
together, by the `reward` argument (`borders_sim.rules.rewards`):

| mode | reward of seat `p` when the game ends (0 at every other step) |
|---|---|
| `win` | zero-sum: the `k` winners (§9 after every tie-break, 9-9) share +1, each getting `1/k`; the `n-k` others share -1, each getting `-1/(n-k)`; 0 for everybody when all `n` seats share the victory. |
| `score` | the final score (§9). |
| `margin` | the final score minus the mean of the other seats' final scores. |

There is no truncation: every game ends within `env.unwrapped.game.max_game_length` decisions.

### Arguments

`borders_v0.env(num_players=4, reward="win", render_mode=None, **flags)` and `raw_env(...)`
take every `GameConfig` flag as a keyword (defaults: the rulebook); an unknown keyword or a bad
value raises `ValueError` naming it.

| argument | default | meaning |
|---|---|---|
| `num_players` | `4` | 3..8 (§3). |
| `reward` | `"win"` | `"win"`, `"score"` or `"margin"`: see Rewards. |
| `render_mode` | `None` | `None`, `"ansi"` (`render()` returns the text) or `"human"` (`render()` prints it, as does every `step`). |
| `haggling` | `"full"` | `"full"` (P-5.3), `"gold_only"` (offers, demands and bounties in gold only) or `"none"` (no negotiation: inspectors only open or pass). |
| `haggle_rounds` | `3` | exchanges per crate, 1..8 (P-5.3, R-37). |
| `gold_menu` | `(1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 25, 30)` | the gold amounts offers, demands, bounties and gifts choose from (P-0.5), an increasing tuple of 1..16 ints from 1 to 1000. |
| `bounties` | `True` | inspection deals on other players' crates (P-5.2, R-07). |
| `bounty_goods` | `False` | bounties may include warehouse goods (P-5.2). |
| `smuggler_transfers` | `False` | unconditional gifts of gold or warehouse goods between smugglers during the bounty turn (R-06c). |
| `action_cards` | `True` | the 22 action cards are in the deck (§7); off: goods only. |
| `skip_forced` | `True` | a decision with exactly one legal action is applied without asking (P-0.3). |
| `robbery_timing` | `"window"` | `"window"` (R-01) or `"own_turn"` (§12.5's reading). |
| `tiebreak_legal` | `"cards"` | `"cards"` or `"pieces"` for the win tie-break (R-32). |
| `first_inspector` | `"seat0"` | `"seat0"` (the youngest is seat 0) or `"random"` (seeded, 3.4-2). |
| `collect_order_2inspectors` | `"b_plus_1"` | with two inspectors, round order starts at `"b_plus_1"` (R-04) or `"a_plus_1"`. |
| `crate_order` | `"inspector"` | the next crate is chosen by `"inspector"` A (R-11) or taken in `"announcement"` order. |
| `allow_tobacco_announce_3p` | `True` | tobacco may be announced with 3 players (R-24). |
| `midround_2_5_rollover` | `False` | a Night Raid or Robbery drawn in the market waits for the next round instead of expiring unused at this round's end (R-19's flag). |
| `lawyer_goods` | `"auto_lowest"` | the goods half of a Lawyer's payment is the lowest-value cards (`"auto_lowest"`, §7.4) or picked one by one by the Lawyer's player (`"player_choice"`, §7.3; R-17d). |
| `accept_commits` | `True` | accepting a let-through deal commits the inspector not to open (R-05); `False`: §4.4's literal reading, the inspector holds the deal and, when the negotiation would end without an open, keeps it or opens and voids it (P-5.3(b')). |

### Seeding, game state, rendering, pickling

`reset(seed=s)` starts `borders_sim.Game(config, seed=s)`: the same seed gives the same game.
`reset()` takes the next seed from a generator that `reset(seed=s)` reseeds. The game in play is
`env.unwrapped.game` (a `borders_sim.Game`: `to_dict()`, `scores()`, `winners()`, ...).
`render()` shows the public table and the private cards of the agent to move (of the last mover
once the game is over), as `observe_text` writes them. The raw and the wrapped env pickle
mid-game and continue identically.

### Version History

* v0: Initial release (borders_sim 0.1.0).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..game.game import Game
from ..rules import actions as act
from ..rules.args import as_seed, shown
from ..rules.config import GameConfig
from ..rules.observation import OBS_SIZE, layout_table, observe_at
from ..rules.state import MAX_PLAYERS, MIN_PLAYERS
from ..rules import rewards as rw
from ..game.views import observe_text

#: Largest value of the observation Box: entries are counts and one-hots, all >= 0, with no
#: useful finite bound on gold, so the Box is [0, float32 max] (finite, as PettingZoo asks).
OBS_HIGH = float(np.finfo(np.float32).max)


def env(**kwargs) -> AECEnv:
    """:class:`raw_env` inside PettingZoo's classic wrappers: an illegal action ends the game
    with reward -1 for the offender and 0 for the others (``TerminateIllegalWrapper``), an
    action outside the action space fails an assertion (``AssertOutOfBoundsWrapper``), and
    calls out of order are refused (``OrderEnforcingWrapper``). Arguments: see :class:`raw_env`.
    """
    wrapped = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


class raw_env(AECEnv):
    """BORDERS as a PettingZoo AEC environment, without wrappers (the module docstring is the
    full documentation).

    Args:
        num_players: 3..8.
        reward: ``"win"``, ``"score"`` or ``"margin"`` (:mod:`borders_sim.rules.rewards`).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"``
            (``render()`` prints it, and so does every ``step``).
        **flags: any other :class:`~borders_sim.GameConfig` flag.

    Attributes:
        config: the :class:`~borders_sim.GameConfig` of every game.
        reward: the reward mode.
        game: the :class:`~borders_sim.Game` in play (``None`` before the first ``reset``).

    Raises:
        ValueError: an unknown keyword or a bad value; the message names it.
    """

    metadata = {"render_modes": ["human", "ansi"], "name": "borders_v0",
                "is_parallelizable": False}

    def __init__(self, num_players: int = 4, reward: str = "win",
                 render_mode: str | None = None, **flags: Any) -> None:
        super().__init__()
        known = [f.name for f in fields(GameConfig) if f.name != "num_players"]
        unknown = sorted(set(flags) - set(known))
        if unknown:
            raise ValueError(f"unknown borders_v0 keyword(s) {unknown}; known: num_players, "
                             f"reward, render_mode and the GameConfig flags {known}")
        self.config = GameConfig(num_players=num_players, **flags)
        self._reward_mode = rw.reward_mode(reward)
        self.reward = reward
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of "
                             f"{self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.config.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(act.NUM_ACTIONS) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (act.NUM_ACTIONS,), np.int8),
            }) for a in self.possible_agents}
        # seeds of reset(seed=None) come from here; reset(seed=s) reseeds it with s
        self._seeds = np.random.default_rng()
        self._rewards = np.zeros(MAX_PLAYERS, dtype=np.float64)
        self._last_mover = 0
        self._to_move = -1  # seat to move, -1 once the game is over
        self._view: dict[str, np.ndarray] | None = None  # observe() of the agent to move
        self.game: Game | None = None
        self.agents: list[str] = []  # (until reset: no agent, no game)

    # --- spaces ---------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[self._known(agent)]

    def _known(self, agent: Any) -> str:
        """``agent`` if it is one of :attr:`possible_agents`, else a ValueError naming it."""
        if not isinstance(agent, str) or agent not in self._seat:
            raise ValueError(f"unknown agent {shown(agent)}; agents are {self.possible_agents}")
        return agent

    def _no_game(self, what: str) -> RuntimeError:
        """The error of ``what`` when no game is in play: before the first :meth:`reset`, or
        once every agent is done."""
        if self.game is None:
            return RuntimeError(f"{what} before reset(): call reset() to start a game")
        return RuntimeError(f"{what}: every agent is done (the game is over and each agent has "
                            "stepped None); call reset() to start a new game")

    # --- the AEC loop ---------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game: ``Game(config, seed)`` for a ``seed`` (0 to ``2**64 - 1``,
        :mod:`borders_sim.rules.args`; it also reseeds the stream of seeds), with ``None`` the
        next seed of that stream. ``options`` is unused."""
        if seed is None:
            game_seed = int(self._seeds.integers(2**63))
        else:
            game_seed = as_seed(seed)
            self._seeds = np.random.default_rng(game_seed)
        self.game = Game(self.config, seed=game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._to_move = self._last_mover = self.game.current_player
        self.agent_selection = self.possible_agents[self._to_move]
        self._view = None

    def step(self, action: int) -> None:
        """Apply ``action`` for :attr:`agent_selection` (``None`` for an agent that is done).

        Raises:
            borders_sim.IllegalActionError: the action is not legal now; nothing changes.
            RuntimeError: before :meth:`reset`, or once every agent is done.
        """
        seat = self._to_move  # the seat of agent_selection; -1: every agent is done
        if seat < 0:
            if not self.agents:
                raise self._no_game("step()")
            self._was_dead_step(action)
            return
        # the step and the next mover's view in one compiled call (IllegalActionError before
        # any change)
        to_move, obs, mask = self.game.step_observe(action)
        self._view = None if to_move < 0 else {"observation": obs, "action_mask": mask}
        self._to_move = to_move
        self._last_mover = seat
        # (_cumulative_rewards stay 0 until the last step: rewards come only at the end)
        if self._to_move < 0:
            # every agent terminates together; the rewards come only now (rewards.py)
            rw.final_rewards_at(self.game.state, 0, self._reward_mode, self._rewards)
            for a in self.agents:
                self.rewards[a] = float(self._rewards[self._seat[a]])
                self.terminations[a] = True
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[self._to_move]
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        """``(observation, cumulative reward, termination, truncation, info)`` of
        :attr:`agent_selection` (PettingZoo's ``last``).

        Raises:
            RuntimeError: before :meth:`reset`, or once every agent is done.
        """
        agent = self.agent_selection if self.agents else None
        try:
            reward = self._cumulative_rewards[agent]
        except (AttributeError, KeyError):
            raise self._no_game("last()") from None
        return (self.observe(agent) if observe else None, reward, self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32[OBS_SIZE], "action_mask": int8[NUM_ACTIONS]}`` of
        ``agent``; the mask is all zeros unless ``agent`` is the one to move.

        Raises:
            ValueError: an unknown agent.
            RuntimeError: before :meth:`reset`.
        """
        view = self._view  # the mover's view, written by the step that made it the mover
        if view is not None and agent == self.agent_selection:
            return view
        seat = self._seat[self._known(agent)]
        if self.game is None:
            raise self._no_game(f"observe({agent!r})")
        if seat != self._to_move:
            obs = np.empty(OBS_SIZE, dtype=np.float32)
            observe_at(self.game.state, 0, seat, obs)
            return {"observation": obs, "action_mask": np.zeros(act.NUM_ACTIONS, dtype=np.int8)}
        if self._view is None:  # computed once per step; the next step makes new arrays
            obs = np.empty(OBS_SIZE, dtype=np.float32)
            observe_at(self.game.state, 0, seat, obs)
            self._view = {"observation": obs,
                          "action_mask": self.game.legal_mask().view(np.int8)}
        return self._view

    # --- rendering ------------------------------------------------------------------------
    def render(self) -> str | None:
        """The public table and the private cards of the agent to move (of the last mover once
        the game is over), as :func:`~borders_sim.envs.observe_text` writes them: returned with
        ``render_mode="ansi"``, printed with ``"human"``."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode.")
            return None
        if self.game is None:
            raise self._no_game("render()")
        viewer = self.game.current_player if not self.game.is_terminal else self._last_mover
        text = observe_text(self.game, viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    # --- pickling -------------------------------------------------------------------------
    # The game travels as Game.to_dict() (the exact state, random generator included), so an
    # unpickled env continues exactly as the original would.
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        if self.game is not None:
            state["game"] = self.game.to_dict()
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if state["game"] is not None:
            self.game = Game.from_dict(state["game"])


# =================================================================================================
# The module docstring: generated from the code, stored literally above, checked by a test.
# =================================================================================================
REGENERATE = 'python -c "from borders_sim.envs import borders; borders.write_doc_page()"'


def _rst_to_md(text: str) -> str:
    return text.replace("``", "`")


def _rewards_table() -> str:
    """The table of reward modes in :mod:`.rewards`' docstring, as Markdown."""
    lines = inspect.cleandoc(rw.__doc__).splitlines()
    rules = [i for i, line in enumerate(lines) if line.startswith("=")]
    rows: list[list[str]] = []
    for line in [lines[rules[0] + 1]] + lines[rules[1] + 1:rules[2]]:
        if line[:1].isspace():  # a continuation of the row above
            rows[-1][1] += " " + line.strip()
        else:
            rows.append(line.split(None, 1))  # the mode is one word
    out = [f"| {_rst_to_md(a)} | {_rst_to_md(b)} |" for a, b in rows]
    return "\n".join(out[:1] + ["|---|---|"] + out[1:])


def _flag_docs() -> dict[str, str]:
    """GameConfig flag -> its sentence in GameConfig's ``Args:`` docstring section."""
    doc = inspect.cleandoc(GameConfig.__doc__)
    section = doc.split("Args:\n", 1)[1]
    out: dict[str, str] = {}
    name = ""
    for line in section.splitlines():
        if not line.strip():
            break
        m = re.match(r"    (\w+): (.*)", line)
        if m:
            name = m.group(1)
            out[name] = m.group(2)
        else:
            out[name] += " " + line.strip()
    return out


def _one_of(names) -> str:
    quoted = [f'`"{x}"`' for x in names]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _arguments_table() -> str:
    docs = _flag_docs()
    env_args = inspect.signature(raw_env).parameters
    rows = [("num_players", env_args["num_players"].default, docs["num_players"]),
            ("reward", env_args["reward"].default,
             _one_of(rw.REWARD_MODES) + ": see Rewards."),
            ("render_mode", env_args["render_mode"].default,
             "`None`, `\"ansi\"` (`render()` returns the text) or `\"human\"` (`render()` "
             "prints it, as does every `step`).")]
    rows += [(f.name, f.default, docs[f.name]) for f in fields(GameConfig)
             if f.name != "num_players"]
    out = ["| argument | default | meaning |", "|---|---|---|"]
    for name, default, meaning in rows:
        shown = f'"{default}"' if isinstance(default, str) else repr(default)
        out.append(f"| `{name}` | `{shown}` | {_rst_to_md(meaning)} |")
    return "\n".join(out)


def doc_page() -> str:
    """The module docstring, generated from the code (observation layout, action ranges,
    rewards, GameConfig flags). ``write_doc_page()`` stores it in this file."""
    n_lo, n_hi = MIN_PLAYERS, MAX_PLAYERS
    default_players = inspect.signature(raw_env).parameters["num_players"].default
    return f"""
# BORDERS

This environment is part of `borders_sim`, a numba-compiled simulator of the card game BORDERS
for reinforcement-learning research. It follows the conventions of PettingZoo's classic games.

| | |
|---|---|
| Import | `from borders_sim.envs import borders_v0` |
| Actions | Discrete |
| Parallel API | No |
| Manual Control | No |
| Agents | `agents = ['player_0', ..., 'player_{{n-1}}']` |
| Agents | {n_lo}-{n_hi} (`num_players`, default {default_players}) |
| Action Shape | Discrete({act.NUM_ACTIONS}) |
| Action Values | 0 to {act.NUM_ACTIONS - 1} |
| Observation Shape | ({OBS_SIZE},) |
| Observation Values | [0, float32 max]: counts and one-hots, float32 |

BORDERS is a Prohibition-era smuggling game for {n_lo} to {n_hi} players. Each round the smugglers
trade cards at the market, pack 1-5 goods into a crate in secret and announce it with its
exact card count and one legal type, truthfully or not; the inspector(s) (the rulebook's
Prohibition agent, a role that rotates each round) then check the crates one by one, haggling
with the owner (offers of gold, goods and promises, demands) while the other players may offer
bounties for opening a rival's crate. An opened truthful crate earns its owner the fines of
its cards from the inspector; an opened lie loses the cards not of the announced type and its
owner pays their fines. Passed goods go to the warehouse, from which main resources are
collected. The game ends with the inspector cycle in which the last main resource in the
middle is collected (or the draw pile runs out a second time); the most points (warehouse
goods, gold, main resources, King and Queen bonuses) win.

Every decision is one step of one agent: the action window, the market, packing, the
announcement, choosing the crate to inspect, bounties and gifts, every haggling step (offer,
respond, answer a demand), joining an opening, reactions, the Lawyer and the Syndicate Fund,
and the collection of main resources. Forced decisions (exactly one legal action) are applied
without asking by default (`skip_forced=True`).

```python
from borders_sim.envs import borders_v0

env = borders_v0.env(num_players=4, render_mode="ansi")
env.reset(seed=42)
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        action = None
    else:
        mask = observation["action_mask"]
        action = env.action_space(agent).sample(mask)  # a policy goes here
    env.step(action)
env.close()
```

### Observation Space

The observation is a dictionary with an `'observation'` element, the vector described below,
and an `'action_mask'` element, the legal moves described in the Legal Actions Mask section.

The vector holds everything the agent knows and nothing else (RULINGS R-39): its own hand,
crate and face-down warehouse cards; the public table (round, phase, whose turn, inspector
badges A and B, round order, gold, hand sizes, face-up warehouses, face-down counts, main
resources, the discard pile, the draw pile size); the border check in progress (announcements,
offers, demands, bounties, accepted deals, promises, inspector statuses, what opened crates
showed); per-player public history for the whole game; and what the agent privately knows of
other players' hidden cards (cards it handed over face down, cards taken with Night Raid).

It is seat-relative: every per-seat block has {MAX_PLAYERS} rows, row `r` being the seat `r` places
to the agent's left (row 0 is the agent itself), so one policy serves every seat and
player count; rows at and beyond the player count are 0. Inspector blocks have two rows, badge
A then badge B (B is 0 with one inspector). Counts are raw, not normalised. The same knowledge
in words: `borders_sim.envs.observe_json(game, seat)` and `observe_text(game, seat)`.

The table is `borders_sim.rules.observation.OBSERVATION_LAYOUT`; `decode(obs)` splits a vector
into these named blocks.

{layout_table()}

#### Legal Actions Mask

The legal moves of the agent to move are the `action_mask` element of its observation: an
int8 vector of length {act.NUM_ACTIONS}, 1 where the action is legal now. The mask is all zeros
for every agent other than the one to move, and for every agent once the game is over.

### Action Space

One flat space of {act.NUM_ACTIONS} ids for every phase and player count, one range of ids per
kind of decision (`borders_sim.rules.actions.RANGES`); seat-indexed ranges have {MAX_PLAYERS}
ids (absolute seats `p0`..`p7`), gold ranges one id per entry of the gold menu, badge ranges
two ids (A then B). `env.unwrapped.game.action_to_string(id)` reads an id
(`"offer gold 5 to A"`).

{act.ranges_table()}

#### Illegal actions

`raw_env.step` with an illegal action raises `borders_sim.IllegalActionError` naming the
action, the player and the phase, and changes nothing. `env()` follows PettingZoo's classic
convention through its standard wrappers: an illegal action ends the game, the offender gets
-1 and every other agent 0 (`TerminateIllegalWrapper(illegal_reward=-1)`); an id outside the
action space fails an assertion (`AssertOutOfBoundsWrapper`).

### Rewards

Rewards come only at the end of the game (0 at every other step), when all agents terminate
together, by the `reward` argument (`borders_sim.rules.rewards`):

{_rewards_table()}

There is no truncation: every game ends within `env.unwrapped.game.max_game_length` decisions.

### Arguments

`borders_v0.env(num_players=4, reward="win", render_mode=None, **flags)` and `raw_env(...)`
take every `GameConfig` flag as a keyword (defaults: the rulebook); an unknown keyword or a bad
value raises `ValueError` naming it.

{_arguments_table()}

### Seeding, game state, rendering, pickling

`reset(seed=s)` starts `borders_sim.Game(config, seed=s)`: the same seed gives the same game.
`reset()` takes the next seed from a generator that `reset(seed=s)` reseeds. The game in play is
`env.unwrapped.game` (a `borders_sim.Game`: `to_dict()`, `scores()`, `winners()`, ...).
`render()` shows the public table and the private cards of the agent to move (of the last mover
once the game is over), as `observe_text` writes them. The raw and the wrapped env pickle
mid-game and continue identically.

### Version History

* v0: Initial release (borders_sim 0.1.0).
"""


def write_doc_page() -> None:
    """Store :func:`doc_page` as this module's docstring (run after changing the layout, the
    action ranges, the rewards or the GameConfig flags)."""
    path = Path(__file__)
    text = doc_page()
    if "\\" in text or '"""' in text:
        raise ValueError("the doc page contains a backslash or triple quotes")
    source = path.read_text(encoding="utf-8")
    start = source.index('"""')
    end = source.index('"""', start + 3) + 3
    path.write_text(source[:start] + '"""' + text + '"""' + source[end:], encoding="utf-8")
