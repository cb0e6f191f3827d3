"""The reproduction report's page (``islands reproduce --report``): per figure of the papers,
the claim in the paper's words, what was measured here with its interval, the model's projection
onto the paper's machine and the verdict with its cause, as Markdown (``report.md``) and HTML
(``index.html``) in one directory.

What is measured and judged comes from :mod:`islands.experiments.report` (the runs) and
:mod:`islands.analysis.reproduction` (the checks and their words); this module adds the
model's projection (:func:`projections`, the closed form on the papers' machines, as
``islands plot --model`` draws it) and writes the page.
"""

from __future__ import annotations

import datetime
import html
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from islands.analysis.guarded_files import DIRECTORY_MODE, make_directory, write_by_rename
from islands.analysis.reproduction import CheckOutcome
from islands.analysis.verdicts import REPORT_RULE, model_trend_words

__all__ = ["HTML_PAGE", "MARKDOWN_PAGE", "ReportFigure", "projections", "write_report"]

#: The page's files in the report directory.
HTML_PAGE = "index.html"
MARKDOWN_PAGE = "report.md"
QUICK_LOOK = "Quick runs are short and few: a verdict here is a quick look, not the figure."


@dataclass
class ReportFigure:
    """One figure on the page: what the paper reported, what happened here (``line``), the
    checks and the figure's ``verdict``, the figure's own summary, its images (absolute paths,
    copied beside the page) and the model's projection lines."""

    figure: str
    paper: str
    claim: str
    parameters: str = ""
    verdict: str = ""
    line: str = ""
    checks: list[CheckOutcome] = field(default_factory=list)
    summary: str = ""
    images: list[Path] = field(default_factory=list)
    directories: list[Path] = field(default_factory=list)
    model: list[str] = field(default_factory=list)


def projections(figures: Iterable[str]) -> tuple[dict[str, list[str]], str]:
    """The model's projection of each figure onto the papers' machines: one line per trend the
    paper states (``4x6: <claim>: <prediction>; <verdict words>``), from the closed form with the
    chosen parameters (:func:`islands.model.parameters.chosen_parameters`), and where the
    parameters come from. A figure the model does not project has no entry; the fixture machines
    missing (an installed package) give none at all, with the reason."""
    from islands.model.parameters import chosen_parameters
    from islands.model.validation import paper_trends
    from islands.plots.model_figures import figure_trends, projection_machines

    wanted = set(figures)
    try:
        machines = projection_machines()
    except ValueError as e:
        return {}, str(e)
    parameters, source = chosen_parameters(None)
    out: dict[str, list[str]] = {}
    trends = [t for t in paper_trends(dict(machines), parameters) if t.figure in wanted]
    if "000-fig20" in wanted:  # by simulation: a few seconds
        trends = [t for t in trends if t.figure != "000-fig20"] + figure_trends("000-fig20", machines, parameters)
    for t in trends:
        words = model_trend_words(t.reproduced, t.criterion, None).text
        out.setdefault(t.figure, []).append(f"{t.machine}: {t.claim}: {t.predicted}; {words}")
    return out, source


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def write_report(
    figures: Sequence[ReportFigure], out: str | Path, header: Sequence[str], model_source: str = ""
) -> tuple[Path, Path]:
    """Writes ``report.md`` and ``index.html`` into ``out`` (made if missing; the figures'
    images copied into it) and returns their paths. ``header``: the lines that open the page
    (the machine, the budget, what was run and skipped)."""
    target = Path(out)
    make_directory(target, DIRECTORY_MODE, "report directory")
    images: dict[str, list[str]] = {}
    for f in figures:
        for i, png in enumerate(f.images):
            if png.is_file():
                name = f"{f.figure}-{i}.png" if i else f"{f.figure}.png"
                shutil.copyfile(png, target / name)
                images.setdefault(f.figure, []).append(name)
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    counts: dict[str, int] = {}
    for f in figures:
        counts[f.verdict] = counts.get(f.verdict, 0) + 1
    tally = ", ".join(f"{v}: {n}" for v, n in sorted(counts.items()))
    md = ["# islands: reproduction report", "", f"Written {now}. Verdicts: {tally}.", ""]
    md += [f"- {_md(h)}" for h in header]
    if model_source:
        md.append(f"- model projections: the closed form on the papers' machines, parameters: {_md(model_source)}")
    md += [
        "",
        f"{REPORT_RULE} {QUICK_LOOK}",
        "",
        "| figure | paper's claim | verdict |",
        "|---|---|---|",
    ]
    md += [f"| [{f.figure}](#{f.figure}) | {_md(f.claim)} | {_md(f.verdict)} |" for f in figures]
    for f in figures:
        md += [
            "",
            f"## {f.figure}",
            "",
            f"**Paper {f.paper}**: {_md(f.claim)}" + (f" ({_md(f.parameters)})" if f.parameters else ""),
        ]
        md += ["", f"**Verdict: {f.verdict}**" + (f". {_md(f.line)}" if f.line else ""), ""]
        for c in f.checks:
            cause = f" Cause: {_md(c.cause)}." if c.cause else ""
            md.append(
                f'- "{_md(c.check.claim)}" ({_md(c.sides or c.check.label())}, {c.runs} runs): {_md(c.words)}.{cause}'
            )
        if f.model:
            md += ["", "Model, projected onto the paper's machines (not a measurement):", ""]
            md += [f"- {_md(m)}" for m in f.model]
        for name in images.get(f.figure, []):
            md += ["", f"![{f.figure}]({name})"]
        if f.summary:
            md += ["", "```", f.summary.strip(), "```"]
    md_path, html_path = target / MARKDOWN_PAGE, target / HTML_PAGE
    write_by_rename(md_path, "\n".join(md) + "\n")
    write_by_rename(html_path, _html(figures, header, model_source, images, now, tally))
    return md_path, html_path


_STYLE = """
body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 90%; }
section { border-top: 1px solid #ccc; margin-top: 2em; }
td, th { border-bottom: 1px solid #eee; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
.cause { color: #a00; }
"""


def _html(
    figures: Sequence[ReportFigure],
    header: Sequence[str],
    model_source: str,
    images: dict[str, list[str]],
    now: str,
    tally: str,
) -> str:
    head = "".join(f"<li>{_esc(h)}</li>" for h in header)
    if model_source:
        head += f"<li>model projections: the closed form on the papers' machines, parameters: {_esc(model_source)}</li>"
    rows = "".join(
        f"<tr><td><a href='#{_esc(f.figure)}'>{_esc(f.figure)}</a></td><td>{_esc(f.claim)}</td>"
        f"<td>{_esc(f.verdict)}</td></tr>"
        for f in figures
    )
    sections = []
    for f in figures:
        checks = "".join(
            f"<li>“{_esc(c.check.claim)}” ({_esc(c.sides or c.check.label())}, {c.runs} runs): {_esc(c.words)}"
            + (f" <span class='cause'>Cause: {_esc(c.cause)}.</span>" if c.cause else "")
            + "</li>"
            for c in f.checks
        )
        model = (
            "<p>Model, projected onto the paper's machines (not a measurement):</p><ul>"
            + "".join(f"<li>{_esc(m)}</li>" for m in f.model)
            + "</ul>"
            if f.model
            else ""
        )
        pictures = "".join(
            f"<a href='{_esc(n)}'><img src='{_esc(n)}' alt='{_esc(f.figure)}'></a>" for n in images.get(f.figure, [])
        )
        summary = (
            f"<details><summary>The figure's summary</summary><pre>{_esc(f.summary.strip())}</pre></details>"
            if f.summary
            else ""
        )
        params = f" ({_esc(f.parameters)})" if f.parameters else ""
        line = f". {_esc(f.line)}" if f.line else ""
        sections.append(
            f"<section id='{_esc(f.figure)}'><h2>{_esc(f.figure)}</h2>"
            f"<p><b>Paper {_esc(f.paper)}</b>: {_esc(f.claim)}{params}</p>"
            f"<p><b>Verdict: {_esc(f.verdict)}</b>{line}</p><ul>{checks}</ul>{model}{pictures}{summary}</section>"
        )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>islands: reproduction report</title>"
        f"<style>{_STYLE}</style></head><body><h1>islands: reproduction report</h1>"
        f"<p>Written {_esc(now)}. Verdicts: {_esc(tally)}.</p><ul>{head}</ul>"
        f"<p>{_esc(REPORT_RULE)} {_esc(QUICK_LOOK)}</p>"
        f"<table><tr><th>figure</th><th>paper's claim</th><th>verdict</th></tr>{rows}</table>"
        + "".join(sections)
        + "</body></html>\n"
    )
