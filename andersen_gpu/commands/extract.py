"""Extract the constraints of a whole C/C++ program given as LLVM input.

INPUT files (``.bc``, ``.ll``, ``.c``, ``.cc``, ``.cpp``) are linked into one
program; sources are compiled with clang-19 (``-O0 -g`` then ``mem2reg``). A CUDA
program (a ``.cu`` source, or its host and device modules) is analysed host and
device together (``constraints.llvm.cuda``).
The constraint set is written to OUT in the format its name says (``.acs``,
``.acs.gz``, ``.npz``, or a paper dump's ``B_nodes.txt``). ``--stats`` prints
counts per kind and every external function called without a model (whose
effect on pointers is therefore not in the constraints). Read-only globals of
plain data (string literals, tables of numbers) are one object, ``<constant
data>``, unless ``--model-constants`` gives each its own. Objects that
pointer arithmetic in a loop may walk are collapsed to one node when solving
(``constraints.model``, ``collapse_cycles``), unless ``--keep-cycle-fields``.
"""

from __future__ import annotations

import argparse
import sys

from . import check_outputs

NAME = "extract"
HELP = "extract constraints from LLVM bitcode/IR or C/C++ sources"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", metavar="INPUT", nargs="+", help=".bc, .ll, .c, .cc, .cpp or .cu files (linked)")
    parser.add_argument("-o", "--output", metavar="OUT", required=True,
                        help="output constraint set (.acs, .acs.gz, .npz, or B_nodes.txt[.gz])")
    parser.add_argument("--stats", action="store_true",
                        help="print counts per kind and the list of unmodelled external functions")
    parser.add_argument("--cflag", action="append", default=[], metavar="FLAG",
                        help="extra clang flag for C/C++ inputs (repeatable), e.g. --cflag=-Iinclude")
    parser.add_argument("--model-constants", action="store_true",
                        help="one object per read-only global of plain data (string literal, table of numbers), "
                             "not one <constant data> object for all")
    parser.add_argument("--keep-cycle-fields", action="store_true",
                        help="keep every slot of an object that pointer arithmetic in a loop may walk, instead of "
                             "collapsing it to one node when solving (larger sets)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from constraints import io
    from constraints.llvm import extract_with_stats

    from ..cli import ExitCode

    check_outputs(io.output_files(args.output), args.inputs)  # a bad output fails before the work
    progress = None
    if not args.no_progress and sys.stderr.isatty():
        from functools import partial

        from tqdm import tqdm
        progress = partial(tqdm, desc="extract", unit=" lines", unit_scale=True, leave=False)
    cs, stats = extract_with_stats(args.inputs, clang_flags=args.cflag, progress=progress,
                                   model_constants=args.model_constants,
                                   collapse_cycles=not args.keep_cycle_fields)
    written = io.save(cs, args.output)
    print(f"extracted {', '.join(args.inputs)}: {stats.instructions:,} instructions, {cs.n_nodes:,} nodes, "
          f"{cs.n_constraints:,} constraints, {len(stats.unmodelled_calls)} unmodelled external functions "
          f"-> {', '.join(map(str, written))}")
    if args.stats:
        for line in stats.lines():
            print(line)
    return ExitCode.OK
