"""BORDERS in TextArena (issue 57, item 8, its second door): ``textarena.make("Borders-v0")``
played through TextArena's own API (``reset``, ``get_observation``, ``step``, ``close``) by
scripted agents that read only their observations: a whole game to its rewards, a bad reply
asked again with its reason and then a marked fallback, and no seat shown another's secret."""

from __future__ import annotations

import json
import random

import pytest
import textarena as ta

import borders_sim.llm.textarena_env  # noqa: F401  (registers Borders-v0)
from borders_sim import Game, GameConfig
from borders_sim.game.views import observe_text
from borders_sim.llm.rules_text import rules_summary

LEGAL = "Your legal actions (JSON):\n"


def _legal(messages: list) -> list[dict]:
    """The legal actions of the latest message that lists them."""
    text = next(m[1] for m in reversed(messages) if LEGAL in m[1])
    return json.loads(text.rsplit(LEGAL, 1)[1])


def _play(seed: int, bad_every: int = 0) -> tuple[dict, list, list]:
    env = ta.make("Borders-v0-raw")
    env.reset(num_players=4, seed=seed)
    rng, seen, infos = random.Random(seed), {p: [] for p in range(4)}, []
    done, step = False, 0
    while not done:
        player, messages = env.get_observation()
        seen[player] += messages
        if bad_every and step % bad_every == 1:
            reply = "I would rather not say."
        else:
            reply = f'Thinking. {{"action": {rng.choice(_legal(seen[player]))["id"]}}}'
        done, info = env.step(action=reply)
        infos.append(info)
        step += 1
    rewards, game_info = env.close()
    return {"rewards": rewards, "game_info": game_info, "env": env}, seen, infos


def test_a_whole_game_through_textarenas_api():
    out, seen, infos = _play(seed=3)
    env = out["env"]
    winners = env.game.winners()
    assert env.game.is_terminal and out["rewards"] == {p: 1 if p in winners else -1
                                                       for p in range(4)}
    assert all(f"scores {env.game.scores()}" in out["game_info"][p]["reason"] for p in range(4))
    prompt = seen[0][0]
    assert prompt[2] == ta.ObservationType.PROMPT and rules_summary() in prompt[1]
    assert not any("fallback" in info for info in infos)
    # the first view of the first seat to move is its observe_text, the legal list last
    first = Game(GameConfig(num_players=4), seed=3)
    mover = first.current_player
    board = next(m[1] for m in seen[mover] if m[2] == ta.ObservationType.GAME_BOARD)
    assert board.startswith(observe_text(first, mover).split("\nYour legal actions")[0])
    assert json.loads(board.rsplit(LEGAL, 1)[1])[0] == {
        "id": first.legal_actions()[0], "action": first.action_to_string(first.legal_actions()[0])}


def test_a_bad_reply_is_asked_again_then_a_marked_fallback_plays_and_no_secret_leaks():
    out, seen, infos = _play(seed=5, bad_every=3)
    admin = [m[1] for p in seen for m in seen[p] if m[2] == ta.ObservationType.GAME_ADMIN]
    assert admin and all(text.startswith("Your reply could not be used: the reply holds no "
                                         "JSON object") and LEGAL in text for text in admin)
    assert out["env"].game.is_terminal
    # nothing another seat packed is named to anyone else: a pack is told as "pack a card"
    packs = 0
    for p, messages in seen.items():
        for _, text, kind in messages:
            if kind == ta.ObservationType.GAME_ACTION_DESCRIPTION:
                assert not text.startswith(f"p{p}:")
                if ": pack " in text:
                    packs += 1
                    assert text.endswith(": pack a card"), text
    assert packs > 0


def test_a_seat_out_of_allowance_is_played_by_its_fallback_marked():
    env = ta.make("Borders-v0-raw", error_allowance=0)
    env.reset(num_players=3, seed=1)
    player, _ = env.get_observation()
    done, info = env.step(action="nothing useful")
    assert info["fallback"]["player"] == player and "no JSON object" in info["fallback"]["failure"]
    assert env.game.state[0]["steps"] == 1 and not done
    with pytest.raises(ValueError, match="num_players"):
        env.reset(num_players=9)


def test_the_default_version_hands_a_language_model_one_string():
    """``Borders-v0``: TextArena's observation for language models, the messages so far as one
    string; an agent that answers with the JSON object plays the game to its end."""
    env = ta.make("Borders-v0")
    env.reset(num_players=3, seed=2)
    done, decisions = False, 0
    while not done:
        _, observation = env.get_observation()
        assert isinstance(observation, str) and "[GAME]" in observation
        legal = json.loads(observation.rsplit(LEGAL, 1)[1].split("\n")[0])
        done, _ = env.step(action=json.dumps({"action": legal[-1]["id"]}))
        decisions += 1
    rewards, _ = env.close()
    assert sorted(set(rewards.values())) in ([-1, 1], [1]) and decisions > 20
