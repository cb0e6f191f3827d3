"""Valid JSON for the command line: NaN and infinities become null, numpy scalars plain
numbers, paths strings (Python's ``json`` would write ``NaN``, which no JSON reader takes)."""

from __future__ import annotations

import json
import math
from pathlib import PurePath
from typing import Any

__all__ = ["dumps", "plain"]


def plain(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None, numpy scalars and arrays by
    Python numbers and lists, tuples by lists and paths by strings (recursively)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, PurePath):
        return str(value)
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):  # numpy scalar or array
        return plain(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return None
    return value


def dumps(value: Any, indent: int | None = 2) -> str:
    """``json.dumps`` of :func:`plain` ``(value)``; refuses NaN rather than writing it."""
    return json.dumps(plain(value), indent=indent, allow_nan=False, default=str)
