"""Tests for islands.machine.topology and the `islands topology` command, on made-up sysfs trees
(tests/fixtures/sysfs/, written by tests/fixtures/make_sysfs_fixtures.py), on in-memory
machines, and on the machine the tests run on (checked against lscpu)."""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import shutil
import subprocess
import sys
from collections import deque
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from islands.cli import topology_command as cli  # noqa: E402
from islands.machine.topology import (  # noqa: E402
    Cache,
    Core,
    NumaNode,
    Socket,
    Topology,
    TopologyError,
    format_cpulist,
    format_size,
    parse_cpulist,
    parse_size,
    parse_topology,
    read_sysfs_files,
    read_topology,
)

FIXTURES = ROOT / "tests" / "fixtures"
SYSFS = FIXTURES / "sysfs"
KiB, MiB = 1 << 10, 1 << 20


def _load_generator():
    spec = importlib.util.spec_from_file_location("make_sysfs_fixtures", FIXTURES / "make_sysfs_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while decorating
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


def tree(name: str) -> Path:
    return SYSFS / name


def topo(name: str) -> Topology:
    return read_topology(tree(name))


# Expected shape of each fixture, written out by hand from the machine descriptions
# (Table 1 of the paper and this VM), not derived from the generator.
EXPECTED = {
    # name: (sockets, cores per socket, threads per core, nodes, L1d, L2, L3)
    "xeon-e5-2640v2-2x8": (2, 8, 2, 2, 32 * KiB, 256 * KiB, 20 * MiB),
    "xeon-e7530-4x6": (4, 6, 2, 4, 32 * KiB, 256 * KiB, 12 * MiB),
    "xeon-e7l8867-8x10": (8, 10, 2, 8, 32 * KiB, 256 * KiB, 30 * MiB),
    "xeon-platinum-8160-8x24": (8, 24, 1, 8, 32 * KiB, 1 * MiB, 33 * MiB),
    "vm-1x2": (1, 2, 1, 1, 48 * KiB, 1280 * KiB, 48 * MiB),
}
FULL = sorted(EXPECTED)
ALL = sorted(gen.MACHINES)


def test_parse_cpulist():
    assert parse_cpulist("0-3,8,10-11") == [0, 1, 2, 3, 8, 10, 11]
    assert parse_cpulist("5\n") == [5]
    assert parse_cpulist("") == [] and parse_cpulist(" \n") == []
    assert parse_cpulist("8-9,0-2,1") == [0, 1, 2, 8, 9]
    assert parse_cpulist("0-7:2") == [0, 2, 4, 6]
    for bad in ("a", "3-1", "1,,2", "-1", "0-", "1 2", "0-7:0"):
        with pytest.raises(ValueError, match="bad cpu"):
            parse_cpulist(bad)


def test_parse_cpulist_is_bounded_and_ascii():
    """A range is refused before it is expanded (issue 48: "0-9999999999" grew to 24 GB), and
    only ASCII digits are cpu ids ("٠" and "０-１" are digits to str.isdigit and to \\d)."""
    from islands.machine.topology import MAX_CPULIST_CHARS, MAX_CPUS

    assert parse_cpulist(f"0-{MAX_CPUS - 1}") == list(range(MAX_CPUS))
    for bad in ("0-9999999999", f"{MAX_CPUS}", f"0-{MAX_CPUS}:2", "0-" + "9" * 5000):
        with pytest.raises(ValueError, match=f"bad cpu range .*cpu ids stop at {MAX_CPUS - 1}") as e:
            parse_cpulist(bad)
        assert len(str(e.value)) < 200 and "\n" not in str(e.value)
    for bad in ("٠", "０-１", "1,٣", "²", "1_0"):
        with pytest.raises(ValueError, match="ASCII digits 0-9 only"):
            parse_cpulist(bad)
    with pytest.raises(ValueError, match=f"more than {MAX_CPULIST_CHARS}"):
        parse_cpulist("0," * MAX_CPULIST_CHARS)


def test_format_cpulist_inverts_parse():
    assert format_cpulist([0, 1, 2, 3, 8, 10, 11]) == "0-3,8,10-11"
    assert format_cpulist([5, 3, 4, 4]) == "3-5"
    assert format_cpulist([]) == ""
    for text in ("0", "0-1", "0,2,4", "0-7,16-23", "1,3-4,9-12,40"):
        assert format_cpulist(parse_cpulist(text)) == text


def test_sizes():
    assert parse_size("32K\n") == 32 * KiB
    assert parse_size("20480K") == 20 * MiB
    assert parse_size("2M") == 2 * MiB and parse_size("512") == 512
    with pytest.raises(ValueError, match="bad size"):
        parse_size("big")
    assert format_size(32 * KiB) == "32 KiB"
    assert format_size(1280 * KiB) == "1.25 MiB"
    assert format_size(20 * MiB) == "20 MiB"
    assert format_size(100) == "100 B"


def test_committed_trees_match_generator():
    assert sorted(p.name for p in SYSFS.iterdir()) == ALL
    for name in ALL:
        assert read_sysfs_files(tree(name)) == gen.files_for(name), name


@pytest.mark.parametrize("name", FULL)
def test_fixture_shape(name):
    n_sockets, cores_per_socket, threads, n_nodes, l1d, l2, l3 = EXPECTED[name]
    t = topo(name)
    assert t.n_sockets == n_sockets
    assert t.n_cores == n_sockets * cores_per_socket
    assert t.n_cpus == n_sockets * cores_per_socket * threads
    assert t.cpus == tuple(range(t.n_cpus))
    assert t.n_numa_nodes == n_nodes == len(t.distances)
    assert [s.id for s in t.sockets] == list(range(n_sockets))
    for sock in t.sockets:
        assert len(sock.cores) == cores_per_socket
        assert len(sock.cpus) == cores_per_socket * threads
        assert all(len(core.cpus) == threads and core.socket == sock.id for core in sock.cores)
    # Caches: three per core and one L3 per socket, shared by exactly that core / socket.
    by_name: dict[str, list[Cache]] = {}
    for cache in t.caches:
        by_name.setdefault(cache.name, []).append(cache)
    assert sorted(by_name) == ["L1d", "L1i", "L2", "L3"]
    core_cpus = sorted(core.cpus for core in t.cores)
    for level in ("L1d", "L1i", "L2"):
        assert sorted(c.cpus for c in by_name[level]) == core_cpus
    assert sorted(c.cpus for c in by_name["L3"]) == sorted(s.cpus for s in t.sockets)
    assert {c.size_bytes for c in by_name["L1d"]} == {l1d}
    assert {c.size_bytes for c in by_name["L1i"]} == {32 * KiB}
    assert {c.size_bytes for c in by_name["L2"]} == {l2}
    assert {c.size_bytes for c in by_name["L3"]} == {l3}
    assert {c.line_size for c in t.caches} == {64}
    for cpu in t.cpus:
        llc = t.llc_of(cpu)
        assert llc is not None and llc.name == "L3"
        assert llc.cpus == t.cpus_of_socket(t.socket_of(cpu))
        assert [c.name for c in t.caches_of(cpu)] == ["L1d", "L1i", "L2", "L3"]
    # One NUMA node per socket (or one node in all), local distance on the diagonal.
    for node in t.numa_nodes:
        if n_nodes == n_sockets:
            assert node.cpus == t.cpus_of_socket(node.id)
    assert all(t.distances[i][i] == 10 for i in range(n_nodes))
    pairs = [(i, j) for i in range(n_nodes) for j in range(n_nodes)]
    assert all(t.distances[i][j] == t.distances[j][i] for i, j in pairs)


def test_two_socket_numbering_and_distances():
    t = topo("xeon-e5-2640v2-2x8")
    assert t.cpus_of_socket(0) == tuple(range(0, 8)) + tuple(range(16, 24))
    assert t.cpus_of_socket(1) == tuple(range(8, 16)) + tuple(range(24, 32))
    assert [core.cpus for core in t.socket(0).cores] == [(k, k + 16) for k in range(8)]
    assert [core.id for core in t.socket(1).cores] == list(range(8))
    assert t.distances == ((10, 20), (20, 10))
    assert t.notes == ()


def test_four_socket_round_robin_numbering():
    t = topo("xeon-e7530-4x6")
    assert all(t.socket_of(cpu) == cpu % 4 for cpu in t.cpus)
    assert all(t.numa_node_of(cpu) == cpu % 4 for cpu in t.cpus)
    # Nehalem-EX core ids are not contiguous; cores are grouped by (socket, core_id).
    assert [core.id for core in t.socket(2).cores] == [0, 1, 2, 8, 9, 10]
    assert t.core_of(26).cpus == (2, 26) and t.core_of(26).id == 0
    assert t.distances == tuple(tuple(10 if i == j else 20 for j in range(4)) for i in range(4))


def _hops(adjacent):
    n = len(adjacent)
    result = []
    for start in range(n):
        dist = {start: 0}
        queue = deque([start])
        while queue:
            a = queue.popleft()
            for b in range(n):
                if adjacent[a][b] and b not in dist:
                    dist[b] = dist[a] + 1
                    queue.append(b)
        result.append([dist.get(b, n + 1) for b in range(n)])
    return result


def test_eight_socket_twisted_cube():
    t = topo("xeon-e7l8867-8x10")
    d = t.distances
    n = len(d)
    assert n == 8
    assert all(d[i][j] == d[j][i] for i in range(n) for j in range(n))
    assert all(d[i][i] == 10 for i in range(n))
    assert {v for i in range(n) for j in range(n) if i != j for v in [d[i][j]]} == {21, 31}
    adjacent = [[d[i][j] == 21 for j in range(n)] for i in range(n)]
    # Three QPI links to other sockets per cpu (Table 1: "Connected using 3 QPI links").
    assert [sum(row) for row in adjacent] == [3] * n
    hops = _hops(adjacent)
    assert max(max(row) for row in hops) == 2  # every pair at most two hops apart
    # The plain 3-cube (degree 3 as well) would have diameter 3: the twist matters.
    cube = [[bin(i ^ j).count("1") == 1 for j in range(n)] for i in range(n)]
    assert max(max(row) for row in _hops(cube)) == 3
    assert all(d[i][j] == (10, 21, 31)[hops[i][j]] for i in range(n) for j in range(n))
    assert all(t.socket_of(cpu) == (cpu % 80) // 10 for cpu in t.cpus)
    assert [core.id for core in t.socket(7).cores] == [0, 1, 2, 8, 9, 16, 17, 18, 24, 25]
    assert t.distance(0, 7) == 31 and t.distance(0, 2) == 21


def test_vm_without_numa_is_one_node_with_a_note():
    t = topo("vm-1x2")
    assert not (tree("vm-1x2") / "devices/system/node").exists()
    assert t.numa_nodes == (NumaNode(0, (0, 1)),)
    assert t.distances == ((10,),)
    assert len(t.notes) == 1 and "devices/system/node" in t.notes[0]
    assert [c.cpus for c in t.caches if c.level == 3] == [(0, 1)]
    assert t.core_of(1) == Core(id=1, socket=0, cpus=(1,))


def test_offline_cpus_are_left_out():
    t = topo("xeon-e5-2640v2-2x8-offline")
    offline = {5, 7, 23}
    assert set(t.cpus) == set(range(32)) - offline
    assert t.n_cpus == 29 and t.n_cores == 15 and t.n_sockets == 2
    sock0 = t.socket(0)
    assert [core.id for core in sock0.cores] == [0, 1, 2, 3, 4, 5, 6]  # all of core 7 is offline
    assert t.core_of(21).cpus == (21,)
    assert t.cpus_of_node(0) == sock0.cpus == (0, 1, 2, 3, 4, 6, 16, 17, 18, 19, 20, 21, 22)
    llc = t.llc_of(0)
    assert llc is not None and llc.cpus == sock0.cpus
    assert not any(offline & set(c.cpus) for c in t.caches)
    assert t.notes == ("cpus 5,7,23 present but offline, left out",)
    for cpu in offline:
        with pytest.raises(ValueError, match=f"cpu {cpu} is not an online cpu"):
            t.socket_of(cpu)
    assert "(1-2 per core)" in t.describe()


@pytest.mark.parametrize("name", ALL)
def test_dict_round_trip(name):
    t = topo(name)
    d = t.to_dict()
    back = Topology.from_dict(json.loads(json.dumps(d)))
    assert back == t
    assert back.source == t.source == str(tree(name))
    assert back.to_dict() == d
    assert back.describe() == t.describe()
    assert hash(back) == hash(t)


def test_from_dict_errors():
    d = topo("xeon-e5-2640v2-2x8").to_dict()
    with pytest.raises(TopologyError, match="missing field 'sockets'"):
        Topology.from_dict({k: v for k, v in d.items() if k != "sockets"})
    with pytest.raises(TopologyError, match="version 7 is not 1"):
        Topology.from_dict({**d, "version": 7})
    two_nodes = json.loads(json.dumps(d))
    two_nodes["numa_nodes"][1]["cpus"].append(0)
    with pytest.raises(TopologyError, match="cpu 0 belongs to NUMA nodes 0 and 1"):
        Topology.from_dict(two_nodes)
    bad_matrix = {**d, "distances": [[10, 20]]}
    with pytest.raises(TopologyError, match="distance matrix is not 2x2"):
        Topology.from_dict(bad_matrix)
    with pytest.raises(TopologyError, match="malformed field"):
        Topology.from_dict({**d, "cpus": ["x"]})


def test_constructor_checks_consistency_and_is_frozen():
    core = Core(0, 0, [0, 1])
    t = Topology(cpus=[0, 1], sockets=[Socket(0, [core])], numa_nodes=[NumaNode(0, [0, 1])], distances=[[10]])
    assert t.cpus == (0, 1) and t.sockets[0].cores[0].cpus == (0, 1)
    assert t.caches == () and t.llc_of(0) is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.cpus = (0,)  # type: ignore[misc]
    with pytest.raises(TopologyError, match="cpus 2 belong to no core"):
        Topology(cpus=[0, 1, 2], sockets=[Socket(0, [core])], numa_nodes=[NumaNode(0, [0, 1, 2])], distances=[[10]])
    with pytest.raises(TopologyError, match="cpus 1 belong to no NUMA node"):
        Topology(cpus=[0, 1], sockets=[Socket(0, [core])], numa_nodes=[NumaNode(0, [0])], distances=[[10]])
    with pytest.raises(TopologyError, match="unknown cpu 5"):
        Topology(
            cpus=[0, 1],
            sockets=[Socket(0, [Core(0, 0, [0, 1, 5])])],
            numa_nodes=[NumaNode(0, [0, 1])],
            distances=[[10]],
        )


def test_helpers():
    t = topo("xeon-e5-2640v2-2x8")
    assert t.socket_of(17) == 0 and t.socket_of(24) == 1
    assert t.numa_node_of(9) == 1
    assert t.core_of(19) == Core(id=3, socket=0, cpus=(3, 19))
    assert t.cpus_of_node(1) == t.cpus_of_socket(1)
    assert len(t.cores) == 16
    assert t.distance(0, 1) == 20 and t.distance(1, 1) == 10
    l1d, l1i, l2, l3 = t.caches_of(8)
    assert (l1d.name, l1i.name, l2.name, l3.name) == ("L1d", "L1i", "L2", "L3")
    assert l1d.cpus == (8, 24) and l3.cpus == t.cpus_of_socket(1)
    assert t.llc_of(8) is l3
    with pytest.raises(ValueError, match=r"cpu 32 is not an online cpu .*\(online: 0-31\)"):
        t.core_of(32)
    with pytest.raises(ValueError, match=r"no socket 2 on this machine \(sockets: 0, 1\)"):
        t.cpus_of_socket(2)
    with pytest.raises(ValueError, match="no NUMA node 5"):
        t.distance(0, 5)


def _copy(name: str, tmp_path: Path) -> Path:
    dest = tmp_path / name
    shutil.copytree(tree(name), dest)
    return dest


def _one_line_error(root) -> str:
    with pytest.raises(TopologyError) as info:
        read_topology(root)
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    "name, rel",
    [
        ("vm-1x2", "devices/system/cpu/online"),
        ("vm-1x2", "devices/system/cpu/cpu1/topology/core_id"),
        ("vm-1x2", "devices/system/cpu/cpu0/topology/physical_package_id"),
        ("vm-1x2", "devices/system/cpu/cpu0/cache/index2/size"),
        ("vm-1x2", "devices/system/cpu/cpu1/cache/index0/shared_cpu_list"),
        ("xeon-e5-2640v2-2x8", "devices/system/node/node1/distance"),
        ("xeon-e5-2640v2-2x8", "devices/system/node/node0/cpulist"),
    ],
)
def test_missing_file_names_it(name, rel, tmp_path):
    root = _copy(name, tmp_path)
    (root / rel).unlink()
    assert _one_line_error(root) == f"sysfs tree {root}: missing {rel}"


def test_missing_or_empty_root(tmp_path):
    assert _one_line_error(tmp_path / "nope") == f"sysfs tree {tmp_path / 'nope'}: not a directory"
    assert _one_line_error(tmp_path) == f"sysfs tree {tmp_path}: missing devices/system/cpu/online"


def test_offline_cpu_needs_no_files(tmp_path):
    root = _copy("xeon-e5-2640v2-2x8-offline", tmp_path)
    shutil.rmtree(root / "devices/system/cpu/cpu7")
    assert read_topology(root) == topo("xeon-e5-2640v2-2x8-offline")


def _vm_files() -> dict[str, str]:
    return gen.files_for("vm-1x2")


def _e5_files() -> dict[str, str]:
    return gen.files_for("xeon-e5-2640v2-2x8")


@pytest.mark.parametrize(
    "files_of, rel, text, why",
    [
        (_vm_files, "devices/system/cpu/cpu1/topology/core_id", "one\n", "expected an integer, got 'one'"),
        (_vm_files, "devices/system/cpu/online", "0-x\n", "bad cpu list item '0-x' (ASCII digits 0-9 only)"),
        (_vm_files, "devices/system/cpu/online", "\n", "no online cpus"),
        (_vm_files, "devices/system/cpu/cpu0/cache/index3/size", "lots\n", "bad size 'lots'"),
        (
            _vm_files,
            "devices/system/cpu/cpu1/cache/index3/size",
            "1024K\n",
            "1 MiB but cpu 0 says this cache is 48 MiB",
        ),
        (_vm_files, "devices/system/cpu/cpu1/cache/index0/shared_cpu_list", "0\n", "does not include cpu 1 itself"),
        (_e5_files, "devices/system/node/node1/distance", "20\n", "1 distances for 2 online nodes"),
        (_e5_files, "devices/system/node/node1/distance", "20 ten\n", "expected integers, got '20 ten'"),
        (_e5_files, "devices/system/node/node1/cpulist", "0,8-15,24-31\n", "cpu 0 is already in node 0"),
    ],
)
def test_malformed_file_names_it(files_of, rel, text, why):
    files = files_of()
    files[rel] = text
    with pytest.raises(TopologyError) as info:
        parse_topology(files, source="mem")
    assert str(info.value) == f"sysfs tree mem: {rel}: {why}"


def test_cpu_in_no_node():
    files = _e5_files()
    files["devices/system/node/node1/cpulist"] = "8-15,24-30\n"
    with pytest.raises(TopologyError) as info:
        parse_topology(files)
    assert str(info.value) == ("sysfs tree <memory>: online cpu 31 in no devices/system/node/nodeN/cpulist")


def test_in_memory_machine_without_caches_or_present():
    files = {k: v for k, v in _e5_files().items() if "/cache/" not in k and not k.endswith("/present")}
    t = parse_topology(files)
    assert t.caches == () and t.llc_of(0) is None
    assert t.notes == ("no cache information in sysfs (devices/system/cpu/cpuN/cache missing)",)
    assert t.n_cpus == 32 and t.source == "<memory>"
    assert "caches" not in t.describe()


def test_memory_only_node():
    files = _e5_files()
    files["devices/system/node/online"] = "0-2\n"
    files["devices/system/node/node0/distance"] = "10 20 30\n"
    files["devices/system/node/node1/distance"] = "20 10 30\n"
    files["devices/system/node/node2/distance"] = "30 30 10\n"
    files["devices/system/node/node2/cpulist"] = "\n"
    t = parse_topology(files)
    assert [n.id for n in t.numa_nodes] == [0, 1, 2] and t.cpus_of_node(2) == ()
    assert t.distance(2, 0) == 30
    assert "  node 2: no cpus" in t.describe().splitlines()


def _cli(capsys, root, as_json=False) -> str:
    rc = cli.main(argparse.Namespace(sysfs=str(root), json=as_json))
    assert rc == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def test_cli_text(capsys):
    out = _cli(capsys, tree("xeon-e5-2640v2-2x8"))
    lines = out.splitlines()
    assert lines[1] == "  2 sockets, 16 cores, 32 hardware threads (2 per core), 2 NUMA nodes"
    assert "socket 0: 8 cores, cpus 0-7,16-23, node 0" in lines
    assert "  core 7: cpus 15,31" in lines
    assert "  L1d 32 KiB per core (16 instances)" in lines
    assert "  L1i 32 KiB per core (16 instances)" in lines
    assert "  L2 256 KiB per core (16 instances)" in lines
    assert "  L3 20 MiB shared by cpus 0-7,16-23 (socket 0)" in lines
    assert "  L3 20 MiB shared by cpus 8-15,24-31 (socket 1)" in lines
    assert "  node 1: cpus 8-15,24-31" in lines


@pytest.mark.parametrize("name", ALL)
def test_cli_distance_table_reads_back(name, capsys):
    lines = _cli(capsys, tree(name)).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("NUMA distances"))
    header = lines[start + 1].split()
    t = topo(name)
    assert header == ["node"] + [str(n.id) for n in t.numa_nodes]
    rows = [lines[start + 2 + i].split() for i in range(t.n_numa_nodes)]
    assert [int(r[0]) for r in rows] == [n.id for n in t.numa_nodes]
    assert tuple(tuple(int(v) for v in r[1:]) for r in rows) == t.distances


def test_cli_vm_notes(capsys):
    out = _cli(capsys, tree("vm-1x2"))
    assert "  L2 1.25 MiB per core (2 instances)" in out.splitlines()
    assert "  L3 48 MiB shared by cpus 0-1 (socket 0)" in out.splitlines()
    assert out.rstrip().endswith(
        "- no devices/system/node in sysfs (kernel without NUMA support): treated as one node holding all cpus"
    )


def test_cli_json(capsys):
    root = tree("xeon-e7l8867-8x10")
    out = _cli(capsys, root, as_json=True)
    d = json.loads(out)
    assert d == read_topology(root).to_dict()
    assert Topology.from_dict(d) == read_topology(root)
    assert '"cpus": [0, 80]' in out  # short lists stay on one line


def test_cli_register_and_errors(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="islands")
    cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["topology"])
    assert args.sysfs == "/sys" and args.json is False and args.func is cli.main
    args = parser.parse_args(["topology", "--sysfs", str(tree("vm-1x2")), "--json"])
    assert args.func(args) == 0
    assert json.loads(capsys.readouterr().out)["cpus"] == [0, 1]
    args = parser.parse_args(["topology", "--sysfs", str(tmp_path)])
    with pytest.raises(ValueError, match=r"^sysfs tree .*: missing devices/system/cpu/online$"):
        args.func(args)


def _host_has_sysfs() -> bool:
    return Path("/sys/devices/system/cpu/online").is_file()


@pytest.mark.skipif(not _host_has_sysfs(), reason="no Linux sysfs on this host")
def test_this_machine_reads():
    t = read_topology()
    assert t.n_cpus >= 1 and t.n_sockets >= 1 and t.n_numa_nodes >= 1
    assert Topology.from_dict(json.loads(json.dumps(t.to_dict()))) == t
    assert t.describe().startswith("topology of /sys")


@pytest.mark.skipif(not _host_has_sysfs(), reason="no Linux sysfs on this host")
@pytest.mark.skipif(shutil.which("lscpu") is None, reason="lscpu (util-linux) is not installed")
def test_this_machine_agrees_with_lscpu():
    proc = subprocess.run(["lscpu", "--online", "-p=CPU,CORE,SOCKET,NODE"], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"lscpu -p failed: {proc.stderr.strip()}")
    rows = [line.split(",") for line in proc.stdout.splitlines() if not line.startswith("#")]
    t = read_topology()
    assert sorted(int(r[0]) for r in rows) == list(t.cpus)

    def partition(key):
        groups: dict[tuple[str, ...], set[int]] = {}
        for r in rows:
            groups.setdefault(key(r), set()).add(int(r[0]))
        return sorted(sorted(g) for g in groups.values())

    # lscpu's CORE is a global logical index, so compare how cpus are grouped, not the ids.
    assert partition(lambda r: (r[2], r[1])) == sorted(sorted(c.cpus) for c in t.cores)
    assert partition(lambda r: (r[2],)) == sorted(sorted(s.cpus) for s in t.sockets)
    if all(r[3] != "" for r in rows):
        ours = sorted(sorted(n.cpus) for n in t.numa_nodes if n.cpus)
        assert partition(lambda r: (r[3],)) == ours
        assert sorted({int(r[3]) for r in rows}) == [n.id for n in t.numa_nodes if n.cpus]
    else:
        assert t.n_numa_nodes == 1


def test_to_json_is_json():
    value = {
        "a": [1, 2, [3]],
        "b": {"c": "x [1,  2]\n", "d": [], "e": {}},
        "f": [{"g": None, "h": [True, 1.5]}, {"i": {"j": 1}}],
        "k": ["y" * 120],
    }
    text = cli.to_json(value)
    assert json.loads(text) == value
    assert '{"g": null, "h": [true, 1.5]}' in text
