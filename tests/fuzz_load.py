"""A mutation fuzzer for :meth:`borders_sim.Game.from_dict`.

Real mid-game ``to_dict()`` dicts are taken from random games (3..8 players, action cards on and
off, several rule variants, snapshots spread over every phase the games reach, the border-check
phases included). Each trial changes one place of one dict and loads it:

* a refused dict must raise ``ValueError`` whose message starts with ``bad state dict``;
* an accepted dict must play to the end with random legal actions within ``max_game_length``
  decisions, with :func:`borders_sim.game.invariants.check` clean after every step, and
  ``Game.from_dict(game.to_dict())`` must load (byte for byte) right after the load, at random
  points along the way and at the end. The one other way to stop is the engine's enforcement
  of ``max_game_length``: a ``steps`` count set near the bound reaches it, and ``step`` raises
  ``EngineError`` there (the state unchanged; it must still reload).

Mutations (one per trial): an int set to 0, -1, +-1, large values, 2**31 - 1, 2**63 - 1 or a
value near a limit of the game; a name replaced by another valid name of its kind; ``null`` and
non-null swapped; a list entry dropped, duplicated or swapped; two players' records or
sub-records swapped, or the two badge records; the phase set to another phase name; a count added,
removed or renamed; a bool flipped; a counter (round, steps, stats, run-outs, bank) pushed to the
largest value ``from_dict`` accepts, to check that the bounds are closed under play.

With ``--research`` the dicts are loaded, and reloaded, with ``Game.from_dict(d,
reachable=False)``, which accepts more of them (research positions) under the same demands.

Trial ``i`` of a batch with seed ``seed`` depends only on ``(seed, i)``, so a batch can be resumed
after trial ``k`` (``--start``). Run a batch from the repository root::

    python -m tests.fuzz_load --seed 1 --count 500 [--start 0] [--progress FILE] [--research]

It prints one JSON object: ``{"trials", "refused", "accepted", "failures": {kind: count},
"examples": {kind: [description, ...]}}``; a failure kind is e.g. ``load:ZeroDivisionError``,
``invariant``, ``stuck``, ``reload`` or ``step:EngineError``. With ``--progress FILE`` each trial
writes ``index description`` to FILE before it starts, so whoever runs the batch with a timeout
learns which trial hung. :mod:`tests.test_fuzz_load` runs batches in subprocesses.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from borders_sim import EngineError, Game, GameConfig
from borders_sim.rules import state as st
from borders_sim.rules.cards import CARD_KEYS, MAIN_NAMES
from borders_sim.game.invariants import check
from borders_sim.rules.limits import max_game_length, max_rounds
from borders_sim.game.saved.dict_format import (BADGES, CRATE_STATUS_NAMES, END_REASON_NAMES,
                                         INSPECTOR_STATUS_NAMES, OUTCOME_NAMES)

#: Rule variants of the games the dicts come from (action cards on and off each).
VARIANTS = (
    {},
    {"bounty_goods": True, "smuggler_transfers": True},
    {"haggling": "gold_only", "crate_order": "announcement"},
    {"haggling": "none"},
    {"lawyer_goods": "player_choice", "bounty_goods": True, "haggle_rounds": 5},
    {"skip_forced": False, "first_inspector": "random", "robbery_timing": "own_turn"},
    {"midround_2_5_rollover": True, "haggle_rounds": 1, "gold_menu": (1, 3, 9, 1000)},
)

SEATS = tuple(f"p{i}" for i in range(st.MAX_PLAYERS))
#: Kinds of names: a string is replaced by another name of the first kind that holds it.
VOCABULARIES = (st.PHASE_NAMES, SEATS, BADGES, CRATE_STATUS_NAMES, INSPECTOR_STATUS_NAMES,
                OUTCOME_NAMES, tuple(x for x in END_REASON_NAMES if x), CARD_KEYS, MAIN_NAMES,
                ("full", "gold_only", "none"), ("window", "own_turn"), ("cards", "pieces"),
                ("seat0", "random"), ("b_plus_1", "a_plus_1"), ("inspector", "announcement"),
                ("auto_lowest", "player_choice"))
#: What a ``null`` may become, by the key that holds it.
NULL_FILLERS = {"to_move": SEATS, "B": SEATS, "crate_of": SEATS, "payer": SEATS,
                "announced": CARD_KEYS[:4] + ("beer",), "false_bottom_card": CARD_KEYS[:6],
                "lawyer_to": BADGES, "reason": ("main resources", "fallback"),
                "trigger_round": (1, 2, 3, 7, 2 ** 31 - 1), "end_round": (1, 3, 8, 2 ** 31 - 1),
                "negotiation": ({},)}


# --- base dicts from real games ------------------------------------------------------------------
def base_dicts(seed: int, games: int = 14, per_phase: int = 6) -> list[dict]:
    """Snapshots of random games: at most ``per_phase`` per phase and game, spread over it."""
    rng = random.Random(seed)
    out = []
    for k in range(games):
        n = 3 + (seed + k) % 6
        flags = dict(VARIANTS[rng.randrange(len(VARIANTS))])
        flags["action_cards"] = rng.random() < 0.7
        game = Game(GameConfig(num_players=n, **flags), seed=rng.randrange(2 ** 32))
        taken = Counter()
        while not game.is_terminal:
            ph = game.phase
            if taken[ph] < per_phase and rng.random() < 0.08 + 0.5 * (ph not in COMMON_PHASES):
                taken[ph] += 1
                out.append(game.to_dict())
            game.step(rng.choice(game.legal_actions()))
        out.append(game.to_dict())
    return out


COMMON_PHASES = ("action window", "market", "pack", "announce", "offer", "respond", "collect")


# --- mutations -----------------------------------------------------------------------------------
def _paths(d, path=()):
    """(path, value) of every node but the root; the pile lists count as single nodes."""
    if isinstance(d, dict):
        items = d.items()
    elif isinstance(d, list):
        items = enumerate(d)
    else:
        return
    for k, v in items:
        yield path + (k,), v
        if not (path == () and k in ("draw_pile", "drawn_from_pile")):
            yield from _paths(v, path + (k,))


def _get(d, path):
    for k in path:
        d = d[k]
    return d


def _name(path) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path).lstrip(".")


def _int_values(v: int, d: dict) -> list:
    config = GameConfig(**{k: tuple(x) if isinstance(x, list) else x
                           for k, x in d["config"].items()}) if isinstance(d.get("config"), dict) \
        else GameConfig()
    limits = (max_rounds(config), max_game_length(config), 368, 2 ** 15)
    near = [x + e for x in limits for e in (-1, 0, 1)]
    return [0, -1, v + 1, v - 1, v + 5, 2 * v + 3, 10 ** 6, 2 ** 31 - 1, 2 ** 31 - 2, 2 ** 31,
            2 ** 63 - 1, -2 ** 31] + near


def _mutate_value(d, rng, path, v) -> str:
    parent, key = _get(d, path[:-1]), path[-1]
    where = _name(path)
    if isinstance(v, bool):
        new = rng.choice([not v, None, int(v)])
    elif isinstance(v, int):
        new = rng.choice(_int_values(v, d))
    elif isinstance(v, str):
        vocab = next((voc for voc in VOCABULARIES if v in voc), None)
        if vocab is None or rng.random() < 0.1:
            new = rng.choice([None, v + "x", 1])
        else:
            new = rng.choice([x for x in vocab if x != v] or [None])
    elif v is None:
        new = rng.choice(NULL_FILLERS.get(key, (0, 1, "p0", "sugar")))
        new = copy.deepcopy(new)
    elif isinstance(v, list):
        return _mutate_list(rng, v, where)
    else:  # a dict
        return _mutate_dict(d, rng, path, v, where)
    parent[key] = new
    return f"{where}: {v!r} -> {new!r}"


def _mutate_list(rng, v, where) -> str:
    if not v:
        return f"{where}: empty list left alone"
    how = rng.choice(["drop", "duplicate", "swap", "clear"])
    i = rng.randrange(len(v))
    if how == "drop":
        del v[i]
    elif how == "duplicate":
        v.insert(i, copy.deepcopy(v[i]))
    elif how == "swap":
        j = rng.randrange(len(v))
        v[i], v[j] = v[j], v[i]
        return f"{where}: entries {i} and {j} swapped"
    else:
        v.clear()
        return f"{where}: cleared"
    return f"{where}: entry {i} {how}d"


def _mutate_dict(d, rng, path, v, where) -> str:
    counts = all(isinstance(k, str) and k in CARD_KEYS for k in v) and \
        all(isinstance(x, int) and not isinstance(x, bool) for x in v.values())
    if counts:  # a counts object: add, remove or rename a card
        how = rng.choice(["add", "remove", "rename"] if v else ["add"])
        if how == "add":
            k = rng.choice(CARD_KEYS)
            v[k] = v.get(k, 0) + rng.choice([1, 1, 2, 5, 100])
            return f"{where}.{k}: +card(s), now {v[k]}"
        k = rng.choice(list(v))
        c = v.pop(k)
        if how == "remove":
            return f"{where}.{k}: removed ({c})"
        k2 = rng.choice([x for x in CARD_KEYS if x != k])
        v[k2] = v.get(k2, 0) + c
        return f"{where}: {c} {k} renamed to {k2}"
    if not v:
        return f"{where}: empty object left alone"
    k = rng.choice(list(v))
    return _mutate_value(d, rng, path + (k,), v[k])


def _swap_players(d, rng) -> str:
    players = d["players"]
    i, j = rng.sample(range(len(players)), 2)
    if rng.random() < 0.5:
        a, b = players[i], players[j]
        for k in a:
            if k != "seat":
                a[k], b[k] = b[k], a[k]
        return f"players[{i}] and players[{j}] swapped (seats kept)"
    k = rng.choice([k for k in players[i] if k != "seat"])
    players[i][k], players[j][k] = players[j][k], players[i][k]
    return f"players[{i}].{k} and players[{j}].{k} swapped"


def _swap_badges(d, rng) -> str:
    neg = d.get("negotiation")
    if not isinstance(neg, dict):
        return _swap_players(d, rng)
    a, b = neg["inspectors"]
    if rng.random() < 0.5:
        for k in a:
            if k != "badge":
                a[k], b[k] = b[k], a[k]
        return "negotiation.inspectors[0] and [1] swapped (badges kept)"
    k = rng.choice([k for k in a if k != "badge"])
    a[k], b[k] = b[k], a[k]
    return f"negotiation.inspectors[0].{k} and [1].{k} swapped"


def _change_phase(d, rng) -> str:
    old = d["phase"]
    d["phase"] = rng.choice([p for p in st.PHASE_NAMES if p != old])
    return f"phase: {old!r} -> {d['phase']!r}"


def _accepts(d: dict, reachable: bool) -> bool:
    try:
        Game.from_dict(d, reachable)
    except ValueError:
        return False
    return True


#: Counters pushed to the largest value ``from_dict`` accepts: a state at a bound must play on
#: and reload along the way (the bounds are closed under play). The bank's ``paid_out`` moves
#: with one player's gold, so that gold stays conserved.
EDGES = (("round",), ("steps",), ("stats", "crates_opened"), ("stats", "crates_passed"),
         ("end_of_game", "runouts"), ("bank", "paid_in"), ("bank", "paid_out"))


def _edge(d: dict, rng: random.Random, reachable: bool) -> str:
    path = rng.choice(EDGES)
    seat = rng.randrange(len(d["players"]))

    def put(x):
        e = copy.deepcopy(d)
        _get(e, path[:-1])[path[-1]] = x
        if path == ("bank", "paid_out"):
            e["players"][seat]["gold"] += x - _get(d, path)
        return e

    lo, hi = _get(d, path), 2 ** 31 - 1
    if not _accepts(put(lo), reachable):
        return _change_phase(d, rng)
    while lo < hi:  # the largest accepted value, if acceptance is monotone in it
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if _accepts(put(mid), reachable) else (lo, mid - 1)
    old, new = _get(d, path), put(lo)
    d.clear()
    d.update(new)
    return f"{_name(path)}: {old} -> {lo}, the largest value accepted"


def mutate(d: dict, rng: random.Random, reachable: bool = True) -> str:
    """Change ``d`` in one place; returns a description of the change (``reachable``: how the
    counters pushed to an edge are loaded)."""
    r = rng.random()
    if r < 0.06:
        return _edge(d, rng, reachable)
    if r < 0.12:
        return _change_phase(d, rng)
    if r < 0.20:
        return _swap_players(d, rng)
    if r < 0.25:
        return _swap_badges(d, rng)
    nodes = list(_paths(d))
    if r < 0.55:  # the fields that steer play get more attention
        hot = [(p, v) for p, v in nodes if p[0] in ("position", "end_of_game", "negotiation",
                                                     "round", "steps", "to_move", "inspectors")]
        nodes = hot or nodes
    path, v = rng.choice(nodes)
    return _mutate_value(d, rng, path, v)


# --- trials ------------------------------------------------------------------------------------
class Failure(Exception):
    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


def _reload(game: Game, when: str, reachable: bool) -> None:
    try:
        d = game.to_dict()
        back = Game.from_dict(json.loads(json.dumps(d)), reachable)
    except ValueError as err:
        raise Failure("reload", f"{when}: {err}") from None
    except Exception as err:  # noqa: BLE001 (a fuzzer reports every kind of error)
        raise Failure(f"reload:{type(err).__name__}", f"{when}: {err}") from None
    if back.state.tobytes() != game.state.tobytes():
        raise Failure("reload", f"{when}: the reloaded state differs")


def play_out(game: Game, rng: random.Random, reachable: bool = True) -> int:
    """Play ``game`` to the end with random legal actions under every check, reloading it as
    ``Game.from_dict(d, reachable)`` along the way; returns the steps."""
    limit = game.max_game_length
    _reload(game, "after the load", reachable)
    steps = 0
    next_reload = rng.randint(1, 40)
    while not game.is_terminal:
        legal = game.legal_actions()
        if not legal:
            raise Failure("stuck", f"no legal action in phase {game.phase!r} after {steps} steps")
        try:
            game.step(rng.choice(legal))
        except EngineError as err:
            if int(game.state[0]["steps"]) != limit:
                raise Failure("step:EngineError", f"after {steps} steps: {err}") from None
            break  # the bound, reached from a steps count loaded near it
        except Exception as err:  # noqa: BLE001
            raise Failure(f"step:{type(err).__name__}", f"after {steps} steps: {err}") from None
        steps += 1
        problems = check(game.state[0])
        if problems:
            raise Failure("invariant", f"after {steps} steps in {game.phase!r}: {problems}")
        if steps > limit:
            raise Failure("too long", f"more than max_game_length = {limit} steps")
        if steps == next_reload:
            _reload(game, f"after {steps} steps", reachable)
            next_reload += rng.randint(1, 60)
    _reload(game, "at the end", reachable)
    return steps


def trial(d: dict, rng: random.Random, reachable: bool = True) -> str:
    """'refused' or 'accepted' by ``Game.from_dict(d, reachable)``; raises :class:`Failure`
    otherwise."""
    try:
        game = Game.from_dict(d, reachable)
    except ValueError as err:
        if not str(err).startswith("bad state dict"):
            raise Failure("refused:message", str(err)) from None
        return "refused"
    except Exception as err:  # noqa: BLE001
        raise Failure(f"load:{type(err).__name__}", str(err)) from None
    play_out(game, rng, reachable)
    return "accepted"


def run_batch(seed: int, count: int, start: int = 0, progress: str | None = None,
              examples: int = 3, reachable: bool = True) -> dict:
    """Trials ``start .. count - 1`` of the batch ``seed`` (see the module docstring), loading
    with ``Game.from_dict(d, reachable)``."""
    bases = base_dicts(seed)
    Game.from_dict(bases[0])  # compiles the load checks before the first trial's clock starts
    result = _empty()
    for i in range(start, count):
        rng = random.Random(seed * 1_000_003 + i)
        base = rng.choice(bases)
        d = copy.deepcopy(base)
        what = f"{base['config']['num_players']}p {base['phase']!r}: " + mutate(d, rng,
                                                                               reachable)
        if progress:  # what runs now, and the results so far
            with open(progress, "w") as f:
                json.dump({"index": i, "what": what, "done": _plain(result)}, f)
        result["trials"] += 1
        try:
            result[trial(d, rng, reachable)] += 1
        except Failure as err:
            result["failures"][err.kind] += 1
            shown = result["examples"].setdefault(err.kind, [])
            if len(shown) < examples:
                shown.append(f"batch {seed} trial {i}: {what} => {err}"[:600])
    return _plain(result)


def _empty() -> dict:
    return {"trials": 0, "refused": 0, "accepted": 0, "failures": Counter(), "examples": {}}


def _plain(result: dict) -> dict:
    return {**result, "failures": dict(result["failures"])}


def _merge(total: dict, part: dict) -> None:
    for key in ("trials", "refused", "accepted"):
        total[key] += part[key]
    total["failures"].update(part["failures"])
    for kind, shown in part["examples"].items():
        total["examples"].setdefault(kind, []).extend(shown)


# --- batches in subprocesses ---------------------------------------------------------------------
ROOT = Path(__file__).resolve().parent.parent


def _read_progress(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def run_in_subprocess(seed: int, count: int, stall: float = 60.0, startup: float = 900.0,
                      env: dict | None = None, reachable: bool = True) -> dict:
    """Run batch ``seed`` in child processes. A trial that makes no progress for ``stall``
    seconds is a hang (the child is killed); a child that dies is a crash; either way the
    batch resumes after that trial. ``startup`` seconds are allowed before the first trial
    (the child may compile the kernels). Returns the merged result of :func:`run_batch`
    (``reachable`` false: with ``--research``)."""
    total = _empty()
    start = 0
    with tempfile.TemporaryDirectory(prefix="borders-fuzz-") as tmp:
        progress, out, err = (Path(tmp) / name for name in ("progress", "out", "err"))
        while start < count:
            progress.write_text("")
            with open(out, "w") as fo, open(err, "w") as fe:
                child = subprocess.Popen(
                    [sys.executable, "-m", "tests.fuzz_load", "--seed", str(seed), "--count",
                     str(count), "--start", str(start), "--progress", str(progress)]
                    + ([] if reachable else ["--research"]),
                    cwd=ROOT, stdout=fo, stderr=fe, env=env)
                last, since = None, time.monotonic()
                while child.poll() is None:
                    time.sleep(0.1)
                    now = _read_progress(progress)
                    if now is not None and (last is None or now["index"] != last["index"]):
                        last, since = now, time.monotonic()
                    elif time.monotonic() - since > (stall if last else startup):
                        child.kill()
                        child.wait()
                        break
                last = _read_progress(progress) or last  # the last word of a dying child
            if child.returncode == 0:
                _merge(total, json.loads(out.read_text()))
                break
            if last is None:
                raise RuntimeError(f"fuzz batch {seed} did not start: {err.read_text()[-2000:]}")
            _merge(total, last["done"])
            kind = "hang" if child.returncode == -9 else "crash"
            detail = (f"no progress for {stall:.0f} s" if kind == "hang" else
                      f"exit code {child.returncode}: {err.read_text()[-400:]}")
            total["trials"] += 1
            total["failures"][kind] += 1
            total["examples"].setdefault(kind, []).append(
                f"batch {seed} trial {last['index']}: {last['what']} => {detail}"[:600])
            start = last["index"] + 1
    return _plain(total)


def run_campaign(mutations: int, first_seed: int = 1, batch: int = 250, workers: int = 2,
                 stall: float = 60.0, env: dict | None = None, reachable: bool = True) -> dict:
    """``mutations`` trials in batches of ``batch`` (batch seeds ``first_seed, ...``), run by
    :func:`run_in_subprocess`, ``workers`` child processes at a time; the merged result."""
    sizes = [min(batch, mutations - k) for k in range(0, mutations, batch)]
    with ThreadPoolExecutor(workers) as pool:
        parts = list(pool.map(lambda job: run_in_subprocess(first_seed + job[0], job[1], stall,
                                                            env=env, reachable=reachable),
                              enumerate(sizes)))
    total = _empty()
    for part in parts:
        _merge(total, part)
    return _plain(total)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True,
                    help="batch seed (the first batch seed of a campaign)")
    ap.add_argument("--count", type=int, required=True,
                    help="trials 0 .. count - 1 of the batch (all trials of a campaign)")
    ap.add_argument("--start", type=int, default=0, help="first trial (to resume a batch)")
    ap.add_argument("--progress", help="file that names the trial in progress")
    ap.add_argument("--campaign", action="store_true",
                    help="run --count trials in batches in child processes (hangs and crashes "
                         "are counted, not fatal)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--research", action="store_true",
                    help="load with Game.from_dict(d, reachable=False)")
    args = ap.parse_args(argv)
    reachable = not args.research
    if args.campaign:
        result = run_campaign(args.count, args.seed, workers=args.workers, reachable=reachable)
    else:
        result = run_batch(args.seed, args.count, args.start, args.progress,
                           reachable=reachable)
    json.dump(result, sys.stdout, indent=1 if args.campaign else None)
    print()


if __name__ == "__main__":
    main()
