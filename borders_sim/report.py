"""Figures as text: the plain markdown tables the commands print and the benchmarks write into
the README and the docs, and the short forms of their numbers (``si``, ``percent``).

Both the command line (:mod:`borders_sim.cli`) and ``benchmarks/`` format through here, so a
table printed by ``borders-sim tournament`` and one a benchmark writes into a page look alike.
"""

from __future__ import annotations


def si(x: float) -> str:
    """1234567 -> '1.23M'."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{unit}"
    return f"{x:.3g}"


def markdown_table(headers: list[str], rows: list[list[str]],
                   names_left: bool = False) -> str:
    """A markdown table with padded columns, right-aligned (numbers); with ``names_left`` the
    first column (the rows' names) left-aligned."""
    widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(headers)]
    left = 1 if names_left else 0

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if j < left else c.rjust(w)
                                 for j, (c, w) in enumerate(zip(cells, widths))) + " |"

    rule = "|" + "|".join((":" + "-" * (w + 1)) if j < left else ("-" * (w + 1) + ":")
                          for j, w in enumerate(widths)) + "|"
    return "\n".join([line(headers), rule] + [line(r) for r in rows])


#: The widest line a table of the README and the docs pages may have (and so every table a
#: benchmark writes there).
README_COLUMNS = 100


def markdown_tables(headers: list[str], rows: list[list[str]],
                    columns: int = README_COLUMNS) -> str:
    """:func:`markdown_table`, split by columns into tables at most ``columns`` wide, blank
    lines between: every table repeats the first column (the rows' names) and takes the next
    columns while they fit. A single column too wide for any table gets one of its own."""
    if len(headers) < 2:
        return markdown_table(headers, rows)

    def width(j: int) -> int:  # the column's share of a line: "| " + cell + " "
        return max(len(headers[j]), *(len(r[j]) for r in rows)) + 3

    groups: list[list[int]] = []
    used = columns
    for j in range(1, len(headers)):
        if used + width(j) > columns - 1:  # the line's closing "|"
            groups.append([])
            used = width(0)
        groups[-1].append(j)
        used += width(j)
    tables = [markdown_table([headers[0]] + [headers[j] for j in g],
                             [[r[0]] + [r[j] for j in g] for r in rows]) for g in groups]
    return "\n\n".join(tables)


def percent(x: float | None) -> str:
    """0.1234 -> '12.3%'; None -> '-'."""
    return "-" if x is None else f"{100 * x:.1f}%"
