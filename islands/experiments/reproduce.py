"""Reproduce one of the papers' figures: run the experiment file that feeds it, then draw it.

Every figure :data:`islands.plots.FIGURES` draws has an experiment file in ``experiments/``
whose ``figure`` names it (a file named ``000-fig17-18-...`` feeds both Fig 17 and Fig 18).
:func:`reproduce` sweeps each such file into ``<results>/<experiment name>`` (resuming what
is there) and renders the figure beside the rows, as ``islands sweep`` followed by
``islands plot`` would. ``quick=True`` runs a shrunken copy instead — short runs, one
repetition, at most three values per swept axis (first, middle, last; cores: first two, last) — into
``<results>/<experiment name>-quick``, so that the two never mix. A file with a run-time
schedule (islands.experiments.schedule) keeps its shape in a quick run: :data:`QUICK_LIVE_DURATION_S`
measured, its events and the controller's interval shrunk by the same factor.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from islands.experiments.schedule import scaled
from islands.experiments.spec import ExperimentSpec
from islands.plots import FIGURES, Rendered, render_results

__all__ = [
    "QUICK_DURATION_S",
    "QUICK_LIVE_DURATION_S",
    "QUICK_PROBE_DURATION_S",
    "QUICK_WARMUP_S",
    "Reproduced",
    "default_experiments_dir",
    "experiments_for",
    "quick_spec",
    "reproduce",
]

#: Measured and warm-up seconds of a ``--quick`` run.
QUICK_DURATION_S = 0.2
QUICK_WARMUP_S = 0.05
#: Measured seconds of a ``--quick`` run of a file with a schedule or grid.adaptive: long
#: enough for a few controller intervals on either side of its events.
QUICK_LIVE_DURATION_S = 3.0
#: Measured seconds of a ``--quick`` run of a file with a [probe] (islands.experiments.probes): room for
#: 002 Fig 9's 151 re-partitioning actions, or ten of Table 2's recording phases.
QUICK_PROBE_DURATION_S = 1.0
#: Swept axes that a quick run keeps whole: they are the figure's series, not its x axis.
_KEPT_AXES = ("deployment", "placement", "transport", "design", "adaptive")
#: ``000-fig17-18-txn-size``: paper, first figure, optional second figure.
_FILE_RE = re.compile(r"^(\d{3})-fig(\d+)(?:-(\d+))?-")


@dataclass(frozen=True)
class Reproduced:
    """One experiment file run for a figure: its spec, what the sweep did and the drawing."""

    figure_id: str
    experiment: str
    spec_file: Path
    directory: Path
    ran: int
    skipped: int
    rendered: Rendered


def default_experiments_dir() -> Path | None:
    """Where experiment files are found when no directory is given: ``experiments/`` of the
    source checkout, else of the working directory, else the copy a wheel ships (None where
    there is none); see :mod:`islands.experiments.packaged`."""
    from islands.experiments.packaged import default_experiments_dir as found

    return found()


def _figures_of(path: Path, spec_figure: str) -> set[str]:
    names = {spec_figure}
    m = _FILE_RE.match(path.stem)
    if m:
        paper, first, second = m.groups()
        names |= {f"{paper}-fig{n}" for n in (first, second) if n}
    return names


def experiments_for(figure_id: str, directory: str | Path | None = None) -> list[Path]:
    """The experiment files that feed ``figure_id``, by name. ValueError (one line) for a
    figure the toolkit does not draw or one with no experiment file in ``directory``."""
    from islands.experiments.sweep import load_spec

    if figure_id not in FIGURES:
        raise ValueError(f"figure {figure_id!r}: not one this toolkit draws (known: {', '.join(sorted(FIGURES))})")
    if directory is None:
        default = default_experiments_dir()
        if default is None:
            raise ValueError(
                f"figure {figure_id}: no experiment files here (no experiments/ in the working directory, and this "
                "installation of islands ships none); pass --experiments DIR"
            )
        root = default
    else:
        root = Path(directory)
        if not root.is_dir():
            raise ValueError(f"--experiments {root}: no such directory")
    found = []
    for path in sorted(root.glob("[0-9][0-9][0-9]-*.toml")):
        spec = load_spec(path)
        if figure_id in _figures_of(path, spec.figure):
            found.append(path)
    if not found:
        raise ValueError(f"figure {figure_id}: no experiment file in {root} feeds it")
    return found


def _thin(values: tuple[Any, ...], key: str = "") -> tuple[Any, ...]:
    if len(values) <= 3:
        return values
    # The smallest scales are the ones a small machine can run, and a transaction's smallest
    # size that spans two sites is its second (1 row is local): keep the first two.
    if key in ("cores", "rows_per_txn"):
        return (values[0], values[1], values[-1])
    return (values[0], values[len(values) // 2], values[-1])


def quick_spec(spec: ExperimentSpec) -> ExperimentSpec:
    """The spec shrunk for a quick look: :data:`QUICK_WARMUP_S` + :data:`QUICK_DURATION_S`
    per run (never longer than the file's), one repetition, and each swept axis but the
    deployments, placements, transports and designs cut to its first, middle and last value
    (``cores`` and ``rows_per_txn``: its first two and last). A live spec (a schedule or grid.adaptive) measures
    :data:`QUICK_LIVE_DURATION_S` instead, its event times and controller interval scaled
    with it; one with a [probe] :data:`QUICK_PROBE_DURATION_S`."""
    grid = tuple((key, values if key in _KEPT_AXES else _thin(values, key)) for key, values in spec.grid)
    longest = QUICK_LIVE_DURATION_S if spec.live else QUICK_PROBE_DURATION_S if spec.probe else QUICK_DURATION_S
    duration = min(spec.duration_s, longest)
    factor = duration / spec.duration_s
    return dataclasses.replace(
        spec,
        name=f"{spec.name}-quick",
        grid=grid,
        warmup_s=min(spec.warmup_s, QUICK_WARMUP_S),
        duration_s=duration,
        repetitions=1,
        schedule=scaled(spec.schedule, factor),
        controller_interval_s=spec.controller_interval_s * factor if spec.live else spec.controller_interval_s,
    )


def reproduce(
    figure_id: str,
    quick: bool = False,
    results: str | Path = "results",
    experiments: str | Path | None = None,
    progress: bool | None = None,
) -> list[Reproduced]:
    """Runs every experiment file that feeds ``figure_id`` (see :func:`experiments_for`) into
    ``<results>/<experiment name>[-quick]`` and draws its figure there (PNG, PDF,
    summary.txt). Finished runs already in a directory are kept (the sweep resumes).
    Raises ValueError for bad input, as :class:`islands.experiments.sweep.Sweep` and
    :func:`islands.plots.render_results` do."""
    from islands.experiments.sweep import Sweep, load_spec
    from islands.machine.topology import read_topology

    topology = read_topology()
    done = []
    for path in experiments_for(figure_id, experiments):
        spec = load_spec(path)
        if quick:
            spec = quick_spec(spec)
        directory = Path(results) / spec.name
        outcome = Sweep(spec, topology, directory).run(progress=progress)
        rendered = render_results(directory)
        done.append(
            Reproduced(
                figure_id=figure_id,
                experiment=spec.name,
                spec_file=path,
                directory=directory,
                ran=outcome.ran,
                skipped=outcome.skipped,
                rendered=rendered,
            )
        )
    return done
