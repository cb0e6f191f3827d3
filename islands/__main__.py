"""The command line: ``python -m islands <command>``; bad input is one line on stderr, exit 2."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

#: Subcommands, one module each in islands/cli/, each with register(subparsers).
COMMANDS = ("run", "check", "topology", "sweep", "bench", "plot", "pmu", "results", "compare")


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"islands: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser with every subcommand registered."""
    parser = OneLineParser(prog="islands", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"islands.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Runs one command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as error:  # bad input: config, CPUs, sysfs trees, experiment files
        print(f"islands: error: {error}", file=sys.stderr)
        return 2
    except RuntimeError as error:  # a run that failed while running
        print(f"islands: failed: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("islands: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``… | head``): stop quietly, like cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 141


if __name__ == "__main__":
    sys.exit(main())
