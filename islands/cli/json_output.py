"""JSON text for ``--json``: strict JSON that any parser reads.

Results hold NaN for what could not be measured (a counter the machine lacks, a latency with
no samples); Python's ``json`` writes that as the bare word ``NaN``, which is not JSON. Here a
missing number is ``null``, numpy and pandas scalars become plain numbers, paths and other
objects their text, and the output is checked with ``allow_nan=False`` so nothing non-standard
gets through.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["dumps"]


def dumps(value: Any, indent: int | None = 2) -> str:
    """Strict JSON text of ``value``: NaN and infinities (Python, numpy or pandas) as ``null``,
    numpy scalars and arrays as numbers and lists, tuples and sets as lists, mapping keys as
    strings, anything else (paths, timestamps) as its ``str``."""
    return json.dumps(_plain(value), indent=indent, allow_nan=False)


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    tolist = getattr(value, "tolist", None)  # numpy scalars and arrays, pandas arrays
    if callable(tolist):
        return _plain(tolist())
    if _is_missing(value):  # pandas.NA, NaT
        return None
    return str(value)


def _is_missing(value: Any) -> bool:
    try:
        import pandas as pd

        return bool(pd.isna(value))
    except (ImportError, TypeError, ValueError):
        return False
