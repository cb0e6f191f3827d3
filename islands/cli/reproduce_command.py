"""``islands reproduce FIGURE-ID [--quick]``: run the experiment that feeds a figure, then draw it.

See :mod:`islands.experiments.reproduce`. Prints, for each experiment file the figure needs, where its
rows and figure went and the figure's summary (``--json``: the same as JSON). Bad input (a
figure the toolkit does not draw, no experiment file for it) is one line with exit status 2.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["main", "register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``reproduce`` subcommand (``func=main``)."""
    from islands.figures.catalog import DRAWN

    figures = sorted(DRAWN)
    p = subparsers.add_parser(
        "reproduce",
        help="run the experiment of one of the papers' figures and draw it",
        description="Run the experiment file(s) that feed a figure (resuming finished "
        "runs), then draw the figure into the results directory. --quick runs a shrunken copy "
        "(short runs, one repetition, at most three values per swept axis) into <name>-quick.",
    )
    p.add_argument("figure", metavar="FIGURE-ID", nargs="?", choices=figures, help="the figure's id")
    p.add_argument(
        "--report",
        action="store_true",
        help="run the quick version of every figure islands draws (or --figures) within --budget-min and write "
        "one page judging each against the paper's claim: <results>/report/index.html and report.md",
    )
    p.add_argument(
        "--budget-min",
        metavar="MIN",
        type=float,
        default=None,
        help="with --report: minutes of runs in all (default 20); figures whose estimate does not fit what is left "
        "are skipped, with a line saying so",
    )
    p.add_argument(
        "--figures",
        metavar="ID",
        nargs="+",
        choices=figures,
        default=None,
        help="with --report: only these figures",
    )
    p.add_argument(
        "--repetitions",
        metavar="N",
        type=int,
        default=None,
        help="with --report: repetitions of each quick point (default 3: a ratio needs two a side for an interval)",
    )
    p.add_argument(
        "--out", metavar="DIR", default=None, help="with --report: where the page goes (default <results>/report)"
    )
    p.add_argument("--quick", action="store_true", help="short runs and fewer points: a quick look, not the figure")
    p.add_argument(
        "--results", metavar="DIR", default="results", help="where the results directories go (default: results)"
    )
    p.add_argument(
        "--experiments",
        metavar="DIR",
        default=None,
        help="where the experiment files are (default: experiments/ of the source checkout, else of the working "
        "directory, else the ones the installed package ships)",
    )
    p.add_argument(
        "--model",
        action="store_true",
        help="also draw the figure through the Islands model (measured vs predicted, projected onto the papers' "
        "machines; see 'islands plot --model')",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print what was run and drawn as JSON")
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Runs and draws; returns the exit status."""
    from islands.cli.json_output import dumps
    from islands.experiments.reproduce import reproduce

    report_only = (args.budget_min, args.figures, args.repetitions, args.out)
    if args.report:
        return _report(args)
    if any(v is not None for v in report_only):
        raise ValueError("--budget-min, --figures, --repetitions and --out go with --report")
    if args.figure is None:
        raise ValueError("name a FIGURE-ID, or give --report")

    if args.model:
        from islands.model.figure_axes import figure_axes

        figure_axes(args.figure)  # refuses before running what the model cannot draw
    done = reproduce(
        args.figure,
        quick=args.quick,
        results=args.results,
        experiments=args.experiments,
        progress=False if args.no_progress else None,
    )
    models = []
    if args.model:
        from islands.plots.model_figures import render_model_figures

        models = [m for r in done for m in render_model_figures(str(r.directory))]
    if args.json:
        print(
            dumps(
                [
                    {
                        "figure": r.figure_id,
                        "experiment": r.experiment,
                        "spec_file": r.spec_file,
                        "directory": r.directory,
                        "ran": r.ran,
                        "skipped": r.skipped,
                        "png": r.rendered.png,
                        "pdf": r.rendered.pdf,
                        "summary": r.rendered.summary,
                    }
                    for r in done
                ]
                + [
                    {"figure": m.figure_id, "model": True, "png": m.png, "pdf": m.pdf, "summary": m.summary}
                    for m in models
                ]
            )
        )
        return 0
    for r in done:
        print(f"{r.experiment} ({r.spec_file}): {r.ran} runs made, {r.skipped} already done; rows in {r.directory}")
        print(f"figure {r.figure_id}: {r.rendered.png}")
        print(f"figure {r.figure_id}: {r.rendered.pdf}")
        print()
        print(r.rendered.summary)
        print()
    for m in models:
        print(f"model figure {m.figure_id}: {m.png}")
        print(f"model figure {m.figure_id}: {m.pdf}")
        print()
        print(m.summary)
        print()
    return 0


def _report(args: argparse.Namespace) -> int:
    from islands.cli.json_output import dumps
    from islands.experiments.report import DEFAULT_BUDGET_MIN, REPORT_REPETITIONS, report

    if args.figure is not None or args.quick or args.model:
        raise ValueError(
            "--report runs the quick version of every figure: give --figures ID ... instead of FIGURE-ID, "
            "and no --quick or --model"
        )
    budget = DEFAULT_BUDGET_MIN if args.budget_min is None else args.budget_min
    if not budget > 0:
        raise ValueError(f"--budget-min {budget:g}: minutes > 0")
    done = report(
        figures=args.figures,
        budget_s=budget * 60,
        results=args.results,
        out=args.out,
        experiments=args.experiments,
        repetitions=REPORT_REPETITIONS if args.repetitions is None else args.repetitions,
        progress=False if args.no_progress or args.json else None,
        echo=None if args.json else print,
    )
    if args.json:
        print(
            dumps(
                {
                    "markdown": done.markdown,
                    "html": done.html,
                    "spent_s": done.spent_s,
                    "figures": [
                        {
                            "figure": f.figure,
                            "verdict": f.verdict,
                            "line": f.line,
                            "directories": f.directories,
                            "checks": [
                                {"claim": c.check.claim, "outcome": c.outcome, "words": c.words, "cause": c.cause}
                                for c in f.checks
                            ],
                        }
                        for f in done.figures
                    ],
                }
            )
        )
    return 0
