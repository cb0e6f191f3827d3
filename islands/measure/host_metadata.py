"""Host and build metadata that travels with every result row."""

from __future__ import annotations

import datetime
import os
import platform
import socket
from pathlib import Path
from typing import Any

from islands import _core
from islands.analysis.revision import git_revision, package_version


def _cpuinfo(text: str | None = None) -> dict[str, str]:
    """The first processor's fields of /proc/cpuinfo (``text``: its contents, for tests)."""
    if text is None:
        try:
            text = Path("/proc/cpuinfo").read_text()
        except OSError:
            return {}
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break  # the first processor's block is enough
            continue
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip(), value.strip())
    return fields


def cpu_identity(text: str | None = None) -> dict[str, Any]:
    """What identifies the processor, from /proc/cpuinfo: ``cpu_brand`` (the brand string the
    processor, or the hypervisor, reports: "AMD EPYC" under some VMs), ``cpu_vendor``,
    ``cpu_family``, ``cpu_model_number``, ``cpu_stepping``, ``cpu_microcode`` (x86), or the
    implementer and part (ARM); absent fields are None. ``cpu_model`` is the full string a
    figure names: the brand string, followed by the vendor, family, model and stepping where the
    brand string names no model number (``AMD EPYC (AuthenticAMD family 25 model 17 stepping
    1)``), so that two machines a hypervisor names alike are told apart."""
    info = _cpuinfo(text)
    brand = info.get("model name") or info.get("Model name") or ""
    vendor = info.get("vendor_id") or info.get("CPU implementer")
    family = info.get("cpu family") or info.get("CPU architecture")
    model = info.get("model") or info.get("CPU part")
    stepping = info.get("stepping") or info.get("CPU revision")
    if "CPU implementer" in info:  # ARM: implementer and part, in the kernel's hex
        signature = f"implementer {vendor} part {model} revision {stepping}"
    else:
        signature = " ".join(
            part for part in (vendor, f"family {family}" if family else "", f"model {model}" if model else "",
                              f"stepping {stepping}" if stepping else "") if part
        )  # fmt: skip
    if not brand and not signature:
        brand = platform.processor() or ""
    if brand and signature and not any(c.isdigit() for c in brand):
        full = f"{brand} ({signature})"
    else:
        full = brand or signature or "unknown"
    return {
        "cpu_model": full,
        "cpu_brand": brand or None,
        "cpu_vendor": vendor,
        "cpu_family": family,
        "cpu_model_number": model,
        "cpu_stepping": stepping,
        "cpu_microcode": info.get("microcode"),
    }


def cpu_model() -> str:
    """The processor's full model string (:func:`cpu_identity`)."""
    return str(cpu_identity()["cpu_model"])


def collect_metadata() -> dict[str, Any]:
    """Everything about the host, the build and the source that a result needs to be read later."""
    build = _core.build_info()
    return {
        "hostname": socket.gethostname(),
        "kernel": platform.release(),
        "os": platform.platform(),
        "python": platform.python_version(),
        **cpu_identity(),
        "n_online_cpus": os.cpu_count(),
        "git_revision": git_revision(),
        "compiler": build["compiler"],
        "compiler_flags": build["flags"],
        "build_type": build["build_type"],
        "islands_version": package_version(),
        "timestamp_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
