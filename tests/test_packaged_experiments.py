"""A wheel ships the experiment files and the figure catalog as package data, and ``islands
reproduce`` / ``sweep`` find them there when the working directory has no experiments/ (issue 49,
item 5). The wheel itself is built by the slow tests/test_wheel.py; here the lookup runs against a
made-up installed package (a directory with ``_data/`` and no checkout around it), and the
wheel's file mapping is computed by scikit-build-core's own functions from pyproject.toml."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

import islands.experiments.packaged as packaged
from islands.experiments.reproduce import experiments_for

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The package as a wheel lays it out: site-packages/islands/_data/{experiments,figures.md},
    no pyproject.toml beside it; the working directory is an empty one."""
    package = tmp_path / "site-packages" / "islands"
    data = package / "_data" / "experiments"
    data.mkdir(parents=True)
    for name in ("default.toml", "000-fig11-multisite.toml"):
        shutil.copy(REPO / "experiments" / name, data / name)
    shutil.copy(REPO / "docs" / "figures.md", package / "_data" / "figures.md")
    monkeypatch.setattr(packaged, "_PACKAGE", package)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return package


def test_a_checkout_finds_its_own_experiments_and_catalog():
    assert packaged.checkout_experiments_dir() == REPO / "experiments"
    assert packaged.packaged_experiments_dir() is None
    assert packaged.catalog_file() == REPO / "docs" / "figures.md"


def test_an_installed_package_finds_the_experiments_it_ships(installed):
    assert packaged.checkout_experiments_dir() is None
    assert packaged.default_experiments_dir() == installed / "_data" / "experiments"
    assert experiments_for("000-fig11") == [installed / "_data" / "experiments" / "000-fig11-multisite.toml"]
    assert packaged.catalog_file() == installed / "_data" / "figures.md"


def test_the_working_directorys_experiments_come_before_the_packaged_ones(installed):
    own = Path("experiments")
    own.mkdir()
    shutil.copy(REPO / "experiments" / "000-fig11-multisite.toml", own / "000-fig11-multisite.toml")
    assert packaged.experiment_search_dirs() == [own, installed / "_data" / "experiments"]
    assert experiments_for("000-fig11") == [own / "000-fig11-multisite.toml"]


@pytest.mark.parametrize("given", ["default", "default.toml", "experiments/default.toml"])
def test_a_sweep_names_a_shipped_experiment_as_the_readme_does(installed, given):
    assert packaged.experiment_file(given) == installed / "_data" / "experiments" / "default.toml"


def test_a_path_that_exists_is_taken_as_it_is(installed):
    Path("default.toml").write_text("name = 'mine'\n")
    assert packaged.experiment_file("default.toml") == Path("default.toml")
    assert packaged.experiment_file("nothing-like-it") == Path("nothing-like-it")


def test_reproduce_without_any_experiments_names_no_flag_the_user_did_not_pass(installed, cli_here):
    shutil.rmtree(installed / "_data" / "experiments")
    with pytest.raises(ValueError, match="no experiment files here") as e:
        experiments_for("000-fig11")
    assert "--experiments DIR" in str(e.value) and "no such directory" not in str(e.value)
    with pytest.raises(ValueError, match="--experiments elsewhere: no such directory"):
        experiments_for("000-fig11", "elsewhere")


def test_sweep_dry_run_of_a_shipped_experiment_from_an_empty_directory(installed, cli_here):
    out = cli_here("sweep", "experiments/default.toml", "--dry-run")
    assert out.returncode == 0, out.stderr
    assert "not in the working directory; running" in out.stdout and "_data/experiments/default.toml" in out.stdout
    missing = cli_here("sweep", "experiments/no-such.toml", "--dry-run")
    assert missing.returncode == 2 and "experiments/no-such.toml: cannot read the experiment file" in missing.stderr


def test_the_wheel_maps_the_experiments_and_catalog_into_the_package_and_the_editable_install_does_not(monkeypatch):
    monkeypatch.chdir(REPO)  # the build resolves the sources from the project's directory
    settings_reader = pytest.importorskip("scikit_build_core.settings.skbuild_read_settings")
    from scikit_build_core.build._editable import get_packages
    from scikit_build_core.build._pathutil import packages_to_file_mapping

    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    shipped = {}
    for state in ("wheel", "editable"):
        settings = settings_reader.SettingsReader(pyproject, {}, state=state).settings
        mapping = packages_to_file_mapping(
            packages=get_packages(packages=settings.wheel.packages, name="islands"),
            platlib_dir=Path("/platlib"),
            include=settings.sdist.include,
            src_exclude=settings.sdist.exclude,
            target_exclude=settings.wheel.exclude,
            build_dir=settings.build_dir,
            mode=settings.sdist.inclusion_mode or "default",
        )
        shipped[state] = {str(Path(t).relative_to("/platlib")) for t in mapping.values()}
    experiments = {f"islands/_data/experiments/{p.name}" for p in (REPO / "experiments").glob("*.toml")}
    assert experiments <= shipped["wheel"] and "islands/_data/figures.md" in shipped["wheel"]
    assert "islands/experiments/packaged.py" in shipped["wheel"]
    assert not any(t.startswith("islands/_data/") for t in shipped["editable"])
