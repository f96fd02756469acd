"""Any Python bot in any seat (issue 49, first step): a seat is a value
(:class:`borders_sim.agents.Seat`), made once at the door of a name or spec, ``MODULE:NAME``, a
bot class or a factory; ``run_tournament`` and ``borders-sim tournament --bots`` seat a user's
own bot beside the library's, which keep their meaning and their compiled path."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

from borders_sim.agents import Seat, as_seat, make
from borders_sim.arena import parse_seats, run_tournament, tournament
from borders_sim.arena.deviators import deviator_matrix
from borders_sim.arena.population import population
from borders_sim.arena.records import read_trace, replay, trace_name
from borders_sim.cli.terminal import GameAbandoned, play_human
from tests.test_cli_tournament import error_line, run


class Last:
    """A user's bot: the legal action with the highest id."""

    name = "last"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[-1])


class First:
    """A user's bot whose constructor takes no seed."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


def honest_twin(seed: int):
    """A factory ``(seed) -> bot``: the library's honest bot under another name."""
    return make("honest", seed=seed)


BOTS_MODULE = textwrap.dedent('''
    import numpy as np

    class Greedy:
        name = "greedy"
        def __init__(self, seed):
            self.rng = np.random.default_rng(seed)
        def act(self, observation, action_mask):
            return int(self.rng.choice(np.flatnonzero(action_mask)))

    def no_bot(seed):
        return 42

    NOT_CALLABLE = 3
''')


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """A module ``mybots`` in a fresh directory that is the current one and on sys.path."""
    (tmp_path / "mybots.py").write_text(BOTS_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mybots", raising=False)
    yield tmp_path
    sys.modules.pop("mybots", None)  # gone with its directory


def test_a_seat_is_made_once_of_any_entry(user_module):
    honest = as_seat("honest")
    assert honest == Seat("honest", spec="honest") and honest.compiled
    assert as_seat("ismcts").compiled is False
    assert as_seat("ppo:argmax").spec == "ppo:argmax"  # a spec the library knows stays its own
    greedy = as_seat("mybots:Greedy")
    assert greedy.name == "mybots:Greedy" and greedy.spec is None and not greedy.compiled
    assert as_seat(Last) == Seat(f"{__name__}:Last", factory=Last)
    assert as_seat(honest_twin).name == f"{__name__}:honest_twin"
    assert as_seat(greedy) is greedy
    assert isinstance(as_seat(First).make(5), First)  # no seed taken, none given
    assert as_seat(Last).make(7).seed == 7
    assert parse_seats("honest, mybots:Greedy,honest") == (honest, greedy, honest)


@pytest.mark.parametrize("entry, kind, message", [
    ("nomodule:Thing", ValueError, "no module named 'nomodule' can be imported from here"),
    ("mybots:Missing", ValueError, "module mybots has no 'Missing'"),
    ("mybots:NOT_CALLABLE", ValueError, "NOT_CALLABLE is a int, not a bot class or a factory"),
    ("nobody", ValueError, "unknown bot 'nobody'"),
    ("", ValueError, "an empty bot name"),
    (3, TypeError, "a seat is a bot name or spec, MODULE:NAME"),
])
def test_bad_entries_are_one_clear_error(user_module, entry, kind, message):
    with pytest.raises(kind, match=message):
        as_seat(entry)


def test_a_factory_that_gives_no_bot_is_named(user_module):
    with pytest.raises(TypeError, match="seat 'mybots:no_bot': its factory gave a int"):
        as_seat("mybots:no_bot").make(0)


def test_run_tournament_seats_a_users_bots_beside_the_librarys(user_module):
    lineup = [Last, "mybots:Greedy", "honest", honest_twin]
    first = run_tournament(4, lineup, 8, seed=3, threads=1)
    again = run_tournament(4, lineup, 8, seed=3, threads=2)  # worker processes: the same games
    names = [b["name"] for b in first.bots]
    assert sorted(names) == sorted([f"{__name__}:Last", "mybots:Greedy", "honest",
                                    f"{__name__}:honest_twin"])
    assert first.to_dict()["bots"] == again.to_dict()["bots"]
    assert sum(b["games"] for b in first.bots) == 8 * 4


def test_a_seat_that_cannot_be_pickled_plays_in_this_process(monkeypatch):
    seat = Seat("lambda-last", factory=lambda seed: Last(seed))
    assert not seat.picklable
    notebook = type("Notebook", (), {"__module__": "__main__", "act": Last.act})
    monkeypatch.setattr(sys.modules["__main__"], "__file__", None, raising=False)
    assert not as_seat(notebook).picklable  # a worker could not import a notebook's class
    assert as_seat(Last).picklable and as_seat("honest").picklable
    results = run_tournament(3, [seat, "honest", "honest"], 6, threads=2)
    assert results.games_played == 6


def test_the_compiled_path_is_kept_for_the_librarys_bots():
    assert tournament(4, ["honest", "bluffer", "honest", "random"], 8).compiled
    assert not tournament(4, [Last, "bluffer", "honest", "random"], 8).compiled
    # the same games whichever way a spec is handed in
    a = run_tournament(4, "honest,bluffer,collector,random", 8, seed=1)
    b = run_tournament(4, [as_seat("honest"), "bluffer", "collector", Seat("random",
                                                                           spec="random")], 8,
                       seed=1)
    assert a.to_dict()["bots"] == b.to_dict()["bots"]


def test_two_different_seats_may_not_share_a_name():
    with pytest.raises(ValueError, match="two different seats are both named 'x'"):
        tournament(3, [Seat("x", factory=Last), Seat("x", factory=First), "honest"], 3)
    assert tournament(3, [Last, Last, "honest"], 3).lineup[0] == f"{__name__}:Last"


def test_the_command_line_seats_a_users_bot(user_module, capsys):
    code, out, err = run(capsys, ["tournament", "--players", "3", "--games", "6", "--bots",
                                  "mybots:Greedy,honest,honest", "--no-progress"])
    assert code == 0, err
    assert "mybots:Greedy" in out and "honest" in out
    code, out, err = run(capsys, ["tournament", "--players", "3", "--bots",
                                  "mybots:Missing,honest,honest"])
    assert code == 2 and "module mybots has no 'Missing'" in error_line(err)
    code, out, _ = run(capsys, ["tournament", "--help"])
    assert code == 0 and "MODULE:NAME" in out


def test_a_users_bot_is_recorded_and_replayed(user_module):
    run_tournament(3, ["mybots:Greedy", "honest", "honest"], 3, record_dir="rec")
    trace = read_trace(user_module / "rec" / trace_name(1))
    assert trace.header["lineup"] == ["honest", "honest", "mybots:Greedy"]  # seats rotate
    replay(trace, echo=lambda line: None)  # every decision checked again, no bot made


def test_a_users_bot_in_the_population_and_the_deviator_matrix(user_module):
    result = population([Last, "honest", "bluffer", "collector"], players=3, games=6,
                        focus=[Last], threads=1)
    last = result.member(f"{__name__}:Last")
    assert last["focus"] and last["games"] == 6
    matrix = deviator_matrix(["mybots:Greedy", "honest"], players=3, games=3, search_games=3,
                             threads=1)
    assert {(c.deviator, c.field) for c in matrix.cells} == {("mybots:Greedy", "honest"),
                                                             ("honest", "mybots:Greedy")}
    assert all(c.games == 3 for c in matrix.cells)  # a Python bot's cells: search_games


def test_pool_and_exploit_take_a_users_bot_on_the_command_line(user_module, capsys):
    code, out, err = run(capsys, ["tournament", "--players", "3", "--games", "6", "--pool",
                                  "mybots:Greedy,honest,bluffer", "--focus", "mybots:Greedy",
                                  "--no-progress", "--threads", "1"])
    assert code == 0, err
    assert "mybots:Greedy *" in out and "--pool mybots:Greedy,honest,bluffer" in out
    code, out, err = run(capsys, ["exploit", "--players", "3", "--bots", "mybots:Greedy,honest",
                                  "--games", "3", "--search-games", "3", "--no-progress",
                                  "--threads", "1"])
    assert code == 0, err
    assert "|        honest |          mybots:Greedy |" in out
    code, out, err = run(capsys, ["exploit", "--bots", "mybots:Greedy,mybots:Greedy"])
    assert code == 2 and "listed twice" in error_line(err)


def test_a_person_plays_against_a_users_bot_and_a_spec(user_module):
    lines = []
    answers = iter(["quit"])
    with pytest.raises(GameAbandoned):
        play_human(0, ["mybots:Greedy", "ppo:argmax"], 3, input=lambda _: next(answers),
                   output=lines.append)
    assert "p1 mybots:Greedy, p2 ppo:argmax" in lines[0]


# --- issue 49, second step: the training envs and the trainer's door ------------------------------
def test_single_seat_env_takes_seats_and_replays_its_games(user_module):
    from gymnasium.utils.env_checker import check_env

    from borders_sim.envs import SingleSeatEnv

    def play(env, seed):
        obs, info = env.reset(seed=seed)
        moves, done = [], False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, reward, done, _, info = env.step(action)
            moves.append(action)
        return moves, info["scores"]

    lineup = ["honest", "mybots:Greedy", Last]
    env = SingleSeatEnv(num_players=4, opponents=lineup)
    first = play(env, 11)
    assert play(SingleSeatEnv(num_players=4, opponents=lineup), 11) == first  # seeded: same game
    # one seat for every opponent: a bot of its own in each seat
    made = []

    def counted(seed):
        made.append(seed)
        return Last(seed)

    env = SingleSeatEnv(num_players=3, opponents=Seat("counted", factory=counted), seed=2)
    env.reset()
    assert len(made) == 2 and made[0] != made[1]
    env.reset()
    assert len(made) == 4  # made again for each game
    check_env(SingleSeatEnv(num_players=3, opponents=[Seat("twin", factory=honest_twin),
                                                      "bluffer"]), skip_render_check=True)
    # a policy stays a policy, shared
    policy = make("honest", seed=0)
    env = SingleSeatEnv(num_players=3, opponents=policy)
    assert env.opponents == [policy, policy]


def test_single_seat_env_refuses_a_bad_opponent_by_name(user_module):
    from borders_sim.envs import SingleSeatEnv

    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        SingleSeatEnv(num_players=3, opponents="nobody")
    with pytest.raises(ValueError, match="module mybots has no 'Missing'"):
        SingleSeatEnv(num_players=3, opponents=["honest", "mybots:Missing"])
    with pytest.raises(ValueError, match="a list of 2; an opponent is a bot"):
        SingleSeatEnv(num_players=3, opponents=["honest"])


def test_the_trainer_says_in_one_line_why_it_cannot_play_a_python_bot(user_module, capsys):
    from borders_sim.train.league import League, check_member

    assert check_member("honest") == "honest" and check_member("ppo:argmax") == "ppo:argmax"
    for name in ("mybots:Greedy", "ismcts"):
        with pytest.raises(ValueError, match=f"'{name}' is a Python bot, and the trainer's "
                                             "opponents play inside the compiled training env"):
            League((name,), players=3)
    code, _, err = run(capsys, ["train", "--opponents", "honest,mybots:Greedy"])
    assert code == 2 and "'mybots:Greedy' is a Python bot" in error_line(err)
    assert "SingleSeatEnv(opponents=...)" in error_line(err)
    code, _, err = run(capsys, ["exploit", "--exploiter", "--targets", "mybots:Greedy"])
    assert code == 2 and "'mybots:Greedy' is a Python bot" in error_line(err)
    code, _, err = run(capsys, ["exploit", "--exploiter", "--targets", "nobody"])
    assert code == 2 and "unknown bot name(s) 'nobody'" in error_line(err)


@pytest.fixture
def installed_package(tmp_path, monkeypatch):
    """A package ``fancyplug`` installed on sys.path (its ``.dist-info``), adding the bots
    ``fancy`` (a class), ``broken`` (a module that is not there) and ``honest`` (a name the
    library knows) by the entry-point group ``borders_sim.bots``."""
    (tmp_path / "fancymod.py").write_text(BOTS_MODULE)
    info = tmp_path / "fancyplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fancyplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[borders_sim.bots]\nfancy = fancymod:Greedy\n"
                                           "broken = nomod_xyz:Thing\nhonest = fancymod:Greedy\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("fancymod", None)


def test_an_installed_package_adds_bots_by_name(installed_package, capsys):
    from borders_sim.agents.seats import installed_bots

    assert sorted(installed_bots()) == ["broken", "fancy"]  # honest stays the library's
    fancy = as_seat("fancy")
    assert fancy.name == "fancy" and fancy.spec is None and fancy.make(3).act is not None
    assert as_seat("honest").spec == "honest"
    with pytest.raises(ValueError, match=r"bot 'broken' \(entry point 'nomod_xyz:Thing' of "
                                         r"package fancyplug\) does not load"):
        as_seat("broken")
    with pytest.raises(ValueError, match="unknown bot name.*installed: broken, fancy"):
        parse_seats("nobody,honest")
    code, out, err = run(capsys, ["tournament", "--players", "3", "--games", "3", "--bots",
                                  "fancy,honest,honest", "--no-progress"])
    assert code == 0, err
    assert "fancy" in out


# --- issue 49, third step: policies in memory reach the arena as values ---------------------------
def test_a_network_in_memory_plays_as_its_policy_file_does(tmp_path):
    from borders_sim.policies.network import (SAMPLE_TEMPERATURE, NetPlayer, save_policy,
                                              shipped_policy)

    policy = shipped_policy()
    path = save_policy(tmp_path / "p.npz", policy)
    for temperature, spec in ((SAMPLE_TEMPERATURE, f"ppo@{path}"), (0.0, f"ppo:argmax@{path}")):
        seat = as_seat(NetPlayer("mine", policy, temperature))
        assert seat.name == "mine" and seat.compiled
        for record in (None, tmp_path / f"rec-{temperature}"):  # compiled, then Python path
            a = run_tournament(3, [seat, "honest", "bluffer"], 6, seed=5, record_dir=record)
            b = run_tournament(3, [spec, "honest", "bluffer"], 6, seed=5)
            assert a.bots[0]["name"] == "mine"
            assert {k: v for k, v in a.bots[0].items() if k != "name"} == \
                {k: v for k, v in b.bots[0].items() if k != "name"}


def test_the_trainer_builds_no_policy_spec_to_be_read_back():
    """Issue 49: the trainer hands its policies to the arena as values, never as ppo@PATH."""
    from pathlib import Path

    import borders_sim.train as train_package

    folder = Path(train_package.__file__).parent
    for path in sorted(folder.glob("*.py")):
        code = path.read_text(encoding="utf-8")
        for built in ('f"ppo@', "f'ppo@", 'f"ppo:argmax@', "f'ppo:argmax@"):
            assert built not in code, f"{path.name} builds a policy spec: {built}"


def test_code_piped_to_python_plays_a_users_bot_in_its_own_process(user_module):
    """``python -`` has a main module without a file, which a spawned worker would re-read:
    the tournament plays its Python games in this process instead of dying in its workers."""
    import os
    import subprocess

    # a user's python - has the current directory on sys.path (unless PYTHONSAFEPATH says no,
    # as CI's environment does for its own children)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    script = ("from borders_sim.arena import run_tournament\n"
              "from mybots import Greedy\n"
              "r = run_tournament(4, [Greedy, 'honest', 'bluffer', 'collector'], 8, 0)\n"
              "print(r.games_played, r.bots[0]['name'])\n")
    done = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True,
                          cwd=user_module, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["8", "mybots:Greedy"]


def test_exploit_takes_the_seat_of_a_named_bot_and_says_why_not_a_bot_in_memory(tmp_path):
    pytest.importorskip("torch")
    from borders_sim.train.exploiter import exploit

    found = exploit(as_seat("honest"), tmp_path / "x", minutes=1, players=3, games=4,
                    max_updates=1)
    assert found.target == "honest" and found.games == 4
    with pytest.raises(ValueError, match="exploit's target 'last' is a bot in memory"):
        exploit(Seat("last", factory=Last), tmp_path / "y", max_updates=1)
