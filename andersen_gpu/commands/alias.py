"""Write alias facts for a program: a side file keyed by instruction.

INPUT files (``.bc``, ``.ll``, ``.c``, ``.cc``, ``.cpp``) are linked into one
program, its constraints solved, and every load, store, atomic, memory
intrinsic and call gets the set of abstract locations it may read or write
(-1 when the analysis cannot bound it). OUT ends in ``.parquet`` or
``.jsonl``; three tables are written: OUT (one row per instruction, keyed by
function, block, index in block, with ``file:line``), OUT's ``.sets`` sibling
(the locations of each set) and its ``.pairs`` sibling (the may-alias pairs of
sets within each function). The schema is in
:mod:`andersen_gpu.aliasfacts.tables` and in the README.
"""

from __future__ import annotations

import argparse

from . import add_backend_argument, check_outputs, note

NAME = "alias"
HELP = "write per-instruction alias facts (Parquet or JSON Lines side file)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", metavar="INPUT", nargs="+", help=".bc, .ll, .c, .cc, .cpp or .cu files (linked)")
    parser.add_argument("-o", "--output", metavar="OUT", required=True,
                        help="facts file, .parquet or .jsonl (two sibling files are written beside it)")
    add_backend_argument(parser)
    parser.add_argument("--cflag", action="append", default=[], metavar="FLAG",
                        help="extra clang flag for C/C++ inputs (repeatable)")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from ..aliasfacts import analyze
    from ..aliasfacts.tables import side_paths, write
    from ..cli import ExitCode

    check_outputs(side_paths(args.output).values(), args.inputs)  # a bad output fails before the work
    facts, cs, solution, _ = analyze(args.inputs, backend=args.backend, clang_flags=args.cflag, announce=note)
    written = write(facts, args.output)
    kinds = np.asarray(facts.sites.kind, dtype=object)
    known = facts.site_set >= 0
    access = kinds != "call"
    print(f"{len(facts.sites):,} sites ({int(access.sum()):,} memory accesses, {int((~access).sum()):,} calls); "
          f"unknown: {int((access & ~known).sum()):,} accesses, {int((~access & ~known).sum()):,} calls; "
          f"{facts.n_sets:,} distinct location sets -> {', '.join(map(str, written.values()))}")
    return ExitCode.OK
