"""``borders-sim serve`` in a real headless browser (:mod:`tests.browser`): a person plays a
whole 4-player game against three bots to the final scores, clicking only what a person
clicks (the lineup, Start, the pace, one of the legal-action buttons on each turn), with no
console error; screenshots of the game and of its end are saved."""

from __future__ import annotations

import random
import time

import pytest

pytest.importorskip("starlette")  # the optional serve extra: pip install ".[serve]"
pytest.importorskip("uvicorn")

from borders_sim.serve import Settings, create_app, running  # noqa: E402
from tests.browser import browser, console_errors, screenshot  # noqa: E402

LINEUP = ("honest", "bluffer", "ppo")


def start_game(driver, url: str, seat: int, lineup, seed: int) -> None:
    """Open the page, choose 4 players, the seat, the bots and the seed, and press Start."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    driver.get(url + "/")
    wait = WebDriverWait(driver, 60)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#lineup select.bot"))
    Select(driver.find_element(By.ID, "players")).select_by_value("4")
    Select(driver.find_element(By.ID, "seat")).select_by_value(str(seat))
    selects = driver.find_elements(By.CSS_SELECTOR, "#lineup select.bot")
    assert len(selects) == len(lineup)
    for select, bot in zip(selects, lineup):
        Select(select).select_by_value(bot)
    seed_box = driver.find_element(By.ID, "seed")
    seed_box.clear()
    seed_box.send_keys(str(seed))
    driver.find_element(By.ID, "start-game").click()
    wait.until(lambda d: d.find_element(By.ID, "table").is_displayed())
    Select(driver.find_element(By.ID, "pace")).select_by_value("40")


def click_a_legal_action(driver, rng: random.Random) -> bool:
    """Click one of the legal-action buttons shown, if any; whether one was clicked."""
    from selenium.common.exceptions import (ElementNotInteractableException,
                                            StaleElementReferenceException)
    from selenium.webdriver.common.by import By

    buttons = driver.find_elements(By.CSS_SELECTOR, "#legal button.legal")
    try:
        buttons = [b for b in buttons if b.is_displayed()]
        if not buttons:
            return False
        rng.choice(buttons).click()
    except (StaleElementReferenceException, ElementNotInteractableException):
        return False  # the page redrew its buttons meanwhile
    return True


def test_a_person_plays_a_whole_game_against_three_bots(tmp_path):
    from selenium.webdriver.common.by import By

    rng = random.Random(3)
    with running(create_app(Settings(allow_seeds=True))) as url, browser() as driver:
        start_game(driver, url, seat=1, lineup=LINEUP, seed=11)
        clicks, shot, deadline = 0, None, time.monotonic() + 600
        while not driver.find_element(By.ID, "final").is_displayed():
            assert time.monotonic() < deadline, "the game did not end within 10 minutes"
            if click_a_legal_action(driver, rng):
                clicks += 1
                if clicks == 40:
                    shot = screenshot(driver, "serve-play-midgame")
            else:
                time.sleep(0.05)
            assert not driver.find_element(By.ID, "error").is_displayed(), \
                driver.find_element(By.ID, "error").text
        scores = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#scores li")]
        assert len(scores) == 4 and scores[1].startswith("p1 (you): ")
        assert any("(winner)" in s for s in scores)
        assert "Game over" in driver.find_element(By.ID, "status").text
        assert clicks > 20 and shot is not None
        # the whole table may be seen once the game is over
        options = driver.find_elements(By.CSS_SELECTOR, "#viewer option")
        assert [o.get_attribute("value") for o in options][0] == "table"
        screenshot(driver, "serve-play-final")
        assert console_errors(driver) == []


def test_the_page_deals_a_secret_seed_and_offers_no_seed_box_by_default():
    """Started without --allow-seeds, the page shows no seed box and the game it starts is
    dealt from a secret seed (the request names none)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with running(create_app(Settings())) as url, browser() as driver:
        driver.get(url + "/")
        wait = WebDriverWait(driver, 60)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#lineup select.bot"))
        assert not driver.find_element(By.ID, "seed-box").is_displayed()
        driver.find_element(By.ID, "start-game").click()
        wait.until(lambda d: d.find_element(By.ID, "table").is_displayed())


def play_people(url: str, body: dict, drivers: dict, rng: random.Random, minutes: float) -> None:
    """Create the game ``body`` (its ``"people"`` the seats of ``drivers``), open each
    person's join link in that person's browser, click a legal action in the page of each
    person to move until the game ends, and see every page show the final scores; each page
    offers only its own seat's view."""
    import json
    import urllib.request

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    request = urllib.request.Request(
        f"{url}/api/games", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps(body).encode())
    created = json.loads(urllib.request.urlopen(request, timeout=30).read())
    links = {p["seat"]: url + p["join"] for p in created["people"]}
    assert set(links) == set(drivers)
    for seat, driver in drivers.items():
        driver.get(links[seat])
        WebDriverWait(driver, 60).until(lambda d: d.find_element(By.ID, "table").is_displayed())
        Select(driver.find_element(By.ID, "pace")).select_by_value("40")  # (the bots' pace)
    deadline = time.monotonic() + 60 * minutes
    while True:  # (the game's status is public: only the page of the seat to move is used)
        assert time.monotonic() < deadline, "the game did not end in time"
        status = json.loads(urllib.request.urlopen(f"{url}/api/games/{created['id']}",
                                                   timeout=30).read())["game"]
        if status["over"]:
            break
        driver = drivers.get(status["to_move"])
        if driver is None:
            time.sleep(0.05)  # (a bot's move, stepped by the first person's page)
            continue
        offered = driver.execute_script(  # (read at once: the page redraws)
            "return [...document.querySelectorAll('#viewer option')].map(o => o.value)")
        if offered not in ([], [str(status["to_move"])]):  # (its own seat only, while it runs)
            ended = json.loads(urllib.request.urlopen(f"{url}/api/games/{created['id']}",
                                                      timeout=30).read())["game"]["over"]
            assert ended, offered
        if not click_a_legal_action(driver, rng):
            time.sleep(0.05)
    for driver in drivers.values():
        WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "final").is_displayed())
        assert console_errors(driver) == []


def test_two_people_play_one_game_to_the_end_each_from_their_own_link():
    """Two browsers, each opened at its person's join link (``"people"``), and a bot: each page
    sends its token, offers only its own seat's view, waits for the other person at a bounded
    rate, and both see the game to its end."""
    with running(create_app(Settings(allow_seeds=True))) as url, browser() as one, \
            browser() as two:
        play_people(url, {"players": 3, "people": [0, 2], "bots": ["honest"], "seed": 6},
                    {0: one, 2: two}, random.Random(5), minutes=4)


@pytest.mark.slow
def test_three_people_a_bot_and_a_language_model_play_one_game():
    """Issue 51's table: three browsers, each at its own join link, a heuristic and a language
    model's seat (the test server's) play one 5-player game to its end, each page seeing only
    its own seat."""
    from borders_sim.llm.local_server import LocalServer

    with LocalServer() as model:
        spec = f"llm:random@{model.url}"
        with running(create_app(Settings(allow_seeds=True, bots=(spec,)))) as url, \
                browser() as one, browser() as two, browser() as three:
            play_people(url, {"players": 5, "people": [0, 2, 4], "bots": ["honest", spec],
                              "seed": 8, "action_cards": False},
                        {0: one, 2: two, 4: three}, random.Random(8), minutes=9)
        assert model.requests, "the language model's seat never decided"
