"""Transports between real processes through the Python handle (islands._core.make_transport):
content verified byte for byte, garbage rejected and counted per reason, nothing left behind,
and the set-up errors users meet. The exhaustive checks are in csrc/tests/test_transport.cpp."""

from __future__ import annotations

import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from islands import _core

ROOT = Path(__file__).resolve().parent.parent
TRANSPORTS = ["unix", "shm"]
MAGIC = 0x444C5349
HEADER = struct.Struct("<IHHIIQ")  # magic, version, type, payload length, source, txn id
N_MESSAGES = 3000
GARBAGE_EVERY = 50


def payload(src: int, dst: int, seq: int) -> bytes:
    """Deterministic content that both processes can compute and check."""
    size = (seq * 37 + src * 11) % 500
    return bytes((seq * 131 + k * 7 + src * 13 + dst) & 0xFF for k in range(size))


def garbage(source: int) -> list[tuple[bytes, str]]:
    """Malformed records and the reason the receiver must count each under."""
    body = b"\xab" * 10
    good = HEADER.pack(MAGIC, 1, 2, len(body), source, 42) + body
    return [
        (b"\x00" * 40, "bad_magic"),
        (HEADER.pack(MAGIC, 7, 2, len(body), source, 42) + body, "bad_version"),
        (HEADER.pack(MAGIC, 1, 999, len(body), source, 42) + body, "unknown_type"),
        (HEADER.pack(MAGIC, 1, 2, 1 << 30, source, 42) + body, "too_long"),
        (good[:-4], "truncated"),
        (good + b"xyz", "trailing_bytes"),
        (HEADER.pack(MAGIC, 1, 2, len(body), source + 5, 42) + body, "wrong_source"),
    ]


@pytest.fixture
def run_dir():
    """A private (0700) run directory, on tmpfs when there is one; must be empty at the end."""
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    path = Path(tempfile.mkdtemp(prefix="islands-transport-", dir=base))
    try:
        yield path
        assert sorted(os.listdir(path)) == [], "an endpoint left files behind"
    finally:
        shutil.rmtree(path, ignore_errors=True)


# Instance 1, in its own process: echoes every message from instance 0 back as an ack with
# its payload reversed after checking its content, counts what it gets, and reports as JSON.
PEER = textwrap.dedent(
    """
    import json, sys
    from islands import _core
    sys.path.insert(0, sys.argv[4])
    from test_transport import payload

    name, directory, n_messages = sys.argv[1], sys.argv[2], int(sys.argv[3])
    bad = 0
    got = 0
    with _core.make_transport(name, directory, 1, 2, ring_bytes=8192, max_message_bytes=2048,
                              attach_timeout_s=30) as t:
        pending = []
        done = False
        while not done or pending:
            while pending and t.send(0, _core.MessageType.ack, *pending[0]):
                pending.pop(0)
            m = t.poll(timeout_s=0.001)
            if m is None:
                continue
            mtype, source, txn, data = m
            if mtype == _core.MessageType.shutdown:
                done = True
                pending.append((n_messages, b""))
                continue
            if source != 0 or txn != got or mtype != _core.MessageType.fragment:
                bad += 1
            if data != payload(0, 1, txn):
                bad += 1
            got += 1
            pending.append((txn, data[::-1]))
        stats = t.stats()
        print(json.dumps({"bad": bad, "got": got, "stats": stats}))
    """
)


def start_peer(name: str, directory: Path, n_messages: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", PEER, name, str(directory), str(n_messages), str(ROOT / "tests")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def test_registry_names_and_unknown_transport(run_dir):
    assert _core.transport_names() == ["unix", "shm"]
    with pytest.raises(ValueError, match=r"unknown transport 'tcp' \(choose unix, shm\)"):
        _core.make_transport("tcp", str(run_dir), 0, 1)


@pytest.mark.parametrize("name", TRANSPORTS)
def test_two_processes_exchange_verified_content(name, run_dir):
    peer = start_peer(name, run_dir, N_MESSAGES)
    try:
        t = _core.make_transport(name, str(run_dir), 0, 2, ring_bytes=8192, max_message_bytes=2048, attach_timeout_s=30)
    except BaseException:
        peer.kill()
        peer.communicate()
        raise
    with t:
        assert (t.name, t.instance_id, t.n_instances) == (name, 0, 2)
        if name == "unix":
            assert stat.S_IMODE(os.stat(run_dir / "inst-0.sock").st_mode) == 0o600
        else:
            assert stat.S_IMODE(os.stat(run_dir / "ring-1-to-0").st_mode) == 0o600
        assert stat.S_IMODE(os.stat(run_dir).st_mode) == 0o700
        kinds = garbage(0)
        expected = {reason: 0 for _, reason in kinds}
        plan: list[tuple[str, int]] = []
        for seq in range(N_MESSAGES):
            plan.append(("good", seq))
            if seq % GARBAGE_EVERY == GARBAGE_EVERY - 1:
                plan.append(("raw", seq // GARBAGE_EVERY))
                expected[kinds[(seq // GARBAGE_EVERY) % len(kinds)][1]] += 1
        plan.append(("shutdown", 0))
        acks = 0
        shutdown_seen = False
        while plan or not shutdown_seen:
            while plan:
                kind, i = plan[0]
                if kind == "good":
                    ok = t.send(1, _core.MessageType.fragment, i, payload(0, 1, i))
                elif kind == "raw":
                    ok = t.send_raw(1, kinds[i % len(kinds)][0])
                else:
                    ok = t.send(1, _core.MessageType.shutdown, N_MESSAGES)
                if not ok:
                    break
                plan.pop(0)
            m = t.poll(timeout_s=0.001)
            if m is None:
                assert peer.poll() is None, peer.communicate()
                continue
            mtype, source, txn, data = m
            assert source == 1
            if txn == N_MESSAGES:
                shutdown_seen = True
                continue
            assert (mtype, txn) == (_core.MessageType.ack, acks)
            assert data == payload(0, 1, txn)[::-1]
            acks += 1
        assert acks == N_MESSAGES
        out, err = peer.communicate(timeout=60)
        assert peer.returncode == 0, err
        report = json.loads(out)
        assert report["bad"] == 0
        assert report["got"] == N_MESSAGES
        peer_stats = report["stats"]
        assert peer_stats["messages_received"] == N_MESSAGES + 1
        assert peer_stats["malformed"] == sum(expected.values())
        for reason, count in expected.items():
            assert peer_stats["malformed_by_reason"][reason] == count, reason
        mine = t.stats()
        assert mine["messages_sent"] == N_MESSAGES + 1
        assert mine["raw_records_sent"] == sum(expected.values())
        assert mine["messages_received"] == N_MESSAGES + 1  # the acks and the final one
        assert mine["malformed"] == 0
    with pytest.raises(RuntimeError, match="closed"):
        t.poll()


@pytest.mark.parametrize("name", TRANSPORTS)
def test_ping_pong_between_processes(name, run_dir):
    code = textwrap.dedent(
        """
        import sys
        from islands import _core
        with _core.make_transport(sys.argv[1], sys.argv[2], 1, 2, attach_timeout_s=30) as t:
            assert t.ping_pong(0, initiator=False, round_trips=0) == []
        """
    )
    peer = subprocess.Popen(
        [sys.executable, "-c", code, name, str(run_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    with _core.make_transport(name, str(run_dir), 0, 2, attach_timeout_s=30) as t:
        samples = t.ping_pong(1, initiator=True, round_trips=500, payload_bytes=64)
        assert len(samples) == 500 and min(samples) > 0
        assert t.stats()["messages_received"] == 500
    _, err = peer.communicate(timeout=60)
    assert peer.returncode == 0, err


@pytest.mark.parametrize("name", TRANSPORTS)
def test_setup_errors_are_clear(name, run_dir):
    peer_path = run_dir / ("inst-1.sock" if name == "unix" else "ring-0-to-1")
    with pytest.raises(RuntimeError, match=f"peer instance 1.*{peer_path}"):
        _core.make_transport(name, str(run_dir), 0, 2, attach_timeout_s=0.2)
    with pytest.raises(ValueError, match="instance_id"):
        _core.make_transport(name, str(run_dir), 2, 2)
    with pytest.raises(ValueError, match="ring_bytes"):
        _core.make_transport(name, str(run_dir), 0, 1, ring_bytes=1000)
    shared = run_dir / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    with pytest.raises(ValueError, match="owner-only"):
        _core.make_transport(name, str(shared), 0, 1)
    shared.rmdir()
    with _core.make_transport(name, str(run_dir), 0, 1) as t:
        with pytest.raises(ValueError, match="not a peer"):
            t.send(0, _core.MessageType.fragment, 1, b"x")
        assert t.poll() is None
        assert t.stats()["messages_sent"] == 0
