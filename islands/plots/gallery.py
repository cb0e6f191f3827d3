"""A static HTML page of the figures under a results root, with their configs, summaries and
machines (``islands gallery RESULTS``).

Each results directory under the root (``results/<experiment>``, made by ``islands sweep``,
``islands reproduce`` or ``islands bench``) is one entry. A sweep's figure is drawn afresh
from its stored rows (so the page shows the latest rows, finished or not) with the same
function as ``islands plot``; a benchmark's figures are the PNGs it drew. Everything the page
shows is copied next to it (``<out>/<directory name>/``: the PNG, the PDF, summary.txt and
manifest.json), so the page can be moved or served as it is. A directory whose figure cannot
be drawn (no rows yet, an unknown figure) is listed with the reason instead of an image.
"""

from __future__ import annotations

import datetime
import html
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from islands.analysis.guarded_files import DIRECTORY_MODE, make_directory, write_by_rename
from islands.analysis.verdicts import CONTRADICTED, NOT_MEASURED_HERE, PARTLY, REPRODUCED

__all__ = ["Entry", "build_gallery", "find_results"]

#: The page's file name in the output directory.
INDEX = "index.html"
#: Host metadata shown for each entry (the rest stays in manifest.json).
_MACHINE_KEYS = (
    "hostname",
    "cpu_model",
    "n_online_cpus",
    "kernel",
    "os",
    "python",
    "compiler",
    "build_type",
    "islands_version",
    "git_revision",
    "timestamp_utc",
)


@dataclass
class Entry:
    """One results directory on the page: where it is, its manifest, and what was copied."""

    source: Path
    name: str
    manifest: dict[str, Any]
    images: list[str] = field(default_factory=list)  #: paths relative to the page
    files: list[str] = field(default_factory=list)  #: other copied files, relative to the page
    summary: str = ""
    problem: str = ""  #: why no figure was drawn ("" when one was)
    paper: list[str] = field(default_factory=list)  #: the shape each paper figure shown here reported
    verdict: str = NOT_MEASURED_HERE  #: the papers' claims on these rows, in one word (:func:`_verdict`)
    checks: list[str] = field(default_factory=list)  #: each claim checked, in words

    @property
    def title(self) -> str:
        """The entry's heading and its link in the list: the figure, the experiment and, where
        the directory is named otherwise, the directory (two runs of one experiment differ)."""
        experiment = str(self.manifest.get("experiment") or self.name)
        return f"{self.figure_id or 'no figure'} — {experiment}" + (
            f" ({self.name})" if experiment != self.name else ""
        )

    @property
    def figure_id(self) -> str:
        """The figure the directory feeds ("" when its manifest names none)."""
        return str(self.manifest.get("figure") or "")

    @property
    def anchor(self) -> str:
        """The entry's id in the page."""
        return "entry-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in self.name)


def find_results(root: str | Path) -> list[Path]:
    """The results directories under ``root`` (those holding a manifest.json): ``root`` itself
    if it is one, else its subdirectories that are, sorted by name. ValueError (one line) when
    ``root`` does not exist or holds none."""
    from islands.analysis.store import MANIFEST_FILE, results_directory

    base = results_directory(root)
    if (base / MANIFEST_FILE).is_file():
        return [base]
    found = sorted(d for d in base.iterdir() if d.is_dir() and (d / MANIFEST_FILE).is_file())
    if not found:
        raise ValueError(f"{base}: no results directories in it (none holds a {MANIFEST_FILE})")
    return found


def _collect(source: Path, out: Path) -> Entry:
    """Copies what the page shows of one results directory into ``out/<its name>/``."""
    from islands.analysis.store import ResultStore
    from islands.plots import FIGURES, render_results

    store = ResultStore(source)
    try:
        manifest = store.manifest()
    except (OSError, ValueError) as e:
        manifest, problem = {}, f"cannot read {store.manifest_path.name} ({e})"
    else:
        problem = ""
    entry = Entry(source=source, name=source.name, manifest=manifest, problem=problem)
    target = out / source.name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    if not problem and store.manifest_path.is_file():
        shutil.copyfile(store.manifest_path, target / store.manifest_path.name)
        entry.files.append(f"{source.name}/{store.manifest_path.name}")
    if problem:
        return entry
    if entry.figure_id in FIGURES:
        try:
            rendered = render_results(source, target)
        except ValueError as e:
            entry.problem = str(e)
        else:
            entry.summary = rendered.summary
            entry.images.append(f"{source.name}/{rendered.png.name}")
            entry.files += [f"{source.name}/{p.name}" for p in (rendered.pdf, rendered.summary_path)]
            _verdict(entry, store)
        entry.paper = _paper([entry.figure_id])
        return entry
    bench = str(manifest.get("bench") or "")
    if bench:  # a hardware benchmark: its figures, drawn afresh from its rows
        _draw_bench(entry, store, target)
    else:
        for png in sorted(source.glob("*.png")):
            shutil.copyfile(png, target / png.name)
            entry.images.append(f"{source.name}/{png.name}")
        if not entry.images:
            entry.problem = f"figure {entry.figure_id!r} has no plot here and the directory holds no PNG"
    for extra in (source / "summary.txt",):
        if extra.is_file():
            shutil.copyfile(extra, target / extra.name)
            entry.files.append(f"{source.name}/{extra.name}")
            entry.summary = extra.read_text()
    return entry


def _draw_bench(entry: Entry, store: Any, target: Path) -> None:
    from islands.figures.catalog import BENCH_COMMANDS
    from islands.machine.topology import Topology, TopologyError
    from islands.plots.bench_figures import BENCH_FIGURES, bench_summary, draw_bench

    bench = str(entry.manifest.get("bench"))
    if bench not in BENCH_FIGURES:
        entry.problem = f"benchmark {bench!r} has no figure here"
        return
    try:
        rows = store.rows()
        topology = Topology.from_dict(entry.manifest.get("topology") or {})
    except (OSError, ValueError, TopologyError) as e:
        entry.problem = f"cannot read the benchmark's rows or topology ({e})"
        return
    if rows.empty:
        entry.problem = "no result rows yet"
        return
    drawn = draw_bench(bench, rows, target, topology)
    entry.images += [f"{entry.name}/{p.name}" for p in drawn]
    entry.summary = bench_summary(bench, rows)
    entry.paper = _paper([fid for fid, command in BENCH_COMMANDS.items() if command == f"islands bench {bench}"])
    if not drawn:
        entry.problem = "its rows cannot show a figure (for instance one placement only)"


def _paper(ids: list[str]) -> list[str]:
    """What the papers reported for figures ``ids``, one line per catalog entry."""
    from islands.figures.catalog import CATALOG

    return [f"{f.label}: {f.shape}" for f in CATALOG if any(i in f.ids for i in ids)]


def _verdict(entry: Entry, store: Any) -> None:
    """The papers' claims on the figure checked on these rows (:mod:`islands.analysis.reproduction`):
    the figure's verdict in one word and each check's words; "not measured here" where no claim of
    the figure has a check or the rows hold neither side of one."""
    from islands.analysis.reproduction import figure_verdict, run_checks

    try:
        outcomes = run_checks(entry.figure_id, [store.rows()])
    except (OSError, ValueError, KeyError) as e:
        entry.checks = [f"the claims could not be checked ({e})"]
        return
    if outcomes:
        entry.verdict = figure_verdict(outcomes)
    entry.checks = [
        f"{o.check.claim} ({o.sides or o.check.label()}): {o.words}" + (f"; {o.cause}" if o.cause else "")
        for o in outcomes
    ]


def _ordered(entries: list[Entry]) -> list[Entry]:
    """Every directory, ordered by figure id, then experiment, then name: two directories of
    one experiment (the before and after that ``islands compare`` reads) are two entries, side
    by side."""
    return sorted(entries, key=lambda e: (e.figure_id or "~", str(e.manifest.get("experiment") or ""), e.name))


def build_gallery(results: str | Path, out: str | Path | None = None, problems: list[str] | None = None) -> Path:
    """Writes the page for the results directories under ``results`` into ``out`` (default
    ``<results>/gallery``) and returns the page's path. Raises ValueError (one line) for a
    root with no results directories or an output directory that cannot be written. Each
    directory whose figure could not be drawn adds its one line to ``problems`` (a damaged or
    foreign part names the file), for the command to print."""
    root = Path(results)
    sources = find_results(root)
    target = Path(out) if out is not None else root / "gallery"
    # Made owner-writable whatever the umask; a planted link or another user's directory refused.
    make_directory(target, DIRECTORY_MODE, "gallery directory")
    resolved = target.resolve()
    sources = [s for s in sources if s.resolve() != resolved]
    try:
        entries = _ordered([_collect(s, target) for s in sources])
        if problems is not None:
            problems += [f"{e.source}: {_CONTROL_OR_BREAK.sub(_visible, e.problem)}" for e in entries if e.problem]
        page = target / INDEX
        # replaces a link planted there, never follows it
        write_by_rename(page, _page(root, entries, _report_link(root, target)))
    except OSError as e:
        raise ValueError(f"{target}: cannot write the gallery ({e.strerror or e})") from None
    return page


#: Control characters (C0, DEL, C1) other than a line break and a tab: shown as escapes.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_OR_BREAK = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _visible(m: re.Match[str]) -> str:
    return f"\\x{ord(m.group()):02x}"


def _esc(value: Any, lines: bool = False) -> str:
    """``value`` for the page: HTML-escaped, and every control character written as an escape
    (``\\x1b``) so that a figure id or a name from a manifest cannot hide or fake text
    (``lines``: line breaks and tabs kept, for the summaries and configs in ``<pre>``)."""
    return html.escape((_CONTROL if lines else _CONTROL_OR_BREAK).sub(_visible, str(value)), quote=True)


def _machine(manifest: dict[str, Any]) -> str:
    from islands.machine.topology import Topology, TopologyError

    meta = manifest.get("metadata") or {}
    rows = "".join(f"<tr><th>{_esc(k)}</th><td>{_esc(meta[k])}</td></tr>" for k in _MACHINE_KEYS if k in meta)
    text = ""
    if manifest.get("topology"):
        try:
            text = Topology.from_dict(manifest["topology"]).describe()
        except (TopologyError, TypeError, ValueError) as e:
            text = f"(topology not readable: {e})"
    table = f"<table class='machine'>{rows}</table>" if rows else "<p>no host metadata recorded</p>"
    return table + (f"<pre class='topology'>{_esc(text, lines=True)}</pre>" if text else "")


def _config(manifest: dict[str, Any]) -> str:
    spec = manifest.get("spec") or manifest.get("config")
    if spec is None:
        return "<p>no config recorded</p>"
    return f"<pre class='config'>{_esc(json.dumps(spec, indent=2, sort_keys=True, default=str), lines=True)}</pre>"


def _beside(e: Entry) -> str:
    """What sits beside the figure: the shape the paper reported and the verdict on these rows."""
    if not e.figure_id and not e.paper:
        return ""
    paper = "".join(f"<li>{_esc(line)}</li>" for line in e.paper) or "<li>not in the figure catalog</li>"
    checks = "".join(f"<li>{_esc(line)}</li>" for line in e.checks)
    return (
        f"<aside class='paper'><h3>The paper</h3><ul>{paper}</ul>"
        f"<p class='verdict verdict-{_esc(e.verdict.replace(' ', '-'))}'>Here: <strong>{_esc(e.verdict)}</strong></p>"
        + (f"<ul class='checks'>{checks}</ul>" if checks else "")
        + "</aside>"
    )


def _section(e: Entry) -> str:
    m = e.manifest
    title = e.title
    facts = ", ".join(
        f"{k} {_esc(m[k])}" for k in ("status", "runs_done", "runs_total", "updated_utc", "spec_hash") if k in m
    )
    images = "".join(
        f"<a href='{_esc(src)}'><img src='{_esc(src)}' alt='{_esc(e.figure_id)} from {_esc(e.name)}'></a>"
        for src in e.images
    )
    problem = f"<p class='problem'>{_esc(e.problem, lines=True)}</p>" if e.problem else ""
    links = " · ".join(f"<a href='{_esc(f)}'>{_esc(Path(f).name)}</a>" for f in e.images + e.files)
    summary = f"<h3>Summary</h3><pre class='summary'>{_esc(e.summary.strip(), lines=True)}</pre>" if e.summary else ""
    return (
        f"<section id='{e.anchor}'><h2>{_esc(title)}</h2>"
        f"<p class='facts'>from <code>{_esc(e.source)}</code>; {facts}</p>"
        f"{problem}<div class='figure-row'><div class='figures'>{images}</div>{_beside(e)}</div>"
        f"<p class='files'>{links}</p>{summary}"
        f"<details><summary>Config</summary>{_config(m)}</details>"
        f"<details><summary>Machine</summary>{_machine(m)}</details>"
        f"<p><a href='#top'>back to the list</a></p></section>"
    )


_STYLE = """
body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 90%; white-space: pre-wrap;
      overflow-wrap: anywhere; }
.figure-row { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.figures { flex: 1 1 640px; min-width: 0; }
aside.paper { flex: 1 1 220px; max-width: 100%; font-size: 90%; background: #fafafa; border-left: 3px solid #ccc;
      padding: 0 0.8em; overflow-wrap: anywhere; }
aside.paper ul { padding-left: 1.2em; }
section { border-top: 1px solid #ccc; margin-top: 2em; }
.problem { color: #a00; }
.facts, .files { color: #555; }
table.machine th { text-align: left; padding-right: 1em; font-weight: normal; color: #555; }
"""
# Each verdict's colour, keyed by the verdict module's own words (no verdict word written here).
_VERDICT_COLOURS = {REPRODUCED: "#276b2d", CONTRADICTED: "#a00", PARTLY: "#8a5a00"}
_STYLE += "".join(f".verdict-{word} {{ color: {colour}; }}\n" for word, colour in _VERDICT_COLOURS.items())


#: The reproduction report's page under a results root (``islands reproduce --report``).
REPORT_PAGE = Path("report") / "index.html"


def _report_link(root: Path, target: Path) -> str:
    """The reproduction report's page relative to the gallery's directory, "" when there is none."""
    import os

    report = root / REPORT_PAGE
    return Path(os.path.relpath(report, target)).as_posix() if report.is_file() else ""


def _page(root: Path, entries: list[Entry], report: str = "") -> str:
    from islands.analysis.revision import git_revision, package_version

    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    items = "".join(
        f"<li><a href='#{e.anchor}'>{_esc(e.title)}</a>"
        f"{', ' + _esc(e.manifest['status']) if e.manifest.get('status') else ''}"
        + (f": {_esc(e.verdict)}" if e.figure_id or e.paper else "")
        + "</li>"
        for e in entries
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>islands figures: {_esc(root)}</title><style>{_STYLE}</style></head>"
        f"<body><h1 id='top'>islands figures</h1>"
        f"<p>{len(entries)} results directories under <code>{_esc(root)}</code>; page written {now} by islands "
        f"{_esc(package_version())} (git {_esc(git_revision())}).</p>"
        + (
            f"<p class='report'>The papers' claims judged against quick runs of these figures: "
            f"<a href='{_esc(report)}'>the reproduction report</a>.</p>"
            if report
            else ""
        )
        + f"<ul class='toc'>{items}</ul>"
        + "".join(_section(e) for e in entries)
        + "</body></html>\n"
    )
