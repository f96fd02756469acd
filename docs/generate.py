"""Write the generated doc pages of docs/ from the code, or check that they are up to date.

    python docs/generate.py           # write every page
    python docs/generate.py --check   # exit 1, naming the pages, if a page differs from the code

``borders_v0.md`` is the full doc page of the PettingZoo environment ``borders_v0``
(``borders_sim/envs/borders.py``), one function per section. Its tables come from the code:
the observation index table from :func:`borders_sim.rules.observation.layout_table`, the action
table from :func:`borders_sim.rules.actions.ranges_table`, the rewards from the table in the
docstring of :mod:`borders_sim.rules.rewards`, the arguments from the signature of ``raw_env``
and the ``Args:`` section of :class:`~borders_sim.GameConfig`'s docstring. Run this after
changing any of them; ``tests/test_env_aec.py`` runs the check.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import fields
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))  # document this checkout's borders_sim

from borders_sim.envs.borders import raw_env  # noqa: E402
from borders_sim.rules import actions as act  # noqa: E402
from borders_sim.rules import rewards as rw  # noqa: E402
from borders_sim.rules.config import GameConfig  # noqa: E402
from borders_sim.rules.observation import OBS_SIZE, layout_table  # noqa: E402
from borders_sim.rules.state import MAX_PLAYERS, MIN_PLAYERS  # noqa: E402

GENERATED = ("<!-- Generated from the code by docs/generate.py: edit the code, then run "
             "`python docs/generate.py`. -->")


def _rst_to_md(text: str) -> str:
    return text.replace("``", "`")


def _default_players() -> int:
    return inspect.signature(raw_env).parameters["num_players"].default


# --- the sections of borders_v0.md, in order ---------------------------------------------------
def overview() -> str:
    """The title, the table of facts, the game in one paragraph and a first loop."""
    n_lo, n_hi = MIN_PLAYERS, MAX_PLAYERS
    return f"""# BORDERS

This environment is part of `borders_sim`, a numba-compiled simulator of the card game BORDERS
for reinforcement-learning research. It follows the conventions of PettingZoo's classic games.

| | |
|---|---|
| Import | `from borders_sim.envs import borders_v0` |
| Actions | Discrete |
| Parallel API | No |
| Manual Control | No |
| Agents | `agents = ['player_0', ..., 'player_{{n-1}}']` |
| Agents | {n_lo}-{n_hi} (`num_players`, default {_default_players()}) |
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
```"""


def observation_space() -> str:
    """What the observation holds, how it is laid out, and its index table."""
    return f"""### Observation Space

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
for every agent other than the one to move, and for every agent once the game is over: played
to its end, ended by an illegal move under `env()`'s wrappers, or after `close()`. Every
agent's observation is always its own view, whoever is to move and however the game ended."""


def action_space() -> str:
    """The flat action space, its table of id ranges, and illegal actions."""
    return f"""### Action Space

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
action space fails an assertion (`AssertOutOfBoundsWrapper`). After such an end each agent,
as `agent_selection` comes to it, reads its own view with an all-zero mask from `last()` and
steps `None`, as at any end."""


def rewards() -> str:
    """When rewards come, and the table of reward modes."""
    return f"""### Rewards

Rewards come only at the end of the game (0 at every other step), when all agents terminate
together, by the `reward` argument (`borders_sim.rules.rewards`):

{rewards_table()}

There is no truncation: every game ends within `env.unwrapped.game.max_game_length` decisions."""


def arguments() -> str:
    """The keywords of ``env()`` and ``raw_env()``, with their table."""
    return f"""### Arguments

`borders_v0.env(num_players=4, reward="win", render_mode=None, **flags)` and `raw_env(...)`
take every `GameConfig` flag as a keyword (defaults: the rulebook); an unknown keyword or a bad
value raises `ValueError` naming it.

{arguments_table()}"""


def seeding_and_state() -> str:
    """Seeding, the game in play, rendering and pickling; the version history."""
    return """### Seeding, game state, rendering, pickling

`reset(seed=s)` starts `borders_sim.Game(config, seed=s)`: the same seed gives the same game.
`reset()` takes the next seed from a generator that `reset(seed=s)` reseeds. The game in play is
`env.unwrapped.game` (a `borders_sim.Game`: `to_dict()`, `scores()`, `winners()`, ...).
`render()` shows the public table and the private cards of the agent to move (of the last mover
once the game is over), as `observe_text` writes them, or with `render_mode="rgb_array"` as a
picture of that view (`borders_sim.game.drawing`: an `H x W x 3` uint8 array, 720 x 1440 for 3
to 6 players, 800 x 1440 for 7, 896 x 1440 for 8; the last step highlighted; it needs the
optional `render` extra). The raw and the wrapped env pickle mid-game and continue identically.

### Version History

* v0: Initial release (borders_sim 0.1.0)."""


SECTIONS: tuple[Callable[[], str], ...] = (overview, observation_space, action_space, rewards,
                                            arguments, seeding_and_state)


# --- the tables the sections take from docstrings and signatures -------------------------------
def rewards_table() -> str:
    """The table of reward modes in :mod:`borders_sim.rules.rewards`' docstring, as Markdown."""
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


def flag_docs() -> dict[str, str]:
    """GameConfig flag -> its sentence in GameConfig's ``Args:`` docstring section."""
    section = inspect.cleandoc(GameConfig.__doc__).split("Args:\n", 1)[1]
    out: dict[str, str] = {}
    name = ""
    for line in section.splitlines():
        if not line.strip():
            break
        if m := re.match(r"    (\w+): (.*)", line):
            name = m.group(1)
            out[name] = m.group(2)
        else:
            out[name] += " " + line.strip()
    return out


def _one_of(names: Iterable[str]) -> str:
    quoted = [f'`"{x}"`' for x in names]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


def arguments_table() -> str:
    """One row per keyword of ``raw_env``: the env's own, then every GameConfig flag."""
    docs = flag_docs()
    env_args = inspect.signature(raw_env).parameters
    rows = [("num_players", env_args["num_players"].default, docs["num_players"]),
            ("reward", env_args["reward"].default,
             _one_of(rw.REWARD_MODES) + ": see Rewards."),
            ("render_mode", env_args["render_mode"].default,
             "`None`, `\"ansi\"` (`render()` returns the text), `\"human\"` (`render()` "
             "prints it, as does every `step`) or `\"rgb_array\"` (`render()` returns the "
             "picture).")]
    rows += [(f.name, f.default, docs[f.name]) for f in fields(GameConfig)
             if f.name != "num_players"]
    out = ["| argument | default | meaning |", "|---|---|---|"]
    for name, default, meaning in rows:
        shown = f'"{default}"' if isinstance(default, str) else repr(default)
        out.append(f"| `{name}` | `{shown}` | {_rst_to_md(meaning)} |")
    return "\n".join(out)


# --- the pages -----------------------------------------------------------------------------------
def borders_v0_page() -> str:
    """The doc page of ``borders_v0``: its sections, each followed by a blank line."""
    return "\n\n".join([GENERATED, *(section() for section in SECTIONS)]) + "\n"


PAGES: dict[str, Callable[[], str]] = {"borders_v0.md": borders_v0_page}


def stale_pages(directory: Path = DOCS) -> list[str]:
    """Names of the pages whose file in ``directory`` is missing or differs from the code."""
    stale = []
    for name, page in PAGES.items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != page():
            stale.append(name)
    return stale


def write_pages(directory: Path = DOCS) -> list[str]:
    """Write every page into ``directory``; return the names of those that changed."""
    changed = stale_pages(directory)
    for name in changed:
        (directory / name).write_text(PAGES[name](), encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a page is not what the code generates")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_pages()
        for name in stale:
            print(f"docs/{name} is out of date; regenerate it with: python docs/generate.py")
        return 1 if stale else 0
    for name in write_pages():
        print(f"wrote docs/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
