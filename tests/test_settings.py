"""Each training setting declared once (:mod:`borders_sim.settings`): every field of
``TrainConfig`` and ``PPOSettings`` has exactly one option of ``borders-sim train``, and the
option and ``check()`` take and refuse the same values, at and beyond every bound, in the same
words; every registered algorithm's settings are options of their own with those bounds, and a
value given is used, never dropped (a value equal to PPO's default included)."""

from __future__ import annotations

import argparse
import dataclasses
import math
import subprocess
import sys
import typing

import pytest

from borders_sim.cli.app import build_parser
from borders_sim.cli.train import config_of
from borders_sim.settings import declared, flag_of, optional, setting, check_settings
from borders_sim.train.algorithm import ALGORITHMS
from borders_sim.train.config import TrainConfig
from borders_sim.train.ppo import PPOSettings

CONTAINERS = {"settings"}  # TrainConfig's field holding the algorithm's settings: theirs are options
REQUIRED = ["--out", "run"]


def _train_parser() -> argparse.ArgumentParser:
    """The ``train`` subcommand's parser."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["train"]


def _options(parser: argparse.ArgumentParser) -> dict[str, list[argparse.Action]]:
    """The parser's options by ``dest``."""
    out: dict[str, list[argparse.Action]] = {}
    for action in parser._actions:
        out.setdefault(action.dest, []).append(action)
    return out


def test_every_setting_is_declared_and_has_exactly_one_option():
    options = _options(_train_parser())
    for cls in (TrainConfig, PPOSettings):
        names = {f.name for f, _, _ in declared(cls)}
        every = {f.name for f in dataclasses.fields(cls)} - CONTAINERS
        assert names == every, f"{cls.__name__} fields without a declaration: {every - names}"
        for f, _, _ in declared(cls):
            found = options.get(f.name, [])
            assert len(found) == 1, f"{f.name}: {len(found)} options"
            assert found[0].option_strings == [flag_of(f)]


def _probes(s, kind) -> list:
    """Values at and just beyond each bound of a numeric declaration."""
    hi = s.upper()
    if kind is int:
        return [v for v in (s.lo - 1, s.lo, s.lo + 1, hi, hi + 1) if v >= -1]
    step = 1e-9 if hi is None else max(1e-9, abs(hi) * 1e-9)
    out = [s.lo, s.lo + 0.5 * (1 if hi is None else min(1, hi - s.lo)), s.lo - step]
    if hi is not None:
        out += [hi, hi + max(step, abs(hi) * 1e-6), math.inf]
    return out


def _cli_accepts(parser, flag, text) -> bool:
    """Whether the option takes ``text`` (one value as ``--flag=V``: a negative number reads as
    a value, not an option)."""
    given = [f"{flag}={text[0]}"] if len(text) == 1 else [flag, *text]
    try:
        parser.parse_args(["--out", "run", *given])
        return True
    except SystemExit:
        return False


def _numeric(cls):
    for f, s, kind in declared(cls):
        base, _ = optional(kind)
        items = typing.get_args(base) if typing.get_origin(base) is tuple else ()
        if base in (int, float) or items == (int, int):
            yield f, s, (base if base in (int, float) else int), bool(items)


@pytest.mark.parametrize("cls", [TrainConfig, PPOSettings])
def test_the_option_and_check_agree_at_every_bound(cls, capsys):
    parser = _train_parser()
    for f, s, kind, pair in _numeric(cls):
        if s.lo is None:
            continue
        for value in _probes(s, kind):
            text = [repr(value) if kind is float else str(value)] * (2 if pair else 1)
            cli_ok = _cli_accepts(parser, flag_of(f), text)
            err = capsys.readouterr().err
            field = tuple([value] * 2) if pair else value
            try:
                obj = (dataclasses.replace(PPOSettings(), **{f.name: field}) if cls is PPOSettings
                       else dataclasses.replace(TrainConfig(), **{f.name: field}))
                check_settings(obj)
                check_ok, why = True, ""
            except ValueError as e:
                check_ok, why = False, str(e)
            assert cli_ok == check_ok, f"{f.name} = {value}: option {cli_ok}, check {check_ok}"
            if not check_ok:  # the same words, the option named by argparse instead
                words = why.split(" must ", 1)[1].rpartition(", got")[0]
                assert words in err, (f.name, words, err)


def test_a_value_given_is_never_dropped():
    parser = _train_parser()
    default = PPOSettings()
    args = parser.parse_args(["--out", "r", "--algorithm", "a2c", "--gamma", str(default.gamma),
                              "--anchor", "0.0", "--entropy-coef", "0.02"])
    config = config_of(args)
    assert config.algorithm_args == {"gamma": default.gamma, "anchor_coef": 0.0,
                                     "entropy_coef": 0.02}
    ppo = config_of(parser.parse_args(["--out", "r", "--epochs", "3", "--clip", "0.1"]))
    assert ppo.settings == dataclasses.replace(default, epochs=3, clip=0.1)
    assert config_of(parser.parse_args(["--out", "r"])) == TrainConfig()
    with pytest.raises(ValueError, match="--epochs: algorithm a2c has no setting 'epochs'"):
        config_of(parser.parse_args(["--out", "r", "--algorithm", "a2c", "--epochs", "2"]))
    with pytest.raises(ValueError, match="--gamma 0.5 and --algorithm-arg gamma=0.9"):
        config_of(parser.parse_args(["--out", "r", "--algorithm", "a2c", "--gamma", "0.5",
                                     "--algorithm-arg", "gamma=0.9"]))


def test_every_registered_algorithms_settings_are_options_with_the_same_bounds():
    pytest.importorskip("torch")
    from borders_sim.train.algorithm import factory_of

    ppo = {f.name: s for f, s, _ in declared(PPOSettings)}
    for name in ALGORITHMS:
        kind = factory_of(name).Settings
        fields = {f.name for f in dataclasses.fields(kind)}
        mine = {f.name: s for f, s, _ in declared(kind)}
        assert set(mine) == fields, f"{name}: undeclared settings {fields - set(mine)}"
        for key, s in mine.items():
            assert key in ppo, f"{name}'s {key} has no option"
            assert (s.lo, s.upper(), s.above) == (ppo[key].lo, ppo[key].upper(), ppo[key].above)


def test_a_declared_setting_is_checked_in_python_in_one_line():
    @dataclasses.dataclass
    class Mine:
        rate: float = setting(0.5, lo=0.0, above=True, hi=1.0, help="a rate")
        size: int | None = setting(None, lo=1, hi=8, help="a size")

    check_settings(Mine())
    check_settings(Mine(size=8))
    for bad, phrase in (({"rate": 0.0}, "rate must be a finite number at most 1.0 and greater "
                                        "than 0.0, got 0.0"),
                        ({"rate": "0.5"}, "rate must be"), ({"size": 9}, "size must be an int "
                                                                           "from 1 to 8, got 9"),
                        ({"size": True}, "size must be")):
        with pytest.raises(ValueError) as err:
            check_settings(Mine(**bad))
        assert phrase in str(err.value) and "\n" not in str(err.value)


def test_the_config_holds_any_algorithms_settings_and_refuses_another_ones():
    """``TrainConfig.settings`` is the algorithm's own dataclass (PPO's beside PPO, A2C's beside
    A2C), ``algorithm_args`` set over it; another algorithm's dataclass is refused, named."""
    from borders_sim.train import A2CSettings

    a2c = TrainConfig(algorithm="a2c", settings=A2CSettings(gamma=0.9),
                      algorithm_args={"entropy_coef": "0.02"})
    assert a2c.algorithm_settings() == A2CSettings(gamma=0.9, entropy_coef=0.02)
    assert TrainConfig(settings=PPOSettings(epochs=5)).algorithm_settings().epochs == 5
    assert TrainConfig().algorithm_settings() == PPOSettings()
    with pytest.raises(ValueError, match="settings of algorithm ppo must be a PPOSettings, got "
                                         "A2CSettings"):
        TrainConfig(settings=A2CSettings()).algorithm_settings()
    exploiting = TrainConfig(settings=PPOSettings(epochs=5), exploiter_algorithm="ppo",
                             exploiter_algorithm_args={"clip": "0.1"})
    assert exploiting.exploiter_settings() == PPOSettings(epochs=5, clip=0.1)


def test_the_command_line_reads_ppos_settings_without_torch():
    """PPO's settings sit beside PPO in a package that imports torch only for the update."""
    code = ("import sys, borders_sim.train.ppo as p, borders_sim.cli.app as a; "
            "a.build_parser(); p.PPOSettings(); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
