"""Sweeps: an experiment file's grid of deployments × workload settings × transports ×
repetitions, run point by point into a :class:`~islands.analysis.store.ResultStore`.

The experiment file's schema and its checks live in :mod:`islands.experiments.spec`; where a point
runs (in this process or as a deployment, with a fresh log directory) in
:mod:`islands.execution.runner`.

Each point becomes a :class:`Point` (a deployment, the run config, a transport and a
repetition); runs go repetition by repetition (every point once, then every point again), so
an interrupted sweep already covers the grid. Each run writes one row at once, carrying the
full config and its hash, the deployment, the topology, the host metadata and a ``point_id``
(a stable hash of the point and its repetition). Run again, the sweep skips the point_ids its
directory already holds; the manifest records the spec and its hash and a directory made
from a different spec (or on a different machine) is refused unless ``fresh`` (start over)
or ``force`` (add to it). Every check on the spec, the deployments and the configs happens
before the results directory is touched.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import itertools
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from islands.analysis.directory_lock import DirectoryLock
from islands.analysis.guarded_files import DIRECTORY_MODE, make_directory, remove_created
from islands.analysis.store import ResultStore
from islands.atrapos.events import check_events
from islands.config.settings import DEFAULT_WORKLOAD, WORKLOADS
from islands.config.settings import default_log_root as default_log_root
from islands.execution.launcher import validate as validate_deployment
from islands.execution.stop_signals import signals_deferred
from islands.experiments.executors import Executor, Finished, LocalExecutor
from islands.experiments.point import Point, Runner, default_runner, run_point, show_value
from islands.experiments.progress import SweepProgress, choose_mode
from islands.experiments.spec import ExperimentSpec, load_spec
from islands.experiments.spec_sections import DEPLOY_KEYS, SHOWN_DEPLOY_KEYS, SpecLocation, known_transports
from islands.figures.designs import DESIGNS
from islands.machine.placement import Deployment, expand_relative, leading_cpus, plan_deployment, roles_of
from islands.machine.topology import Topology
from islands.measure.run_noise import timeline_noise
from islands.measure.steady_warmup import measure_from_steady
from islands.measure.system_state import busy_warning

__all__ = [
    "ExperimentSpec",
    "Point",
    "Runner",
    "Sweep",
    "SweepOutcome",
    "default_runner",
    "known_transports",
    "load_spec",
    "run_point",
]

MANIFEST_VERSION = 1


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


# Sweeps -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepOutcome:
    """What :meth:`Sweep.run` did: runs made now, runs found done, runs in all."""

    ran: int
    skipped: int
    total: int
    directory: Path
    notes: tuple[str, ...] = ()
    #: One line when other processes kept the machine busy during some runs.
    warnings: tuple[str, ...] = ()
    #: With run.precision: the comparisons left inconclusive (islands.experiments.precision).
    inconclusive: tuple[str, ...] = ()


class Sweep:
    """An experiment spec on one machine: its points, their dry-run table, and the run.

    ``topology`` defaults to this machine's; ``out`` to ``results/<spec name>``.
    Constructing a sweep plans every deployment and checks every config, so a spec that
    does not fit the machine fails here (``ValueError``), before anything is written.
    """

    def __init__(self, spec: ExperimentSpec, topology: Topology | None = None, out: str | Path | None = None) -> None:
        if topology is None:
            from islands.machine.topology import read_topology

            topology = read_topology()
        planned_on = spec.planned_machine()
        if planned_on is not None:  # [run] sysfs: plan on that machine, run packed onto this one
            from islands.machine.topology import read_topology

            topology = read_topology(planned_on)
        if spec.virtual_sockets is not None and not topology.virtual:  # --virtual-sockets, if given, wins
            from islands.machine.virtual_topology import virtual_sockets

            topology = virtual_sockets(topology, spec.virtual_sockets, message_delay_us=spec.virtual_delay_us)
        self.spec = spec
        self.topology = topology
        self.directory = Path(out) if out is not None else Path("results") / spec.name
        self.store = ResultStore(self.directory)
        self.notes: list[str] = []
        self.grid_points = self._expand()

    def _expand(self) -> list[Point]:
        spec, topo = self.spec, self.topology
        grid = dict(spec.grid)
        # The cpus of each cores value ("all": the run's); a value the machine cannot give is
        # skipped, with a note.
        cpus_of: dict[Any, tuple[int, ...] | None] = {}
        for n in grid.get("cores", ("all",)):
            try:
                cpus = leading_cpus(topo, n, spec.cpus)
            except ValueError as e:
                raise SpecLocation(spec.source, spec.text).error("run.cpus", str(e)) from None
            if n != "all" and cpus is None:
                self.notes.append(f"cores={n} skipped: the run has fewer cpus")
                continue
            cpus_of[n] = cpus
        if not cpus_of:
            raise SpecLocation(spec.source, spec.text).error("grid.cores", "no value fits this machine's cpus")
        # Deployments coincide differently under each placement (and number of cores), so each
        # has its own list; the deployment axis is their union, and a combination outside its
        # list is skipped.
        # A design (grid.design) names its deployment: the deployment axis is theirs.
        designs = grid.get("design", ())
        written = [DESIGNS[d].deployment for d in designs] if designs else list(grid["deployment"])
        names_of: dict[tuple[str, Any], list[str]] = {}
        design_deployment: dict[tuple[str, str, Any], str] = {}
        axis: list[str] = []
        for placement in grid["placement"]:
            for cores, cpus in cpus_of.items():
                for design in designs:
                    one, _ = expand_relative(topo, [DESIGNS[design].deployment], placement, cpus)
                    design_deployment[design, placement, cores] = one[0]
                try:
                    names, notes = expand_relative(topo, written, placement, cpus)
                except ValueError as e:
                    raise SpecLocation(spec.source, spec.text).error("grid.deployment", str(e)) from None
                self.notes.extend(note for note in notes if note not in self.notes)
                names_of[placement, cores] = names
                axis.extend(name for name in names if name not in axis)
        keys = [k for k, _ in spec.grid]
        axes = [axis if k == "deployment" else list(cpus_of) if k == "cores" else list(v) for k, v in spec.grid]
        if designs:  # the deployment follows the design
            keys.append("deployment")
            axes.append([None])
        planned: dict[tuple[str, str, Any], Deployment] = {}
        out: list[Point] = []
        seen: set[str] = set()
        for combo in itertools.product(*axes):
            chosen = dict(zip(keys, combo))
            cores = chosen.get("cores", "all")
            if designs:
                chosen["deployment"] = design_deployment[chosen["design"], chosen["placement"], cores]
            if chosen["deployment"] not in names_of[chosen["placement"], cores]:
                continue
            plan_key = (chosen["deployment"], chosen["placement"], cores)
            if plan_key not in planned:
                planned[plan_key] = plan_deployment(topo, *plan_key[:2], cpus=cpus_of[cores])
            point = self._point(chosen, planned[plan_key], len(out))
            if point.grid_id in seen:
                note = f"{point.describe().rsplit(' rep', 1)[0]} is listed more than once: run once"
                if note not in self.notes:
                    self.notes.append(note)
                continue
            seen.add(point.grid_id)
            out.append(point)
        return out

    def _point(self, chosen: dict[str, Any], dep: Deployment, index: int) -> Point:
        spec = self.spec
        config = spec.run_config(chosen, cpus=dep.cpus, sizes=[len(c) for c in dep.instances], pin=dep.pinned)
        params = tuple((k, dep.name if k == "deployment" else chosen[k]) for k, _ in spec.grid)
        # The engine judges each instance's config as the deployment will run it.
        live = spec.live_run(chosen)
        try:
            validate_deployment(dep, config, chosen["transport"], self.topology)
            if live is not None:
                if dep.n_instances != 1:
                    raise ValueError(f"the ATraPos controller adapts one PLP instance, not {dep.n_instances}")
                check_events(live.schedule, len(dep.cpus), config.workload)
            if spec.probe is not None:
                if dep.n_instances != 1:
                    raise ValueError(f"a [probe] runs beside one PLP instance, not {dep.n_instances}")
                if spec.probe.kind == "repartition_cost" and len(dep.cpus) < 2:
                    raise ValueError("probe repartition_cost: moves units between workers: needs two cpus or more")
        except ValueError as e:
            shown = Point(dep, config, chosen["transport"], 0, params).describe().rsplit(" rep", 1)[0]
            raise ValueError(f"{spec.source}: point {shown}: {e}") from None
        return Point(
            deployment=dep,
            config=config,
            transport=chosen["transport"],
            repetition=0,
            params=params,
            index=index,
            live=live,
            probe=spec.probe,
            packed=spec.oversubscribe,
        )

    def points(self) -> list[Point]:
        """Every run, repetition by repetition: the grid once, then again, ...; every other
        repetition walks the grid backwards, so that a drift of the machine's speed during a
        pass does not always favour the points that come first (each repetition is a block of
        islands.experiments.precision)."""
        grid = self.grid_points
        return [
            dataclasses.replace(p, repetition=r)
            for r in range(self.spec.repetitions)
            for p in (grid if r % 2 == 0 else grid[::-1])
        ]

    def stored_rows(self) -> pd.DataFrame:
        """The rows stored so far; a Ctrl-C while pyarrow reads them is held back until they are
        read (pyarrow can swallow the KeyboardInterrupt, as when it writes one:
        islands.execution.stop_signals.signals_deferred)."""
        with signals_deferred():
            return self.store.rows()

    def done_ids(self) -> set[str]:
        """The point_ids the results directory already holds."""
        rows = self.stored_rows()
        if rows.empty or "point_id" not in rows.columns:
            return set()
        return set(rows["point_id"].astype(str))

    def estimate_s(self, points: Sequence[Point] | None = None) -> float:
        """A rough time for these runs (default: every run), each with its load, its instances'
        start and its profiling (:func:`islands.experiments.run_time.estimate_run_s`)."""
        from islands.experiments.run_time import estimate_runs_s

        return estimate_runs_s(self.points() if points is None else points)

    def left(self, done: set[str] | None = None) -> list[Point]:
        """The runs the results directory does not hold yet (``done``: their point_ids, default
        :meth:`done_ids`)."""
        done = self.done_ids() if done is None else done
        return [p for p in self.points() if p.point_id not in done]

    def table(self, done: set[str] | None = None) -> str:
        """The dry-run listing: a header, the notes, and one line per grid point."""
        spec, topo = self.spec, self.topology
        done = self.done_ids() if done is None else done
        runs = self.points()
        to_run = self.left(done)
        left = len(to_run)
        varying = [k for k, v in spec.grid if len(v) > 1 and (k not in DEPLOY_KEYS or k in SHOWN_DEPLOY_KEYS)]
        fixed = {**spec.fixed(WORKLOADS.get(spec.workload, DEFAULT_WORKLOAD)), **spec.engine}
        fixed.update({k: v[0] for k, v in spec.grid if len(v) == 1 and k not in DEPLOY_KEYS})
        lines = [
            f"experiment {spec.name} (figure {spec.figure}) from {spec.source}, spec {spec.spec_hash()}",
            f"machine: {_count(topo.n_sockets, 'socket')}, {_count(topo.n_cores, 'core')}, "
            f"{_count(topo.n_cpus, 'hardware thread')} ({topo.source})",
            f"{len(self.grid_points)} points x {spec.repetitions} repetitions = {len(runs)} runs"
            f"; {len(runs) - left} done, {left} to run, about {_duration(self.estimate_s(to_run))} "
            f"(warm-up {spec.warmup_s:g} s + {spec.duration_s:g} s measured each)",
            f"results: {self.directory}",
        ]
        if spec.precision is not None:
            budget = f"{_duration(spec.budget_s)} of runs in all" if spec.budget_s is not None else "no time budget"
            lines.insert(
                3,
                f"then more repetitions, in interleaved blocks, until every comparison of {', '.join(spec.compare)} "
                f"is answered (its 95% interval over every look excludes 1 or is within ±{spec.precision:.0%}); "
                f"at most {spec.max_repetitions} repetitions a point, {budget}",
            )
        if fixed:
            lines.append("fixed: " + ", ".join(f"{k}={show_value(v)}" for k, v in fixed.items()))
        if spec.schedule:
            events = ", ".join(f"{e.label()} at {e.at_s:g} s" for e in spec.schedule)
            lines.append(f"schedule: {events} (controller interval from {spec.controller_interval_s:g} s)")
        lines += [f"note: {n}" for n in self.notes]
        header = ["#", "deployment", "instances", "sockets", "transport", *varying, "done", "grid_id"]
        rows = []
        for p in self.grid_points:
            dep = p.deployment
            sizes = sorted({len(c) for c in dep.instances})
            shape = f"{dep.n_instances}x{sizes[0]}" if len(sizes) == 1 else "+".join(str(len(c)) for c in dep.instances)
            spans = sorted({len(s) for s in dep.sockets})
            reps_done = sum(1 for r in range(spec.repetitions) if dataclasses.replace(p, repetition=r).point_id in done)
            params = dict(p.params)
            rows.append(
                [
                    str(p.index + 1),
                    dep.name,
                    shape,
                    "-".join(map(str, spans)) if len(spans) > 1 else str(spans[0]),
                    p.transport,
                    *[show_value(params[k]) for k in varying],
                    f"{reps_done}/{spec.repetitions}",
                    p.grid_id,
                ]
            )
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines.append("")
        for r in [header, *rows]:
            lines.append(
                "  ".join(
                    c.rjust(w) if c[:1].isdigit() and i == 0 else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))
                ).rstrip()
            )
        return "\n".join(lines)

    # Running --------------------------------------------------------------------------

    def _prepare(self, fresh: bool, force: bool) -> dict[str, Any]:
        """Check the directory against this spec and machine; returns the manifest to use."""
        d = self.directory
        if d.exists() and not d.is_dir():
            raise ValueError(f"results directory {d}: exists and is not a directory")
        manifest = self.store.manifest() if d.is_dir() else {}
        has_rows = self.store.has_rows()
        spec_hash = self.spec.spec_hash()
        mismatch = None
        if manifest:
            if manifest.get("spec_hash") != spec_hash:
                mismatch = (
                    f"holds results of a different spec (spec {manifest.get('spec_hash')} from "
                    f"{manifest.get('spec_file')}, this one is {spec_hash})"
                )
            elif not _same_machine(manifest.get("topology"), self.topology):
                mismatch = "holds results made on a different machine topology"
        elif has_rows:
            mismatch = "holds rows but no manifest"
        if fresh:
            try:
                self.store.clear_rows()
                self.store.manifest_path.unlink(missing_ok=True)
            except OSError as e:
                raise ValueError(f"results directory {d}: cannot remove its rows ({e.strerror})") from None
            manifest = {}
        elif mismatch and not force:
            raise ValueError(
                f"results directory {d} {mismatch}: use --fresh to start over, --force to add to it, or another --out"
            )
        try:
            make_directory(d, DIRECTORY_MODE, "results directory")
            probe = d / ".write-test"
            probe.write_text("")
            probe.unlink()
        except OSError as e:
            raise ValueError(f"results directory {d}: not writable ({e.strerror})") from None
        from islands.measure.host_metadata import collect_metadata

        now = _now()
        # The seconds earlier sessions spent: a resumed sweep's run.budget_s goes on from them.
        if self.spec.precision is not None and manifest:
            from islands.experiments.precision import spent_before  # scipy: only a sweep with a precision

            elapsed = spent_before(manifest, self.stored_rows() if has_rows else pd.DataFrame(), spec_hash)
        else:
            recorded = manifest.get("elapsed_s") if manifest.get("spec_hash") == spec_hash else None
            elapsed = float(recorded) if isinstance(recorded, (int, float)) else 0.0
        history = list(manifest.get("history", []))
        history.append({"started_utc": now, "spec_hash": spec_hash, "forced": bool(mismatch and force)})
        return {
            "version": MANIFEST_VERSION,
            "experiment": self.spec.name,
            "figure": self.spec.figure,
            "spec_file": self.spec.source,
            "spec": self.spec.to_dict(),
            "spec_hash": spec_hash,
            "topology": self.topology.to_dict(),
            "metadata": collect_metadata(),
            "created_utc": manifest.get("created_utc", now),
            "updated_utc": now,
            "status": "running",
            "points": len(self.grid_points),
            "repetitions": self.spec.repetitions,
            "runs_total": len(self.points()),
            "runs_done": 0,
            "elapsed_s": elapsed,
            "notes": list(self.notes),
            "history": history,
        }

    def run(
        self,
        runner: Runner | None = None,
        *,
        fresh: bool = False,
        force: bool = False,
        progress: bool | str | None = None,
        executor: Executor | None = None,
        wait: bool = False,
    ) -> SweepOutcome:
        """Run every point not yet in the results directory, one row per run, written as
        soon as the run ends. The sweep holds the directory's lock
        (:mod:`islands.analysis.directory_lock`) from before it reads what is stored until its
        last row: another sweep writing it is refused in one line naming that sweep's pid, or
        with ``wait`` waited for (and then finds the runs it made done). ``runner`` defaults
        to :func:`run_point` on this sweep's topology. ``fresh`` deletes the directory's rows
        and manifest first; ``force`` adds to a directory made from another spec. ``progress``: a progress bar with an
        ETA (``True`` or ``"bar"``), one line per finished run (``"lines"``), or nothing
        (``False``), on stderr; by default a bar when stderr is a terminal, lines otherwise (see
        :mod:`islands.experiments.progress`). ``executor`` says where the runs happen (default: one
        after another in this process; :class:`~islands.experiments.executors.DaskExecutor` spreads them
        over a cluster's nodes, each row then carrying its node's topology and metadata).

        Every row records the machine's state around its run (``system.*``, see
        :mod:`islands.measure.system_state`); when other processes kept the machine busy during some
        runs, :attr:`SweepOutcome.warnings` says so in one line (also printed on stderr).

        Ctrl-C (``KeyboardInterrupt``) stops after the rows already finished are written,
        marks the manifest ``interrupted`` and is raised again; a failing run marks it
        ``failed`` and raises (``ValueError`` stays a ``ValueError``, anything else becomes
        a ``RuntimeError`` naming the point). Run again to resume.
        """
        created, lock = self._lock(wait)
        try:
            try:
                manifest = self._prepare(fresh, force)
            except BaseException:
                remove_created(created)  # a refused sweep leaves no directory it made
                raise
            return self._run_locked(manifest, runner, progress, executor)
        finally:
            lock.release()

    def _lock(self, wait: bool) -> tuple[list[Path], DirectoryLock]:
        """Makes the results directory when missing and takes its lock; returns the
        directories made (removed again on a refusal) and the lock."""
        d = self.directory
        if os.path.lexists(d) and not d.is_dir():
            raise ValueError(f"results directory {d}: exists and is not a directory")
        created = make_directory(d, DIRECTORY_MODE, "results directory")
        lock = DirectoryLock(d)
        try:
            lock.acquire(wait, on_wait=lambda line: print(line, file=sys.stderr, flush=True))
        except BaseException:
            remove_created(created)
            raise
        if lock.took_over is not None:
            print(f"note: results directory {d}: its lock of pid {lock.took_over} (ended) taken over", file=sys.stderr)
        return created, lock

    def _run_locked(
        self,
        manifest: dict[str, Any],
        runner: Runner | None,
        progress: bool | str | None,
        executor: Executor | None,
    ) -> SweepOutcome:
        runner = runner or default_runner(self.topology)
        executor = executor or LocalExecutor()
        self.store.create(manifest)
        done = self.done_ids()
        runs = self.points()
        todo = [p for p in runs if p.point_id not in done]
        skipped = len(runs) - len(todo)
        manifest["runs_done"] = skipped
        meta = manifest["metadata"]
        topo = manifest["topology"]
        mode = choose_mode(progress)
        before = float(manifest["elapsed_s"])  # earlier sessions' seconds (a resumed sweep)
        ran = 0
        states: list[dict[str, Any]] = []

        all_ids = {p.point_id for p in runs}

        def finish(status: str, error: str | None = None) -> None:
            # Counted from the store: an interrupt may land between a write and `ran += 1`.
            stored = len(self.done_ids() & all_ids) if status != "running" else skipped + ran
            manifest.update(
                status=status, updated_utc=_now(), runs_done=stored, elapsed_s=before + time.monotonic() - started
            )
            if error is not None:
                manifest["error"] = error
            else:
                manifest.pop("error", None)
            self.store.write_manifest(manifest)

        started = time.monotonic()
        bar = SweepProgress(mode, len(runs), skipped)
        inconclusive: list[str] = []

        def record(done_run: Finished) -> int:
            """Stores one finished run's row and shows it; 1 (a run made)."""
            states.append(done_run.system)
            with signals_deferred():  # a Ctrl-C as pyarrow writes the row is not swallowed
                self.store.append([self._row(done_run, meta, topo)])
            bar.finished(
                done_run.point.describe(), done_run.result, done_run.run_s, busy=bool(done_run.system.get("busy"))
            )
            return 1

        try:
            with bar:
                if todo:
                    bar.describe(todo[0].describe())
                for done_run in executor.run(todo, runner):
                    ran += record(done_run)
                    if ran % 10 == 0:
                        finish("running")
                if self.spec.precision is not None:
                    # Repetitions until the comparisons are answered, within the budget.
                    for batch in self._rounds(manifest, started - before):
                        bar.add_runs(len(batch))
                        for done_run in executor.run(batch, runner):
                            ran += record(done_run)
                        manifest["runs_total"] = len(runs) + ran - len(todo)
                        finish("running")
                    inconclusive = [
                        f"{g['group']}: {' vs '.join(g['compared'])}"
                        for g in manifest["precision"]["groups"]
                        if not g["conclusive"]
                    ]
        except KeyboardInterrupt:
            finish("interrupted")
            _warn(busy_warning(states))
            print(
                f"sweep interrupted: {manifest['runs_done']} of {len(runs)} runs stored in {self.directory}; "
                "run the same command again to resume",
                file=sys.stderr,
            )
            raise
        except BaseException as e:
            # on a full disk the manifest cannot record it: the error that stopped the sweep names its path
            with contextlib.suppress(OSError):
                finish("failed", str(e))
            raise
        finish("complete")
        warning = busy_warning(states)
        _warn(warning)
        return SweepOutcome(
            ran=ran,
            skipped=skipped,
            total=len(runs) + max(0, ran - len(todo)),  # with the rounds run.precision added
            directory=self.directory,
            notes=tuple(self.notes),
            warnings=(warning,) if warning else (),
            inconclusive=tuple(inconclusive),
        )

    def _rounds(self, manifest: dict[str, Any], started: float) -> Iterator[list[Point]]:
        """Rounds of runs until every comparison is conclusive (islands.experiments.precision):
        each round one more repetition of the two compared points of every open group; it
        stops when none is open, a point has run.max_repetitions, or the next round would
        end past run.budget_s from ``started`` (a ``time.monotonic()`` moved back by the
        seconds earlier sessions of a resumed sweep spent). Records the state in
        ``manifest["precision"]``."""
        spec = self.spec
        assert spec.precision is not None
        stopped = "all conclusive"
        while True:
            rows = self.stored_rows()
            from islands.experiments.precision import comparisons, stolen  # scipy: only a sweep with a precision

            found = comparisons(
                self.grid_points, rows, spec.compare, spec.precision, spec.repetitions, spec.max_repetitions
            )
            spent = time.monotonic() - started
            manifest["precision"] = {
                "precision": spec.precision,
                "budget_s": spec.budget_s,
                "max_repetitions": spec.max_repetitions,
                "looks": [spec.repetitions, spec.max_repetitions],
                "left_out_steal": int(stolen(rows).sum()) if not rows.empty else 0,
                "compare": list(spec.compare),
                "spent_s": spent,
                "stopped": stopped,
                "groups": [c.to_dict() for c in found],
            }
            open_ = [c for c in found if not c.conclusive]
            if not open_:
                manifest["precision"]["stopped"] = "all conclusive"
                return
            reps = _repetitions(rows)
            batch = []
            for c in open_:
                done = [reps.get(p.grid_id, []) for p in c.points]
                if any(len(d) >= spec.max_repetitions for d in done):
                    continue  # this comparison has had its runs: it stays open
                # One block: both points' next repetition under one number (the pair of a
                # block), the first of them alternating by block (a drift favours neither).
                rep = max(max(d, default=-1) for d in done) + 1
                pair = sorted(c.points, key=lambda p: p.index)
                batch += [dataclasses.replace(p, repetition=rep) for p in (pair if rep % 2 == 0 else pair[::-1])]
            if not batch:
                stopped = f"{spec.max_repetitions} repetitions reached"
                manifest["precision"]["stopped"] = stopped
                return
            per_run = _mean_run_s(rows, [p.grid_id for p in batch], self.estimate_s(batch) / len(batch))
            if spec.budget_s is not None and spent + per_run * len(batch) > spec.budget_s:
                stopped = "budget spent"
                manifest["precision"]["stopped"] = stopped
                return
            yield batch

    def _row(self, done: Finished, meta: Mapping[str, Any], topo: Mapping[str, Any]) -> dict[str, Any]:
        """One run's row; a run made on a cluster node carries that node's topology and metadata."""
        point, node = done.point, done.node
        if node is not None:
            meta, topo = node.metadata, node.topology
        dep = point.deployment.to_dict()
        dep.pop("version")
        dep["roles"] = ",".join(roles_of(self.topology, point.deployment))
        row: dict[str, Any] = {
            "config": point.config.to_dict(),
            "config_hash": point.config.config_hash(),
            "topology": dict(topo),
            "metadata": dict(meta),
        }
        row.update(done.result)
        row.update(
            {
                "experiment": self.spec.name,
                "figure": self.spec.figure,
                "spec_hash": self.spec.spec_hash(),
                "point_id": point.point_id,
                "grid_id": point.grid_id,
                "point_index": point.index,
                "repetition": point.repetition,
                "transport": point.transport,
                "deployment": dep,
                "run_s": done.run_s,
                "node": node.address if node is not None else "local",
                "finished_utc": _now(),
            }
        )
        row["system"] = dict(done.system)
        timeline = row.get("timeline")
        if isinstance(timeline, Mapping) and timeline.get("tps"):
            row["noise"] = timeline_noise(timeline["tps"], float(timeline.get("interval_s") or 0.1))
            if self.spec.steady_warmup:  # the default: warm-up until steady, capped
                measure_from_steady(row, point.config.driver.warmup_s)
        return row


def _mean_run_s(rows: pd.DataFrame, grid_ids: list[str], default: float) -> float:
    """The mean seconds a run of these points took (their stored ``run_s``), else ``default``."""
    if rows.empty or "run_s" not in rows.columns or "grid_id" not in rows.columns:
        return default
    mine = rows[rows["grid_id"].astype(str).isin(grid_ids)]
    times = pd.to_numeric(mine["run_s"], errors="coerce").dropna()
    return float(times.mean()) if len(times) else default


def _repetitions(rows: pd.DataFrame) -> dict[str, list[int]]:
    """grid_id → the repetitions its stored rows have."""
    if rows.empty or "grid_id" not in rows.columns or "repetition" not in rows.columns:
        return {}
    out: dict[str, list[int]] = {}
    for grid_id, rep in zip(rows["grid_id"].astype(str), rows["repetition"]):
        out.setdefault(grid_id, []).append(int(rep))
    return out


def _same_machine(stored: Any, topology: Topology) -> bool:
    if not stored:
        return True
    try:
        return Topology.from_dict(stored) == topology
    except ValueError:
        return False


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _warn(line: str | None) -> None:
    if line:
        print(line, file=sys.stderr, flush=True)
