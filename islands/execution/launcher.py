"""Launching a deployment: one pinned process per instance, a load barrier, one measured
window everywhere at once, statistics collected as JSON, and nothing left behind.

Any instance that dies, a timeout or Ctrl-C ends the run: the others are killed, the error
names the instance and how it ended, and the private run directory (sockets, rings) is
removed. An instance stopped (SIGSTOP, a debugger) for STOPPED_GRACE_S is named and ends the
run too. Instance processes also die with the launcher (PR_SET_PDEATHSIG), and a janitor
process removes the run directory once the launcher is gone, SIGKILL included.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from islands import _core
from islands.config.settings import RunConfig
from islands.execution.in_process import check_cpus
from islands.execution.log_files import prepare_log_directory
from islands.execution.memory_admission import LIVE_SYSFS, check_load_fits
from islands.execution.run_result import RunResult, collect
from islands.execution.stale_files import recorded_start, start_ticks
from islands.execution.stop_signals import signals_held
from islands.machine.memory_placement import memory_nodes
from islands.machine.oversubscription import Packing
from islands.machine.placement import Deployment
from islands.machine.topology import Topology, format_cpulist, read_topology

#: Seconds an instance may take to load its data and attach to its peers.
LOAD_TIMEOUT_S = 120.0
#: Seconds past the end of the window for the shutdown handshake and the statistics.
FINISH_GRACE_S = 60.0


#: A deployment's result is the one result type of every run.
DeploymentResult = RunResult


class InstanceFailed(RuntimeError):
    """An instance process died, failed or timed out."""


#: Where private run directories are made: tmpfs when there is one, so that ring files are
#: never written back to a disk (None: the system's temporary directory).
RUN_ROOT: str | None = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def _run_directory() -> Path:
    """A new private run directory (mode 0700) named after this process, holding its start time
    (:data:`LAUNCHER_FILE`), after removing those of launchers that died without cleaning up
    (SIGKILL, power loss of a terminal): their pid is gone, or now names a process that started
    at another time than the one recorded.

    The root is shared (/dev/shm), so only a real directory of this user is ever removed: an
    entry another user made under the same name pattern (a link to elsewhere, their own
    directory) is left alone whatever its name says."""
    root = Path(RUN_ROOT or tempfile.gettempdir())
    for stale in root.glob("islands-run-*-*"):
        try:
            pid = int(stale.name.split("-")[2])
            st = stale.lstat()
        except (ValueError, OSError):
            continue  # not one of ours, or gone meanwhile
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(stale, ignore_errors=True)
            continue
        except PermissionError:
            continue  # alive, another user's
        # Alive: the launcher itself, or another process the pid was given to since. The
        # directory says when its launcher started, so a reused pid shows (without it: kept).
        made_by = recorded_start(stale)
        if made_by is not None and start_ticks(pid) not in (None, made_by):
            shutil.rmtree(stale, ignore_errors=True)
    directory = Path(tempfile.mkdtemp(prefix=f"islands-run-{os.getpid()}-", dir=root))
    ticks = start_ticks(os.getpid())
    if ticks is not None:
        (directory / LAUNCHER_FILE).write_text(str(ticks))
    return directory


#: The file of a run directory that holds its launcher's start time (/proc ticks after boot).
LAUNCHER_FILE = ".launcher"


#: What the janitor of a run directory runs (``python -S -c``, so that it starts fast): it waits
#: until its stdin closes (the launcher finished, or died: SIGKILL included) and then removes the
#: run directory, so that a killed launcher leaves no ring files in /dev/shm.
_JANITOR = """
import os, shutil, signal, sys, time
for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
    signal.signal(s, signal.SIG_IGN)
sys.stdin.buffer.read()
for _ in range(3):  # the instances die with the launcher; let them finish dying
    shutil.rmtree(sys.argv[1], ignore_errors=True)
    if not os.path.lexists(sys.argv[1]):
        break
    time.sleep(0.2)
"""


def _start_janitor(directory: Path) -> tuple[int, int] | None:
    """A process that removes ``directory`` once this launcher is gone, however it went: its pid
    and the write end of its stdin (None when it cannot be started: the next launch's
    stale-directory sweep still removes it). Spawned directly, in a session of its own (Ctrl-C
    of the terminal is the launcher's to handle), not through subprocess: it is no instance."""
    try:
        read_end, write_end = os.pipe()  # both close-on-exec; the child gets read_end as stdin
    except OSError:
        return None
    try:
        pid = os.posix_spawn(
            sys.executable,
            [sys.executable, "-S", "-c", _JANITOR, str(directory)],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, read_end, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
            setsid=True,
        )
    except OSError:
        os.close(write_end)
        return None
    finally:
        os.close(read_end)
    return pid, write_end


def _stop_janitor(janitor: tuple[int, int] | None) -> None:
    """Tells the janitor the launcher is done (its stdin closes) and reaps it."""
    if janitor is None:
        return
    pid, write_end = janitor
    with contextlib.suppress(OSError):
        os.close(write_end)
    deadline = time.monotonic() + 10
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    if not done:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


#: Seconds an instance may stay stopped (SIGSTOP, a debugger) before the run names it and ends:
#: the others would wait for it until a timeout otherwise.
STOPPED_GRACE_S = 2.0


def _process_state(pid: int) -> str:
    """The state letter of a process (/proc/PID/stat: R, S, D, T stopped, t traced, Z ...);
    "" when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    # The command name is in parentheses and may hold spaces: the state follows the last ')'.
    rest = text.rpartition(")")[2].split()
    return rest[0] if rest else ""


def _how_it_ended(code: int | None) -> str:
    if code is None:
        return "did not answer in time"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def _pipe(stream: IO[bytes] | None) -> IO[bytes]:
    """An instance's stdin or stdout: every instance is started with both as pipes."""
    if stream is None:
        raise RuntimeError("instance process started without its pipes")
    return stream


def _kill_if_running(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()


class _Instances:
    """The instance processes of one run and their JSON-line conversations."""

    def __init__(self, specs: list[dict[str, Any]], directory: Path, deployment: Deployment) -> None:
        self.deployment = deployment
        self.directory = directory
        self.procs: list[subprocess.Popen[bytes]] = []
        self.buffers: list[bytes] = []
        self.selector = selectors.DefaultSelector()
        try:
            for i, spec in enumerate(specs):
                with open(directory / f"instance-{i}.stderr", "wb") as err:
                    proc = subprocess.Popen(
                        [sys.executable, "-m", "islands.execution.instance_process"],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=err,
                        close_fds=True,
                    )
                self.procs.append(proc)
                self.buffers.append(b"")
                self.selector.register(_pipe(proc.stdout), selectors.EVENT_READ, i)
                self.send(i, spec)
        except BaseException:
            self.kill()  # those already started: the caller never gets this object to clean up
            raise

    def send(self, i: int, message: dict[str, Any]) -> None:
        """Writes one JSON line to instance i; InstanceFailed naming it when it is gone."""
        stdin = _pipe(self.procs[i].stdin)
        try:
            stdin.write((json.dumps(message) + "\n").encode())
            stdin.flush()
        except (BrokenPipeError, ConnectionResetError):
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.procs[i].wait(timeout=5)
            raise self.failure(i) from None

    def describe(self, i: int) -> str:
        return f"instance {i} (pid {self.procs[i].pid}, cpus {format_cpulist(self.deployment.instances[i])})"

    def failure(self, i: int, what: str | None = None) -> InstanceFailed:
        code = self.procs[i].poll()
        detail = what or _how_it_ended(code)
        err = self.directory / f"instance-{i}.stderr"
        tail = err.read_text(errors="replace").strip().splitlines()[-1:] if err.exists() else []
        return InstanceFailed(f"{self.describe(i)} {detail}" + (f": {tail[0]}" if tail else ""))

    def collect(self, event: str, deadline: float) -> list[dict[str, Any]]:
        """Waits until every instance said `event`; raises InstanceFailed otherwise."""
        got: dict[int, dict[str, Any]] = {}
        stopped_since: dict[int, float] = {}
        while len(got) < len(self.procs):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                waiting = sorted(set(range(len(self.procs))) - set(got))
                # The one that is stopped, if one is, is why the others wait.
                culprit = next((i for i in waiting if i in stopped_since), waiting[0])
                raise self.failure(culprit, f"did not say '{event}' in time")
            self.check_stopped(got, stopped_since)
            for key, _ in self.selector.select(timeout=min(remaining, 0.5)):
                i = key.data
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    self.selector.unregister(key.fileobj)
                    self.procs[i].wait(timeout=5)
                    if i not in got:
                        raise self.failure(i)
                    continue
                self.buffers[i] += chunk
                while b"\n" in self.buffers[i]:
                    line, self.buffers[i] = self.buffers[i].split(b"\n", 1)
                    message = json.loads(line)
                    if message["event"] == "error":
                        self.procs[i].wait(timeout=10)
                        raise self.failure(i, f"failed: {message['message']}" + self.other_errors(i))
                    if message["event"] == event:
                        got[i] = message
            for i, proc in enumerate(self.procs):
                if i not in got and proc.poll() is not None and self.buffers[i].count(b"\n") == 0:
                    # Exited with nothing more to read: let select drain EOF first, then judge.
                    if self.selector.get_map().get(_pipe(proc.stdout).fileno()) is None:
                        raise self.failure(i)
        return [got[i] for i in range(len(self.procs))]

    def check_stopped(self, got: dict[int, Any], stopped_since: dict[int, float]) -> None:
        """Raises InstanceFailed naming an instance that has been stopped (state T: SIGSTOP, a
        debugger) for STOPPED_GRACE_S: every other instance would wait on it until a timeout."""
        now = time.monotonic()
        for i, proc in enumerate(self.procs):
            if i in got or proc.poll() is not None:
                stopped_since.pop(i, None)
                continue
            if _process_state(proc.pid) in ("T", "t"):
                since = stopped_since.setdefault(i, now)
                if now - since >= STOPPED_GRACE_S:
                    raise self.failure(
                        i, f"was stopped (SIGSTOP or a debugger) for {now - since:.0f} s and stalled the run"
                    )
            else:
                stopped_since.pop(i, None)

    def other_errors(self, first: int, wait_s: float = 2.0) -> str:
        """The errors other instances report within `wait_s` of the first one (one failure
        usually breaks the mesh for the others: the first to speak is not always the cause)."""
        deadline = time.monotonic() + wait_s
        found = []
        for j, proc in enumerate(self.procs):
            if j == first:
                continue
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                continue
            try:
                rest = self.buffers[j] + _pipe(proc.stdout).read()
            except (OSError, ValueError):
                continue
            for line in rest.splitlines():
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if message.get("event") == "error":
                    found.append(f"instance {j} failed: {message['message']}")
        return "".join(f"; {f}" for f in found)

    def kill(self) -> None:
        """Kills every instance still running and reaps them all."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
        for proc in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        self.selector.close()


def instance_specs(
    deployment: Deployment,
    config: RunConfig,
    transport: str,
    directory: Path,
    topology: Topology,
    ring_bytes: int = 16 * 1024,
    recover: bool = False,
    memory: str = "local",
    packing: Packing | None = None,
) -> list[dict[str, Any]]:
    """What each instance process is told: its config (CPUs), the mesh, memory nodes (where
    ``memory``, a :data:`~islands.machine.memory_placement.MEMORY_POLICIES` policy, puts them).
    With ``packing`` (a deployment planned on another machine) the workers run on the packing's
    CPUs of this machine and no memory is bound; sites keep the planned machine's sockets."""
    sizes = [len(cpus) for cpus in deployment.instances]
    bound = None if packing is not None else memory_nodes(topology, deployment, memory)
    pinned = deployment.pinned and packing is None  # a packed instance is bound as a process instead
    # Every site's socket (sites are the CPUs in order): an injected cross-socket delay needs
    # them, and so do the per-socket system structures (engine.system_structures).
    site_sockets = [topology.socket_of(c) for cpus in deployment.instances for c in cpus]
    specs = []
    for i, cpus in enumerate(deployment.instances):
        driver = {**config.to_dict()["driver"], "cpus": list(cpus), "pin": pinned}
        specs.append(
            {
                "launcher_pid": os.getpid(),
                "config": {**config.to_dict(), "driver": driver},
                "instance_id": i,
                "instance_sites": sizes,
                "transport": transport,
                "directory": str(directory),
                "ring_bytes": ring_bytes,
                "recover": recover,
                "site_sockets": site_sockets,
                "message_delay_us": topology.message_delay_us,
                # More workers than CPUs: a waiting worker sleeps at once, so that the peer it
                # waits for gets the CPU (InstanceConfig::idle_spin_us).
                **({"idle_spin_us": 0.0} if packing is not None and packing.factor > 1 else {}),
                "affinity": list(packing.affinity(i) or ()) if packing is not None else [],
                "numa_nodes": bound[i] if bound else None,
            }
        )
    return specs


#: Resident memory an instance process takes besides its data (interpreter, engine, rings'
#: mappings): 42-51 MiB measured at 2-192 instances (benchmarks/scale.py, docs/scale.md).
INSTANCE_OVERHEAD_BYTES = 64 << 20
#: The longest path of a unix socket (sun_path holds 108 bytes with its terminating zero).
UNIX_PATH_MAX = 107
#: Descriptors an instance holds besides its unix sockets (pipes, the engine's, Python's).
BASE_DESCRIPTORS = 64


def ring_bytes_needed(n_sites: int, ring_bytes: int = 16 * 1024) -> int:
    """The shm transport's files for ``n_sites`` endpoints: a ring each way between every pair
    (measured: 20 KiB a ring at the default 16 KiB of buffering, 717 MiB at 192)."""
    return n_sites * (n_sites - 1) * (ring_bytes + 4096)


def check_scale_limits(deployment: Deployment, transport: str, run_root: str | None = None) -> list[str]:
    """Refuses (ValueError, one line naming the limit and what would lift it) a deployment that
    would hit a limit of this machine part way through its start-up, and returns what it raised
    on the way: each unix endpoint's descriptors against RLIMIT_NOFILE (the soft limit is raised
    to what is needed where the hard one allows), the shm rings against the free space of the
    run directory's file system, and the instance processes' overhead against available memory."""
    import resource

    notes: list[str] = []
    sites = deployment.n_cpus
    if transport == "unix":
        # The longest socket path: <root>/islands-run-<pid>-<8 random>/inst-<largest site>.sock
        # (the run directory is made later; mkdtemp's random part is 8 characters).
        root = run_root or tempfile.gettempdir()
        longest = len(f"{root}/islands-run-{os.getpid()}-12345678/inst-{sites - 1}.sock")
        if longest > UNIX_PATH_MAX:
            raise ValueError(
                f"deployment {deployment.label}: its unix sockets' paths under {root} would be {longest} bytes, "
                f"over the {UNIX_PATH_MAX}-byte limit of unix sockets (run from a shorter directory, or use "
                "--transport shm)"
            )
        need = sites + BASE_DESCRIPTORS
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard != resource.RLIM_INFINITY and need > hard:
            raise ValueError(
                f"deployment {deployment.label}: a unix endpoint needs about {need} file descriptors, above this "
                f"machine's hard limit of {hard} (ulimit -Hn; raise it, or use --transport shm)"
            )
        if soft != resource.RLIM_INFINITY and need > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))  # inherited by the instances
            notes.append(f"raised the open-files limit from {soft} to {need} for {sites} unix endpoints")
    if transport == "shm":
        need = ring_bytes_needed(sites)
        root = run_root or tempfile.gettempdir()
        free = shutil.disk_usage(root).free
        if need > free:
            raise ValueError(
                f"deployment {deployment.label}: its shm rings need about {need / 2**30:.1f} GiB in {root}, "
                f"which has {free / 2**30:.1f} GiB free (enlarge it, or use --transport unix)"
            )
    from islands.execution.memory_admission import available_bytes

    available = available_bytes()
    need = deployment.n_instances * INSTANCE_OVERHEAD_BYTES
    if available is not None and need > available:
        raise ValueError(
            f"deployment {deployment.label}: {deployment.n_instances} instance processes need about "
            f"{need / 2**30:.1f} GiB besides their data, but {available / 2**30:.1f} GiB is available"
        )
    return notes


def validate(
    deployment: Deployment, config: RunConfig, transport: str, topology: Topology, packing: Packing | None = None
) -> None:
    """Raises ValueError for a deployment or config that cannot run, before anything starts
    (with ``packing``, on the CPUs and memory of this machine it is packed onto)."""
    if packing is not None:
        host = read_topology()
        check_cpus(packing.host_cpus, host)
        check_load_fits(config, deployment.n_cpus, instances=deployment.n_instances)
    else:
        check_cpus(deployment.cpus, topology)
    for i, cpus in enumerate(deployment.instances):
        core = _core.InstanceConfig()
        instance = dataclasses.replace(config, driver=dataclasses.replace(config.driver, cpus=tuple(cpus)))
        core.run = instance.to_core(total_sites=deployment.n_cpus)
        core.instance_id = i
        core.instance_sites = [len(c) for c in deployment.instances]
        core.transport = transport
        core.directory = "/nonexistent-checked-later"
        core.validate()
    if packing is None and topology.source == LIVE_SYSFS:  # this machine's memory (a plan for another is not judged)
        check_load_fits(config, deployment.n_cpus, instances=deployment.n_instances)


def load_timeout_s(n_instances: int) -> float:
    """Seconds the instances may take to load and attach: :data:`LOAD_TIMEOUT_S`, and half a
    second more for each instance past 64 (each one's start-up is a Python interpreter and its
    rings, and an oversubscribed machine starts them a few at a time)."""
    return LOAD_TIMEOUT_S + 0.5 * max(0, n_instances - 64)


def finish_grace_s(n_instances: int) -> float:
    """Seconds past the window for the shutdown handshake and the results: :data:`FINISH_GRACE_S`,
    and half a second more for each instance past 64 (the handshake is with every peer, and an
    oversubscribed machine runs a few instances at a time)."""
    return FINISH_GRACE_S + 0.5 * max(0, n_instances - 64)


def resources_at_ready(directory: Path, procs: list[subprocess.Popen[bytes]]) -> dict[str, Any]:
    """What a deployment holds once every instance is ready: the bytes of its run directory
    (rings, doorbells, sockets: /dev/shm), and each instance's open file descriptors, resident
    memory and CPU seconds so far (None where /proc cannot say)."""
    shared = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            with contextlib.suppress(OSError):
                shared += entry.stat(follow_symlinks=False).st_blocks * 512
    fds: list[int | None] = []
    rss: list[int | None] = []
    cpu = [_cpu_seconds(proc.pid) for proc in procs]
    for proc in procs:
        try:
            fds.append(len(os.listdir(f"/proc/{proc.pid}/fd")))
        except OSError:
            fds.append(None)
        try:
            with open(f"/proc/{proc.pid}/statm") as f:
                rss.append(int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE"))
        except (OSError, ValueError, IndexError):
            rss.append(None)
    return {"run_directory_bytes": shared, "fds": fds, "rss_bytes": rss, "cpu_s": cpu}


def _cpu_seconds(pid: int) -> float | None:
    """CPU seconds process ``pid`` has used (user + system, /proc/PID/stat); None when unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().decode(errors="replace").rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def run_deployment(
    deployment: Deployment,
    config: RunConfig,
    transport: str = "unix",
    topology: Topology | None = None,
    recover: bool = False,
    kill: tuple[int, float] | None = None,
    memory: str = "local",
    packing: Packing | None = None,
) -> DeploymentResult:
    """Runs `config`'s workload on every instance of `deployment` and returns the result.

    The driver settings of `config` give warm-up, duration and seed; its CPUs are replaced by
    each instance's. Raises ValueError for bad input (nothing is started), InstanceFailed when
    an instance dies or times out (the others are stopped, nothing is left behind).

    With the log on (``config.log``), ``recover=True`` restarts the deployment from its logs:
    every instance loads its initial data, replays its log (resolving in-doubt distributed
    transactions from their coordinators' logs) and the run continues on the recovered state.
    ``kill=(instance, seconds)`` SIGKILLs that instance that many seconds after the start
    command (fault testing): the run then ends with InstanceFailed, the others killed too.
    ``memory`` says which NUMA nodes each instance allocates on (:mod:`islands.machine.memory_placement`:
    local, central or remote; paper 002 Table 1); each of the result's ``instances`` says
    where it was bound (``memory_nodes``, None where nothing was bound). ``packing``: the
    deployment was planned on ``topology``, another machine's, and runs packed onto this
    machine's CPUs (:mod:`islands.machine.oversubscription`; a functional run).
    """
    topology = topology or read_topology()
    validate(deployment, config, transport, topology, packing)
    limit_notes = check_scale_limits(deployment, transport, RUN_ROOT)
    if packing is None:
        memory_nodes(topology, deployment, memory)  # a policy the machine cannot give: refused now
    if recover and config.log.mode == "off":
        raise ValueError("recover: recovery replays the log, but log.mode is off")
    log_warnings: list[str] = []
    if config.log.mode != "off":
        log_warnings = prepare_log_directory(config.log.directory, [len(c) for c in deployment.instances], recover)
    began = time.monotonic()
    directory: Path | None = None
    janitor = None
    instances = None
    killer = None
    launch: dict[str, Any] = {}
    try:
        with signals_held():  # a stop signal as the directory is made must find it named, to remove
            directory = _run_directory()
            janitor = _start_janitor(directory)
        specs = instance_specs(
            deployment, config, transport, directory, topology, recover=recover, memory=memory, packing=packing
        )
        instances = _Instances(specs, directory, deployment)
        launch["spawn_s"] = time.monotonic() - began
        instances.collect("ready", time.monotonic() + load_timeout_s(deployment.n_instances))
        launch["ready_s"] = time.monotonic() - began
        launch.update(resources_at_ready(directory, instances.procs))
        start_at = time.monotonic_ns() + 50_000_000  # everyone gets the command before it
        if kill is not None:
            victim = instances.procs[kill[0]]
            killer = threading.Timer(0.05 + kill[1], _kill_if_running, (victim,))
            killer.start()
        for i in range(deployment.n_instances):
            instances.send(
                i,
                {
                    "cmd": "start",
                    "start_at_ns": start_at,
                    "warmup_s": config.driver.warmup_s,
                    "duration_s": config.driver.duration_s,
                },
            )
        deadline = (
            time.monotonic()
            + 0.05
            + config.driver.warmup_s
            + config.driver.duration_s
            + finish_grace_s(deployment.n_instances)
        )
        results = instances.collect("result", deadline)
        finished = time.monotonic()
        launch["window_s"] = finished - launch["ready_s"] - began  # start command to every result
        launch["cpu_s_after_ready"] = [
            None if (now := _cpu_seconds(p.pid)) is None or then is None else now - then
            for p, then in zip(instances.procs, launch.pop("cpu_s"), strict=True)
        ]
        for i, r in enumerate(
            results
        ):  # engine.record_history: each instance's file (islands.execution.instance_process)
            recorded = directory / f"history-{i}.u64"
            if recorded.exists():
                r["stats"]["history"] = recorded.read_bytes()
        checkpoint = config.log.mode != "off" and config.log.checkpoint
        for i in range(deployment.n_instances):
            instances.send(i, {"cmd": "checkpoint" if checkpoint else "exit"})
        if checkpoint:
            instances.collect("checkpointed", time.monotonic() + FINISH_GRACE_S)
        for proc in instances.procs:
            proc.wait(timeout=30)
    finally:
        if killer is not None:
            killer.cancel()
            killer.join()
        if instances is not None:
            instances.kill()
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)
        _stop_janitor(janitor)
    launch["teardown_s"] = time.monotonic() - finished
    result = collect(config, deployment, transport, topology, results)
    result = dataclasses.replace(result, launch=launch)
    result.warnings.extend(log_warnings)
    result.launch["notes"] = limit_notes
    for instance, spec in zip(result.instances, specs):
        instance["memory_nodes"] = spec["numa_nodes"]  # None: not bound (the kernel's default)
    if config.profile.simulate:  # cachegrind's copy runs after the instances are gone
        from islands.measure.cachegrind import simulated_profile

        result.profile["simulated"] = simulated_profile(config)
    return result
