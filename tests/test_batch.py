"""The batch player (borders_sim.batch): one seat vocabulary, one way to deal, one loop."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.batch.games import play_games, run_bot_games
from borders_sim.batch.loop import EXTERNAL, deal_states
from borders_sim.batch.rollouts import make_batch
from borders_sim.batch.seats import seat_table
from borders_sim.policies.dispatch import BOT_NET, COMPILED_BOTS
from borders_sim.policies.network import NetPlayer, net_player, shipped_policy
from borders_sim.rules.engine import MASK_SIZE, advance


def test_the_seat_vocabulary_gives_one_kind_per_member():
    net = NetPlayer("mine", shipped_policy(), 0.5)
    table = seat_table(["honest", net_player("ppo:argmax"), "external:me", net, "random"])
    assert table.kinds.tolist() == [COMPILED_BOTS.index("honest"), BOT_NET, EXTERNAL,
                                    BOT_NET + 1, COMPILED_BOTS.index("random")]
    assert table.nets.temp.tolist() == [0.0, 0.5]
    assert table.players[2] == "external:me" and table.players[3] is net


@pytest.mark.parametrize("member", ["honset", "external:", "ismcts", 3, None, "ppo"])
def test_a_member_outside_the_vocabulary_is_refused_with_the_known_ones(member):
    with pytest.raises(ValueError, match=r"cannot play in a compiled seat.*honest, bluffer"):
        seat_table(["honest", member])


def test_external_seats_only_where_the_caller_plays_them():
    with pytest.raises(ValueError, match="bot 'external:me' cannot play"):
        seat_table(["external:me"], external=False, what="bot")


def test_dealt_states_are_the_games_of_their_seeds():
    seeds = np.array([0, 5, 2**64 - 1], dtype=np.uint64)
    config = GameConfig(num_players=5)
    states = deal_states(config, seeds)
    mask = np.zeros(MASK_SIZE, dtype=np.uint8)
    for state, seed in zip(states, seeds):
        advance(state, mask)  # to its first decision, as Game() does
        assert state.tobytes() == Game(config, int(seed)).state[0].tobytes()


@pytest.mark.parametrize("players, cards", [(3, True), (5, False), (8, True)])
def test_the_compiled_deal_is_new_states_deal_byte_for_byte(players, cards):
    from borders_sim.rules.setup import new_state
    config = GameConfig(num_players=players, action_cards=cards, gold_menu=(1, 3, 9))
    seeds = np.array([0, 1, 77, 2**63, 2**64 - 1], dtype=np.uint64)
    expected = np.concatenate([new_state(config, int(seed)) for seed in seeds])
    assert deal_states(config, seeds).tobytes() == expected.tobytes()
    assert deal_states(config, seeds[:0]).shape == (0,)


def test_play_games_deals_and_plays_as_run_bot_games_does():
    config = GameConfig(num_players=4)
    kinds = np.zeros((6, 8), dtype=np.int64)
    kinds[:, :4] = [1, 2, 3, 4]
    states, _ = make_batch(config, 40, 6)
    run_bot_games(states, kinds, np.arange(40, 46), 10**6)
    played = play_games(config, np.arange(40, 46, dtype=np.uint64), kinds, 10**6)
    assert played.tobytes() == states.tobytes()


@pytest.mark.parametrize("chunks_per_thread", [1, 4])
def test_run_chunks_covers_every_item_once_and_raises_a_chunks_error(chunks_per_thread):
    """Every chunk runs to its end, and then the first chunk's error is raised."""
    import numba

    from borders_sim.batch.chunks import run_chunks
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread: run_chunks calls the kernel once")
    saved = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        seen = np.zeros(10, dtype=np.int64)

        def count(lo, hi, out):
            out[lo:hi] += 1

        run_chunks(count, 10, seen, chunks_per_thread=chunks_per_thread)
        assert seen.tolist() == [1] * 10

        def fails_at_the_end(lo, hi, out):
            out[lo:hi] += 1
            if hi == 10:
                raise ValueError("chunk at the end")

        with pytest.raises(ValueError, match="chunk at the end"):
            run_chunks(fails_at_the_end, 10, seen, chunks_per_thread=chunks_per_thread)
        assert seen.tolist() == [2] * 10  # every other chunk ran to its end
    finally:
        numba.set_num_threads(saved)
