"""Card and main-resource tables: the one source of truth for card data.

Every number here is the rulebook's (§3.1, §12.1-§12.5, RULINGS 1.0); every other module
reads these arrays. Card *type* ids index all per-type arrays of the state:

====  ==================  =========  =====  ====  =========================  ====================
 id   card                class      value  fine  counts as                  copies 3p/4-5p/6-8p
====  ==================  =========  =====  ====  =========================  ====================
  0   Cane sugar          legal        2     2                                51 / 51 / 77
  1   Coffee              legal        3     2                                39 / 39 / 58
  2   Tobacco             legal        3     2                                 0 / 39 / 58
  3   Smoked fish         legal        4     2                                26 / 26 / 38
  4   Beer                contraband   6     4                                19 / 24 / 35
  5   Puerto Rican rum    contraband   7     4                                17 / 22 / 34
  6   Scotch whisky       contraband   8     4                                10 / 13 / 19
  7   Thompson gun        contraband   9     4                                 5 /  5 /  8
  8   Chocolate           premium      4     3    2 x Cane sugar               4 /  4 /  5
  9   Caribbean molasses  premium      6     4    3 x Cane sugar               2 /  2 /  3
 10   Colombian coffee    premium      6     4    2 x Coffee                   2 /  2 /  3
 11   Havana cigar        premium      6     4    2 x Tobacco                  0 /  2 /  3
 12   Cuban cigar         premium      9     5    3 x Tobacco                  0 /  1 /  2
 13   Delaware Bay oysters premium     8     4    2 x Smoked fish              2 /  2 /  3
 14   Secret Route        action       0     0                                 1 /  2 /  3
 15   Night Raid          action       0     0                                 1 /  1 /  2
 16   False Bottom Crate  action       0     0                                 2 /  3 /  4
 17   Syndicate Fund      action       0     0                                 1 /  2 /  3
 18   Robbery             action       0     0                                 3 /  4 /  6
 19   The Lawyer          action       0     0                                 2 /  3 /  4
====  ==================  =========  =====  ====  =========================  ====================

The copy columns are cumulative deck contents (RULINGS 1.0, TV-A5): deck tier 0 is the 3-player
deck, tier 1 the 4-5-player deck and tier 2 the 6-8-player deck.

Main resources (§12.4) are described by up to three *parts* ``(kind, type, n)``:

* ``PART_PIECES``   n pieces of legal ``type``: a legal card is 1 piece, a premium card of that
  type 2 or 3 (5-4, 5-9; overshoot allowed, R-26a);
* ``PART_NAMED``    n cards of contraband ``type`` exactly (5-8);
* ``PART_ANY``      n cards of any contraband or premium type (5-7);
* ``PART_DIFFERENT`` n different legal types, one piece each (5-11);
* ``PART_SAME``     n pieces of one legal type of the player's choosing (5-10).
"""

from __future__ import annotations

import numpy as np

from numba.extending import register_jitable

# --- card types ---------------------------------------------------------------------------
SUGAR, COFFEE, TOBACCO, FISH = 0, 1, 2, 3
BEER, RUM, WHISKY, GUN = 4, 5, 6, 7
CHOCOLATE, MOLASSES, COLOMBIAN, HAVANA, CUBAN, OYSTERS = 8, 9, 10, 11, 12, 13
SECRET_ROUTE, NIGHT_RAID, FALSE_BOTTOM, SYNDICATE_FUND, ROBBERY, LAWYER = 14, 15, 16, 17, 18, 19

NUM_LEGAL = 4
NUM_GOODS = 14
NUM_ACTION = 6
NUM_CARD_TYPES = 20
FIRST_ACTION = SECRET_ROUTE

CLASS_LEGAL, CLASS_CONTRABAND, CLASS_PREMIUM, CLASS_ACTION = 0, 1, 2, 3

#: Short one-word names used in action strings ("announce coffee", "pack rum").
CARD_KEYS = (
    "sugar", "coffee", "tobacco", "fish",
    "beer", "rum", "whisky", "gun",
    "chocolate", "molasses", "colombian", "havana", "cuban", "oysters",
    "route", "raid", "bottom", "fund", "robbery", "lawyer",
)
#: The rulebook's English names of the cards (§12), by type id: the table above.
CARD_NAMES = (
    "Cane sugar", "Coffee", "Tobacco", "Smoked fish",
    "Beer", "Puerto Rican rum", "Scotch whisky", "Thompson gun",
    "Chocolate", "Caribbean molasses", "Colombian coffee", "Havana cigar", "Cuban cigar",
    "Delaware Bay oysters",
    "Secret Route", "Night Raid", "False Bottom Crate", "Syndicate Fund", "Robbery", "The Lawyer",
)
#: The names of the card classes of :data:`CARD_CLASS`.
CLASS_NAMES = ("legal", "contraband", "premium", "action")

CARD_CLASS = np.array([0] * 4 + [1] * 4 + [2] * 6 + [3] * 6, dtype=np.int64)
CARD_VALUE = np.array([2, 3, 3, 4, 6, 7, 8, 9, 4, 6, 6, 6, 9, 8, 0, 0, 0, 0, 0, 0], dtype=np.int64)
CARD_FINE = np.array([2, 2, 2, 2, 4, 4, 4, 4, 3, 4, 4, 4, 5, 4, 0, 0, 0, 0, 0, 0], dtype=np.int64)
#: Legal type a card counts as for King/Queen and main resources (-1: none).
PIECE_TYPE = np.array([0, 1, 2, 3, -1, -1, -1, -1, 0, 0, 1, 2, 2, 3, -1, -1, -1, -1, -1, -1],
                      dtype=np.int64)
#: Pieces a card is worth for its PIECE_TYPE (legal 1, premium 2 or 3).
PIECES = np.array([1, 1, 1, 1, 0, 0, 0, 0, 2, 3, 2, 2, 3, 2, 0, 0, 0, 0, 0, 0], dtype=np.int64)

#: COPIES[tier, type]: cumulative deck contents, tier 0 = 3p, 1 = 4-5p, 2 = 6-8p (§12).
COPIES = np.array([
    [51, 39, 0, 26, 19, 17, 10, 5, 4, 2, 2, 0, 0, 2, 1, 1, 2, 1, 3, 2],
    [51, 39, 39, 26, 24, 22, 13, 5, 4, 2, 2, 2, 1, 2, 2, 1, 3, 2, 4, 3],
    [77, 58, 58, 38, 35, 34, 19, 8, 5, 3, 3, 3, 2, 3, 3, 2, 4, 3, 6, 4],
], dtype=np.int64)
MAX_DECK = 368

#: King and Queen bonus per legal type (§9).
KING_BONUS = np.array([20, 15, 15, 10], dtype=np.int64)
QUEEN_BONUS = np.array([10, 10, 10, 5], dtype=np.int64)

# --- main resources -------------------------------------------------------------------------
NUM_MAIN = 12
(MR_SUGAR, MR_MALT, MR_CORN, MR_YEAST, MR_ICE, MR_COPPER, MR_OAK, MR_BOTTLES, MR_COAL,
 MR_MOTORBOAT, MR_TRUCK, MR_SECRET_WAREHOUSE) = range(12)
MAIN_NAMES = ("sugar", "malt", "corn", "yeast", "ice shipment", "copper still", "oak barrel",
              "bottles", "coal", "motorboat", "truck", "secret warehouse")
MAIN_POINTS = np.array([22, 24, 24, 28, 26, 34, 30, 32, 30, 42, 40, 45], dtype=np.int64)
MAIN_MIN_PLAYERS = np.array([3, 3, 4, 3, 3, 3, 3, 3, 4, 3, 3, 3], dtype=np.int64)

PART_NONE, PART_PIECES, PART_NAMED, PART_ANY, PART_DIFFERENT, PART_SAME = range(6)
MAX_PARTS = 3
#: MAIN_PARTS[m, j] = (kind, type, n); unused parts are PART_NONE.
MAIN_PARTS = np.zeros((NUM_MAIN, MAX_PARTS, 3), dtype=np.int64)
for _m, _parts in enumerate((
    [(PART_PIECES, SUGAR, 4), (PART_ANY, -1, 1)],                          # Sugar
    [(PART_PIECES, COFFEE, 3), (PART_NAMED, RUM, 1)],                      # Malt
    [(PART_PIECES, TOBACCO, 3), (PART_NAMED, BEER, 1)],                    # Corn
    [(PART_PIECES, FISH, 2), (PART_PIECES, COFFEE, 1), (PART_NAMED, WHISKY, 1)],  # Yeast
    [(PART_PIECES, FISH, 3), (PART_NAMED, BEER, 1)],                       # Ice shipment
    [(PART_NAMED, WHISKY, 2), (PART_PIECES, FISH, 2)],                     # Copper still
    [(PART_NAMED, RUM, 2), (PART_PIECES, SUGAR, 3)],                       # Oak barrel
    [(PART_DIFFERENT, -1, 3), (PART_ANY, -1, 2)],                          # Bottles
    [(PART_NAMED, BEER, 2), (PART_PIECES, TOBACCO, 3)],                    # Coal
    [(PART_NAMED, GUN, 1), (PART_NAMED, WHISKY, 1), (PART_NAMED, RUM, 2)],  # Motorboat
    [(PART_SAME, -1, 5), (PART_ANY, -1, 2)],                               # Truck
    [(PART_ANY, -1, 5)],                                                   # Secret warehouse
)):
    for _j, _p in enumerate(_parts):
        MAIN_PARTS[_m, _j] = _p
del _m, _parts, _j, _p



def _min_cards(parts) -> int:
    """Fewest cards that can fill a requirement (premium cards carry up to 3 pieces)."""
    total = 0
    for kind, t, n in parts:
        if kind in (PART_PIECES, PART_SAME):
            most = max([1] + [int(PIECES[c]) for c in range(NUM_GOODS)
                              if kind == PART_SAME or PIECE_TYPE[c] == t])
            total += -(-int(n) // most)
        elif kind != PART_NONE:
            total += int(n)
    return total


#: MAIN_MIN_CARDS[m]: a lower bound on the warehouse cards needed to collect m (a quick
#: filter before the exact search of :mod:`.collection`).
MAIN_MIN_CARDS = np.array([_min_cards(MAIN_PARTS[m]) for m in range(NUM_MAIN)], dtype=np.int64)

#: Main resources in the middle by player count (3.2-2); index by num_players.
MAIN_IN_MIDDLE = np.array([0, 0, 0, 3, 3, 4, 4, 5, 6], dtype=np.int64)
#: Agent-cycle length L(N) in rounds (6-3); index by num_players.
CYCLE_LENGTH = np.array([0, 0, 0, 3, 4, 5, 3, 7, 4], dtype=np.int64)

BLACK_MARKET_PRICE = 10   # 5-12
START_GOLD = 50           # 3.3-1
FIRST_INSPECTOR_BONUS = 3  # 3.4-3
HAND_LIMIT = 6            # 4.1-2, 7.1-2
MAX_MARKET_DISCARDS = 5   # 4.1-2
MAX_CRATE = 5             # 4.2-1
MAX_MAIN_HELD = 2         # 5-13
ROBBERY_DIE = 6           # RB-2


@register_jitable
def deck_tier(num_players):
    """Deck tier for a player count (3.1-1..3): 0 for 3, 1 for 4-5, 2 for 6-8 players (plain
    Python when called from Python, compiled into the kernels that call it)."""
    return 0 if num_players == 3 else (1 if num_players <= 5 else 2)


def num_inspectors(num_players: int) -> int:
    """1 inspector (badge A) for 3-5 players, 2 (badges A and B) for 6-8 (3.4-1)."""
    return 1 if num_players <= 5 else 2
