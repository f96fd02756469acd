"""The reply parse of a language-model seat never guesses (issue 57, its item 3): a corpus of more
than 100 bad replies, each with its documented failure, and the good forms, each mapping to
exactly the action it names. Legal actions from real decisions of a game."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from borders_sim import Game, GameConfig
from borders_sim.llm import MAX_REPLY_CHARS, MAX_TALK_CHARS, legal_list, parse_reply
from borders_sim.rules.actions import NUM_ACTIONS, action_to_string


def _decision_with(min_legal: int = 4) -> list[tuple[int, str]]:
    """The legal ``(id, text)`` pairs of the first decision of a seeded game with at least
    ``min_legal`` of them (random play until then)."""
    game = Game(GameConfig(num_players=4), seed=7)
    while len(game.legal_actions()) < min_legal:
        game.step(game.legal_actions()[-1])
    return [(a, game.action_to_string(a)) for a in game.legal_actions()]


LEGAL = _decision_with()
IDS = [a for a, _ in LEGAL]
TEXTS = [t for _, t in LEGAL]
MENU = GameConfig().gold_menu
ILLEGAL = [a for a in range(NUM_ACTIONS) if a not in IDS]
A, B = LEGAL[0], LEGAL[1]


def _bad_corpus() -> list[tuple[str, str]]:
    """``(reply, what its failure says)``: more than 100 replies that name no legal action."""
    out: list[tuple[str, str]] = []
    no_json = "no JSON object with"
    for prose in ("I pass.", "pass", TEXTS[0], f"action: {IDS[0]}", f"I choose {IDS[0]}",
                  "Let me think about the inspector...", "```\npass\n```", "action=pass",
                  "<action>pass</action>", "'action': 3", "{action: 3}", "{'action': 3}",
                  '{"action" 3}', '{"action": }', '{"action": 3', '"action": 3}',
                  '{"move": 3}', '{"choice": "pass"}', '{"reply": {"action": 3}}',
                  '[{"action": 3}]', "[3]", "3", '"pass"', "null", "true",
                  '{"Action": 3}', '{"ACTION": "pass"}', '{"act": 3}', '{"actions": [3]}',
                  '{"action":3,}'):
        out.append((prose, no_json))
    for blank in ("", " ", "\n\n", "\t", "   \n  "):
        out.append((blank, "the reply is empty"))
    for size in (MAX_REPLY_CHARS + 1, 50_000, 100_000):
        filler = "x" * size
        out.append((filler + json.dumps({"action": IDS[0]}), "characters, more than"))
    for bad_id in ILLEGAL[:12] + [-1, -100, NUM_ACTIONS, NUM_ACTIONS + 1, 10**12]:
        out.append((json.dumps({"action": bad_id}), f"action {bad_id} is not legal now"))
    for bad_id in ILLEGAL[:6]:
        out.append((json.dumps({"action": str(bad_id)}), f"action {bad_id} is not legal now"))
    for value in (True, False, None, 3.0, 1.5, [IDS[0]], {"id": IDS[0]}, [], {}):
        out.append((json.dumps({"action": value}), "action must be a legal id or a legal"))
    looks = [t.upper() for t in TEXTS[:3]] + [t.title() for t in TEXTS[:3]]
    looks += [t + "!" for t in TEXTS[:3]] + [t.replace(" ", "  ") for t in TEXTS[:3] if " " in t]
    looks += [t.replace("a", "\u0430") for t in TEXTS if "a" in t][:4]  # Cyrillic a
    looks += [t.replace("o", "\u03bf") for t in TEXTS if "o" in t][:3]  # Greek omicron
    looks += [t[:-1] for t in TEXTS[:3] if len(t) > 2]
    looks += [action_to_string(a, MENU) for a in ILLEGAL[:8]]  # a real action, not legal now
    looks += ["raid the port", "pass turn", "announce", "fold", "bribe", "-1", "3.0", "0x3",
              "\u0663"]  # Arabic-Indic three: a digit, not ASCII
    for text in looks:
        if text.strip() not in TEXTS:
            out.append((json.dumps({"action": text}), "is none of the legal actions' texts"))
    two = [(json.dumps({"action": A[0]}) + " " + json.dumps({"action": B[0]})),
           (json.dumps({"action": A[1]}) + "\n" + json.dumps({"action": B[1]})),
           (f'first {{"action": {A[0]}}} then, on second thought, {{"action": "{B[1]}"}}'),
           ("```json\n" + json.dumps({"action": A[0]}) + "\n```\n```json\n"
            + json.dumps({"action": B[0]}) + "\n```")]
    out += [(reply, "different actions") for reply in two]
    for talk in (5, ["hi"], {"say": "hi"}, True, "x" * (MAX_TALK_CHARS + 1)):
        out.append((json.dumps({"action": IDS[0], "talk": talk}), "talk must be a string"))
    return out


BAD = _bad_corpus()


def test_the_corpus_is_large():
    assert len(BAD) >= 100


@pytest.mark.parametrize("reply, why", BAD, ids=[f"bad{k}" for k in range(len(BAD))])
def test_a_bad_reply_is_a_failure_with_its_reason(reply, why):
    parsed = parse_reply(reply, LEGAL)
    assert parsed.action is None and not parsed.ok
    assert why in parsed.failure and "\n" not in parsed.failure


GOOD = [
    (json.dumps({"action": IDS[0]}), IDS[0], None),
    (json.dumps({"action": str(IDS[1])}), IDS[1], None),
    (json.dumps({"action": TEXTS[1]}), IDS[1], None),
    (json.dumps({"action": f"  {TEXTS[0]} "}), IDS[0], None),
    ("Thinking: the inspector is honest, so lying is risky.\n"
     + json.dumps({"action": TEXTS[0], "talk": "trust me"}), IDS[0], "trust me"),
    ("```json\n" + json.dumps({"action": IDS[1]}) + "\n```", IDS[1], None),
    (json.dumps({"action": IDS[0]}) + " and again " + json.dumps({"action": TEXTS[0]}), IDS[0],
     None),  # the same action twice
    (json.dumps({"note": "x"}) + json.dumps({"action": IDS[1], "talk": ""}), IDS[1], None),
    (json.dumps({"action": IDS[0], "talk": None}), IDS[0], None),
    (json.dumps({"action": IDS[0], "talk": "y" * MAX_TALK_CHARS}), IDS[0], "y" * MAX_TALK_CHARS),
]


@pytest.mark.parametrize("reply, action, talk", GOOD)
def test_a_good_reply_names_exactly_its_action(reply, action, talk):
    parsed = parse_reply(reply, LEGAL)
    assert parsed.ok and parsed.action == action and parsed.talk == talk


def test_the_legal_list_is_a_json_array_of_ids_and_actions():
    listed = json.loads(legal_list(LEGAL))
    assert listed == [{"id": a, "action": t} for a, t in sorted(LEGAL)]
    for entry in listed:  # each entry, replied as it is listed, parses back to itself
        assert parse_reply(json.dumps({"action": entry["action"]}), LEGAL).action == entry["id"]
        assert parse_reply(json.dumps({"action": entry["id"]}), LEGAL).action == entry["id"]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400) | st.builds(lambda pre, obj, post: pre + json.dumps(obj) + post,
                                         st.text(max_size=50),
                                         st.dictionaries(st.sampled_from(["action", "talk", "x"]),
                                                         st.none() | st.integers() | st.text()
                                                         | st.sampled_from(TEXTS),
                                                         max_size=3),
                                         st.text(max_size=50)))
def test_any_text_parses_to_a_legal_action_or_a_one_line_failure(reply):
    parsed = parse_reply(reply, LEGAL)
    if parsed.ok:
        assert parsed.action in IDS
    else:
        assert parsed.action is None and parsed.failure and "\n" not in parsed.failure
