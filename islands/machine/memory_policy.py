"""Binding an instance process's memory to the NUMA nodes of its cores (set_mempolicy(2)).

Called through the system call with ctypes, so there is no dependency on libnuma.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Iterable

MPOL_BIND = 2
#: set_mempolicy system call numbers per machine architecture.
SYS_SET_MEMPOLICY = {"x86_64": 238, "aarch64": 237, "ppc64le": 261, "s390x": 270, "riscv64": 237}


def node_mask(nodes: Iterable[int]) -> tuple[list[int], int]:
    """The nodemask words (64 bits each) for `nodes` and the maxnode argument."""
    nodes = sorted(set(nodes))
    if not nodes or nodes[0] < 0:
        raise ValueError(f"numa nodes: need node ids >= 0, got {nodes}")
    words = [0] * (nodes[-1] // 64 + 1)
    for node in nodes:
        words[node // 64] |= 1 << (node % 64)
    return words, len(words) * 64 + 1


def bind_memory(nodes: Iterable[int]) -> str | None:
    """Binds the calling process's future allocations to `nodes` (MPOL_BIND).

    Returns None on success, else the reason it could not (never raises for a missing
    capability: the caller records the reason as a warning).
    """
    number = SYS_SET_MEMPOLICY.get(platform.machine())
    if number is None:
        return f"set_mempolicy: unknown system call number on {platform.machine()}"
    words, maxnode = node_mask(nodes)
    libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols, libc's among them
    mask = (ctypes.c_ulong * len(words))(*words)
    if libc.syscall(number, MPOL_BIND, mask, ctypes.c_ulong(maxnode)) != 0:
        err = ctypes.get_errno()
        return f"set_mempolicy(MPOL_BIND, nodes {sorted(set(nodes))}) failed: {os.strerror(err)}"
    return None
