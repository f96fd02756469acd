"""What the trainer says about its defaults: ``borders-sim train --help`` and ``TrainConfig``'s
docstring name the defaults as they are and send a reader to the shipped policy's recipe,
never claiming that the defaults are that recipe (the shipped file was trained in a chain of runs
with settings other than the defaults, which its metadata records), and never counting that
recipe's runs in prose: the count is read from the file where it is shown."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields

import numpy as np

from borders_sim.cli import train as train_cli
from borders_sim.policies.network import SHIPPED_WEIGHTS
from borders_sim.train.config import TrainConfig


def help_text() -> str:
    parser = argparse.ArgumentParser(prog="borders-sim")
    train_cli.add_parser(parser.add_subparsers())
    sub = parser._subparsers._group_actions[0].choices["train"]
    return " ".join(sub.format_help().split())


def test_the_help_says_the_defaults_are_not_the_recipe_and_where_it_is():
    text = help_text()
    assert "recipe of the shipped policy" not in text.replace("not the shipped policy's recipe", "")
    assert "not the shipped policy's recipe" in text and "docs/training.md" in text
    defaults = TrainConfig()
    assert f"--minutes M wall-clock budget, evaluations and checkpoints included (default: " \
           f"{defaults.minutes:g})" in text.replace(".0)", ")")
    assert "one run of 30 minutes" in text and defaults.minutes == 30
    assert defaults.imitate is None and defaults.exploiter_every == 0 \
        and defaults.algorithm_settings().anchor_coef == 0 and defaults.init is None


def test_the_shipped_policy_was_not_trained_with_the_defaults():
    """The claim the help no longer makes, held false by the shipped file's own metadata."""
    with np.load(SHIPPED_WEIGHTS) as z:
        meta = json.loads(str(z["meta"]))
    defaults = {f.name: f.default for f in fields(TrainConfig)}
    assert meta["seed"] != defaults["seed"] or meta["exploiter_every"] != \
        defaults["exploiter_every"]
    assert "not the shipped policy's recipe" in TrainConfig.__doc__.replace("\n    ", " ")


def test_no_prose_counts_the_recipes_runs():
    """The recipe's size is read from the shipped file where it is shown (docs/training.md's
    table); the help, the docstring and the page's prose never count its runs."""
    import re
    from pathlib import Path
    page = (Path(__file__).resolve().parents[1] / "docs" / "training.md").read_text()
    page = re.sub(r"<!-- ([\w-]+):start -->.*?<!-- \1:end -->", "", page, flags=re.S)  # generated
    counted = re.compile(r"(recipe|shipped|weights were made)[^.]*?\b(two|three|four|five|six|"
                         r"seven|eight|nine|ten|\d+) (runs|stages)\b", re.I)
    for text in (help_text(), " ".join(TrainConfig.__doc__.split()), " ".join(page.split())):
        assert not counted.search(text), counted.search(text).group(0)
