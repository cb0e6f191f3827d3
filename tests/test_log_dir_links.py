"""A log directory that lies under a symbolic link is refused as one that is a link already was
(issue 48): ``--log-dir PARENTLINK/logs``, ``[log] directory = LINK`` in an experiment file, and
any run's log directory made ready under a linked parent, each in one line naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from islands.__main__ import build_parser
from islands.analysis.guarded_files import linked_component
from islands.cli.option_checks import check_run_options
from tiny_spec import TINY


@pytest.fixture()
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """A real directory and a link to it."""
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    return real, link


def test_the_first_linked_component_is_found(linked: tuple[Path, Path]) -> None:
    real, link = linked
    assert linked_component(real / "logs") is None and linked_component(real) is None
    assert linked_component(link) == link and linked_component(link / "logs" / "deeper") == link


def test_log_dir_under_a_linked_parent_is_refused(linked: tuple[Path, Path]) -> None:
    real, link = linked
    args = build_parser().parse_args(["run", "--log", "group_commit", "--log-dir", str(link / "logs")])
    with pytest.raises(ValueError) as refused:
        check_run_options(args)
    assert str(refused.value) == (
        f"--log-dir {link / 'logs'} lies under a symbolic link, {link} (refused: name the directory itself, "
        f"{real / 'logs'})"
    )
    args = build_parser().parse_args(["run", "--log", "group_commit", "--log-dir", str(link)])
    with pytest.raises(ValueError, match=rf"^--log-dir {link} is a symbolic link \(refused"):
        check_run_options(args)
    check_run_options(build_parser().parse_args(["run", "--log", "group_commit", "--log-dir", str(real / "logs")]))


def test_log_directory_link_in_an_experiment_file_is_refused(tmp_path: Path, linked: tuple[Path, Path]) -> None:
    from islands.experiments.sweep import load_spec

    real, link = linked
    for named, words in ((link, "is a symbolic link"), (link / "sub", f"lies under a symbolic link, {link}")):
        (real / "sub").mkdir(exist_ok=True)
        spec = tmp_path / "exp.toml"
        spec.write_text(TINY + f'\n[log]\nmode = "group_commit"\ndirectory = "{named}"\n')
        with pytest.raises(ValueError) as refused:
            load_spec(spec)
        message = str(refused.value)
        assert "\n" not in message and "log.directory" in message and words in message, message
    spec.write_text(TINY + f'\n[log]\nmode = "group_commit"\ndirectory = "{real}"\n')
    assert load_spec(spec).name == "tiny"


def test_a_run_s_log_directory_under_a_link_is_refused_before_anything_is_made(linked: tuple[Path, Path]) -> None:
    from islands.execution.log_files import prepare_log_directory

    real, link = linked
    with pytest.raises(ValueError, match=rf"^log.directory: {link}/islands-log-1 lies under a symbolic link, {link}"):
        prepare_log_directory(str(link / "islands-log-1"), [1], recover=False)
    assert list(real.iterdir()) == []  # nothing made through the link
