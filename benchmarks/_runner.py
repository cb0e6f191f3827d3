"""The one runner of the scripts in benchmarks/: the options they share, and a JSON record of a
run with the host's, the build's and the source's metadata (what pyperf's ``Runner`` gives its
benchmarks).

A benchmark builds one :class:`Runner` at import, adds its own options to ``RUNNER.parser`` and
hands its body to :meth:`Runner.run`::

    RUNNER = Runner(__file__, __doc__, rounds=5, duration=1.0, warmup=0.3)
    RUNNER.parser.add_argument("--cpus", default=None, help="...")


    def main(args: argparse.Namespace) -> None:
        ...  # args.rounds, args.duration, args.warmup; RUNNER.record(...) what it measured


    if __name__ == "__main__":
        RUNNER.run(main)

The shared options, each only where the benchmark gives it a default (an option it would ignore
is never offered): ``--rounds N`` (rounds or repetitions; the older spellings ``--reps`` and
``--repetitions`` still work), ``--duration S`` (measured seconds per run), ``--warmup S``
(warm-up seconds per run), and always ``--json PATH``: the run's record, written when the
benchmark ends — its name and description, command line and options, :func:`collect_metadata`
(host, CPU, compiler and flags, git revision, time), the topology, the wall time, every
measurement it recorded (values and their summary: mean with its 95% interval, median, range),
every goal it held a ratio to (:meth:`Runner.goal`: the ratio, its interval and met / not met /
not distinguishable) and the text it printed. Bad input is one line on stderr and exit status
2, before anything runs.

``python benchmarks/run.py`` lists the benchmarks (docs/benchmarks.md holds each one's line) and
runs one by name.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import io
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from islands.bench.rounds import alternated

if TYPE_CHECKING:
    from islands.analysis.statistics import Ratio

__all__ = ["FORMAT", "Goal", "Measurement", "Runner", "benchmarks", "description_of", "listed", "round_order"]

#: The ``format`` field of a record; its number goes up when a field changes meaning.
FORMAT = "islands-benchmark/1"


#: The order in which a round runs a benchmark's variants: as given, then reversed every other
#: round (islands.bench.rounds.alternated, whose docstring says why).
round_order = alternated


def description_of(doc: str | None) -> str:
    """A docstring's first paragraph as one line (the ``--help`` description and the record's)."""
    paragraph = (doc or "").strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split())


@dataclass
class Measurement:
    """One recorded quantity: its name, unit, the values measured (one per round or repetition,
    NaN where none could be) and the labels that tell it apart (the configuration)."""

    name: str
    unit: str
    values: list[float]
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class Goal:
    """One ratio a benchmark holds to a goal of ``>= target`` (:meth:`Runner.goal`): its name,
    the target, the ratio with its 95% interval (:class:`islands.analysis.statistics.Ratio`'s
    fields) and the verdict (:func:`islands.analysis.verdicts.goal_words`)."""

    name: str
    target: float
    ratio: dict[str, Any]
    verdict: str


class _Parser(argparse.ArgumentParser):
    """Bad input is one line on stderr, exit status 2 (no usage block)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: at least 1")
    return value


def _seconds(minimum_excluded: bool) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not math.isfinite(value) or value < 0 or (minimum_excluded and value == 0):
            raise argparse.ArgumentTypeError(f"{text!r}: {'above' if minimum_excluded else 'at least'} 0 seconds")
        return value

    parse.__name__ = "seconds"
    return parse


class _Tee(io.TextIOBase):
    """Writes to the real stream and keeps a copy (the record's ``output``)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()


class Runner:
    """One benchmark's command line and record (see the module's docstring)."""

    def __init__(
        self,
        script: str,
        doc: str | None,
        *,
        rounds: int | None = None,
        duration: float | None = None,
        warmup: float | None = None,
        rounds_help: str = "rounds; each runs every configuration once",
        duration_help: str = "measured seconds per run",
        warmup_help: str = "warm-up seconds per run",
    ) -> None:
        self.name = Path(script).stem
        self.description = description_of(doc)
        self.parser = _Parser(prog=f"benchmarks/{self.name}.py", description=self.description)
        self.measurements: list[Measurement] = []
        self.goals: list[Goal] = []
        common = self.parser.add_argument_group("options every benchmark shares (benchmarks/_runner.py)")
        if rounds is not None:
            common.add_argument(
                "--rounds", type=_positive_int, default=rounds, metavar="N", help=f"{rounds_help} (default {rounds})"
            )
            # the spellings the scripts used before they shared one runner
            common.add_argument(
                "--reps",
                "--repetitions",
                dest="rounds",
                type=_positive_int,
                default=argparse.SUPPRESS,
                help=argparse.SUPPRESS,
            )
        for flag, default, text, positive in (
            ("--duration", duration, duration_help, True),
            ("--warmup", warmup, warmup_help, False),
        ):
            if default is not None:
                common.add_argument(
                    flag, type=_seconds(positive), default=default, metavar="S", help=f"{text} (default {default:g})"
                )
        common.add_argument(
            "--json",
            type=Path,
            default=None,
            metavar="PATH",
            help="also write the run's record here: options, host and build metadata, measurements, printed text",
        )

    def parse_args(self, argv: Iterable[str] | None = None) -> argparse.Namespace:
        """The command line, checked (``--json``'s file must not exist, its directory must)."""
        args = self.parser.parse_args(None if argv is None else list(argv))
        path: Path | None = args.json
        if path is not None:
            if path.exists():
                self.parser.error(f"--json: {path} already exists; choose another file")
            if not path.parent.is_dir():
                self.parser.error(f"--json: {path.parent} is not a directory")
        return args

    def record(self, name: str, values: float | Iterable[float], *, unit: str, **labels: object) -> None:
        """Records a measured quantity for the JSON record: one value or one per round, with the
        labels (configuration) that tell it apart from the benchmark's other measurements."""
        listed = [float(values)] if isinstance(values, (int, float)) else [float(v) for v in values]
        self.measurements.append(Measurement(name, unit, listed, {k: str(v) for k, v in labels.items()}))

    def record_runs(self, name: str, runs: Mapping[Any, Iterable[float]], *, unit: str, labels: Sequence[str]) -> None:
        """Records each configuration's values (``runs``: configuration -> one value per round, as
        :func:`islands.bench.rounds.interleaved` returns them), the configuration's parts named by
        ``labels`` (a tuple key has one part per label; any other key is one part)."""
        for key, values in runs.items():
            parts = key if isinstance(key, tuple) else (key,)
            if len(parts) != len(labels):
                raise ValueError(f"record_runs: {key!r} has {len(parts)} parts, labels name {len(labels)}")
            self.record(name, values, unit=unit, **dict(zip(labels, parts, strict=True)))

    def goal(self, name: str, measured: Ratio, target: float) -> str:
        """Holds a ratio (:func:`islands.analysis.statistics.ratio` of one value per round, or
        ``block_ratio`` of rounds paired) to a goal of ``>= target``: records it (the JSON
        record's ``goals``) and returns its words, ``1.02× (95% CI 0.95–1.10, not
        distinguishable)  (goal >= 0.9: met)``, for the benchmark to print."""
        from islands.analysis.verdicts import goal_words, words_of

        verdict = goal_words(measured, target)
        self.goals.append(Goal(name, target, measured.to_dict(), verdict))
        return f"{words_of(measured)}  (goal >= {target:g}: {verdict})"

    def run(self, body: Callable[[argparse.Namespace], Any], argv: Iterable[str] | None = None) -> None:
        """Parses the command line, runs ``body(args)`` and, with ``--json``, writes the record.
        What ``body`` prints goes to stdout as before (and into the record)."""
        args = self.parse_args(argv)
        command = [f"benchmarks/{self.name}.py", *(sys.argv[1:] if argv is None else argv)]
        started = datetime.datetime.now(datetime.UTC)
        clock = time.perf_counter()
        tee = _Tee(sys.stdout) if args.json is not None else None
        if tee is not None:
            sys.stdout = tee
        try:
            body(args)
        finally:
            if tee is not None:
                sys.stdout = tee.stream
        if tee is not None:
            record = self.record_of(args, command, started, time.perf_counter() - clock, tee.copy.getvalue())
            write_record(args.json, record)
            print(f"wrote {args.json}", file=sys.stderr)

    def record_of(
        self, args: argparse.Namespace, command: list[str], started: datetime.datetime, elapsed: float, output: str
    ) -> dict[str, Any]:
        """The run's record (the ``--json`` file's content)."""
        from islands.analysis.statistics import summarize

        options = {k: v for k, v in vars(args).items() if k != "json"}
        return {
            "format": FORMAT,
            "benchmark": self.name,
            "description": self.description,
            "command": command,
            "options": options,
            "metadata": metadata(),
            "started_utc": started.isoformat(timespec="seconds"),
            "elapsed_s": elapsed,
            "measurements": [
                {
                    "name": m.name,
                    "unit": m.unit,
                    "labels": m.labels,
                    "values": m.values,
                    "summary": summarize(m.values).to_dict(),
                }
                for m in self.measurements
            ],
            "goals": [dataclasses.asdict(g) for g in self.goals],
            "output": output,
        }


def metadata() -> dict[str, Any]:
    """The host, build and source (:func:`islands.measure.host_metadata.collect_metadata`) and the
    topology; where the compiled engine cannot load, what could be read and the reason."""
    from islands.machine.topology import read_topology

    topology = read_topology()
    found: dict[str, Any] = {
        "topology": {"sockets": topology.n_sockets, "cores": topology.n_cores, "cpus": list(topology.cpus)}
    }
    try:
        from islands.measure.host_metadata import collect_metadata
    except ImportError as error:  # no built engine: no build fields, and the reason says so
        import platform

        from islands.analysis.revision import git_revision

        found.update(
            hostname=platform.node(),
            python=platform.python_version(),
            git_revision=git_revision(),
            metadata_warning=f"build metadata unavailable: {error}",
        )
        return found
    return {**collect_metadata(), **found}


def write_record(path: Path, record: dict[str, Any]) -> None:
    """Writes ``record`` as strict JSON (NaN as null) to ``path``, whole or not at all."""
    from islands.cli.json_output import dumps

    text = dumps(record) + "\n"
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(text)
    os.replace(partial, path)


#: This directory, and the page that lists its benchmarks, one line each.
HERE = Path(__file__).resolve().parent
LISTING = HERE.parent / "docs" / "benchmarks.md"
#: The runner itself: in this directory, not benchmarks.
NOT_BENCHMARKS = ("_runner", "run")


def benchmarks() -> list[str]:
    """The benchmarks: every script of this directory but the runner's own."""
    return sorted(p.stem for p in HERE.glob("*.py") if p.stem not in NOT_BENCHMARKS)


def listed(text: str | None = None) -> dict[str, str]:
    """docs/benchmarks.md's table: each benchmark's name and its one line."""
    found: dict[str, str] = {}
    for line in (LISTING.read_text() if text is None else text).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 2 and cells[0].endswith("`"):
            found[cells[0].strip("`")] = cells[1]
    return found
