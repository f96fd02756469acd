"""A population evaluation's result as text (:mod:`borders_sim.arena.population`): one row per
member (win share with its 95% interval, score, openskill rating, alpha-Rank mass) and the
head-to-head tables, with their notes, as ``borders-sim tournament --pool`` prints them and
``benchmarks/population.py`` writes them into the docs."""

from __future__ import annotations

from ..report import markdown_table, markdown_tables, percent
from .population import Population

NOTES = """\
win rate: wins per game the member played, a shared win counting 1/k; 95% CI: Wilson, games as
units. rating: openskill Plackett-Luce over every game's finishing order. alpha-rank: the
member's stationary mass in the pairwise meta-game 'finishes ahead at a shared table' (alpha
{alpha:g}). Head to head, row against column over the games both played: the row's win share
there, and the row's share minus the column's in points with a 95% interval paired by game
(an interval above 0: the row wins more at the tables they share)."""



def member_table(result: Population) -> str:
    """One row per member, best win rate first."""
    header = ["member", "games", "win rate [95% CI]", "score", "rating", "alpha-rank"]
    rows = []
    for m in sorted(result.members, key=lambda m: -(m["win_rate"] or 0.0)):
        lo, hi = m["win_rate_ci95"]
        rows.append([m["name"] + (" *" if m["focus"] else ""), str(m["games"]),
                     f"{percent(m['win_rate'])} [{percent(lo)}, {percent(hi)}]"
                     if m["games"] else "-",
                     "-" if m["mean_score"] is None else f"{m['mean_score']:.1f}",
                     f"{m['rating_mu']:.2f} ({m['rating_sigma']:.2f})",
                     f"{m['alpharank']:.3f}"])
    return markdown_table(header, rows)


def head_to_head(result: Population) -> tuple[str, str]:
    """The row's win share at the tables it shared with the column's member, and the
    difference of the two shares in points with its interval."""
    names = [m["name"] for m in sorted(result.members, key=lambda m: -(m["win_rate"] or 0.0))]
    shares, diffs = [], []
    for a in names:
        share_row, diff_row = [a], [a]
        for b in names:
            if a == b:
                share_row.append("-")
                diff_row.append("-")
                continue
            p = result.pair(a, b)
            if not p.games:
                share_row.append("no games")
                diff_row.append("no games")
                continue
            lo, hi = p.difference_ci95
            share_row.append(percent(p.win_rate))
            diff_row.append(f"{100 * p.difference:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]")
        shares.append(share_row)
        diffs.append(diff_row)
    header = ["row vs column", *names]
    return markdown_tables(header, shares), markdown_tables(header, diffs)


def population_text(result: Population) -> str:
    """Every table of ``result`` with its notes, as the command prints it."""
    share, diff = head_to_head(result)
    return (f"{member_table(result)}\n\nHead to head: the row's win share at the tables it "
            f"shared with the column\n\n{share}\n\nHead to head: the row's win share minus the "
            f"column's, in points [95% CI]\n\n{diff}\n\n"
            + NOTES.format(alpha=result.alpha)
            + ("\n* seated at every table (--focus)" if result.focus else ""))
