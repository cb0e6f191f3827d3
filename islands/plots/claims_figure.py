"""Paper 000's numbers beside the model's (:mod:`islands.model.paper_claims`): one row per claim,
the model's value over the paper's on a log axis with the ±25% band shaded and the model's
interval as a whisker; one column per engine (the paper's, and this one projected onto the
papers' machines). Claims a parameter was fitted to are drawn hollow, claims outside the model
are named at the right edge instead of a point.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

from islands.model.paper_claims import TOLERANCE, ClaimsTable
from islands.plots._common import Drawing
from islands.plots.figure_rules import titled
from islands.plots.inline_figure import InlineFigure

__all__ = ["plot_claims"]

#: Colour per row status.
STATUS_COLORS = {
    "lands": "#55A868",
    "misses": "#C44E52",
    "dependent": "#8C8C8C",
    "by construction": "#8C8C8C",
    "fitted": "#8C8C8C",
    "not in the model": "#8C8C8C",
}
#: The log axis is clipped to this factor either side of the paper's number.
CLIP = 100.0


def plot_claims(tables: Sequence[ClaimsTable]) -> Drawing:
    """Draws ``tables`` (one column each; the same claims in each) as the module docstring says;
    ``ValueError`` for no table or tables of different claims."""
    if not tables:
        raise ValueError("claims figure: no table to draw")
    ids = [r.claim.id for r in tables[0].rows]
    if any([r.claim.id for r in t.rows] != ids for t in tables):
        raise ValueError("claims figure: the tables hold different claims")
    n = len(ids)
    fig = InlineFigure(figsize=(5.2 * len(tables) + 2.4, 0.32 * n + 2.6), layout="constrained")
    axes = fig.subplots(1, len(tables), squeeze=False, sharey=True)[0]
    for col, (ax, table) in enumerate(zip(axes, tables)):
        ax.axvspan(1 - TOLERANCE, 1 + TOLERANCE, color="#55A868", alpha=0.12, lw=0)
        ax.axvline(1.0, color="#555555", lw=0.8)
        for y, row in enumerate(table.rows):
            color = STATUS_COLORS[row.status]
            if row.model != row.model:
                ax.text(CLIP * 0.9, y, row.status, fontsize=6.5, va="center", ha="right", color=color)
                continue
            x = _clip(row.model / row.claim.value)
            lo, hi = _clip(row.low / row.claim.value), _clip(row.high / row.claim.value)
            if lo == lo and hi == hi:
                ax.plot([lo, hi], [y, y], color=color, lw=1.2)
            hollow = row.status in ("fitted", "dependent", "by construction")
            ax.plot(
                [x], [y], marker="o", ms=5, color=color, markerfacecolor="white" if hollow else color, linestyle="none"
            )
        counts = table.counts("stated")
        ax.set_xscale("log")
        ax.set_xlim(1 / CLIP, CLIP)
        ax.set_title(
            f"{table.engine}\nstated numbers: {counts['lands']} of {counts['checks']} independent checks within "
            f"±{TOLERANCE:.0%}",
            fontsize=8,
        )
        ax.set_xlabel("model / paper (log; shaded: ±25%; whisker: model's 10-90% interval)", fontsize=7)
        ax.tick_params(labelsize=7)
        if col == 0:
            ax.set_yticks(range(n))
            ax.set_yticklabels([f"{r.claim.id} ({r.claim.kind})" for r in table.rows], fontsize=7)
    axes[0].invert_yaxis()
    titled(
        fig,
        "Paper 000's numbers (Figs 8, 11, 14, 17-24) beside the Islands model on the papers' machines\n"
        "green: within ±25%, red: outside (independent checks), hollow grey: a parameter was fitted to it, it "
        "depends on a fitted value or the model meets it by construction (no check), grey text: not in the model",
    )
    lines = []
    for t in tables:
        lines += [*t.lines(), ""]
    summary = "\n".join(lines).rstrip() + "\n"
    caption = "\n".join(textwrap.fill(t.note(), 60 * len(tables)) for t in tables)
    fig.supxlabel(caption, fontsize=7)
    return Drawing(fig, summary, "000-claims-model")


def _clip(x: float) -> float:
    if x != x:
        return math.nan
    if x <= 0:
        return 1 / CLIP
    return min(max(x, 1 / CLIP), CLIP)
