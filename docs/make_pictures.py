"""Write the pictures of docs/img/: a seat's view and the whole table of one moment of a game,
and a screenshot of the replay page at that moment.

    python docs/make_pictures.py   # docs/img/seat-view.png, whole-table.png, replay-viewer.png

Five bots play a five-player game (a fixed seed and fixed bots, so the pictures are the same on
every run, up to the fonts of the machine that rasterises them) until an inspector opens a
crate whose announcement was a lie, from round 3 on. At that moment the whole table shows every
card and the seat view shows what the next smuggler in line knows. Needs the optional
``render`` extra (resvg-py, Pillow).

A game of the same bots and seed, recorded as ``borders-sim tournament --record`` records it
(with the tournament's bot seeds), is written as the page of ``borders-sim replay GAME --html``
and opened in headless Chromium (as the browser tests open it: ``tests/browser.py``, Selenium
and Debian's ``chromium`` and ``chromium-driver``), at its first lie caught from round 3 on,
from the same seat's view: ``replay-viewer.png``. Without a browser that picture
is left as it is, and a note says so.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from borders_sim import Game, GameConfig
from borders_sim.agents import make
from borders_sim.arena import play_tournament, tournament
from borders_sim.arena.records import read_trace, trace_name
from borders_sim.arena.viewer import write_replay_page
from borders_sim.arena.viewer.steps import walk
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


def replay_screenshot(viewer: int) -> str:
    """``replay-viewer.png``: the replay page of a recorded game of the same bots and seed, at
    its first lie caught from round 3 on, from seat ``viewer``'s view; returns what was done,
    in words."""
    sys.path.insert(0, str(OUT.parents[1]))  # tests/browser.py, from the checkout
    from tests.browser import browser, missing
    why = missing()
    if why is not None:
        return f"replay-viewer.png left as it is: {why}"
    from selenium.webdriver.common.by import By
    with tempfile.TemporaryDirectory() as tmp:
        play_tournament(tournament(len(BOTS), BOTS, 1, SEED), record_dir=tmp)
        trace = read_trace(Path(tmp) / trace_name(0))
        steps: list[int] = []
        walk(trace, lambda game, _last, _entry: steps.append(caught_lying(game)))
        step = steps.index(True)
        page = write_replay_page(trace, Path(tmp) / "game.html")
        with browser(1400, 860) as driver:
            driver.get(page.as_uri())
            while not driver.execute_script("return document.body.dataset.ready"):
                time.sleep(0.05)
            driver.find_element(By.CSS_SELECTOR, f"#log li[data-step='{step}']").click()
            driver.find_element(By.TAG_NAME, "body").send_keys(str(viewer))
            driver.execute_script("window.scrollTo(0, 0)")  # the click scrolled to the log
            driver.save_screenshot(str(OUT / "replay-viewer.png"))
    return f"wrote {OUT / 'replay-viewer.png'} (step {step}, p{viewer}'s view)"


def serve_screenshot() -> str:
    """``serve-play.png``: the page of ``borders-sim serve``, a person (seat 1, clicking the
    same legal actions every run) against honest, bluffer and ppo, at the person's first move
    of round 3; returns what was done, in words."""
    sys.path.insert(0, str(OUT.parents[1]))  # tests/, from the checkout
    from tests.browser import browser, missing
    why = missing()
    if why is not None:
        return f"serve-play.png left as it is: {why}"
    import random
    from borders_sim.serve import Settings, create_app, running
    from tests.test_serve_browser import LINEUP, click_a_legal_action, start_game
    from selenium.webdriver.common.by import By
    rng = random.Random(3)
    with running(create_app(Settings())) as url, browser(1400, 860) as driver:
        start_game(driver, url, seat=1, lineup=LINEUP, seed=SEED)
        status = driver.find_element(By.ID, "status")
        while not (status.text.startswith("Round 3 ") and status.text.endswith("your move")):
            if not click_a_legal_action(driver, rng):
                time.sleep(0.05)
        time.sleep(0.3)  # the buttons of this turn drawn
        driver.save_screenshot(str(OUT / "serve-play.png"))
    return f"wrote {OUT / 'serve-play.png'}"


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
    print(replay_screenshot(viewer))
    print(serve_screenshot())


if __name__ == "__main__":
    main()
