"""The argument checker (``borders_sim.checks``), on its own.

* ints: Python ints and numpy integers of every width pass and come back as plain ints;
  bools (Python and numpy), floats (integral ones too), strings, None and containers are
  refused with an :class:`ArgumentTypeError` (a ``TypeError`` and a ``ValueError``) naming the
  argument; out-of-range ints with a ``ValueError`` naming the range;
* seeds: exactly the ints 0..2**64 - 1, never reduced; a run of games must end at 2**64 - 1;
* huge ints (thousands of digits) and huge reprs make short messages;
* seats, bools, choices, floats and seed arrays follow the same pattern;
* every entry point that takes a seed refuses the same values with the same message and takes
  ``2**64 - 1``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from borders_sim.checks import (SEED_MAX, ArgumentTypeError, as_bool, as_choice, as_float,
                                    as_int, as_seat, as_seed, as_seed_array, is_int, shown)

INT_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
             np.intp, np.uintp)
NOT_INTS = [True, False, np.bool_(True), 2.0, 2.5, np.float32(3), np.float64(3), "3", b"3",
            None, [3], (3,), {3}, 3j, np.array(3), np.array([3]), object()]


def numpy_ints() -> hst.SearchStrategy:
    """A numpy integer of some width with a value it can hold."""
    def value_of(kind):
        info = np.iinfo(kind)
        return hst.integers(int(info.min), int(info.max)).map(kind)
    return hst.sampled_from(INT_TYPES).flatmap(value_of)


@given(hst.one_of(hst.integers(), numpy_ints()))
def test_every_int_passes_unbounded_and_comes_back_plain(value):
    out = as_int(value, "n")
    assert type(out) is int and out == int(value)
    assert is_int(value)


@pytest.mark.parametrize("value", NOT_INTS, ids=lambda v: "object()" if type(v) is object
                         else repr(v))  # the same id in every process (pytest-xdist)
def test_what_is_not_an_int_is_a_type_error_naming_the_argument(value):
    assert not is_int(value)
    with pytest.raises(ArgumentTypeError, match=r"^games must be an int of at least 1, got .*"
                                                rf"\({type(value).__name__}\)$"):
        as_int(value, "games", lo=1)


def test_argument_type_error_is_both_type_error_and_value_error():
    assert issubclass(ArgumentTypeError, TypeError)
    assert issubclass(ArgumentTypeError, ValueError)
    for kind in (TypeError, ValueError):
        with pytest.raises(kind):
            as_int("x", "n")


@given(value=hst.one_of(hst.integers(), numpy_ints()), lo=hst.integers(-300, 300),
       width=hst.integers(0, 600))
def test_ranges_are_inclusive_and_named(value, lo, width):
    hi = lo + width
    if lo <= int(value) <= hi:
        assert as_int(value, "count", lo, hi) == int(value)
    else:
        with pytest.raises(ValueError, match=rf"^count must be an int from {lo} to {hi}, got ") \
                as err:
            as_int(value, "count", lo, hi)
        assert not isinstance(err.value, TypeError)


def test_one_sided_ranges_and_own_descriptions():
    with pytest.raises(ValueError, match=r"^n must be an int of at least 1, got 0$"):
        as_int(0, "n", lo=1)
    with pytest.raises(ValueError, match=r"^n must be an int of at most 5, got 6$"):
        as_int(np.uint8(6), "n", hi=5)
    with pytest.raises(ValueError, match=r"^k must be a slot, an int from 0 to 3, got 4$"):
        as_int(4, "k", 0, 3, what="a slot, an int from 0 to 3")


@given(hst.one_of(hst.integers(0, SEED_MAX), numpy_ints().filter(lambda v: v >= 0)))
def test_every_seed_in_range_passes_unchanged(seed):
    assert as_seed(seed) == int(seed) and type(as_seed(seed)) is int


@given(hst.one_of(hst.integers(max_value=-1), hst.integers(min_value=SEED_MAX + 1),
                  numpy_ints().filter(lambda v: v < 0)))
def test_seeds_out_of_range_are_refused_not_reduced(seed):
    with pytest.raises(ValueError, match=r"^seed must be a seed, an int from 0 to 2\*\*64 - 1, "
                                         r"got "):
        as_seed(seed)


@pytest.mark.parametrize("seed", [True, np.bool_(False), 1.0, "7", None], ids=repr)
def test_seeds_of_the_wrong_type_are_type_errors(seed):
    with pytest.raises(ArgumentTypeError, match=r"^my_seed must be a seed"):
        as_seed(seed, "my_seed")


@given(start=hst.integers(0, SEED_MAX), span=hst.integers(1, 2**40))
def test_a_run_of_games_must_end_at_the_last_seed(start, span):
    if start + span - 1 <= SEED_MAX:
        assert as_seed(start, span=span) == start
    else:
        with pytest.raises(ValueError, match=rf"^seed {start} with {span} games: the last "
                                             r"game's seed, seed \+ \d+, must be at most"):
            as_seed(start, span=span)


def test_the_seed_boundaries():
    assert as_seed(0) == 0 and as_seed(SEED_MAX) == SEED_MAX == 2**64 - 1
    assert as_seed(np.uint64(SEED_MAX)) == SEED_MAX
    assert as_seed(SEED_MAX - 9, span=10) == SEED_MAX - 9
    for bad in (-1, 2**64, np.int64(-1)):
        with pytest.raises(ValueError):
            as_seed(bad)
    with pytest.raises(ValueError, match="the last game's seed"):
        as_seed(SEED_MAX - 9, span=11)


@pytest.mark.parametrize("digits", [41, 400, 5000, 100_000])
def test_huge_ints_make_short_messages(digits):
    huge = 10 ** digits - 1
    for sign in (1, -1):
        with pytest.raises(ValueError) as err:
            as_seed(sign * huge)
        assert len(str(err.value)) < 200 and "bits" in str(err.value)
        assert ("got -an int" in str(err.value)) == (sign < 0)


def test_shown_cuts_long_reprs_and_survives_broken_ones():
    assert shown("x" * 1000).endswith("...") and len(shown("x" * 1000)) == 80
    assert shown(2**64) == str(2**64)

    class Broken:
        def __repr__(self):
            raise RuntimeError("no repr")
    assert shown(Broken()) == "<Broken object>"
    with pytest.raises(ArgumentTypeError, match=r"got <Broken object> \(Broken\)"):
        as_int(Broken(), "n")


@given(n=hst.integers(3, 8), seat=hst.one_of(hst.integers(-20, 20), numpy_ints()))
def test_seats(n, seat):
    if 0 <= int(seat) < n:
        assert as_seat(seat, n) == int(seat)
    else:
        with pytest.raises(ValueError, match=rf"^player must be a seat, an int from 0 to "
                                             rf"{n - 1}, got "):
            as_seat(seat, n, "player")


def test_bools():
    assert as_bool(True, "flag") is True and as_bool(np.bool_(False), "flag") is False
    for bad in (0, 1, np.int8(1), "True", None, 1.0):
        with pytest.raises(ArgumentTypeError, match=r"^flag must be True or False \(a bool\), "
                                                    rf"got .* \({type(bad).__name__}\)$"):
            as_bool(bad, "flag")


def test_choices():
    assert as_choice("b", "mode", ("a", "b")) == "b"
    assert type(as_choice(np.str_("a"), "mode", ("a", "b"))) is str
    with pytest.raises(ValueError, match=r"^mode must be one of \('a', 'b'\), got 'c'$"):
        as_choice("c", "mode", ("a", "b"))
    for bad in (1, None, ["a"], b"a"):
        with pytest.raises(ArgumentTypeError, match=r"^mode must be one of \('a', 'b'\), got "):
            as_choice(bad, "mode", ("a", "b"))


def test_floats():
    assert as_float(1, "x") == 1.0 and type(as_float(np.float32(0.5), "x")) is float
    assert as_float(0.5, "floor", 0, 1) == 0.5 and as_float(2**2000, "x") == float("inf")
    for bad, message in [(-0.1, r"floor must be a number at least 0 and at most 1, got -0.1"),
                         (float("nan"), r"floor must be a number .*, got nan"),
                         (2**2000, r"floor must be a number .*, got an int of 2001 bits")]:
        with pytest.raises(ValueError, match=message):
            as_float(bad, "floor", 0, 1)
    with pytest.raises(ValueError, match=r"time_limit must be a number greater than 0, got 0"):
        as_float(0, "time_limit", above=0)
    for bad in (True, "1", None):
        with pytest.raises(ArgumentTypeError, match=r"^x must be a number, got "):
            as_float(bad, "x")


@settings(max_examples=50)
@given(hst.lists(hst.integers(0, SEED_MAX), max_size=5))
def test_seed_arrays_from_sequences(seeds):
    out = as_seed_array(seeds)
    assert out.dtype == np.uint64 and out.tolist() == seeds


def test_seed_arrays_from_arrays_and_refusals():
    for kind in INT_TYPES:
        out = as_seed_array(np.arange(3, dtype=kind))
        assert out.dtype == np.uint64 and out.tolist() == [0, 1, 2]
    assert as_seed_array(np.array([SEED_MAX], dtype=np.uint64)).tolist() == [SEED_MAX]
    with pytest.raises(ValueError, match=r"seeds must be seeds, .*got -1"):
        as_seed_array(np.array([3, -1]))
    with pytest.raises(ValueError, match=r"seeds\[1\] must be a seed"):
        as_seed_array([3, -1])
    with pytest.raises(ValueError, match=r"seeds\[0\] must be a seed"):
        as_seed_array([2**64])
    for bad in (np.array([1.0]), "12", 5, None):
        with pytest.raises(ArgumentTypeError):
            as_seed_array(bad)


# --- one seed rule at every entry point --------------------------------------------------------
def _seed_takers() -> dict:
    from borders_sim import Game, GameConfig
    from borders_sim.agents import ISMCTSBot, make
    from borders_sim.agents.bots import CompiledBot
    from borders_sim.batch.seeds import bot_seed
    from borders_sim.arena import tournament
    from borders_sim.cli.terminal import play_human
    from borders_sim.envs import SingleSeatEnv, VectorEnv, borders_v0, observe
    from borders_sim.batch.seeds import derive_seed
    from borders_sim.game.belief import sample_consistent_state, world_from_observation
    from borders_sim.batch.rollouts import make_batch

    return {
        "Game": lambda s: Game(seed=s),
        "agents.make": lambda s: make("random", s),
        "CompiledBot": lambda s: CompiledBot("honest", s),
        "ISMCTSBot": lambda s: ISMCTSBot(seed=s),
        "raw_env.reset": lambda s: borders_v0.raw_env().reset(seed=s),
        "SingleSeatEnv": lambda s: SingleSeatEnv(seed=s),
        "SingleSeatEnv.reset": lambda s: SingleSeatEnv().reset(seed=s),
        "VectorEnv": lambda s: VectorEnv(1, seed=s),
        "VectorEnv.reset": lambda s: VectorEnv(1).reset(seed=s),
        "derive_seed": lambda s: derive_seed(s, 0, 0),
        "bot_seed": lambda s: bot_seed(s, 0),
        "tournament": lambda s: tournament(3, "random,random,random", 1, s),
        "make_batch": lambda s: make_batch(GameConfig(num_players=3), s, 1),
        "sample_consistent_state": lambda s: sample_consistent_state(Game(), 0, s),
        "world_from_observation": lambda s: world_from_observation(observe(Game(), 0), s),
        "play_human": lambda s: play_human(0, ["random"] * 3, s, input=lambda _: "quit"),
    }


SEED_TAKERS = _seed_takers()


@pytest.mark.parametrize("bad", [-1, 2**64, 2**70, True, 1.0, "3", None], ids=repr)
@pytest.mark.parametrize("entry", SEED_TAKERS)
def test_every_entry_point_refuses_the_same_seeds(entry, bad):
    if bad is None and entry in ("SingleSeatEnv", "raw_env.reset", "SingleSeatEnv.reset",
                                 "VectorEnv.reset"):
        return  # None: an unseeded env, or the next seed of its own stream
    with pytest.raises(ValueError, match=r"seed must be a seed, an int from 0 to 2\*\*64 - 1, "
                                         r"got "):
        SEED_TAKERS[entry](bad)


@pytest.mark.parametrize("entry", [e for e in SEED_TAKERS if e != "play_human"])
def test_every_entry_point_takes_the_last_seed(entry):
    SEED_TAKERS[entry](SEED_MAX)
    SEED_TAKERS[entry](np.uint64(SEED_MAX))
