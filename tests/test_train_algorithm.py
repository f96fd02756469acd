"""The trainer's pluggable update rule (``--algorithm``, :mod:`borders_sim.train.algorithm`):
the built-in ``a2c`` trains from the command line; a rule defined in a test file
(``tests/algo_fixture.py``, the public API only) trains, checkpoints, resumes exactly and
evaluates through ``MODULE:FACTORY``; the algorithm and its settings are recorded in every
checkpoint and policy file, and a resume under another algorithm or other settings is refused
naming both; settings are typed from the rule's dataclass, bad ones refused in one line. Tiny
runs. Needs torch (the ``rl`` extra)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from borders_sim import cli  # noqa: E402
from borders_sim.policies.network import load_policy, trained_algorithm  # noqa: E402
from borders_sim.train import PPOSettings, TrainConfig, train  # noqa: E402
from borders_sim.train.algorithm import factory_of, parse_pairs, settings_of  # noqa: E402
from borders_sim.train.rundir import latest_checkpoint, load_checkpoint  # noqa: E402
from borders_sim.train.trainer import Trainer  # noqa: E402

from tests import algo_fixture  # noqa: E402

torch.set_num_threads(1)
USER = "tests.algo_fixture:make"
TINY = TrainConfig(players=3, opponents=("honest", "random"), num_envs=4, steps=8,
                   hidden=(8, 8), snapshots=0, eval_every=0, checkpoint_every=2, max_updates=4,
                   seed=21, minutes=10.0)
TINY_ARGS = ["--players", "3", "--opponents", "honest,random", "--num-envs", "4", "--steps",
             "8", "--hidden", "8", "8", "--snapshots", "0", "--seed", "21", "--no-progress"]


def quiet(line: str) -> None:
    """An ``echo`` that drops the trainer's lines."""


def test_a2c_trains_on_the_command_line(tmp_path, capsys):
    """CI's smoke run of the second built-in: two updates, an evaluation, its files name it."""
    out = tmp_path / "a2c"
    code = cli.main(["train", *TINY_ARGS, "--algorithm", "a2c", "--max-updates", "2",
                     "--eval-every", "2", "--eval-games", "4", "--algorithm-arg",
                     "entropy_coef=0.02", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    meta = load_policy(out / "policy.npz").meta
    assert meta["algorithm"]["name"] == "a2c" and meta["algorithm"]["settings"]["entropy_coef"] \
        == 0.02
    curve = json.loads((out / "curve.json").read_text())
    assert [row["update"] for row in curve] == [1, 2]
    assert "policy_loss" in curve[-1] and "approx_kl" not in curve[-1]  # its own columns
    assert set(curve[-1]["eval"]) == {"honest", "bluffer", "collector", "strict"}
    saved = load_checkpoint(latest_checkpoint(out))
    assert saved["algorithm"]["name"] == "a2c" and "optimizer" in saved["main"]["algorithm"]
    assert "optimizer" not in saved["main"]  # the rule's state under its own key only
    code = cli.main(["tournament", "--players", "3", "--bots", f"ppo@{out},honest,honest",
                     "--games", "3", "--no-progress"])
    assert code == 0 and f"ppo@{out}: a policy trained with A2C" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [{}, {"exploiter_every": 3, "exploiter_slots": 1}])
def test_a_users_algorithm_resumes_exactly(tmp_path, extra):
    """Four updates of the test file's rule in one go, or two, a checkpoint and two more in a
    new trainer: the same weights and the same state of the rule (its optimizer, its
    generator); the main exploiter trains with the same rule."""
    config = dataclasses.replace(TINY, algorithm=USER, algorithm_args={"minibatches": "3"},
                                 **extra)
    whole = Trainer(config, tmp_path / "whole")
    assert isinstance(whole.main.algorithm, algo_fixture.Gradient)
    assert whole.main.algorithm.settings == algo_fixture.Settings(minibatches=3)
    for _ in range(4):
        whole.step()
    part = Trainer(config, tmp_path / "part")
    for _ in range(2):
        part.step()
    saved = part.checkpoint()
    resumed = Trainer(config, tmp_path / "part")
    resumed.resume(saved)
    for _ in range(2):
        resumed.step()
    learners = [(whole.main, resumed.main)]
    if extra:
        assert isinstance(whole.exploiter.algorithm, algo_fixture.Gradient)
        learners.append((whole.exploiter, resumed.exploiter))
    for one, other in learners:
        for a, b in zip(one.model.parameters(), other.model.parameters()):
            assert torch.equal(a, b)
        assert torch.equal(one.algorithm.generator.get_state(),
                           other.algorithm.generator.get_state())
    assert whole.curve[-1]["pg_loss"] == resumed.curve[-1]["pg_loss"]


def test_a_users_algorithm_trains_evaluates_and_is_recorded(tmp_path):
    """Through ``train`` (by name, and the factory itself), with an evaluation; the policy file
    and the checkpoints record the rule and its settings, and the file plays."""
    run = train(dataclasses.replace(TINY, eval_every=4, eval_games=4,
                                    algorithm_args={"baseline": "false"}),
                tmp_path / "named", progress=False, echo=quiet, algorithm=USER)
    assert run.updates == 4 and set(run.curve[-1]["eval"]) >= {"honest"}
    record = {"name": USER, "settings": dataclasses.asdict(algo_fixture.Settings(baseline=False))}
    assert trained_algorithm(load_policy(run.policy).meta) == record
    assert load_checkpoint(latest_checkpoint(tmp_path / "named"))["algorithm"] == record
    again = train(dataclasses.replace(TINY, max_updates=1), tmp_path / "given", progress=False,
                  echo=quiet, algorithm=algo_fixture.make)
    assert trained_algorithm(load_policy(again.policy).meta)["name"] == USER
    with pytest.raises(ValueError, match="define the factory at the top level of a module"):
        train(TINY, tmp_path / "local", progress=False, echo=quiet,
              algorithm=lambda model, settings, config, seed: None)


@pytest.fixture(scope="module")
def user_run(tmp_path_factory):
    """A finished run of the test file's rule (checkpoints after updates 2 and 4)."""
    out = tmp_path_factory.mktemp("user") / "run"
    train(dataclasses.replace(TINY, algorithm=USER), out, progress=False, echo=quiet)
    return out


def test_resume_under_another_algorithm_or_settings_is_refused(user_run, capsys):
    with pytest.raises(ValueError) as err:
        train(TINY, user_run, resume=True, progress=False, echo=quiet)
    message = str(err.value)
    assert f"algorithm (--algorithm) {USER}, this run has ppo" in message
    assert "\n" not in message
    with pytest.raises(ValueError) as err:
        train(dataclasses.replace(TINY, algorithm=USER, algorithm_args={"gamma": 0.5}),
              user_run, resume=True, progress=False, echo=quiet)
    assert f"algorithm {USER} has gamma (--gamma) 0.99, this run has 0.5" in str(err.value)
    code = cli.main(["train", *TINY_ARGS, "--max-updates", "4", "--checkpoint-every", "2",
                     "--eval-every", "0", "--algorithm", "a2c", "--out", str(user_run),
                     "--resume"])
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert USER in err and "this run has a2c" in err


def test_a_ppo_run_refuses_other_ppo_settings_given_as_algorithm_args(tmp_path):
    out = tmp_path / "ppo"
    small = dataclasses.replace(TINY, max_updates=2)
    train(small, out, progress=False, echo=quiet)
    with pytest.raises(ValueError, match=r"algorithm ppo has clip \(--clip\) 0\.2, "
                                         r"this run has 0\.1"):
        train(dataclasses.replace(small, algorithm_args={"clip": "0.1"}), out, resume=True,
              progress=False, echo=quiet)


def test_a_checkpoint_without_algorithm_records_resumes_as_ppo(tmp_path):
    """A checkpoint written before the algorithm was recorded (PPO's state beside the
    learner's other entries, no ``algorithm`` anywhere) continues as PPO, and is refused to
    another algorithm; a policy file without the record reads as PPO's."""
    out = tmp_path / "old"
    small = dataclasses.replace(TINY, max_updates=2)
    train(small, out, progress=False, echo=quiet)
    path = latest_checkpoint(out)
    state = load_checkpoint(path)
    for key in ("algorithm", "exploiter_algorithm"):
        del state[key]
    for key in ("algorithm", "algorithm_args", "exploiter_algorithm", "exploiter_algorithm_args",
                "settings"):
        del state["config"][key]
    state["config"]["ppo"] = dataclasses.asdict(PPOSettings())  # (where PPO's settings were)
    state["main"].update(state["main"].pop("algorithm"))
    torch.save(state, path)
    trainer = Trainer(small, tmp_path / "new")
    trainer.resume(path)
    assert trainer.update == 2
    with pytest.raises(ValueError, match="algorithm \\(--algorithm\\) ppo, this run has a2c"):
        train(dataclasses.replace(small, algorithm="a2c"), out, resume=True, progress=False,
              echo=quiet)
    assert trained_algorithm({"players": 4}) == {"name": "ppo", "settings": {}}


@pytest.mark.parametrize("spec, args, phrase", [
    ("nosuch", {}, "'nosuch' is neither a registered one (ppo, a2c) nor MODULE:FACTORY"),
    ("tests.nosuch:make", {}, "no module named 'tests.nosuch' can be imported"),
    ("tests.algo_fixture:missing", {}, "module tests.algo_fixture has no 'missing'"),
    ("tests.algo_fixture:TINY_VALUE", {}, "not a factory"),
    ("a2c", {"gama": 1}, "algorithm a2c has no setting 'gama' (its settings: gamma,"),
    ("a2c", {"gamma": "high"}, "algorithm a2c's setting gamma must be a float, got 'high'"),
    (USER, {"minibatches": "2.5"}, f"algorithm {USER}'s setting minibatches must be an int"),
    (USER, {"baseline": "maybe"}, f"algorithm {USER}'s setting baseline must be a bool"),
    (USER, {"minibatches": "0"}, "minibatches must be at least 1, got 0"),
    ("ppo", {"epochs": "0"}, "epochs"),
])
def test_bad_algorithms_and_settings_are_one_line(spec, args, phrase, monkeypatch):
    monkeypatch.setattr(algo_fixture, "TINY_VALUE", 3, raising=False)
    with pytest.raises(ValueError) as err:
        settings_of(spec, args)
    assert phrase in str(err.value) and "\n" not in str(err.value)


def test_settings_are_typed_from_the_dataclass():
    s = settings_of(USER, {"minibatches": "4", "gamma": "0.5", "baseline": "no", "lam": 1})
    assert s == algo_fixture.Settings(minibatches=4, gamma=0.5, baseline=False, lam=1.0)
    assert isinstance(s.lam, float)
    assert settings_of("ppo", {"clip": "0.3"}).clip == 0.3
    assert factory_of("a2c").Settings().gamma == 0.999
    assert parse_pairs(["a=1", "b = x", "a=2"], "--algorithm-arg") == {"a": "2", "b": "x"}
    with pytest.raises(ValueError, match="--algorithm-arg 'a': give KEY=VALUE"):
        parse_pairs(["a"], "--algorithm-arg")
    with pytest.raises(ValueError, match="exploiter_algorithm_args are the settings of "
                                         "exploiter_algorithm: name it"):
        dataclasses.replace(TINY, exploiter_algorithm_args={"gamma": 0.5}).check()


def test_bad_algorithm_options_are_one_line_on_the_command_line(tmp_path, capsys):
    for extra, phrase in ((["--algorithm", "a2c", "--algorithm-arg", "foo=1"],
                           "algorithm a2c has no setting 'foo'"),
                          (["--algorithm-arg", "gamma"], "give KEY=VALUE"),
                          (["--algorithm", "a2c", "--epochs", "3"],
                           "algorithm a2c has no setting 'epochs'"),
                          (["--algorithm", "nosuch:make"], "no module named 'nosuch'")):
        code = cli.main(["train", *TINY_ARGS, *extra, "--out", str(tmp_path / "x")])
        err = capsys.readouterr().err
        assert code != 0 and phrase in err and len(err.strip().splitlines()) == 1, err


def test_ppos_options_set_another_algorithms_settings_of_those_names(tmp_path):
    """``--anchor`` and ``--anchor-every`` are settings of a2c too: the trainer then keeps a
    moving anchor for it, and the policy file records them."""
    out = tmp_path / "anchored"
    code = cli.main(["train", *TINY_ARGS, "--algorithm", "a2c", "--anchor", "0.1",
                     "--anchor-every", "1", "--max-updates", "2", "--eval-every", "0",
                     "--out", str(out)])
    assert code == 0
    meta = load_policy(out / "policy.npz").meta
    assert meta["anchor_coef"] == 0.1 and meta["algorithm"]["settings"]["anchor_every"] == 1
    curve = json.loads((out / "curve.json").read_text())
    assert curve[-1]["anchor_kl"] >= 0 and np.isfinite(curve[-1]["anchor_kl"])
