"""Options of `islands run` that would do nothing in the combination given are refused in one
line naming the flag (issue 48)."""

from __future__ import annotations

import pytest

from islands.__main__ import build_parser
from islands.cli.option_checks import check_run_options


def _args(*argv: str):
    return build_parser().parse_args(["run", *argv])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--client-count", "8"], "--client-count: only with --clients closed (here --clients workers"),
        (["--think-us", "5"], "--think-us: only with --clients closed"),
        (["--clients", "open", "--offered-rate", "1000", "--think-us", "5"], "--think-us: only with --clients closed"),
        (["--offered-rate", "1000", "--clients", "closed"], "--offered-rate: only with --clients open"),
        (["--log-dir", "/tmp/x"], "--log-dir: only with --log"),
    ],
)
def test_an_option_that_would_do_nothing_is_refused(argv, message):
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")) as e:
        check_run_options(_args(*argv))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--clients", "closed", "--client-count", "8", "--think-us", "5"],
        ["--clients", "open", "--offered-rate", "1000"],
        ["--log", "group_commit", "--log-dir", "/tmp/x"],
        ["--think-us", "0"],  # the default: nothing asked for
    ],
)
def test_options_that_take_effect_pass(argv):
    check_run_options(_args(*argv))
