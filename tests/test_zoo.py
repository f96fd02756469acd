"""The zoo of reference opponents (``borders_sim.policies.zoo``): every member's file is in the
package, loads as a policy with the record of the run that made it, and plays as
``ppo-zoo/NAME`` on both tournament paths; bad names are refused with the list. Nothing
timed."""

from __future__ import annotations

import pytest

from borders_sim.agents import make
from borders_sim.agents.lineup import check_spec, compiled_kinds
from borders_sim.arena import run_tournament
from borders_sim.policies.network import load_policy, policy_meta
from borders_sim.policies.zoo import PREFIX, ZOO, ZOO_DIR, zoo_path


@pytest.mark.parametrize("name", list(ZOO))
def test_every_member_loads_with_the_command_that_made_it(name):
    path = zoo_path(name)
    assert path.parent == ZOO_DIR
    meta = policy_meta(path)
    assert meta["zoo"] == {"name": PREFIX + name, "command": ZOO[name].command,
                           "weights": "float16"}
    assert f"--seed {meta['seed']} " in ZOO[name].command  # the run it records is the command's
    assert load_policy(path).hidden == (256, 256)
    assert check_spec(PREFIX + name) == PREFIX + name
    assert check_spec(f"{PREFIX}{name}:argmax")


def test_members_play_on_the_compiled_and_the_python_path():
    lineup = [PREFIX + "e2", PREFIX + "notebook-s1", "ppo", "honest"]
    assert compiled_kinds(lineup) is not None
    compiled = run_tournament(4, lineup, 8, seed=3, path="compiled")
    python = run_tournament(4, lineup, 8, seed=3, path="python", threads=1)
    assert (compiled.scores == python.scores).all()
    assert [b["name"] for b in compiled.bots] == lineup


def test_a_member_is_a_ppo_bot_of_its_file():
    bot = make("ppo", seed=0, weights=str(zoo_path("e6")))
    assert bot is not None


@pytest.mark.parametrize("spec, message", [
    ("ppo-zoo/nobody", "no zoo member 'nobody'; the zoo: ppo-zoo/"),
    ("ppo-zoo/e2:warm", "the ppo options are"),
    ("ppo-zoo/e2@elsewhere.npz", "a network player is"),
])
def test_bad_zoo_specs_are_refused_by_name(spec, message):
    with pytest.raises(ValueError, match=message):
        check_spec(spec)
