"""The figure class every plot draws on: a matplotlib ``Figure`` on the Agg canvas (no pyplot
state, safe in threads and scripts) that a notebook shows as an image.

Jupyter shows a bare ``Figure`` as an image only once pyplot's inline backend has registered
its formatter; figures made without pyplot would print as ``<Figure size 1240x500 with 2
Axes>``. :class:`InlineFigure` brings its own ``_repr_png_``, so the last expression of a cell
(a figure, or a :class:`~islands.plots._common.Drawing`) displays as ``image/png`` whether or
not pyplot was ever imported.
"""

from __future__ import annotations

import io
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import ScalarFormatter

__all__ = ["InlineFigure", "plain_numbers", "png_bytes"]

#: Resolution of the image a notebook shows.
NOTEBOOK_DPI = 100


def png_bytes(figure: Figure, dpi: int = NOTEBOOK_DPI) -> bytes:
    """The figure rendered as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def plain_numbers(figure: Figure) -> None:
    """Every linear axis of ``figure`` labelled with whole numbers: no ``1e6`` offset or
    scientific factor above the axis, which a reader misses (the house standard for figures)."""
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            formatter = axis.get_major_formatter()
            if isinstance(formatter, ScalarFormatter):
                formatter.set_useOffset(False)
                formatter.set_scientific(False)


class InlineFigure(Figure):
    """A ``Figure`` that IPython displays as a PNG image (``_repr_png_``), its numbers plain
    (:func:`plain_numbers`) however it is saved."""

    def _repr_png_(self) -> bytes:
        return png_bytes(self)

    def savefig(self, *args: Any, **kwargs: Any) -> None:
        plain_numbers(self)
        super().savefig(*args, **kwargs)
