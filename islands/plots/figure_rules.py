"""The figure standard (docs/figures.md, "The figure standard"), applied to every figure as it is
finished: a title of at most two lines in one style (the figure and what it shows, then the
machine), the rest of what a title used to carry (runs, warm-up, logging, notes) as a caption
under the panels; on a log axis, the y-range fitted to the data (never more than a decade beyond
it, so that one wide interval cannot hide the gap a figure is about); and a stamp on a figure drawn
from an interrupted sweep.

Figure functions call :func:`titled` instead of ``fig.suptitle``; ``islands plot`` stamps a
partial sweep's figure with :func:`stamp_partial`."""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure, SubFigure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.text import Text
from matplotlib.transforms import Bbox

__all__ = [
    "MAX_TITLE_LINES",
    "TITLE_SIZE",
    "CaptionedLayout",
    "figure_words",
    "fit_log_axes",
    "paper_lines",
    "stamp_partial",
    "titled",
]

#: Every figure's title: this size, at most this many lines.
TITLE_SIZE = 10.0
MAX_TITLE_LINES = 2
#: The caption's size (the notes under the panels).
CAPTION_SIZE = 7.5
#: How far (a factor) a log axis may reach beyond its data to show an interval's end.
LOG_REACH = 10**0.5


def _chars(fig: Figure | SubFigure, fontsize: float) -> int:
    width = fig.get_figure(root=True).get_figwidth() if isinstance(fig, SubFigure) else fig.get_figwidth()
    if isinstance(fig, SubFigure):
        width *= fig.bbox.width / max(fig.get_figure(root=True).bbox.width, 1)
    return max(30, int(width * 72 / (0.56 * fontsize)))  # DejaVu Sans: ~0.56 em a character


def titled(fig: Figure | SubFigure, text: str, notes: Sequence[str] = ()) -> None:
    """Titles ``fig`` in the one style: the first line of ``text`` (the figure and what it shows)
    and, where it fits in the second line, the next one (the machine); every other line of
    ``text`` and ``notes`` go into a caption under the panels. Then fits the log axes
    (:func:`fit_log_axes`)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    chars = _chars(fig, TITLE_SIZE)
    head = textwrap.wrap(lines[0], chars, break_on_hyphens=False) if lines else []
    rest = lines[1:]
    if len(head) > MAX_TITLE_LINES:
        head = [*head[: MAX_TITLE_LINES - 1], textwrap.shorten(" ".join(head[MAX_TITLE_LINES - 1 :]), chars)]
        rest = [lines[0], *rest]  # the whole of it in the caption
    if len(head) < MAX_TITLE_LINES and rest:
        second = textwrap.wrap(rest[0], chars, break_on_hyphens=False)
        if len(second) == 1:
            head.append(rest.pop(0))
    fig.suptitle("\n".join(head), fontsize=TITLE_SIZE)
    caption = [*paper_lines(lines[0] if lines else ""), *rest, *notes]
    if fig.get_figure(root=True).axes and any(ax.get_yscale() == "log" for ax in fig.get_figure(root=True).axes):
        caption.append("on log axes: geometric means, their intervals computed on the logarithms")
    if caption:
        _caption(fig, caption)
    fit_log_axes(fig.get_figure(root=True))


_PAPER = re.compile(r"\b(\d{3})[ -](?:fig|table)", re.IGNORECASE)
_NUMBERED = re.compile(r"\b(fig|table)\.? ?(\d+)", re.IGNORECASE)


def paper_lines(title: str) -> list[str]:
    """What the paper reported for the figures a title names ("000 Fig 11: ...", "... (000 Fig 2)",
    "000 Fig 17 and Fig 18: ..."), one line each as the figure catalog words it
    (:data:`islands.figures.catalog.CATALOG`): "paper (000-fig11): 1ISL flat; per-core best at 0% ...";
    none for a title that names no figure of a paper."""
    from islands.figures.catalog import CATALOG

    paper = _PAPER.search(title)
    if paper is None:
        return []
    ids = [f"{paper.group(1)}-{kind.lower()}{number}" for kind, number in _NUMBERED.findall(title[paper.start() :])]
    out: list[str] = []
    for figure in CATALOG:
        if any(i in figure.ids for i in ids) and figure.shape:
            line = f"paper ({figure.label}): {figure.shape}"
            if line not in out:
                out.append(line)
    return out


class CaptionedLayout(ConstrainedLayoutEngine):
    """Constrained layout above a caption band at the bottom of the figure: the caption (a text
    of the figure, :attr:`caption`) is measured at each draw, the panels, the titles and the
    legends are laid out in the rest of the figure, and a legend placed "outside lower" sits just
    above the caption instead of on it (matplotlib puts such a legend and ``supxlabel`` at the
    same bottom edge, one over the other)."""

    def __init__(self, caption: Text, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.caption = caption

    def execute(self, fig: Any) -> Any:
        renderer = fig._get_renderer()
        height = max(fig.bbox.height, 1.0)
        gap = CAPTION_GAP * fig.dpi / 72 / height
        self.caption.set_position((self.caption.get_position()[0], gap))
        band = self.caption.get_window_extent(renderer).height / height + 2 * gap
        self.set(rect=(0.0, band, 1.0, 1.0 - band))
        lower = [leg for leg in fig.legends if getattr(leg, "_outside_loc", None) == "lower"]
        for leg in lower:  # the layout keeps room for it only while it has no anchor of its own
            leg._bbox_to_anchor = None
        result = super().execute(fig)
        for leg in lower:
            leg.set_bbox_to_anchor(Bbox.from_bounds(0.0, band, 1.0, 1.0 - band), transform=fig.transFigure)
        label = fig._supxlabel
        if label is not None and label.get_in_layout() and getattr(label, "_autopos", False):
            x, y = label.get_position()  # the layout put it at the figure's bottom edge: above the caption
            label.set_position((x, y + band))
        return result


#: Points between the caption and the figure's bottom edge, and between it and what is above it.
CAPTION_GAP = 4.0


def _caption(fig: Figure | SubFigure, lines: Sequence[str]) -> None:
    """The caption's lines under the panels, in a band the layout keeps free (the figure grows by it)."""
    chars = _chars(fig, CAPTION_SIZE)
    wrapped = [w for line in lines for w in (textwrap.wrap(line, chars, break_on_hyphens=False) or [""])]
    if isinstance(fig, SubFigure):  # no band of its own: the caption under the subfigure's title
        fig.suptitle(fig.get_suptitle() + "\n" + "\n".join(wrapped), fontsize=TITLE_SIZE)
        return
    height = (len(wrapped) * 1.3 * CAPTION_SIZE + 6) / 72  # inches
    old = fig.get_figheight()
    fig.set_figheight(old + height)  # the panels keep their size
    engine = fig.get_layout_engine()
    text = fig.text(
        0.01,
        0.0,
        "\n".join(wrapped),
        ha="left",
        va="bottom",
        fontsize=CAPTION_SIZE,
        color="0.25",
        linespacing=1.3,
    )
    text.set_in_layout(False)
    text._islands_caption = True  # type: ignore[attr-defined]
    if isinstance(engine, ConstrainedLayoutEngine):
        # the layout runs above the caption, the legends below the panels above it
        params = {k: v for k, v in engine.get().items() if k != "rect"}
        fig.set_layout_engine(CaptionedLayout(text, **params))
        return
    share = height / (old + height)
    for ax in fig.axes:  # a figure laid out by hand: move the panels up by the band
        box = ax.get_position()
        ax.set_position((box.x0, share + box.y0 * (1 - share), box.width, box.height * (1 - share)))
    text.set_verticalalignment("top")
    text.set_y(share - 3 / 72 / (old + height))


def _data_and_intervals(ax: Axes) -> tuple[list[float], list[float]]:
    """The y values a panel plots (lines, markers) and the ends of its error bars."""
    data: list[float] = []
    ends: list[float] = []
    in_containers = set()
    for container in ax.containers:
        if isinstance(container, ErrorbarContainer):
            line, caps, bars = container.lines
            if line is not None:
                data += [float(v) for v in np.asarray(line.get_ydata(), float)]
                in_containers.add(line)
            for cap in caps:
                in_containers.add(cap)
            for collection in bars:
                for segment in collection.get_segments():
                    ends += [float(y) for _, y in segment]
    for line in ax.lines:
        if line not in in_containers:
            data += [float(v) for v in np.asarray(line.get_ydata(), float) if isinstance(v, (int, float, np.number))]
    for points in ax.collections:  # scatter dots (an error bar's segments are LineCollections)
        if isinstance(points, PathCollection):
            offsets = np.asarray(points.get_offsets(), float)
            if offsets.size:
                data += [float(y) for y in offsets[:, 1]]
    return [v for v in data if math.isfinite(v) and v > 0], [v for v in ends if math.isfinite(v) and v > 0]


def fit_log_axes(fig: Figure) -> None:
    """Each log y axis spans its panels' data, reaching beyond it only for the intervals' ends and
    never more than :data:`LOG_REACH` (an interval that goes further is cut at the axis)."""
    done: set[int] = set()
    for ax in fig.axes:
        if ax.get_yscale() != "log" or id(ax) in done:
            continue
        group = ax.get_shared_y_axes().get_siblings(ax)
        done |= {id(a) for a in group}
        data: list[float] = []
        ends: list[float] = []
        for a in group:
            d, e = _data_and_intervals(a)
            data += d
            ends += e
        if not data:
            continue
        low, high = min(data), max(data)
        low = max(min([low, *ends]), low / LOG_REACH)
        high = min(max([high, *ends]), high * LOG_REACH)
        pad = (math.log10(high) - math.log10(low)) * 0.05 or 0.05
        ax.set_ylim(10 ** (math.log10(low) - pad), 10 ** (math.log10(high) + pad))


def stamp_partial(fig: Figure, words: str) -> None:
    """``PARTIAL`` across the top-left corner with ``words`` (how much of the sweep ran): a figure
    from an interrupted sweep must not pass for the whole one."""
    stamp(fig, f"PARTIAL: {words}")


def stamp(fig: Figure, words: str) -> None:
    """``words`` in a red box across the top-left corner: what a reader must know before reading
    the figure (an interrupted sweep, functional runs)."""
    fig.text(
        0.01,
        0.995,
        words,
        ha="left",
        va="top",
        fontsize=9,
        fontweight="bold",
        color="#C44E52",
        bbox={"facecolor": "white", "edgecolor": "#C44E52", "alpha": 0.9, "pad": 2},
    )


def figure_words(fig: Figure) -> str:
    """Everything a figure says in words outside its panels: the title, then the caption and any
    stamp, as one line (wrapping undone), for tests and notebooks that look for a note on the image."""
    title = fig.get_suptitle()
    label = getattr(fig, "_supxlabel", None)
    caption = label.get_text() if label is not None else ""
    texts = [t.get_text() for t in fig.texts if t.get_text() != title]
    return " ".join(" ".join([title, caption, *texts]).split())
