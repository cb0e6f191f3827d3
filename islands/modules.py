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
(:func:`fold_samples`) and tested on recorded output; :func:`profile_modules` does the run.
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
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

from islands.config import RunConfig

__all__ = ["MODULES", "ModuleProfile", "fold_samples", "module_of_source", "profile_modules"]

MODULES = ("index", "cc", "log", "transaction", "transport", "driver", "other")

_AREA_MODULE = {"index": "index", "cc": "cc", "log": "log", "txn": "transaction", "workload": "transaction",
                "storage": "transaction", "transport": "transport", "exec": "driver", "perf": "driver"}
_COMMON_MODULE = {"optimistic_latch": "index", "spin_latch": "index", "random": "driver", "zipf": "driver",
                  "backoff": "driver", "cycle_clock": "driver", "latency_histogram": "driver"}
_SOURCE_RE = re.compile(r"csrc/(?:include/islands|src)/(\w+)/(\w+)\.(?:hpp|cpp)")
_SAMPLE_RE = re.compile(r"^\s*([0-9a-f]+)\s+(.*?)\+0x([0-9a-f]+)\s+\((.*)\)\s*$")


def module_of_source(path: str) -> str | None:
    """The engine module of a source path (None when it is not an engine file)."""
    m = _SOURCE_RE.search(path)
    if not m:
        return None
    area, name = m.group(1), m.group(2)
    if area == "common":
        return _COMMON_MODULE.get(name, "driver")
    return _AREA_MODULE.get(area, "other")


@dataclass(frozen=True)
class ModuleProfile:
    """Samples per module and their shares."""

    samples: dict[str, int]  #: module -> samples
    other_symbols: dict[str, int] = field(default_factory=dict)  #: top symbols outside the engine
    reason: str = ""  #: why there are no samples ("" when there are)

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
        return {"samples": self.samples, "shares": self.shares, "other_symbols": self.other_symbols,
                "reason": self.reason}


def _fold(lines: Iterable[tuple[str, str, int, str]], engine_dso: str,
          module_of_samples: Callable[[list[tuple[str, int]]], list[str | None]]) -> ModuleProfile:
    engine: list[tuple[str, int]] = []
    samples: Counter[str] = Counter()
    others: Counter[str] = Counter()
    for _ip, sym, off, dso in lines:
        if os.path.basename(dso) == os.path.basename(engine_dso):
            engine.append((sym, off))
        else:
            samples["other"] += 1
            others[f"{sym} ({os.path.basename(dso)})"] += 1
    for module, (sym, _off) in zip(module_of_samples(engine), engine):
        if module is None:
            samples["other"] += 1
            others[f"{sym} (engine, no line info)"] += 1
        else:
            samples[module] += 1
    return ModuleProfile(samples={m: samples.get(m, 0) for m in MODULES}, other_symbols=dict(others.most_common(8)))


def parse_perf_script(text: str) -> list[tuple[str, str, int, str]]:
    """``perf script -F ip,sym,symoff,dso`` lines -> (ip, symbol, offset, dso) per sample."""
    out = []
    for line in text.splitlines():
        m = _SAMPLE_RE.match(line)
        if m:
            out.append((m.group(1), m.group(2), int(m.group(3), 16), m.group(4)))
        elif line.strip():
            parts = line.split()
            out.append((parts[0], "[unknown]", 0, parts[-1].strip("()") if len(parts) > 1 else "[unknown]"))
    return out


def fold_samples(script: str, engine_dso: str,
                 module_of_samples: Callable[[list[tuple[str, int]]], list[str | None]]) -> ModuleProfile:
    """Folds ``perf script -F ip,sym,symoff,dso`` output into modules: samples in
    ``engine_dso`` go through ``module_of_samples`` ((symbol, offset) pairs -> module or None),
    the rest are "other". Pure; :func:`profile_modules` passes the addr2line resolver."""
    return _fold(parse_perf_script(script), engine_dso, module_of_samples)


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
                return name[:i]
    return name


def addr2line_resolver(dso: str) -> Callable[[list[tuple[str, int]]], list[str | None]]:
    """(symbol, offset) pairs in ``dso`` -> engine module of the innermost engine source line
    (inlined frames included), through ``nm`` and one batched ``addr2line -i`` call."""
    symbols: dict[str, int] = {}
    nm = subprocess.run(["nm", "-C", "--defined-only", dso], capture_output=True, text=True, check=True)
    for line in nm.stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3:
            symbols.setdefault(_perf_name(parts[2]), int(parts[0], 16))

    def resolve(pairs: list[tuple[str, int]]) -> list[str | None]:
        addrs = [symbols[s] + off if s in symbols else None for s, off in pairs]
        wanted = sorted({a for a in addrs if a is not None})
        module_at: dict[int, str | None] = {}
        if wanted:
            # -a prints each address before its inline chain (innermost frame first)
            done = subprocess.run(["addr2line", "-a", "-i", "-e", dso, *map(hex, wanted)],
                                  capture_output=True, text=True, check=True)
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
from islands.config import RunConfig
from islands.run import run
print("ready", flush=True)  # imports done before perf attaches: only the run is sampled
sys.stdin.readline()
result = run(RunConfig.from_dict(json.loads(sys.argv[1])))
print(json.dumps({"throughput_tps": result.throughput_tps}), flush=True)
"""


def profile_modules(config: RunConfig, frequency: int = 999, attach_s: float = 1.0) -> ModuleProfile:
    """Runs ``config`` as one instance in a child process under ``perf record -e cpu-clock``
    and folds its samples into modules. Without perf (or when the kernel refuses it), a
    profile with no samples and the reason."""
    from islands import _core

    if shutil.which("perf") is None:
        return ModuleProfile(samples={m: 0 for m in MODULES}, reason="perf is not installed (make install adds linux-perf)")
    dso = str(Path(_core.__file__).resolve())
    with tempfile.TemporaryDirectory(prefix="islands-perf-") as tmp:
        data = Path(tmp) / "perf.data"
        child = subprocess.Popen([sys.executable, "-c", _CHILD, json.dumps(config.to_dict())], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        record = None
        try:
            if child.stdout.readline().strip() != "ready":
                raise RuntimeError("the profiled instance did not start")
            record = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", str(frequency), "-o", str(data),
                                       "-p", str(child.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      text=True)
            time.sleep(attach_s)
            if record.poll() is not None:
                why = (record.stderr.read().strip().splitlines() or ["no output"])[-1]
                return ModuleProfile(samples={m: 0 for m in MODULES}, reason=f"perf record failed: {why}")
            child.stdin.write("go\n")
            child.stdin.flush()
            line = child.stdout.readline()
            if child.wait(timeout=config.driver.warmup_s + config.driver.duration_s + 120) != 0 or not line:
                raise RuntimeError("the profiled instance failed")
            record.send_signal(signal.SIGINT)
            record.communicate(timeout=60)
        finally:
            for proc in (child, record):
                if proc is not None and proc.poll() is None:
                    proc.kill()
                    proc.wait()
            child.stdout.close()
            if not child.stdin.closed:
                child.stdin.close()
        script = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip,sym,symoff,dso"],
                                capture_output=True, text=True, timeout=300)
    return fold_samples(script.stdout, dso, addr2line_resolver(dso))
