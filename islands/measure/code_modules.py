"""Code-module profile (paper 003, Fig 6 and 7): where an instance's time goes by engine module.

An instance runs in a child process; ``perf record`` (software ``cpu-clock`` sampling, which
works in a virtual machine without a PMU) attaches to it before its run starts and detaches
when it ends. Each sample's instruction address is mapped, through the engine's line tables
(``addr2line -i``: inlined code included), to the innermost engine source file, and the file's
area under ``csrc/`` gives the module:

==============  ==========================================================
index           index/ (hash index, B+tree) and the latches they use
cc              cc/ (row locks, 2PL)
log             log/
transaction     txn/, workload/, storage/ (the transaction's own work)
transport       transport/
driver          exec/, perf/, the client's key generation (random, zipf)
other           libc, the kernel, the Python interpreter, anything else
==============  ==========================================================

Samples outside the engine are "other", with their top symbols listed. The parsing is pure
(:func:`fold_samples`, :func:`fold_pyspy`) and tested on recorded output; :func:`profile_modules`
does the run.

Where ``perf record`` cannot run (no perf, ``perf_event_paranoid``, a container without
``perf_event_open``), ``py-spy record --native`` (ptrace) stands in. py-spy only sees threads
that have a Python thread state (py-spy issue #332), not the engine's ``std::thread`` workers,
so under py-spy the child runs the config's transactions through
``_core.run_fixed_transactions`` on its Python main thread instead: a single-threaded copy of
the config (site 0's worker, as :mod:`islands.measure.cachegrind` runs it, pinned to the first CPU), as
long as the configured window. Its stacks come with source lines; each sample goes to the
innermost frame in an engine source, the same attribution ``addr2line -i`` gives perf.
``ModuleProfile.sampler`` says which of the two sampled.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from islands.config.settings import RunConfig
from islands.measure.missing_tools import missing_tool_reason

__all__ = ["MODULES", "SAMPLERS", "ModuleProfile", "fold_pyspy", "fold_samples", "module_of_source", "profile_modules"]

MODULES = ("index", "cc", "log", "transaction", "transport", "driver", "other")
#: profile_modules(sampler=...): auto = perf where it works, else py-spy
SAMPLERS = ("auto", "perf", "py-spy")

_AREA_MODULE = {
    "index": "index",
    "cc": "cc",
    "log": "log",
    "txn": "transaction",
    "workload": "transaction",
    "storage": "transaction",
    "transport": "transport",
    "exec": "driver",
    "perf": "driver",
    "settings": "driver",
}
#: Files whose module is not their folder's: the folders are cut by what includes what (no two
#: include each other), the modules by the papers' breakdown (003 Fig 6).
_FILE_MODULE = {
    "row_lock": "cc",
    "snapshot_clock": "cc",
    "workload_interface": "transaction",
    "txn_part": "transaction",
    "routing_unit": "transaction",
    "action_io": "transaction",
    "workload_change": "transaction",
}
_COMMON_MODULE = {
    "optimistic_latch": "index",
    "spin_latch": "index",
    "random": "driver",
    "zipf": "driver",
    "backoff": "driver",
    "cycle_clock": "driver",
    "latency_histogram": "driver",
}
_SOURCE_RE = re.compile(r"csrc/(?:include/islands|src)/(\w+)/(?:\w+/)*(\w+)\.(?:hpp|cpp)")
_SAMPLE_RE = re.compile(r"^\s*([0-9a-f]+)\s+(.*?)\+0x([0-9a-f]+)\s+\((.*)\)\s*$")
_FRAME_RE = re.compile(r"^(.*) \(([^()]*)\)$")  # py-spy: "name (file:line)", "name (lib)", "0xADDR (lib)"
_LINE_RE = re.compile(r"^(.*):(\d+)$")


def module_of_source(path: str) -> str | None:
    """The engine module of a source path (None when it is not an engine file)."""
    m = _SOURCE_RE.search(path)
    if not m:
        return None
    area, name = m.group(1), m.group(2)
    if name in _FILE_MODULE:
        return _FILE_MODULE[name]
    if area == "common":
        return _COMMON_MODULE.get(name, "driver")
    return _AREA_MODULE.get(area, "other")


@dataclass(frozen=True)
class ModuleProfile:
    """Samples per module and their shares."""

    samples: dict[str, int]  #: module -> samples
    other_symbols: dict[str, int] = field(default_factory=dict)  #: top symbols outside the engine
    reason: str = ""  #: why there are no samples ("" when there are)
    #: "perf" (the run itself), "py-spy" (a single-threaded copy of it, see the module's
    #: docstring) or "" when nothing could sample
    sampler: str = ""

    @property
    def total(self) -> int:
        """All samples."""
        return sum(self.samples.values())

    @property
    def shares(self) -> dict[str, float]:
        """module -> fraction of the samples (NaN for all when there are none)."""
        t = self.total
        return {m: (self.samples.get(m, 0) / t if t else float("nan")) for m in MODULES}

    def to_dict(self) -> dict[str, object]:
        """JSON-ready."""
        return {
            "samples": self.samples,
            "shares": self.shares,
            "other_symbols": [[k, v] for k, v in self.other_symbols.items()],
            "reason": self.reason,
            "sampler": self.sampler,
        }


Sample = tuple[str, int, str, "str | None"]  # symbol, offset, dso, module when a source line named it


def _fold(
    lines: Iterable[Sample],
    engine_dso: str,
    module_of_samples: Callable[[list[tuple[str, int]]], list[str | None]],
    sampler: str = "",
) -> ModuleProfile:
    engine: list[tuple[str, int]] = []
    samples: Counter[str] = Counter()
    others: Counter[str] = Counter()
    for sym, off, dso, module in lines:
        if module is not None:
            samples[module] += 1
        elif os.path.basename(dso) == os.path.basename(engine_dso):
            engine.append((sym, off))
        else:
            samples["other"] += 1
            others[f"{sym} ({os.path.basename(dso)})"] += 1
    for module, (sym, off) in zip(module_of_samples(engine), engine):
        if module is None:
            samples["other"] += 1
            others[f"{sym or hex(off)} (engine, no line info)"] += 1
        else:
            samples[module] += 1
    return ModuleProfile(
        samples={m: samples.get(m, 0) for m in MODULES}, other_symbols=dict(others.most_common(8)), sampler=sampler
    )


def parse_perf_script(text: str) -> list[Sample]:
    """``perf script -F ip,sym,symoff,dso`` lines -> (symbol, offset, dso, None) per sample."""
    out: list[Sample] = []
    for line in text.splitlines():
        m = _SAMPLE_RE.match(line)
        if m:
            out.append((m.group(2), int(m.group(3), 16), m.group(4), None))
        elif line.strip():
            parts = line.split()
            out.append(("[unknown]", 0, parts[-1].strip("()") if len(parts) > 1 else "[unknown]", None))
    return out


def fold_samples(
    script: str, engine_dso: str, module_of_samples: Callable[[list[tuple[str, int]]], list[str | None]]
) -> ModuleProfile:
    """Folds ``perf script -F ip,sym,symoff,dso`` output into modules: samples in
    ``engine_dso`` go through ``module_of_samples`` ((symbol, offset) pairs -> module or None),
    the rest are "other". Pure; :func:`profile_modules` passes the addr2line resolver."""
    return _fold(parse_perf_script(script), engine_dso, module_of_samples, sampler="perf")


def parse_pyspy_raw(text: str, engine_dso: str, engine_base: int | None = None) -> list[Sample]:
    """``py-spy record --native --full-filenames --format raw`` stacks (root first, one
    ``frame;frame;... COUNT`` per line) -> one sample each: the innermost frame in an engine
    source names the module; a leaf in another library (libc, libpython) or a stack without
    engine frames is that leaf, outside the engine; an engine frame without a line (a bare
    address, or a name py-spy could not place) is left to the resolver, as an address
    relative to ``engine_base`` (the engine's load address) or as a symbol."""
    engine_name = os.path.basename(engine_dso)
    out: list[Sample] = []
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = []
        for frame in stack.split(";"):
            m = _FRAME_RE.match(frame)
            name, where = (m.group(1), m.group(2)) if m else (frame, "")
            source = _LINE_RE.match(where)
            frames.append((name, source.group(1) if source else where, source is not None))
        sample = _pyspy_sample(frames, engine_name, engine_dso, engine_base)
        out.extend([sample] * int(count))
    return out


def _pyspy_sample(
    frames: list[tuple[str, str, bool]], engine_name: str, engine_dso: str, engine_base: int | None
) -> Sample:
    leaf_name, leaf_where, leaf_has_line = frames[-1]
    outside: Sample = (leaf_name, 0, leaf_where, None)
    if not leaf_has_line and os.path.basename(leaf_where) != engine_name:
        return outside  # as perf sees it: the instruction is in another library
    for name, where, has_line in reversed(frames):
        if has_line:
            module = module_of_source(where)
            if module is not None:
                return (name, 0, engine_dso, module)
        elif os.path.basename(where) == engine_name:
            if name.startswith("0x") and engine_base is not None:
                return ("", int(name, 16) - engine_base, engine_dso, None)
            return (name, 0, engine_dso, None)
    return outside


def fold_pyspy(
    raw: str,
    engine_dso: str,
    module_of_samples: Callable[[list[tuple[str, int]]], list[str | None]],
    engine_base: int | None = None,
) -> ModuleProfile:
    """Folds py-spy's raw stacks (see :func:`parse_pyspy_raw`) into modules, like
    :func:`fold_samples`. Pure; :func:`profile_modules` passes the addr2line resolver."""
    return _fold(parse_pyspy_raw(raw, engine_dso, engine_base), engine_dso, module_of_samples, sampler="py-spy")


def _perf_name(demangled: str) -> str:
    """nm's demangled name as perf prints it: without the final parameter list."""
    name = demangled.strip()
    if " [clone" in name:
        return name  # perf keeps clone suffixes distinct; never the hot path
    for suffix in (" const", " &", " &&"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if not name.endswith(")"):
        return name
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        if name[i] == ")":
            depth += 1
        elif name[i] == "(":
            depth -= 1
            if depth == 0:
                return _without_return_type(name[:i])
    return name


def _without_return_type(name: str) -> str:
    """nm -C names a function template's specialization with its return type first
    ("islands::TxnResult islands::W<I>::access<CC>"); perf does not. Drops what stands before
    the last space outside brackets (not an operator's own, as in "operator new")."""
    depth = 0
    cut = -1
    for i, c in enumerate(name):
        if c in "<({[":
            depth += 1
        elif c in ">)}]" and depth > 0:
            depth -= 1
        elif c == " " and depth == 0 and not name[:i].endswith("operator"):
            cut = i
    return name[cut + 1 :]


def addr2line_resolver(dso: str) -> Callable[[list[tuple[str, int]]], list[str | None]]:
    """(symbol, offset) pairs in ``dso`` -> engine module of the innermost engine source line
    (inlined frames included), through ``nm`` and one batched ``addr2line -i`` call. An empty
    symbol means the offset is an address relative to the start of ``dso``."""
    symbols: dict[str, int] = {}
    nm = subprocess.run(["nm", "-C", "--defined-only", dso], capture_output=True, text=True, check=True)
    for line in nm.stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3:
            symbols.setdefault(_perf_name(parts[2]), int(parts[0], 16))

    def resolve(pairs: list[tuple[str, int]]) -> list[str | None]:
        addrs = [off if not s else symbols[s] + off if s in symbols else None for s, off in pairs]
        wanted = sorted({a for a in addrs if a is not None})
        module_at: dict[int, str | None] = {}
        if wanted:
            # -a prints each address before its inline chain (innermost frame first)
            done = subprocess.run(
                ["addr2line", "-a", "-i", "-e", dso, *map(hex, wanted)], capture_output=True, text=True, check=True
            )
            chains: dict[int, list[str]] = {}
            current: list[str] = []
            for line in done.stdout.splitlines():
                if line.startswith("0x"):
                    current = chains.setdefault(int(line, 16), [])
                else:
                    current.append(line)
            for a in wanted:
                module_at[a] = next((m for m in map(module_of_source, chains.get(a, [])) if m), None)
        return [module_at.get(a) if a is not None else None for a in addrs]

    return resolve


_CHILD = """
import json, sys
from islands.config.settings import RunConfig
from islands.execution.in_process import run
print("ready", flush=True)  # imports done before perf attaches: only the run is sampled
sys.stdin.readline()
result = run(RunConfig.from_dict(json.loads(sys.argv[1])))
print(json.dumps({"throughput_tps": result.throughput_tps}), flush=True)
"""


_FIXED_CHILD = """
import json, os, sys, time
from islands import _core
from islands.config.settings import RunConfig
config = RunConfig.from_dict(json.loads(sys.argv[1]))
if config.driver.pin:
    os.sched_setaffinity(0, {config.driver.cpus[0]})
core = config.to_core()
# The time per transaction, from two runs that differ only in their count (their loads cancel);
# counts grow until the difference stands well out of the loads' noise.
n = 1000
while True:
    t0 = time.perf_counter()
    _core.run_fixed_transactions(core, n)
    t1 = time.perf_counter()
    _core.run_fixed_transactions(core, 2 * n)
    t2 = time.perf_counter()
    extra = (t2 - t1) - (t1 - t0)
    if (extra > 0.05 and extra > 0.25 * (t1 - t0)) or n >= 1 << 26:
        break
    n *= 4
per_txn = extra / n if extra > 0 else (t2 - t1) / (2 * n)
total = max(1, round((config.driver.warmup_s + config.driver.duration_s) / per_txn))
print("ready", flush=True)  # calibrated before py-spy attaches: only the run is sampled
sys.stdin.readline()
_core.run_fixed_transactions(core, total)
print(json.dumps({"transactions": total}), flush=True)
os._exit(0)  # the interpreter's teardown is not the instance's work
"""


def _no_samples(reason: str) -> ModuleProfile:
    return ModuleProfile(samples=dict.fromkeys(MODULES, 0), reason=reason)


def _pipe(stream: IO[str] | None) -> IO[str]:
    """A child's stdin, stdout or stderr, which every Popen here opens as a pipe."""
    if stream is None:
        raise RuntimeError("child process started without its pipes")
    return stream


def _last_line(text: str | None) -> str:
    return ((text or "").strip().splitlines() or ["no output"])[-1]


class _Child:
    """A profiled instance in a child process: started, told to go, waited for, always reaped."""

    def __init__(self, script: str, config: RunConfig) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", script, json.dumps(config.to_dict())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.stdin, self.stdout = _pipe(self.proc.stdin), _pipe(self.proc.stdout)
        # generous: py-spy stops the process for every sample, which slows it down a few times
        self.timeout = 5 * (config.driver.warmup_s + config.driver.duration_s) + 120

    def ready(self) -> None:
        if self.stdout.readline().strip() != "ready":
            raise RuntimeError("the profiled instance did not start")

    def go(self) -> None:
        """Starts the run and waits for its end."""
        self.stdin.write("go\n")
        self.stdin.flush()
        line = self.stdout.readline()
        if self.proc.wait(timeout=self.timeout) != 0 or not line:
            raise RuntimeError("the profiled instance failed")

    def close(self, sampler: subprocess.Popen[str] | None) -> None:
        for proc in (self.proc, sampler):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        self.stdout.close()
        if not self.stdin.closed:
            self.stdin.close()


def profile_modules(
    config: RunConfig, frequency: int = 999, attach_s: float = 1.0, sampler: str = "auto"
) -> ModuleProfile:
    """Runs ``config`` as one instance in a child process, samples it ``frequency`` times a
    second and folds the samples into modules. ``sampler``: "perf" (``perf record -e
    cpu-clock`` on the run), "py-spy" (``py-spy record --native`` on a single-threaded copy of
    the run, see the module's docstring) or "auto" (perf where it records, else py-spy).
    When no sampler can run, a profile with no samples and the reason for each."""
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler: {sampler!r} is not one of {', '.join(SAMPLERS)}")
    if sampler == "perf":
        return _profile_perf(config, frequency, attach_s)
    if sampler == "py-spy":
        return _profile_pyspy(config, frequency, attach_s)
    perf = _profile_perf(config, frequency, attach_s)
    if perf.total:
        return perf
    pyspy = _profile_pyspy(config, frequency, attach_s)
    if pyspy.total:
        return pyspy
    return _no_samples(f"perf: {perf.reason}; py-spy: {pyspy.reason}")


def _perf_record(pid: int, frequency: int, data: Path) -> subprocess.Popen[str]:
    """``perf record`` of process ``pid`` (software cpu-clock samples) into ``data``."""
    return subprocess.Popen(
        ["perf", "record", "-e", "cpu-clock", "-F", str(frequency), "-o", str(data), "-p", str(pid)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _fold_perf_data(data: Path, dso: str) -> ModuleProfile:
    """The samples of a perf.data file folded into modules (none, with perf's last word, when
    it holds none)."""
    script = subprocess.run(
        ["perf", "script", "-i", str(data), "-F", "ip,sym,symoff,dso"], capture_output=True, text=True, timeout=300
    )
    profile = fold_samples(script.stdout, dso, addr2line_resolver(dso))
    return profile if profile.total else _no_samples(f"perf record recorded no samples: {_last_line(script.stderr)}")


def _profile_perf(config: RunConfig, frequency: int, attach_s: float) -> ModuleProfile:
    from islands import _core

    if shutil.which("perf") is None:
        return _no_samples(missing_tool_reason("perf"))
    dso = str(Path(_core.__file__).resolve())
    with tempfile.TemporaryDirectory(prefix="islands-perf-") as tmp:
        data = Path(tmp) / "perf.data"
        child = _Child(_CHILD, config)
        record = None
        try:
            child.ready()
            record = _perf_record(child.proc.pid, frequency, data)
            time.sleep(attach_s)
            if record.poll() is not None:
                return _no_samples(f"perf record failed: {_last_line(_pipe(record.stderr).read())}")
            child.go()
            record.send_signal(signal.SIGINT)
            record.communicate(timeout=60)
        finally:
            child.close(record)
        return _fold_perf_data(data, dso)


def _pyspy_binary() -> str | None:
    beside = Path(sys.executable).with_name("py-spy")  # a virtual environment's bin/, maybe not on PATH
    return str(beside) if beside.exists() else shutil.which("py-spy")


def _load_base(pid: int, dso: str) -> int | None:
    """Where ``dso`` starts in process ``pid``'s address space (None when it is not mapped)."""
    try:
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return None
    for line in maps.splitlines():
        parts = line.split(None, 5)
        if len(parts) == 6 and os.path.basename(parts[5]) == os.path.basename(dso) and int(parts[2], 16) == 0:
            return int(parts[0].split("-")[0], 16)
    return None


def _wait_for_start(record: subprocess.Popen[str], timeout: float) -> bool:
    """True once py-spy says it samples; False when it exits first or says nothing in time."""
    started: list[bool] = []

    def read() -> None:
        for line in _pipe(record.stdout):
            if "Sampling process" in line:
                started.append(True)
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    if not started and reader.is_alive():
        record.kill()  # silent past the timeout: the reader sees end of file
        reader.join()
    return bool(started)


def _profile_pyspy(config: RunConfig, frequency: int, attach_s: float) -> ModuleProfile:
    from islands import _core

    pyspy = _pyspy_binary()
    if pyspy is None:
        return _no_samples("py-spy is not installed (pip install py-spy)")
    dso = str(Path(_core.__file__).resolve())
    with tempfile.TemporaryDirectory(prefix="islands-py-spy-") as tmp:
        raw = Path(tmp) / "stacks.txt"
        child = _Child(_FIXED_CHILD, config)
        record = None
        try:
            child.ready()
            base = _load_base(child.proc.pid, dso)
            # --native needs the process stopped for each sample (no --nonblocking); threads
            # that wait (the child before its run) are left out unless --idle
            record = subprocess.Popen(
                [
                    pyspy,
                    "record",
                    "--native",
                    "--full-filenames",
                    "--format",
                    "raw",
                    "--rate",
                    str(frequency),
                    "--output",
                    str(raw),
                    "--pid",
                    str(child.proc.pid),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            if not _wait_for_start(record, max(attach_s, 30.0)):
                _, err = record.communicate(timeout=60)
                return _no_samples(f"py-spy record failed: {_last_line(err)}")
            child.go()
            _, err = record.communicate(timeout=60)  # py-spy stops and writes when the child exits
        finally:
            child.close(record)
        stacks = raw.read_text() if raw.exists() else ""
    # py-spy names the source lines itself; binutils only place engine frames it left as addresses
    have_binutils = shutil.which("addr2line") is not None and shutil.which("nm") is not None
    resolver: Callable[[list[tuple[str, int]]], list[str | None]] = (
        addr2line_resolver(dso) if have_binutils else (lambda pairs: [None] * len(pairs))
    )
    profile = fold_pyspy(stacks, dso, resolver, base)
    return profile if profile.total else _no_samples(f"py-spy recorded no samples: {_last_line(err)}")


class _Sampling:
    """perf record attached to this process (see :func:`sample_this_process`)."""

    def __init__(self, frequency: int, attach_s: float, fallback: RunConfig | None = None) -> None:
        from islands import _core

        self.frequency, self.attach_s, self.fallback = frequency, attach_s, fallback
        self.dso = str(Path(_core.__file__).resolve())
        self.tmp = tempfile.TemporaryDirectory(prefix="islands-perf-")
        self.data = Path(self.tmp.name) / "perf.data"
        self.reason = ""
        self.record: subprocess.Popen[str] | None = None
        if shutil.which("perf") is None:
            self.reason = missing_tool_reason("perf")
            return
        self.record = _perf_record(os.getpid(), frequency, self.data)
        time.sleep(attach_s)
        if self.record.poll() is not None:
            stderr = _pipe(self.record.stderr)
            self.reason = f"perf record failed: {_last_line(stderr.read())}"
            stderr.close()
            self.record = None

    def stop(self) -> None:
        if self.record is not None:
            self.record.send_signal(signal.SIGINT)
            try:
                self.record.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                self.record.kill()
                self.record.communicate()

    def profile(self) -> ModuleProfile:
        """The folded samples (or none, with the reason); removes the perf data. Where perf
        could not record, the fallback config's py-spy profile (see :func:`profile_modules`)."""
        try:
            if not self.reason:
                profile = _fold_perf_data(self.data, self.dso)
                if profile.total:
                    return profile
                self.reason = profile.reason
        finally:
            self.tmp.cleanup()
        if self.fallback is None:
            return _no_samples(self.reason)
        try:
            pyspy = _profile_pyspy(self.fallback, self.frequency, self.attach_s)
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:  # the run itself went well
            pyspy = _no_samples(str(e))
        return pyspy if pyspy.total else _no_samples(f"perf: {self.reason}; py-spy: {pyspy.reason}")


class sample_this_process:
    """``with sample_this_process() as s: ...`` samples this process with perf record
    (cpu-clock) for the block; ``s.profile()`` then folds the samples into modules. py-spy
    cannot see the engine's worker threads here, so where perf cannot record, ``fallback``
    (the block's run config) is profiled after the block with py-spy instead."""

    def __init__(self, frequency: int = 999, attach_s: float = 0.5, fallback: RunConfig | None = None) -> None:
        self.frequency, self.attach_s, self.fallback = frequency, attach_s, fallback

    def __enter__(self) -> _Sampling:
        self.sampling = _Sampling(self.frequency, self.attach_s, self.fallback)
        return self.sampling

    def __exit__(self, *exc: object) -> None:
        self.sampling.stop()
