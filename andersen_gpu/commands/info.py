"""Print a summary of a constraint set: its format, node and constraint counts, objects, merges."""

from __future__ import annotations

import argparse

from . import add_input_arguments, load_input

NAME = "info"
HELP = "summarise a constraint set"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from constraints import io

    from ..cli import ExitCode

    fmt = io.detect_format(args.input)
    cs = load_input(args)
    print(f"file: {args.input}")
    print(f"format: {fmt}")
    print(cs.summary())
    return ExitCode.OK
