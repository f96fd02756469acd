"""A real headless browser for the tests: Debian's Chromium driven by Selenium.

The browser tests open what a person opens (the HTML replay, the ``borders-sim serve`` app) in
Chromium and click and type as a person would. This module holds what they share::

    from tests.browser import browser, console_errors, screenshot

    def test_page(tmp_path):
        with browser() as driver:                  # skips when there is no browser (below)
            driver.get(page.as_uri())
            ...
            shot = screenshot(driver, "page-end")  # a PNG a reviewer can open; path printed
            assert console_errors(driver) == []

* :func:`browser` starts a fresh headless Chromium (its own temporary profile, no network of
  its own: the flags of :data:`CHROMIUM_FLAGS`) and quits it afterwards. Where Chromium,
  chromedriver or Selenium is missing it calls ``pytest.skip`` with the reason, unless the
  environment variable ``BORDERS_REQUIRE_BROWSER`` is set (``.ci/run`` sets it), in which case
  the test fails instead: CI cannot skip the browser tests silently.
* :func:`console_errors` returns the browser console's messages of level ``SEVERE`` (JavaScript
  errors, failed loads) since the last call, read from the ``goog:loggingPrefs`` browser log.
* :func:`screenshot` saves the window as ``NAME.png`` under the directory named by
  ``BORDERS_SCREENSHOTS`` (``.ci/run`` points it at a folder it prints), else under
  ``<tmp>/borders-screenshots``; it prints the path (``pytest -s`` or the captured output of a
  failing test shows it) and returns it.

The browser and driver are found as :data:`CHROMIUM` and :data:`CHROMEDRIVER` (Debian's
``chromium`` and ``chromium-driver`` packages), or through ``BORDERS_CHROMIUM`` and
``BORDERS_CHROMEDRIVER``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

#: The Chromium binary (``BORDERS_CHROMIUM`` overrides it).
CHROMIUM = os.environ.get("BORDERS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: The chromedriver binary (``BORDERS_CHROMEDRIVER`` overrides it).
CHROMEDRIVER = (os.environ.get("BORDERS_CHROMEDRIVER") or shutil.which("chromedriver")
                or "/usr/bin/chromedriver")
#: Headless, no sandbox (containers run as root), and no background connections: on a closed
#: network Chromium's own requests (updates, sync, QUIC probes) are refused and logged.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage")
#: Set (to anything) to make a missing browser fail the test instead of skipping it.
REQUIRE = "BORDERS_REQUIRE_BROWSER"


def missing() -> str | None:
    """Why no browser test can run here (``None``: Chromium, chromedriver and Selenium are
    all there)."""
    for name, path in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)):
        if not os.access(path, os.X_OK):
            return f"{name} not found at {path} (Debian: apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install '.[test]')"
    return None


def _skip_or_fail(why: str) -> None:
    if os.environ.get(REQUIRE):
        pytest.fail(f"{REQUIRE} is set, but no browser test can run: {why}")
    pytest.skip(why)


@contextmanager
def browser(width: int = 1400, height: int = 1000) -> Iterator:
    """A fresh headless Chromium (a Selenium ``WebDriver``) with a ``width`` x ``height``
    window and its own temporary profile, quit on exit. Skips the test when there is no
    browser (fails it instead when ``BORDERS_REQUIRE_BROWSER`` is set)."""
    why = missing()
    if why is not None:
        _skip_or_fail(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="borders-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.add_argument(f"--window-size={width},{height}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def console_errors(driver) -> list[str]:
    """The console messages of level ``SEVERE`` (uncaught exceptions, ``console.error``,
    failed loads) logged since the last call."""
    return [entry["message"] for entry in driver.get_log("browser")
            if entry.get("level") == "SEVERE"]


def screenshot_dir() -> Path:
    """Where :func:`screenshot` writes: ``BORDERS_SCREENSHOTS``, else
    ``<tmp>/borders-screenshots``; created if missing."""
    where = Path(os.environ.get("BORDERS_SCREENSHOTS")
                 or Path(tempfile.gettempdir()) / "borders-screenshots")
    where.mkdir(parents=True, exist_ok=True)
    return where


def screenshot(driver, name: str) -> Path:
    """Save the browser window as ``NAME.png`` in :func:`screenshot_dir`; print and return
    its path."""
    path = screenshot_dir() / f"{name}.png"
    driver.save_screenshot(str(path))
    print(f"screenshot: {path}")
    return path
