"""The command line: ``islands <command>`` (or ``python -m islands <command>``); bad input is one
line on stderr, exit 2. With no command, the help goes to stderr with exit status 2: a missing
command is a usage error, as argparse treats every missing required argument."""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from typing import Any

#: Subcommands, one module each in islands/cli/, each with register(subparsers).
COMMANDS = (
    "run",
    "check",
    "topology",
    "system",
    "sweep",
    "bench",
    "plot",
    "reproduce",
    "gallery",
    "results",
    "compare",
    "pmu",
    "calibrate",
    "advise",
    "server-check",
)

_DOUBLE_BACKTICKS = re.compile(r"``([^`]+)``")


def plain(text: str) -> str:
    """Help text without the docstrings' reStructuredText markup (````code```` → ``code``)."""
    return _DOUBLE_BACKTICKS.sub(r"\1", text)


class HelpFormatter(argparse.HelpFormatter):
    """Lists an option's choices in its help when its metavar hides them (``--transport NAME``
    shows ``choices: unix, shm``), and prints the text without docstring markup."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.choices is not None and action.metavar is not None and not isinstance(action.choices, dict):
            names = [str(c) for c in action.choices]
            if not all(name in text for name in names):
                text += f" (choices: {', '.join(names)})"
        return plain(text) if text else action.help

    def _format_text(self, text: str) -> str:
        return super()._format_text(plain(text))


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit status 2, and whose
    subcommands share its help formatter."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"islands: error: {message} (see {self.prog} --help)\n")


def version_text() -> str:
    """``islands <version> (git <revision>)``: the package version and the source revision."""
    from islands.analysis.revision import git_revision, package_version

    return f"islands {package_version()} (git {git_revision()})"


class _VersionAction(argparse.Action):
    """``--version``: prints :func:`version_text` (computed only when asked) and exits 0."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(version_text())
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    """The parser with every subcommand registered."""
    parser = OneLineParser(
        prog="islands",
        description="How should an OLTP engine be deployed on this hardware? Run the engine, sweep "
        "deployments, and draw the papers' figures. 'islands COMMAND --help' for each command.",
    )
    parser.add_argument("--version", action=_VersionAction, help="print the version and git revision, and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"islands.cli.{name.replace('-', '_')}_command").register(sub)
    parser.set_defaults(func=None, help_parser=parser)
    return parser


#: Commands that make run directories, logs or profiles: each starts by removing those of
#: processes that ended without removing theirs (islands.execution.stale_files).
MAKES_FILES = frozenset({"run", "sweep", "bench", "reproduce", "calibrate", "pmu"})


def _remove_stale_files() -> None:
    from islands.execution.stale_files import describe_removed, remove_stale_files

    line = describe_removed(remove_stale_files())
    if line:
        print(f"note: {line}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Runs one command; returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.func is None:  # no (sub)command: the help of the level that needs one
        args.help_parser.print_help(sys.stderr)
        return 2
    from islands.execution.stop_signals import Terminated, stop_signals

    try:
        with stop_signals():  # SIGTERM and SIGHUP stop it as Ctrl-C does, cleanup included
            if args.command in MAKES_FILES:
                _remove_stale_files()
            return args.func(args)
    except Terminated as stop:
        print(f"islands: terminated by {stop.name}", file=sys.stderr)
        return stop.exit_status
    except ValueError as error:  # bad input: config, CPUs, sysfs trees, experiment files
        print(f"islands: error: {error}", file=sys.stderr)
        return 2
    except RecursionError:  # input nested too deep for the parsers
        print("islands: error: input nested too deeply", file=sys.stderr)
        return 2
    except RuntimeError as error:  # a run that failed while running
        print(f"islands: failed: {error}", file=sys.stderr)
        return 1
    except MemoryError:  # an allocation the admission check did not foresee: one line all the same
        print("islands: failed: out of memory (lower the load's size or use fewer cores)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("islands: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``… | head``): stop quietly, like cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 141
    except OSError as error:  # a file or directory the command needed: one line naming it
        where = f"{error.filename}: " if error.filename else ""
        print(f"islands: failed: {where}{error.strerror or error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
