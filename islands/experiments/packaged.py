"""Where experiment files and the figure catalog are found, in a checkout and in an installed wheel.

A source checkout has them at ``experiments/`` and ``docs/figures.md``; a wheel carries copies as
package data (``islands/_data/experiments/`` and ``islands/_data/figures.md``, mapped in
pyproject.toml's ``[tool.scikit-build.wheel.packages]``), so that ``islands reproduce`` and
``islands sweep`` of a shipped experiment work from a wheel installed outside the repository.

The experiment files are looked up, in order: ``experiments/`` of the checkout the package runs
from, ``experiments/`` in the working directory (a user's own repository), the packaged copy.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "catalog_file",
    "checkout_experiments_dir",
    "default_experiments_dir",
    "experiment_file",
    "experiment_search_dirs",
    "packaged_experiments_dir",
]

#: The installed package's directory; its ``_data/`` holds what a wheel ships (pyproject.toml maps
#: the repository's files there).
_PACKAGE = Path(__file__).resolve().parents[1]


def checkout_experiments_dir() -> Path | None:
    """``experiments/`` of the source checkout the package is imported from (None from a wheel)."""
    repo = _PACKAGE.parent
    found = repo / "experiments"
    return found if found.is_dir() and (repo / "pyproject.toml").is_file() else None


def packaged_experiments_dir() -> Path | None:
    """The experiment files shipped inside the package (a wheel), or None (a checkout)."""
    found = _PACKAGE / "_data" / "experiments"
    return found if found.is_dir() else None


def experiment_search_dirs() -> list[Path]:
    """The directories experiment files are looked up in, first match first (see the module)."""
    dirs = [checkout_experiments_dir(), Path("experiments") if Path("experiments").is_dir() else None]
    dirs.append(packaged_experiments_dir())
    out: list[Path] = []
    for d in dirs:
        if d is not None and d not in out:
            out.append(d)
    return out


def default_experiments_dir() -> Path | None:
    """The first of :func:`experiment_search_dirs`, or None where there is none."""
    dirs = experiment_search_dirs()
    return dirs[0] if dirs else None


def experiment_file(given: str | Path) -> Path:
    """The experiment file ``given`` names: the path itself where it exists; otherwise a file of
    that name (``.toml`` added where missing, any leading ``experiments/`` dropped) in
    :func:`experiment_search_dirs`, so that ``islands sweep experiments/default.toml`` and
    ``islands sweep default`` both run the packaged file from a wheel. Where nothing matches, the
    path as given (loading it then says it cannot be read)."""
    path = Path(given)
    if path.exists():
        return path
    name = path.name if path.suffix == ".toml" else f"{path.name}.toml"
    parts = path.parts
    relative = Path(*parts[1:]) if len(parts) > 1 and parts[0] == "experiments" else Path(*parts)
    for directory in experiment_search_dirs():
        for candidate in (directory / relative.with_name(name), directory / name):
            if candidate.is_file():
                return candidate
    return path


def catalog_file() -> Path | None:
    """The figure catalog (docs/figures.md of the checkout, or the copy shipped in a wheel), or None."""
    checkout = _PACKAGE.parent / "docs" / "figures.md"
    if checkout.is_file() and (_PACKAGE.parent / "pyproject.toml").is_file():
        return checkout
    packaged = _PACKAGE / "_data" / "figures.md"
    return packaged if packaged.is_file() else None
