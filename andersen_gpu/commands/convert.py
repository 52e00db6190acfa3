"""Convert a constraint set between formats.

The output format follows the name of OUT: ``.acs`` or ``.acs.gz`` (our text
format), ``.npz`` (ours, compact), or ``B_nodes.txt[.gz]`` (the paper's dump:
the nodes file plus ``B_constraints_after_hcd`` and ``B_hcd`` beside it).
Files are written atomically: on any error none is left behind.
"""

from __future__ import annotations

import argparse

from . import add_input_arguments, check_outputs, load_input

NAME = "convert"
HELP = "convert a constraint set between formats"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="output file: .acs, .acs.gz, .npz or B_nodes.txt[.gz]")


def run(args: argparse.Namespace) -> int:
    from constraints import io

    from ..cli import ExitCode

    fmt = io.output_format(args.output)  # fail on a bad name before reading anything
    check_outputs(io.output_files(args.output, fmt), [args.input])
    cs = load_input(args)
    for path in io.save(cs, args.output, format=fmt):
        print(f"wrote {path}")
    return ExitCode.OK
