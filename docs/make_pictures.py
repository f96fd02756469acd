"""Write the pictures of docs/img/: a seat's view and the whole table of one moment of a game.

    python docs/make_pictures.py          # docs/img/seat-view.png, docs/img/whole-table.png

Five bots play a five-player game (a fixed seed and fixed bots, so the pictures are the same on
every run, up to the fonts of the machine that rasterises them) until an inspector opens a
crate whose announcement was a lie, from round 3 on. At that moment the whole table shows every
card and the seat view shows what the next smuggler in line knows. Needs the optional
``render`` extra (resvg-py, Pillow).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from borders_sim import Game, GameConfig
from borders_sim.agents import make
from borders_sim.game.drawing import game_svg, svg_to_png
from borders_sim.game.views import observe

OUT = Path(__file__).resolve().parent / "img"
SEED = 11
BOTS = ("bluffer", "honest", "collector", "bluffer", "strict")


def caught_lying(game: Game) -> bool:
    """Whether the crate just settled was opened on a lie (from round 3 on)."""
    neg = game.to_dict()["negotiation"]
    return (game.round >= 3 and neg is not None and neg["crate_of"] is not None
            and neg["outcome"] == "opened" and not neg["truthful"])


def the_moment() -> tuple[Game, tuple[int, int]]:
    """The game at the first lie caught from round 3 on, and the decision that opened it."""
    game = Game(GameConfig(num_players=len(BOTS)), seed=SEED)
    bots = [make(name, seed=SEED + p) for p, name in enumerate(BOTS)]
    while not game.is_terminal:
        p = game.current_player
        a = bots[p].act(observe(game, p), game.legal_mask().astype(np.bool_))
        game.step(a)
        if caught_lying(game):
            return game, (p, a)
    raise RuntimeError(f"no lie was caught from round 3 on in the game of seed {SEED}")


def main() -> None:
    game, last = the_moment()
    d = game.to_dict()
    order = d["round_order"]
    owner = d["negotiation"]["crate_of"]
    waiting = [s for s in order if s not in d["inspectors"].values()
               and d["players"][int(s[1:])]["crate_status"] == "announced"]
    viewer = int((waiting or [s for s in order if s != owner])[0][1:])
    OUT.mkdir(exist_ok=True)
    (OUT / "whole-table.png").write_bytes(svg_to_png(game_svg(game, None, last)))
    (OUT / "seat-view.png").write_bytes(svg_to_png(game_svg(game, viewer, last)))
    print(f"round {game.round}: the crate of {owner} opened on a lie; the seat view is "
          f"p{viewer}'s; wrote {OUT / 'whole-table.png'} and {OUT / 'seat-view.png'}")


if __name__ == "__main__":
    main()
