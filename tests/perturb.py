"""Research positions made from real ones: gold, hands and crates changed by hand, in the game
words of :meth:`borders_sim.Game.to_dict`, keeping every card of the deck exactly once.

:func:`perturb` changes a real ``to_dict()`` so that no game reaches it (the gold no longer
matches the bank's books, hands and warehouses hold other cards than the history and the
players' knowledge say) while the kernels can still play it: ``Game.from_dict(d)`` refuses it,
``Game.from_dict(d, reachable=False)`` loads it.
"""

from __future__ import annotations

import random

from borders_sim.rules.cards import CARD_KEYS, NUM_GOODS

GOODS = CARD_KEYS[:NUM_GOODS]
#: Phases in which the crate under check is being settled (its contents follow the deals).
SETTLING = ("lawyer", "lawyer goods", "fund", "bounty lawyer")


def _free_face_down(d: dict, p: int, card: str) -> int:
    """Face-down ``card``s of seat ``p`` that no reserve or Lawyer pool needs (R-09, R-17d)."""
    player = d["players"][p]
    needed = player["reserved_warehouse"].get(card, 0) - player["warehouse_face_up"].get(card, 0)
    neg = d["negotiation"]
    if d["phase"] == "lawyer goods" and neg["lawyer_pool"]["payer"] == f"p{p}":
        needed += neg["lawyer_pool"]["warehouse"].get(card, 0)
    return player["warehouse_face_down"].get(card, 0) - max(needed, 0)


def _card_slots(d: dict) -> list[tuple]:
    """Every goods card that may change its type: ``(counts, card)`` of a counts object, or
    ``(list, index)`` of the draw pile; none of the player to move."""
    slots = [(d["draw_pile"], i) for i, c in enumerate(d["draw_pile"]) if c in GOODS]
    slots += [(d["discard_pile"], c) for c, k in d["discard_pile"].items() if c in GOODS
              for _ in range(k)]
    neg = d["negotiation"] or {}
    settling = neg.get("crate_of") if d["phase"] in SETTLING else None
    for p, player in enumerate(d["players"]):
        seat = f"p{p}"
        if seat == d["to_move"]:
            continue  # the player to move keeps its cards (its decision may rest on them)
        slots += [(player["hand"], c) for c, k in player["hand"].items() if c in GOODS
                  for _ in range(k)]
        if seat != settling:
            slots += [(player["crate"], c) for c, k in player["crate"].items() for _ in range(k)]
        if not (seat == neg.get("crate_of") and neg.get("false_bottom_card")):
            slots += [(player["warehouse_face_down"], c) for c in GOODS
                      for _ in range(max(_free_face_down(d, p, c), 0))]
    return slots


def _card_at(slot: tuple) -> str:
    place, key = slot
    return place[key] if isinstance(place, list) else key


def _put(slot: tuple, card: str) -> None:
    """The card of ``slot`` becomes a ``card``."""
    place, key = slot
    if isinstance(place, list):
        place[key] = card
        return
    place[key] -= 1
    if not place[key]:
        del place[key]
    place[card] = place.get(card, 0) + 1


def swap_cards(d: dict, rng: random.Random) -> str:
    """Two goods cards of different types in two places trade places."""
    slots = _card_slots(d)
    for _ in range(20):
        a, b = rng.sample(slots, 2)
        ca, cb = _card_at(a), _card_at(b)
        if ca != cb and a[0] is not b[0]:
            _put(a, cb)
            _put(b, ca)
            return f"{ca} <-> {cb}"
    return "no swap"


def move_hand_card(d: dict, rng: random.Random) -> str:
    """A goods card moves from one hand to another that holds fewer than 6 cards; the player
    to move keeps its hand (it may need the card to decide)."""
    players = d["players"]
    others = [p for p in range(len(players)) if f"p{p}" != d["to_move"]]
    givers = [p for p in others if any(c in GOODS for c in players[p]["hand"])]
    takers = [p for p in others if sum(players[p]["hand"].values()) < 6]
    pairs = [(a, b) for a in givers for b in takers if a != b]
    if not pairs:
        return "no move"
    a, b = rng.choice(pairs)
    card = rng.choice([c for c in players[a]["hand"] if c in GOODS])
    players[a]["hand"][card] -= 1
    if not players[a]["hand"][card]:
        del players[a]["hand"][card]
    players[b]["hand"][card] = players[b]["hand"].get(card, 0) + 1
    return f"{card}: p{a} -> p{b}"


def change_gold(d: dict, rng: random.Random, p: int | None = None) -> str:
    """Seat ``p`` gets another amount of gold, at least its reserve; by default a random seat
    other than the player to move (whose decision may rest on its gold: a bounty, an offer)."""
    players = d["players"]
    if p is None:
        p = rng.choice([q for q in range(len(players)) if f"p{q}" != d["to_move"]])
    player = players[p]
    old = player["gold"]
    new = rng.choice([v for v in (0, 1, 3, 12, 49, 51, 75, 140, 400, old + 7)
                      if v >= player["reserved_gold"] and v != old])
    player["gold"] = new
    return f"p{p}.gold {old} -> {new}"


def perturb(d: dict, rng: random.Random) -> list[str]:
    """Make ``d`` a research position (module docstring): one seat's gold always changes (so
    the bank's books no longer balance), then some more gold, card swaps and hand moves."""
    done = [change_gold(d, rng)]
    for _ in range(rng.randrange(12)):
        how = rng.choice((change_gold, swap_cards, swap_cards, swap_cards, move_hand_card))
        done.append(how(d, rng))
    players = d["players"]
    total = sum(p["gold"] for p in players)
    if total == 50 * len(players) + d["bank"]["paid_out"] - d["bank"]["paid_in"]:
        players[0]["gold"] += 1  # the books must not balance by chance
        done.append("p0.gold + 1")
    return done
