"""The trainer's progress line: one line that fits the terminal's width.

:func:`progress_line` is pure (the trainer passes the terminal's width, from
``shutil.get_terminal_size``): the budget (``update k/N`` with ``--max-updates``, the clock
``m:ss / M min, m:ss left``), the learner's steps/s, and its win share against each pool member
over the last :data:`~borders_sim.train.league.RECENT_GAMES` finished games against it (``-``
before the first). Where the full line is too wide, it shortens and drops parts in turn: the
names (``hon`` for ``honest``, ``s0`` for ``self-0``, ``x1`` for ``exploiter-1``) and ``%``
signs, the clock's spent part, the word ``games``, then the last members (``...``). The steps/s
stay to the last: only a line too narrow for ``update | left | steps/s`` loses them.
"""

from __future__ import annotations

from collections.abc import Sequence


def clock(seconds: float) -> str:
    """Seconds as ``m:ss`` (``h:mm:ss`` from an hour)."""
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def short_name(name: str) -> str:
    """A pool member's name in a narrow line: ``self-K`` -> ``sK``, ``exploiter-K`` -> ``xK``,
    any other its first three letters."""
    for long, short in (("self-", "s"), ("exploiter-", "x")):
        if name.startswith(long):
            return short + name[len(long):]
    return name[:3]


def _wins(members: Sequence[tuple[str, float | None]], short: bool, label: str,
          keep: int) -> str:
    """The win part: ``label`` then each of the first ``keep`` members' share in %."""
    names = [n for n, _ in members]
    shorts = [short_name(n) for n in names]
    if short and len(set(shorts)) == len(shorts):  # unambiguous only
        names = shorts
    parts = [f"{n} {'-' if w is None else f'{100 * w:.0f}' + ('' if short else '%')}"
             for n, (_, w) in zip(names, members)][:keep]
    return " ".join([label] + parts + (["..."] if keep < len(members) else []))


def progress_line(width: int, update: int, max_updates: int | None, elapsed: float,
                  minutes: float, steps_per_s: float,
                  members: Sequence[tuple[str, float | None]], window: int) -> str:
    """The progress line of a run, at most ``width - 1`` characters (module docstring).

    Args:
        width: the terminal's columns.
        update, max_updates: the updates made and the cap (None: none).
        elapsed, minutes: the run's wall clock so far (seconds) and its budget (minutes).
        steps_per_s: the learner's steps per second of updates.
        members: per drawn pool member, its name and the learner's win share over its last
            ``window`` finished games against it (None before the first).
        window: the games a share looks back on.
    """
    done = f"update {update}" + (f"/{max_updates}" if max_updates is not None else "")
    left = clock(minutes * 60 - elapsed) + " left"
    spent = f"{clock(elapsed)} / {minutes:g} min, {left}"
    rate = f"{steps_per_s:,.0f} steps/s"
    full, shorter, shortest = (f"win, last {window} games:", f"last {window} games:",
                               f"last {window}:")
    # (clock, short names, label), from the richest line to the barest; steps/s in every one
    variants = [(spent, False, full), (spent, True, full), (left, True, full),
                (left, True, shorter), (left, True, shortest)]
    limit = max(1, width - 1)
    for keep in range(len(members), -1, -1):
        for clock_text, short, label in variants if keep == len(members) else variants[-1:]:
            line = " | ".join([done, clock_text, rate, _wins(members, short, label, keep)])
            if len(line) <= limit:
                return line
    for line in (f"{done} | {left} | {rate}", f"{done} | {left}"):
        if len(line) <= limit:
            return line
    return line[:limit]
