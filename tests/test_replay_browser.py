"""The replay page of ``borders-sim replay GAME --html`` in a real browser (headless Chromium,
tests/browser.py), used as a person would: opened from a file:// URL, stepped through every
move with the keyboard, then with the buttons, the round list and the log, its view switched to
each seat and back to the whole table; every picture shown is the drawing of that step from
that view, and the browser logs no error. Screenshots land in BORDERS_SCREENSHOTS."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET

import pytest

from borders_sim.arena.records import read_trace
from borders_sim.arena.viewer.steps import walk
from borders_sim.game.drawing import game_svg
from tests.browser import browser, console_errors, screenshot
from tests.test_replay_page import record

PICTURE = "return document.querySelector('#picture svg').textContent"
WHERE = "return document.getElementById('where').textContent"


def shown_text(svg: str) -> str:
    """The text of a picture, as the page's ``textContent`` of it reads."""
    return "".join(ET.fromstring(svg).itertext())


def wait_ready(driver, seconds: float = 20) -> None:
    end = time.monotonic() + seconds
    while not driver.execute_script("return document.body.dataset.ready"):
        assert time.monotonic() < end, driver.find_element("id", "status").text
        time.sleep(0.05)


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    """A recorded 3-player game, its page, and the text of every picture by view and step."""
    directory = tmp_path_factory.mktemp("replay")
    trace = read_trace(record(directory, 3, seed=5)[0])
    page = directory / "game.html"
    from borders_sim import cli
    assert cli.main(["replay", trace.path, "--html", str(page)]) == 0
    n = trace.config.num_players
    texts: list[list[str]] = [[] for _ in range(n + 1)]

    def draw(game, last, _entry):
        for view in range(n):
            texts[view].append(shown_text(game_svg(game, view, last)))
        texts[n].append(shown_text(game_svg(game, None, last)))

    walk(trace, draw)
    return trace, page, texts


def test_a_person_steps_through_the_replay(replay):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    trace, page, texts = replay
    n, last = trace.config.num_players, len(trace.actions)
    with browser() as driver:
        driver.get(page.as_uri())
        wait_ready(driver)
        body = driver.find_element(By.TAG_NAME, "body")
        table = n
        assert driver.execute_script(PICTURE) == texts[table][0]

        # every move with the keyboard, the view switched to each seat on the way
        view, changes = table, 0
        for step in range(1, last + 1):
            before = driver.execute_script(PICTURE)
            body.send_keys(Keys.ARROW_RIGHT)
            if step % 97 == 0:  # a seat's number shows its view, T the whole table
                view = (step // 97) % (n + 1)
                body.send_keys("t" if view == table else str(view))
            now = driver.execute_script(PICTURE)
            assert now == texts[view][step], (view, step)
            changes += now != before
            assert driver.execute_script(WHERE).startswith(f"step {step} of {last}")
        assert changes >= last * 0.9  # the picture moves with the steps
        body.send_keys(Keys.ARROW_RIGHT)  # past the end: stays at the last step
        assert driver.execute_script(WHERE).startswith(f"step {last} of {last}")
        shot = screenshot(driver, "replay-last-step")
        assert shot.stat().st_size > 10_000

        # every view through the view list, at the last step (the final scores drawn)
        views = Select(driver.find_element(By.ID, "view"))
        for v in [*range(n), table]:
            views.select_by_value(str(v))
            assert driver.execute_script(PICTURE) == texts[v][last]
        scores = driver.find_element(By.ID, "scores").text
        assert all(str(s) in scores for s in trace.result["scores"])

        # the buttons, the round list and the log
        driver.find_element(By.ID, "first").click()
        assert driver.execute_script(PICTURE) == texts[table][0]
        driver.find_element(By.ID, "next").click()
        driver.find_element(By.ID, "next").click()
        driver.find_element(By.ID, "prev").click()
        assert driver.execute_script(PICTURE) == texts[table][1]
        rounds = Select(driver.find_element(By.ID, "round"))
        starts = [int(o.get_attribute("value")) for o in rounds.options]
        driver.find_element(By.ID, "next-round").click()
        assert driver.execute_script(PICTURE) == texts[table][starts[1]]
        rounds.select_by_index(len(starts) - 1)
        assert driver.execute_script(PICTURE) == texts[table][starts[-1]]
        driver.find_element(By.ID, "prev-round").click()
        assert driver.execute_script(PICTURE) == texts[table][starts[-2]]
        body.send_keys(Keys.PAGE_DOWN)
        assert driver.execute_script(PICTURE) == texts[table][starts[-1]]
        driver.find_element(By.CSS_SELECTOR, "#log li[data-step='5']").click()
        assert driver.execute_script(PICTURE) == texts[table][5]
        body.send_keys("1")
        pack = next(i for i, (_l, seat, _a, text) in enumerate(trace.actions, 1)
                    if text.startswith("pack ") and seat != 1)
        item = driver.find_element(By.CSS_SELECTOR, f"#log li[data-step='{pack}']").text
        assert "pack a card" in item  # another seat's packed card stays hidden in p1's log
        driver.find_element(By.ID, "last").click()
        assert driver.execute_script(PICTURE) == texts[1][last]
        screenshot(driver, "replay-seat-1")
        assert console_errors(driver) == []
